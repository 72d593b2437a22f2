/* network_int.h - the network's value (network.h) in the arithmetic the
 * search runs: the first layer in int16, the output layer in int16 with an
 * exact integer sum, and SIMD chosen at run time.
 *
 * Quantised at load from the float weights (xen_net_quantise; network files
 * are unchanged): with S = the scale of the first layer,
 *
 *     S    = min(32767, floor(32767 / m)),  m = the largest sum of |w| over
 *            the inputs of one hidden unit's column of w_own or w_enemy
 *     qw   = round(w * S)  (int16; row i of an input: qw_own[i] | qw_enemy[i])
 *     qout = round(output * So),  So = 32767 / max |output|  (int16)
 *
 * A side's half-sums sum_i v_i * qw[i][j] are taken in int16 wrapping
 * arithmetic (uint16 lanes): modulo 2^16 the sum is exact in any order, so it
 * is the true sum whenever that lies within int16, which m guarantees while
 * no input exceeds 1 and trained networks keep by a wide margin (a shipped
 * network: |half-sum| at most 6.1 against m = 13.7 on 10,000 positions).
 * The raw inputs are whole numbers (counts; both games' net_side), taken as
 * int16. The features' part, x . w_feature (x fractional), is summed in float
 * with rows scaled by S, each lane in the order of the features; with the
 * bias and phase it is rounded to an integer, so
 *
 *     qa_j = half-sums_j + round(S * (bias_j + ph * phase_j) +- f_j)
 *     qh_j = clamp(qa_j, 0, S),  z = linear + sum_j qout_j (qh_mine_j - qh_theirs_j) / (S So)
 *
 * Every step but the float features is exact integer arithmetic, and the
 * float one is lane by lane (no fused multiply-add: ISO C's default
 * -ffp-contract=off), so every path gives the same bits; swapping the sides
 * swaps the integer halves and negates f exactly, so the value stays exactly
 * antisymmetric. tests/test_network_int.py bounds the difference from the
 * float reference (xenophon.lab.network) and checks the paths agree.
 *
 * The paths: AVX-512 (BW), AVX2 and a portable one (GCC and Clang's generic
 * vectors, 16 bytes: SSE2 on any x86-64, NEON on ARM), chosen at load with
 * __builtin_cpu_supports, so one build runs on any x86-64 (no -march).
 */
#ifndef XENOPHON_NETWORK_INT_H
#define XENOPHON_NETWORK_INT_H

#include <math.h>
#include <stdint.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define XEN_NET_X86 1
#else
#define XEN_NET_X86 0
#endif

/* The SIMD paths, in XenNetwork.path. */
enum { XEN_NET_PORTABLE = 0, XEN_NET_AVX2 = 1, XEN_NET_AVX512 = 2, XEN_NET_PATHS = 3 };

static const char *const xen_net_path_names[XEN_NET_PATHS] = {"portable", "avx2", "avx512"};

/* Hidden units padded to a multiple of this (a half-row is whole blocks). */
enum { XEN_NET_PAD = 32, XEN_NET_BLOCK_INTS = 64 /* int16 lanes summed in registers at once */ };
#define XEN_NET_PADDED(h) (((h) + XEN_NET_PAD - 1) / XEN_NET_PAD * XEN_NET_PAD)

/* Whether this machine runs `path`. */
static inline int xen_net_path_runs(int path) {
#if XEN_NET_X86
    if (path == XEN_NET_AVX2) return __builtin_cpu_supports("avx2");
    if (path == XEN_NET_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
    return path == XEN_NET_PORTABLE;
}

/* The fastest path this machine runs. */
static inline int xen_net_best_path(void) {
    for (int path = XEN_NET_PATHS - 1; path > XEN_NET_PORTABLE; path--)
        if (xen_net_path_runs(path)) return path;
    return XEN_NET_PORTABLE;
}

/* NAME(acc, rows, width, index, value, count): acc[0..width) += scalar_of(value[k])
 * * rows[index[k] * width ..][0..width) for k < count, each lane summed in the
 * order of k, on vectors of BYTES bytes of T (GCC and Clang's generic vectors,
 * loaded and stored at any alignment). A block of BLOCK lanes is kept in
 * registers while every row passes; width is whole blocks. */
#define XEN_NET_ROWS(NAME, attributes, BYTES, T, BLOCK, scalar_of) \
    typedef T NAME##_vec __attribute__((vector_size(BYTES))); \
    typedef T NAME##_any __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
    attributes static inline void NAME(T *acc, const T *rows, int width, const uint16_t *index, \
                                       const float *value, int count) { \
        enum { NB = (BLOCK) * (int)sizeof(T) / (BYTES) }; \
        for (int b0 = 0; b0 < width; b0 += (BLOCK)) { \
            NAME##_any *out = (NAME##_any *)(acc + b0); \
            NAME##_vec sum[NB]; \
            for (int b = 0; b < NB; b++) sum[b] = out[b]; \
            for (int k = 0; k < count; k++) { \
                const NAME##_any *row = (const NAME##_any *)(rows + (size_t)index[k] * width + \
                                                             b0); \
                const T v = scalar_of(value[k]); \
                for (int b = 0; b < NB; b++) { \
                    NAME##_vec product = row[b] * v; \
                    sum[b] += product; \
                } \
            } \
            for (int b = 0; b < NB; b++) out[b] = sum[b]; \
        } \
    }

/* A raw input's value as a whole number, and a feature's as it is. */
#define XEN_NET_WHOLE(v) ((uint16_t)(int)(v))
#define XEN_NET_AS_IS(v) (v)

/* The first layer's sums on one path (suffix), vectors of BYTES bytes:
 *   xen_net_add_side_SUFFIX: the raw inputs' rows, uint16 lanes (wrapping)
 *   xen_net_add_features_SUFFIX: the features' rows, float lanes
 *   xen_net_finish_SUFFIX: the output layer's sum */
/* xen_net_finish_SUFFIX: the sum over the units j < p of
 * out_j * (qh_mine_j - qh_theirs_j) (see the top of this file) from the
 * accumulators acc (4p: mine_own, theirs_enemy, theirs_own, mine_enemy), the
 * features' f, S * bias and S * phase, in int32 lanes (the caller's scales keep
 * it within int32) and float lanes for the rounding. */
#define XEN_NET_FINISH(suffix, attributes, BYTES) \
    typedef int32_t XenNetI_##suffix __attribute__((vector_size(BYTES))); \
    typedef float XenNetF_##suffix __attribute__((vector_size(BYTES), aligned(4), may_alias)); \
    typedef int16_t XenNetH_##suffix \
        __attribute__((vector_size((BYTES) / 2), aligned(2), may_alias)); \
    attributes static inline XenNetI_##suffix xen_net_rounded_##suffix(XenNetF_##suffix x) { \
        const float magic = 12582912.0f; /* 1.5 * 2^23: x + magic rounds x to a whole number */ \
        XenNetF_##suffix shifted = x + magic; \
        return __builtin_convertvector(shifted - magic, XenNetI_##suffix); \
    } \
    attributes static inline XenNetI_##suffix xen_net_wide_##suffix(const void *int16s) { \
        return __builtin_convertvector(*(const XenNetH_##suffix *)int16s, XenNetI_##suffix); \
    } \
    attributes static inline XenNetI_##suffix xen_net_clamped_##suffix(XenNetI_##suffix a, \
                                                                       int32_t top) { \
        a &= a > 0; \
        return a - ((a - top) & (a > top)); \
    } \
    attributes static inline int32_t xen_net_finish_##suffix( \
        const uint16_t *acc, const float *f, const float *bias, const float *phase, float ph, \
        const int16_t *out, int32_t top, int p) { \
        enum { L = (BYTES) / 4 }; \
        XenNetI_##suffix sum = {0}; \
        for (int j = 0; j < p; j += L) { \
            XenNetF_##suffix base = *(const XenNetF_##suffix *)(phase + j) * ph; \
            base += *(const XenNetF_##suffix *)(bias + j); \
            XenNetF_##suffix fj = *(const XenNetF_##suffix *)(f + j); \
            XenNetI_##suffix mine = xen_net_wide_##suffix(acc + j) + \
                                    xen_net_wide_##suffix(acc + 3 * p + j) + \
                                    xen_net_rounded_##suffix(base + fj); \
            XenNetI_##suffix theirs = xen_net_wide_##suffix(acc + 2 * p + j) + \
                                      xen_net_wide_##suffix(acc + p + j) + \
                                      xen_net_rounded_##suffix(base - fj); \
            mine = xen_net_clamped_##suffix(mine, top); \
            theirs = xen_net_clamped_##suffix(theirs, top); \
            sum += xen_net_wide_##suffix(out + j) * (mine - theirs); \
        } \
        int32_t total = 0; \
        for (int l = 0; l < L; l++) total += sum[l]; \
        return total; \
    }

#define XEN_NET_KERNELS(suffix, attributes, BYTES) \
    XEN_NET_ROWS(xen_net_add_side_##suffix, attributes, BYTES, uint16_t, XEN_NET_BLOCK_INTS, \
                 XEN_NET_WHOLE) \
    XEN_NET_ROWS(xen_net_add_features_##suffix, attributes, BYTES, float, XEN_NET_PAD, \
                 XEN_NET_AS_IS) \
    XEN_NET_FINISH(suffix, attributes, BYTES)

XEN_NET_KERNELS(portable, , 16)
#if XEN_NET_X86
XEN_NET_KERNELS(avx2, __attribute__((target("avx2"))), 32)
XEN_NET_KERNELS(avx512, __attribute__((target("avx512f,avx512bw"))), 64)
#endif

/* The kernel `kernel` (xen_net_add_side, xen_net_add_features, xen_net_finish) on `path`. */
#if XEN_NET_X86
#define XEN_NET_ON(path, kernel, ...) \
    ((path) == XEN_NET_AVX512 ? kernel##_avx512(__VA_ARGS__) \
     : (path) == XEN_NET_AVX2 ? kernel##_avx2(__VA_ARGS__) \
                              : kernel##_portable(__VA_ARGS__))
#else
#define XEN_NET_ON(path, kernel, ...) kernel##_portable(__VA_ARGS__)
#endif

#endif
