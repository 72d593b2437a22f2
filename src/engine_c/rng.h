/* rng.h - the one random generator of the C core and the search.
 *
 * xoshiro256** (Blackman & Vigna), seeded through splitmix64 so that any
 * 64-bit seed, 0 included, gives a good state. Plain data: a generator can be
 * copied, stored in a worker, or re-seeded for reproducible runs.
 */
#ifndef XENOPHON_RNG_H
#define XENOPHON_RNG_H

#include <stdint.h>

typedef struct XenRng {
    uint64_t s[4];
} XenRng;

static inline uint64_t xen_splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline void xen_rng_seed(XenRng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++) rng->s[i] = xen_splitmix64(&seed);
}

static inline uint64_t xen_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t xen_rng_next(XenRng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = xen_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = xen_rotl(s[3], 45);
    return result;
}

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline uint32_t xen_rng_below(XenRng *rng, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(xen_rng_next(rng) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(xen_rng_next(rng) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Uniform double in [0, 1). */
static inline double xen_rng_unit(XenRng *rng) {
    return (double)(xen_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
