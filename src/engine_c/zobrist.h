/* zobrist.h - the additive Zobrist hash both cores keep incrementally.
 *
 * A state is a fixed-size block of bytes whose first 8 bytes are the hash.
 * Each game draws one 64-bit key per byte offset (keys[o], 0 on the hash
 * itself and on bytes it does not hash) and hashes its fields as
 *
 *     hash = sum over hashed fields f of value(f) * keys[offset(f)]  (mod 2^64)
 *
 * a field being a byte (bitboards byte by byte) or a signed 32-bit value
 * (counters). Writing a field from v to w adds
 * (w - v) * key, so a setter keeps the hash current without knowing what the
 * field means, and a multiset count n contributes n keys (the additive form
 * is what makes counts cheap; a xor form would need a key per count). Two
 * states collide only if a small integer combination of the random keys
 * vanishes mod 2^64.
 *
 * Every write to a state goes through these setters; the games wrap them as
 * plain setters and hidden ones (in their rules.c: set8, bb_set, w32, ...
 * and hidden_set8, w8_hidden, ...): the plain ones write the fields no seat hides
 * (hidden = NULL below: the hash alone), the *hidden ones the hand and deck
 * counts. A direct write would break the hash: debug builds recompute it
 * after every apply.
 *
 * Hidden sums: the same setters keep, beside the hash, one more additive sum
 * per seat over the bytes that seat hides from the other (its hand and deck
 * counts): hidden[o] = sum over o's hidden fields f of value(f) *
 * keys[offset(f)].hidden[o], each key being what the other seat's view puts
 * in for the byte (its share of an unseen multiset) minus the byte's hash
 * key. So the information-set key of seat p, the hash with p's unseen bytes
 * replaced by what p knows of them (views.c), is hash + hidden[1 - p] plus
 * whatever part of a view is not additive in the bytes, and costs O(1)
 * instead of a pass over every card id. The sums are the state's last 16
 * bytes, hashed by nothing (keys 0); state checks recompute them like the hash.
 *
 * Unkeyed builds: a file compiled with XEN_UNKEYED defined (the games'
 * rules_unkeyed.c) gets setters that only write, for the playouts, whose
 * states nothing hashes or keys (game_api.h, apply_unkeyed).
 */
#ifndef XENOPHON_ZOBRIST_H
#define XENOPHON_ZOBRIST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codes.h"
#include "zobrist_key.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte hashing assumes little endian");

/* The hash is the state's first field. */
static inline uint64_t *xen_hash_of(void *state) { return (uint64_t *)state; }

static inline size_t xen_offset(const void *state, const void *field) {
    return (size_t)((const uint8_t *)field - (const uint8_t *)state);
}

/* The field at `field` changed by `delta` (in units of its hashed value):
 * the state's hash and its hidden sums `hidden` (its last 16 bytes) follow.
 * hidden = NULL for a field no seat hides (its hidden keys are 0): the hash
 * alone, a third of the multiplications, the sums unchanged. */
static inline void xen_key_add(void *state, uint64_t hidden[2], const XenKey *keys,
                               const void *field, int64_t delta) {
#ifdef XEN_UNKEYED
    (void)state, (void)hidden, (void)keys, (void)field, (void)delta;
#else
    const XenKey *k = &keys[xen_offset(state, field)];
    *xen_hash_of(state) += (uint64_t)delta * k->hash;
    if (hidden) {
        hidden[0] += (uint64_t)delta * k->hidden[0];
        hidden[1] += (uint64_t)delta * k->hidden[1];
    } else {
        XEN_ASSERT(k->hidden[0] == 0 && k->hidden[1] == 0); /* a hidden byte written as public */
    }
#endif
}

static inline void xen_set_u8(void *state, uint64_t hidden[2], const XenKey *keys, uint8_t *field,
                              int v) {
    xen_key_add(state, hidden, keys, field, (int)(uint8_t)v - (int)*field);
    *field = (uint8_t)v;
}

/* A 16-bit field hashed as its two bytes, each at its own offset. */
static inline void xen_set_u16_bytes(void *state, uint64_t hidden[2], const XenKey *keys,
                                     void *field, int v) {
    uint16_t nv = (uint16_t)v;
    uint8_t *b = (uint8_t *)field;
    xen_key_add(state, hidden, keys, b, (int)(nv & 0xFF) - (int)b[0]);
    xen_key_add(state, hidden, keys, b + 1, (int)(nv >> 8) - (int)b[1]);
    memcpy(field, &nv, 2);
}

/* A signed 32-bit field hashed as one value at its offset. */
static inline void xen_set_i32(void *state, uint64_t hidden[2], const XenKey *keys, int32_t *field,
                               int32_t v) {
    xen_key_add(state, hidden, keys, field, (int64_t)v - (int64_t)*field);
    *field = v;
}

/* Bit q of a 64-bit bitboard hashed byte by byte: bit q is worth
 * 2^(q mod 8) in byte q / 8. */
static inline void xen_bit_put(void *state, uint64_t hidden[2], const XenKey *keys, uint64_t *board,
                               int q, int on) {
    uint64_t bit = 1ULL << q;
    if (((*board & bit) != 0) == (on != 0)) return;
    *board ^= bit;
    int weight = 1 << (q & 7);
    xen_key_add(state, hidden, keys, (uint8_t *)board + (q >> 3), on ? weight : -weight);
}

/* The hash (which = -1) or hidden sum `which` from scratch of bytes
 * [from, to) hashed one by one. */
static inline uint64_t xen_sum_bytes(const void *state, const XenKey *keys, int which, size_t from,
                                     size_t to) {
    const uint8_t *b = (const uint8_t *)state;
    uint64_t h = 0;
    for (size_t o = from; o < to; o++)
        h += (uint64_t)b[o] * (which < 0 ? keys[o].hash : keys[o].hidden[which]);
    return h;
}

static inline uint64_t xen_hash_bytes(const void *state, const XenKey *keys, size_t from,
                                      size_t to) {
    return xen_sum_bytes(state, keys, -1, from, to);
}

/* The hash from scratch of signed 32-bit fields in [from, to). */
static inline uint64_t xen_hash_i32(const void *state, const XenKey *keys, size_t from, size_t to) {
    const uint8_t *b = (const uint8_t *)state;
    uint64_t h = 0;
    for (size_t o = from; o < to; o += 4) {
        int32_t v;
        memcpy(&v, b + o, 4);
        h += (uint64_t)(int64_t)v * keys[o].hash;
    }
    return h;
}

#endif
