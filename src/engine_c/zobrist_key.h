/* zobrist_key.h - the keys of one byte offset of a state (zobrist.h), a type
 * of every game's tables (GAME/GAME.h). */
#ifndef XENOPHON_ZOBRIST_KEY_H
#define XENOPHON_ZOBRIST_KEY_H

#include <stdint.h>

/* Its hash key and its keys in the two hidden sums (0 but on the bytes a seat
 * hides), side by side so that a write reads one place. */
typedef struct XenKey {
    uint64_t hash;
    uint64_t hidden[2];
} XenKey;

#endif
