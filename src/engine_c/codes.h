/* codes.h - what both rules cores share: the action-code layout, who is to
 * move, game results, and the one assertion macro.
 *
 * An action (or a chance outcome) of either game is one 16-bit code
 *
 *     code = kind << 12 | x << 6 | y        kind 0..15, x and y 0..63
 *
 * Each game names its kinds and what x and y mean (its GAME/GAME.h).
 * Every move generator emits codes kind-major, then x, then y, so legal
 * lists come out ascending without sorting.
 */
#ifndef XENOPHON_CODES_H
#define XENOPHON_CODES_H

#include <assert.h>
#include <stdint.h>

typedef uint16_t XenCode;

/* The layout, owned here (the bindings export it to Python as
 * xenophon._core.CODE_KIND_SHIFT and CODE_FIELD_BITS). */
enum { XEN_KIND_SHIFT = 12, XEN_FIELD_BITS = 6, XEN_FIELD_MASK = (1 << XEN_FIELD_BITS) - 1 };

#define XEN_CODE(kind, x, y) ((XenCode)(((kind) << XEN_KIND_SHIFT) | ((x) << XEN_FIELD_BITS) | (y)))
#define XEN_KIND(code) ((int)((code) >> XEN_KIND_SHIFT))
#define XEN_X(code) ((int)(((code) >> XEN_FIELD_BITS) & XEN_FIELD_MASK))
#define XEN_Y(code) ((int)((code) & XEN_FIELD_MASK))

enum {
    /* current_player of a node: 0 or 1 at a decision, else one of these. */
    XEN_CHANCE = -1,
    XEN_TERMINAL = -4,
    /* An upper bound on the legal actions (or chance outcomes) of any state
     * of either game; each core proves its own bound below it. */
    XEN_MAX_ACTIONS = 1024,
};

/* The result stored in a state: none yet, a seat won, or a draw. */
enum { XEN_RES_NONE = 0, XEN_RES_WIN0 = 1, XEN_RES_WIN1 = 2, XEN_RES_DRAW = 3 };

/* [r0, r1] of a stored result: +1 win, -1 loss, 0 draw or game not over. */
static inline void xen_returns(int result, int out[2]) {
    out[0] = result == XEN_RES_WIN0 ? 1 : result == XEN_RES_WIN1 ? -1 : 0;
    out[1] = -out[0];
}

/* Set bits of x. __builtin_popcountll is one instruction where the target
 * has one (setup.py asks for POPCNT on x86-64); a generic x86-64 target
 * would make it a call into libgcc, so there the portable form is inline. */
static inline int xen_popcount64(uint64_t x) {
#if defined(__POPCNT__) || !defined(__x86_64__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Checked in debug builds (XENOPHON_DEBUG, see setup.py), free otherwise. */
#ifdef XENOPHON_DEBUG
#define XEN_ASSERT(x) assert(x)
#else
#define XEN_ASSERT(x) ((void)0)
#endif

#endif
