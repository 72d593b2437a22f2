/* check.h - what the state checks of every core share (each core's
 * P_state_check, P its prefix).
 *
 * A state check returns NULL for a state the core can play on, else a static
 * message naming the first broken invariant. from_bytes and from_dict accept
 * exactly the states their game's check accepts, so a check must hold every
 * precondition that apply, legal_actions, the chance functions, resampling
 * and to_dict rely on: no state it passes may make the core read or write out
 * of bounds, divide by zero, overflow, or reach a node without any move.
 */
#ifndef XENOPHON_CHECK_H
#define XENOPHON_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "game_api.h"
#include "multiset.h"

/* Debug builds (XENOPHON_DEBUG): a state check that fails is reported and
 * asserts; each core's debug_check (internal.h) calls it after every apply,
 * undo and resample. */
static inline void xen_debug_report(const char *game, const char *why) {
    if (why) fprintf(stderr, "%s: broken state: %s\n", game, why);
    XEN_ASSERT(why == NULL);
}

static inline int xen_zero_bytes(const void *p, size_t n) {
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

/* A game that goes on has a move: a legal action at a decision, an outcome
 * at a chance node (the playouts, the search and sample_chance draw one with
 * xen_rng_below(count), which needs count >= 1). Call it last: it runs the
 * move generator, which relies on every other invariant. */
static inline const char *xen_check_has_move(const XenGameApi *api, const void *tables,
                                             const void *state) {
    XenCode codes[XEN_MAX_ACTIONS];
    if (api->current_player(tables, state) == XEN_TERMINAL) return NULL;
    if (api->legal_actions(tables, state, codes) == 0)
        return "a game that goes on without a legal action or chance outcome";
    return NULL;
}

#endif
