/* zobrist.h - the additive Zobrist hash both cores keep incrementally.
 *
 * A state is a fixed-size block of bytes whose first 8 bytes are the hash.
 * Each game draws one 64-bit key per byte offset (keys[o], 0 on the hash
 * itself and on bytes it does not hash) and hashes its fields as
 *
 *     hash = sum over hashed fields f of value(f) * keys[offset(f)]  (mod 2^64)
 *
 * a field being a byte (Anabasis: every field, bitboards byte by byte) or a
 * signed 32-bit value (Hero's counters). Writing a field from v to w adds
 * (w - v) * key, so a setter keeps the hash current without knowing what the
 * field means, and a multiset count n contributes n keys (the additive form
 * is what makes counts cheap; a xor form would need a key per count). Two
 * states collide only if a small integer combination of the random keys
 * vanishes mod 2^64.
 *
 * Every write to a state goes through these setters; the games wrap them as
 * set8 / set16 / bb_set ... (Anabasis) and w8 / w32 (Hero). A direct write
 * would break the hash: debug builds recompute it after every apply.
 */
#ifndef XENOPHON_ZOBRIST_H
#define XENOPHON_ZOBRIST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte hashing assumes little endian");

/* The hash is the state's first field. */
static inline uint64_t *xen_hash_of(void *state) { return (uint64_t *)state; }

static inline size_t xen_offset(const void *state, const void *field) {
    return (size_t)((const uint8_t *)field - (const uint8_t *)state);
}

static inline void xen_hash_add(void *state, const uint64_t *keys, const void *field,
                                int64_t delta) {
    *xen_hash_of(state) += (uint64_t)delta * keys[xen_offset(state, field)];
}

static inline void xen_set_u8(void *state, const uint64_t *keys, uint8_t *field, int v) {
    xen_hash_add(state, keys, field, (int)(uint8_t)v - (int)*field);
    *field = (uint8_t)v;
}

/* A 16-bit field hashed as its two bytes, each at its own offset. */
static inline void xen_set_u16_bytes(void *state, const uint64_t *keys, void *field, int v) {
    uint16_t nv = (uint16_t)v;
    uint8_t *b = (uint8_t *)field;
    xen_hash_add(state, keys, b, (int)(nv & 0xFF) - (int)b[0]);
    xen_hash_add(state, keys, b + 1, (int)(nv >> 8) - (int)b[1]);
    memcpy(field, &nv, 2);
}

/* A signed 32-bit field hashed as one value at its offset. */
static inline void xen_set_i32(void *state, const uint64_t *keys, int32_t *field, int32_t v) {
    *xen_hash_of(state) += ((uint64_t)(int64_t)v - (uint64_t)(int64_t)*field)
                         * keys[xen_offset(state, field)];
    *field = v;
}

/* Bit q of a 64-bit bitboard hashed byte by byte: bit q is worth
 * 2^(q mod 8) in byte q / 8. */
static inline void xen_bit_put(void *state, const uint64_t *keys, uint64_t *board, int q,
                               int on) {
    uint64_t bit = 1ULL << q;
    if (((*board & bit) != 0) == (on != 0)) return;
    *board ^= bit;
    int weight = 1 << (q & 7);
    xen_hash_add(state, keys, (uint8_t *)board + (q >> 3), on ? weight : -weight);
}

/* The hash from scratch of bytes [from, to) hashed one by one. */
static inline uint64_t xen_hash_bytes(const void *state, const uint64_t *keys, size_t from,
                                      size_t to) {
    const uint8_t *b = (const uint8_t *)state;
    uint64_t h = 0;
    for (size_t o = from; o < to; o++) h += (uint64_t)b[o] * keys[o];
    return h;
}

/* The hash from scratch of signed 32-bit fields in [from, to). */
static inline uint64_t xen_hash_i32(const void *state, const uint64_t *keys, size_t from,
                                    size_t to) {
    const uint8_t *b = (const uint8_t *)state;
    uint64_t h = 0;
    for (size_t o = from; o < to; o += 4) {
        int32_t v;
        memcpy(&v, b + o, 4);
        h += (uint64_t)(int64_t)v * keys[o];
    }
    return h;
}

#endif
