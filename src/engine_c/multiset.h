/* multiset.h - card multisets as counts per card id (hands, decks, piles of
 * both cores): what reads them word by word. */
#ifndef XENOPHON_MULTISET_H
#define XENOPHON_MULTISET_H

#include <stdint.h>
#include <string.h>

/* The ids with a nonzero count in counts[0, n) as a mask (bit c: id c),
 * eight counts a word; n is a multiple of 8, at most 64. */
static inline uint64_t xen_multiset_mask(const uint8_t *counts, int n) {
    uint64_t held = 0;
    for (int base = 0; base < n; base += 8) {
        uint64_t word;
        memcpy(&word, counts + base, 8);
        /* bit 7 of each byte set where the byte is nonzero, then the eight
         * bits gathered into the top byte */
        word = (word | ((word & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL)) &
               0x8080808080808080ULL;
        held |= ((word * 0x0002040810204081ULL) >> 56) << base;
    }
    return held;
}

#endif
