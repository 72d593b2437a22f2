/* multiset.h - card multisets as counts per card id (hands, decks, piles of
 * both cores): what reads them word by word. */
#ifndef XENOPHON_MULTISET_H
#define XENOPHON_MULTISET_H

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Bit i of the result: byte i of word is nonzero (bit 7 of each byte set
 * where the byte is nonzero, then the eight bits gathered into the top byte). */
static inline uint64_t xen_nonzero_bytes(uint64_t word) {
    word = (word | ((word & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL)) &
           0x8080808080808080ULL;
    return (word * 0x0002040810204081ULL) >> 56;
}

/* The ids whose counts differ between a[0, n) and b[0, n) as a mask (bit c:
 * id c); with b NULL, the ids with a nonzero count in a. n is a multiple of 8,
 * at most 64. With SSE2 (every x86-64), 16 counts are compared at once; the
 * rest eight counts a word. */
static inline uint64_t xen_multiset_differ(const uint8_t *a, const uint8_t *b, int n) {
    uint64_t differ = 0;
    int base = 0;
#ifdef __SSE2__
    for (; base + 16 <= n; base += 16) {
        __m128i block = _mm_loadu_si128((const __m128i *)(const void *)(a + base));
        __m128i other = b ? _mm_loadu_si128((const __m128i *)(const void *)(b + base))
                          : _mm_setzero_si128();
        uint32_t same = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(block, other));
        differ |= (uint64_t)(~same & 0xFFFFu) << base;
    }
#endif
    for (; base < n; base += 8) {
        uint64_t word, other = 0;
        memcpy(&word, a + base, 8);
        if (b) memcpy(&other, b + base, 8);
        differ |= xen_nonzero_bytes(word ^ other) << base;
    }
    return differ;
}

/* The ids with a nonzero count in counts[0, n) as a mask (as above). */
static inline uint64_t xen_multiset_mask(const uint8_t *counts, int n) {
    return xen_multiset_differ(counts, NULL, n);
}

/* The sum of the 8 counts at p: pairs of counts added in 16-bit lanes, then
 * the four lanes gathered by one multiply into the top one (at most 8 * 255,
 * so nothing overflows whatever the counts). */
static inline uint32_t xen_sum_of_8(const uint8_t *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    word = (word & 0x00FF00FF00FF00FFULL) + ((word >> 8) & 0x00FF00FF00FF00FFULL);
    return (uint32_t)((word * 0x0001000100010001ULL) >> 48);
}

/* The sum of counts[0, n), n a multiple of 8 (at most 8 * 255 a word). */
static inline uint32_t xen_multiset_total(const uint8_t *counts, int n) {
    uint32_t total = 0;
    for (int c = 0; c < n; c += 8) total += xen_sum_of_8(counts + c);
    return total;
}

/* The id whose cumulative range, in ascending ids, holds r (r below the sum
 * of counts[0, n)): a draw from the multiset, the same id as a walk over the
 * counts one by one. Whole words of 8 counts (within n) are skipped while r
 * is past them. */
static inline int xen_multiset_pick(const uint8_t *counts, int n, uint32_t r) {
    int c = 0;
    for (uint32_t sum; c + 8 <= n && r >= (sum = xen_sum_of_8(counts + c)); c += 8) r -= sum;
    for (; c < n - 1 && r >= counts[c]; c++) r -= counts[c];
    return c;
}

#endif
