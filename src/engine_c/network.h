/* network.h - the sparse-input value network both games may load (eval=net),
 * in the manner of NNUE: raw inputs of each side (per card, per zone; hundreds,
 * mostly zero) beside the learned evaluation's features (learned.h).
 *
 * A game describes each side of a world by the same list of n_inputs raw
 * numbers (its net_inputs function, in its folder): the evaluating player's
 * side "own", the other seat's "enemy", both read from the world evaluated.
 * Inside the search that world is one sampled from the searcher's
 * information, as for the features, so nothing hidden leaks. With x the
 * features (own minus enemy: odd under the swap of the sides) and
 * ph = min(turn, taper_turns) / taper_turns,
 *
 *     a_j(own, enemy, x) = sum_i own[i] * w_own[i][j] + sum_i enemy[i] * w_enemy[i][j]
 *                        + sum_k x[k] * w_feature[k][j] + bias[j] + ph * phase[j]
 *     h_j(own, enemy, x) = clamp(a_j, 0, 1)                       (clipped ReLU)
 *     z     = sum_k ((1 - ph) * opening[k] + ph * ending[k]) * x[k]
 *           + sum_j output[j] * (h_j(own, enemy, x) - h_j(enemy, own, -x))
 *     value = tanh(z / 2)
 *
 * Swapping the sides swaps the two h and negates x, so z is odd and the value
 * antisymmetric, value(s, p) = -value(s, 1 - p), as the learned one's. The
 * first layer is summed over the non-zero inputs only (a world's inputs are
 * mostly zero): the game lists them (its net_side function, XenNetSide), so
 * no dense vector is cleared or scanned, its weights stored input by input so
 * that each non-zero input adds one contiguous row. The value the search uses
 * (PREFIX_evaluate_net) runs in integers on a SIMD path chosen at load
 * (network_int.h, xen_network_z_int); the float layer here is the policy
 * head's, and the reference the integer one is measured against is
 * xenophon.lab.network's.
 *
 * The policy head scores each legal move of a decision for the player to move
 * (`own` that player's side), on the same first layer:
 *
 *     logit(code) = sum_j policy[b][j] * h_j(own, enemy, x) + policy_bias[b],
 *     b = bucket(code) = (uint32)(code * 2654435761) mod buckets
 *
 * a move's code hashed to one of `buckets` rows (buckets_of in
 * xenophon.lab.network). The search may take the softmax of the logits over a
 * node's legal moves as its priors (priors=net, docs/search.md).
 *
 * The weights are data (a network file, xenophon.lab.network), copied into the
 * tables by the bindings: n_hidden == 0 means none are loaded.
 */
#ifndef XENOPHON_NETWORK_H
#define XENOPHON_NETWORK_H

#include <stdint.h>
#include <string.h>

#include "codes.h"
#include "learned.h"
#include "network_int.h"

/* The bindings (C++) include this header too. */
#ifdef __cplusplus
#define XEN_RESTRICT __restrict
#define XEN_NET_ALIGNED alignas(16)
#else
#define XEN_RESTRICT restrict
#define XEN_NET_ALIGNED _Alignas(16)
#endif

/* The most raw inputs of one side, the most hidden units, and the most rows
 * of the policy head. */
#define XEN_NET_MAX_INPUTS 464
#define XEN_NET_MAX_HIDDEN 64
#define XEN_NET_MAX_BUCKETS 4096

typedef struct XenNetwork {
    int n_hidden; /* 0: no network loaded */
    int n_inputs; /* raw inputs of one side */
    int n_features;
    int taper_turns;
    double opening[XEN_MAX_FEATURES];
    double ending[XEN_MAX_FEATURES];
    double bias[XEN_NET_MAX_HIDDEN];
    double phase[XEN_NET_MAX_HIDDEN];
    double output[XEN_NET_MAX_HIDDEN];
    /* packed by the loaded n_hidden h, so that a world touches few cache lines:
     * raw input i's row at side[i * 2h] is w_own[i][0..h) then w_enemy[i][0..h);
     * feature k's row at feature[k * h] is w_feature[k][0..h) */
    XEN_NET_ALIGNED float side[XEN_NET_MAX_INPUTS * 2 * XEN_NET_MAX_HIDDEN];
    XEN_NET_ALIGNED float feature[XEN_MAX_FEATURES * XEN_NET_MAX_HIDDEN];
    /* the policy head: bucket b's row at policy[b * h] (h the loaded n_hidden) */
    int n_buckets;
    double policy_bias[XEN_NET_MAX_BUCKETS];
    XEN_NET_ALIGNED float policy[XEN_NET_MAX_BUCKETS * XEN_NET_MAX_HIDDEN];
    /* the value in integers (network_int.h), quantised at load by xen_net_quantise */
    int path;            /* the SIMD path the value runs (XEN_NET_PORTABLE, ...) */
    int padded;          /* the hidden units padded: XEN_NET_PADDED(n_hidden) */
    int32_t scale;       /* S: the first layer's units of 1 */
    double output_scale; /* S * So: z's hidden part is the integer sum over it */
    /* S * bias, S * phase and the output weights, padded with zeros */
    float q_bias[XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
    float q_phase[XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
    int16_t q_output[XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
    /* input i's row at q_side[i * 2p] (p = padded): qw_own[i] then qw_enemy[i],
     * each padded with zeros; feature k's row at q_feature[k * p]: S * w_feature */
    int16_t q_side[XEN_NET_MAX_INPUTS * 2 * XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
    float q_feature[XEN_MAX_FEATURES * XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
} XenNetwork;

/* One side of a world as the network sees it: its non-zero raw inputs, in
 * the order the game lists them (an index may appear twice: its values add). */
typedef struct XenNetSide {
    int n;
    uint16_t index[XEN_NET_MAX_INPUTS];
    float value[XEN_NET_MAX_INPUTS];
} XenNetSide;

/* Adds `value` to raw input `index` of `side`. */
static inline void xen_net_push(XenNetSide *side, int index, float value) {
    side->index[side->n] = (uint16_t)index;
    side->value[side->n++] = value;
}

/* `side` as the dense list of n_inputs numbers (for the bindings and tests). */
static inline void xen_net_dense(const XenNetSide *side, double *out, int n_inputs) {
    for (int i = 0; i < n_inputs; i++) out[i] = 0.0;
    for (int k = 0; k < side->n; k++) out[side->index[k]] += side->value[k];
}

/* Four floats as one vector of the compiler's (GCC and Clang's generic
 * vectors, lowered to whatever the target has: SSE2 on any x86-64). */
typedef float XenNetVec __attribute__((vector_size(16)));
enum { XEN_NET_LANES = 4, XEN_NET_BLOCK = 8 /* vectors kept in registers at once */ };

/* acc[0..n) += value[k] * rows[index[k] * n ..][0..n) for k < count, each
 * acc[j] summed in the order of k (so the result does not depend on the
 * blocking). The accumulators are held in registers a block of
 * XEN_NET_BLOCK vectors at a time while every row passes: the plain loop
 * nest, left to the compiler, measured about three instructions a float
 * (callgrind), this under one. acc and rows 16-byte aligned. */
static inline void xen_net_add_rows(float *XEN_RESTRICT acc, const float *XEN_RESTRICT rows, int n,
                                    const uint16_t *index, const float *value, int count) {
    const int vectors = n % XEN_NET_LANES == 0 ? n / XEN_NET_LANES : 0;
    int v0 = 0;
    for (; v0 + XEN_NET_BLOCK <= vectors; v0 += XEN_NET_BLOCK) {
        XenNetVec sum[XEN_NET_BLOCK];
        for (int b = 0; b < XEN_NET_BLOCK; b++) sum[b] = ((const XenNetVec *)acc)[v0 + b];
        for (int k = 0; k < count; k++) {
            const XenNetVec *row = (const XenNetVec *)(rows + (size_t)index[k] * n) + v0;
            for (int b = 0; b < XEN_NET_BLOCK; b++) sum[b] += value[k] * row[b];
        }
        for (int b = 0; b < XEN_NET_BLOCK; b++) ((XenNetVec *)acc)[v0 + b] = sum[b];
    }
    for (int j = v0 * XEN_NET_LANES; j < n; j++) {
        float sum = acc[j];
        for (int k = 0; k < count; k++) sum += value[k] * rows[(size_t)index[k] * n + j];
        acc[j] = sum;
    }
}

/* acc[0..2h) += each non-zero input's (w_own | w_enemy) row times its value. */
static inline void xen_net_add_side(float *acc, const XenNetwork *n, const XenNetSide *side) {
    xen_net_add_rows(acc, n->side, 2 * n->n_hidden, side->index, side->value, side->n);
}

static inline double xen_net_clamp(double a) { return a < 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a); }

/* ph (see the top of this file) at `turn`. */
static inline double xen_net_phase(const XenNetwork *n, int turn) {
    return turn >= n->taper_turns ? 1.0 : (double)turn / n->taper_turns;
}

/* The non-zero features of x in `features` (as a side's inputs); returns the
 * linear term of z. */
static inline double xen_net_features(const XenNetwork *n, const double *x, double ph,
                                      XenNetSide *features) {
    double linear = 0.0;
    features->n = 0;
    for (int k = 0; k < n->n_features; k++) {
        if (x[k] == 0.0) continue;
        linear += (n->opening[k] + ph * (n->ending[k] - n->opening[k])) * x[k];
        xen_net_push(features, k, (float)x[k]);
    }
    return linear;
}

/* The first layer of a world whose sides' non-zero raw inputs are `own` and
 * `enemy` and whose features are x (n->n_features): each unit's
 * h_j(own, enemy, x) in mine[j], h_j(enemy, own, -x) in theirs[j] (see the
 * top of this file). Returns the linear term of z. */
static inline double xen_network_layer(const XenNetwork *n, const XenNetSide *own,
                                       const XenNetSide *enemy, const double *x, int turn,
                                       double *mine_h, double *theirs_h) {
    const int h = n->n_hidden;
    double ph = xen_net_phase(n, turn);
    /* side[0..2h): own times each input's (w_own | w_enemy) rows, side[2h..4h):
     * enemy times them. mine = own.w_own + enemy.w_enemy, theirs = enemy.w_own +
     * own.w_enemy: swapping the sides swaps the two halves' sums exactly, so the
     * value stays exactly antisymmetric although summed in float */
    XEN_NET_ALIGNED float side[4 * XEN_NET_MAX_HIDDEN];
    XEN_NET_ALIGNED float f[XEN_NET_MAX_HIDDEN];
    for (int j = 0; j < 4 * h; j++) side[j] = 0.0f;
    for (int j = 0; j < h; j++) f[j] = 0.0f;
    xen_net_add_side(side, n, own);
    xen_net_add_side(side + 2 * h, n, enemy);
    XenNetSide features; /* the non-zero features, as a side's inputs */
    double linear = xen_net_features(n, x, ph, &features);
    xen_net_add_rows(f, n->feature, h, features.index, features.value, features.n);
    const float *mine_own = side, *theirs_enemy = side + h;
    const float *theirs_own = side + 2 * h, *mine_enemy = side + 3 * h;
    for (int j = 0; j < h; j++) {
        double base = n->bias[j] + ph * n->phase[j];
        double mine = (double)(mine_own[j] + mine_enemy[j]);
        double theirs = (double)(theirs_own[j] + theirs_enemy[j]);
        mine_h[j] = xen_net_clamp(mine + f[j] + base);
        theirs_h[j] = xen_net_clamp(theirs - f[j] + base);
    }
    return linear;
}

/* z (see the top of this file) of a world whose sides' non-zero raw inputs
 * are `own` and `enemy` and whose features are x (n->n_features). */
static inline double xen_network_z(const XenNetwork *n, const XenNetSide *own,
                                   const XenNetSide *enemy, const double *x, int turn) {
    double mine[XEN_NET_MAX_HIDDEN], theirs[XEN_NET_MAX_HIDDEN];
    double z = xen_network_layer(n, own, enemy, x, turn, mine, theirs);
    for (int j = 0; j < n->n_hidden; j++) z += n->output[j] * (mine[j] - theirs[j]);
    return z;
}

/* Fills the integer tables from the float ones (see network_int.h) and sets
 * the value's SIMD path (one this machine runs: the caller checks). */
static inline void xen_net_quantise(XenNetwork *n, int path) {
    const int h = n->n_hidden, p = XEN_NET_PADDED(h);
    double widest = 0.0, top = 0.0, total = 0.0; /* m, max |output|, sum |output| */
    for (int j = 0; j < 2 * h; j++) {
        double column = 0.0;
        for (int i = 0; i < n->n_inputs; i++) column += fabs(n->side[(size_t)i * 2 * h + j]);
        widest = column > widest ? column : widest;
    }
    for (int j = 0; j < h; j++) {
        top = fabs(n->output[j]) > top ? fabs(n->output[j]) : top;
        total += fabs(n->output[j]);
    }
    double s = widest > 1.0 ? floor(32767.0 / widest) : 32767.0;
    /* So: each weight within int16, and sum_j |qout_j| * S within int32 */
    double so = top > 0.0 ? fmin(32767.0 / top, (2147483647.0 / s - h) / total) : 1.0;
    n->path = path;
    n->padded = p;
    n->scale = (int32_t)s;
    n->output_scale = s * so;
    memset(n->q_side, 0, sizeof n->q_side);
    memset(n->q_feature, 0, sizeof n->q_feature);
    memset(n->q_bias, 0, sizeof n->q_bias);
    memset(n->q_phase, 0, sizeof n->q_phase);
    memset(n->q_output, 0, sizeof n->q_output);
    for (int i = 0; i < n->n_inputs; i++)
        for (int j = 0; j < h; j++) {
            const float *row = n->side + (size_t)i * 2 * h;
            n->q_side[(size_t)i * 2 * p + j] = (int16_t)lrint(row[j] * s);
            n->q_side[(size_t)i * 2 * p + p + j] = (int16_t)lrint(row[h + j] * s);
        }
    for (int k = 0; k < n->n_features; k++)
        for (int j = 0; j < h; j++)
            n->q_feature[(size_t)k * p + j] = (float)(n->feature[(size_t)k * h + j] * s);
    for (int j = 0; j < h; j++) {
        n->q_bias[j] = (float)(n->bias[j] * s);
        n->q_phase[j] = (float)(n->phase[j] * s);
        n->q_output[j] = (int16_t)lrint(n->output[j] * so);
    }
}

/* z (see the top of this file) in the integer arithmetic of network_int.h:
 * the value the search uses. */
static inline double xen_network_z_int(const XenNetwork *n, const XenNetSide *own,
                                       const XenNetSide *enemy, const double *x, int turn) {
    const int p = n->padded;
    double ph = xen_net_phase(n, turn);
    /* acc[0..2p): own's rows (mine_own | theirs_enemy), acc[2p..4p): enemy's
     * (theirs_own | mine_enemy) */
    uint16_t acc[4 * XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
    float f[XEN_NET_PADDED(XEN_NET_MAX_HIDDEN)];
    memset(acc, 0, sizeof(uint16_t) * 4 * p);
    memset(f, 0, sizeof(float) * p);
    XEN_NET_ON(n->path, xen_net_add_side, acc, (const uint16_t *)n->q_side, 2 * p, own->index,
               own->value, own->n);
    XEN_NET_ON(n->path, xen_net_add_side, acc + 2 * p, (const uint16_t *)n->q_side, 2 * p,
               enemy->index, enemy->value, enemy->n);
    XenNetSide features; /* the non-zero features, as a side's inputs */
    double linear = xen_net_features(n, x, ph, &features);
    XEN_NET_ON(n->path, xen_net_add_features, f, n->q_feature, p, features.index, features.value,
               features.n);
    int32_t sum = XEN_NET_ON(n->path, xen_net_finish, acc, f, n->q_bias, n->q_phase, (float)ph,
                             n->q_output, n->scale, p);
    return linear + (double)sum / n->output_scale;
}

/* The policy head's row of a move code (buckets_of in xenophon.lab.network). */
static inline int xen_net_bucket(XenCode code, int buckets) {
    return (int)(((uint32_t)code * 2654435761u) % (uint32_t)buckets);
}

/* out[i] = the policy head's logit of codes[i], i < count, for the player
 * whose side is `own` (see the top of this file). */
static inline void xen_network_logits(const XenNetwork *n, const XenNetSide *own,
                                      const XenNetSide *enemy, const double *x, int turn,
                                      const XenCode *codes, int count, double *out) {
    const int h = n->n_hidden;
    double mine[XEN_NET_MAX_HIDDEN], theirs[XEN_NET_MAX_HIDDEN];
    xen_network_layer(n, own, enemy, x, turn, mine, theirs);
    for (int i = 0; i < count; i++) {
        int b = xen_net_bucket(codes[i], n->n_buckets);
        const float *row = n->policy + (size_t)b * h;
        double logit = n->policy_bias[b];
        for (int j = 0; j < h; j++) logit += (double)row[j] * mine[j];
        out[i] = logit;
    }
}

/* Defines a game's dense inputs and value from its functions: PREFIX_net_inputs
 * (a side as n_inputs numbers, for the bindings and tests; returns n_inputs)
 * from PREFIX_net_side, and PREFIX_evaluate_net, the network's value in
 * [-1, 1] for `player`: the hand-set PREFIX_evaluate at the end of the game or
 * while the tables hold no network, else tanh(z / 2) over the sides of
 * PREFIX_net_side and the features of PREFIX_features; and
 * PREFIX_policy_logits, the policy head's logit of each of `count` codes for
 * the player to move in a decision (returns 0, out untouched, while the tables
 * hold no network or no policy head, or outside a decision). */
#define XEN_NETWORK_FUNCTIONS(prefix, Tables, State, n_inputs_of) \
    int prefix##_net_inputs(const Tables *t, const State *s, int p, double *out) { \
        XenNetSide side; \
        prefix##_net_side(t, s, p, &side); \
        xen_net_dense(&side, out, n_inputs_of(t)); \
        return n_inputs_of(t); \
    } \
    double prefix##_evaluate_net(const Tables *t, const State *s, int player) { \
        const XenNetwork *net = &t->network; \
        if (prefix##_is_terminal(s) || net->n_hidden == 0) return prefix##_evaluate(t, s, player); \
        XenNetSide own, enemy; \
        double x[XEN_MAX_FEATURES]; \
        prefix##_net_side(t, s, player, &own); \
        prefix##_net_side(t, s, 1 - player, &enemy); \
        prefix##_features(t, s, player, x); \
        return tanh(0.5 * xen_network_z_int(net, &own, &enemy, x, s->turn)); \
    } \
    int prefix##_policy_logits(const Tables *t, const State *s, int count, const XenCode *codes, \
                               double *out) { \
        const XenNetwork *net = &t->network; \
        int player = prefix##_current_player(s); \
        if (net->n_hidden == 0 || net->n_buckets == 0 || (player != 0 && player != 1)) return 0; \
        XenNetSide own, enemy; \
        double x[XEN_MAX_FEATURES]; \
        prefix##_net_side(t, s, player, &own); \
        prefix##_net_side(t, s, 1 - player, &enemy); \
        prefix##_features(t, s, player, x); \
        xen_network_logits(net, &own, &enemy, x, s->turn, codes, count, out); \
        return 1; \
    }

#endif
