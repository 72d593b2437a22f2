/* multiset.h - card multisets as counts per card id (hands, decks, piles of
 * both cores): what reads them word by word. */
#ifndef XENOPHON_MULTISET_H
#define XENOPHON_MULTISET_H

#include <stdint.h>
#include <string.h>

/* The ids with a nonzero count in counts[0, n), ascending, into ids; returns
 * how many. n is a multiple of 8: eight counts are read at a time, so a short
 * hand costs a few words, not a look at every id. */
static inline int xen_multiset_ids(const uint8_t *counts, int n, uint8_t *ids) {
    int found = 0;
    for (int base = 0; base < n; base += 8) {
        uint64_t word;
        memcpy(&word, counts + base, 8);
        while (word) {
            int byte = __builtin_ctzll(word) >> 3;
            ids[found++] = (uint8_t)(base + byte);
            word &= ~(0xFFULL << (byte * 8));
        }
    }
    return found;
}

#endif
