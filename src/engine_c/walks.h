/* walks.h - perft and the random walks of the speed benchmarks, written once
 * over the game interface (game_api.h).
 *
 * Static inline: each game's adapter.c instantiates them with its own
 * interface table, a constant the compiler sees through, so the calls are
 * direct and the loops as fast as hand-written ones.
 *
 * Undo is a copy of the state (both cores measured a full copy faster than
 * a delta journal: the comments above each core's P_apply).
 */
#ifndef XENOPHON_WALKS_H
#define XENOPHON_WALKS_H

#include <string.h>

#include "game_api.h"

/* A random code: a decision uniformly among the legal ones (unlisted:
 * random_decision), a chance outcome with its true probability. */
static inline XenCode xen_random_code(const XenGameApi *api, const void *t, const void *s,
                                      XenRng *rng) {
    if (api->current_player(t, s) == XEN_CHANCE) return api->sample_chance(t, s, rng);
    return api->random_decision(t, s, rng);
}

/* The search's playout (game_api.h: playout), written once: the calls to the
 * core are direct in each adapter's instance, where the search would call
 * through the table at every step. */
static inline double xen_playout(const XenGameApi *api, const void *t, void *s, XenRng *rng,
                                 int cutoff_turns, int max_actions, int uniform,
                                 double (*evaluate)(const void *, const void *, int)) {
    int start = api->turn(t, s);
    for (int steps = 0;; steps++) {
        int player = api->current_player(t, s);
        if (player == XEN_TERMINAL) {
            double returns[2];
            api->returns(t, s, returns);
            return returns[0];
        }
        if ((cutoff_turns >= 0 && api->turn(t, s) - start >= cutoff_turns) || steps >= max_actions)
            return evaluate(t, s, 0);
        XenCode code = player == XEN_CHANCE ? api->sample_chance(t, s, rng)
                       : uniform            ? api->random_decision(t, s, rng)
                                            : api->playout_action(t, s, rng);
        api->apply_unkeyed(t, s, code);
    }
}

/* Leaves of the tree of the given depth below s, chance nodes expanded (each
 * outcome one branch); a game that ends before the depth counts no leaf.
 * s is restored before returning. */
static inline uint64_t xen_perft(const XenGameApi *api, const void *t, void *s, int depth) {
    if (depth <= 0) return 1;
    if (api->current_player(t, s) == XEN_TERMINAL) return 0;
    XenCode codes[XEN_MAX_ACTIONS];
    int n = api->legal_actions(t, s, codes);
    if (depth == 1) return (uint64_t)n;
    _Alignas(16) unsigned char before[XEN_MAX_STATE_SIZE];
    memcpy(before, s, api->state_size);
    uint64_t leaves = 0;
    for (int i = 0; i < n; i++) {
        api->apply(t, s, codes[i]);
        leaves += xen_perft(api, t, s, depth - 1);
        memcpy(s, before, api->state_size);
    }
    return leaves;
}

/* A walk from *start: a copy of it, the generator and a code buffer. */
typedef struct XenWalk {
    const XenGameApi *api;
    const void *t, *start;
    XenRng rng;
    XenCode codes[XEN_MAX_ACTIONS];
    _Alignas(16) unsigned char s[XEN_MAX_STATE_SIZE];
} XenWalk;

static inline void xen_walk_begin(XenWalk *w, const XenGameApi *api, const void *t,
                                  const void *start, uint64_t seed) {
    w->api = api;
    w->t = t;
    w->start = start;
    xen_rng_seed(&w->rng, seed);
    memcpy(w->s, start, api->state_size);
}

/* The player to move in the walk's game, after starting a new game from
 * *start if it was over. */
static inline int xen_walk_player(XenWalk *w) {
    int player = w->api->current_player(w->t, w->s);
    if (player != XEN_TERMINAL) return player;
    memcpy(w->s, w->start, w->api->state_size);
    return w->api->current_player(w->t, w->s);
}

/* n random codes from a copy of *start, a new game from *start whenever one
 * ends, applied with `apply` or, unless `keyed`, with apply_unkeyed (as the
 * search's playouts do). Returns n (0 if *start is over: nothing to play). */
static inline uint64_t xen_random_actions(const XenGameApi *api, const void *t, const void *start,
                                          uint64_t n, uint64_t seed, int keyed) {
    if (api->current_player(t, start) == XEN_TERMINAL) return 0;
    XenWalk w;
    xen_walk_begin(&w, api, t, start, seed);
    for (uint64_t done = 0; done < n; done++) {
        XenCode code = xen_walk_player(&w) == XEN_CHANCE ? api->sample_chance(t, w.s, &w.rng)
                                                         : api->random_decision(t, w.s, &w.rng);
        if (keyed) api->apply(t, w.s, code);
        else api->apply_unkeyed(t, w.s, code);
    }
    return n;
}

/* The apply + undo walk from a copy of *start: n times, apply and undo a
 * uniformly chosen legal code (a chance node: an outcome code), then advance
 * by a random code; a new game whenever one ends. Returns n (0 if *start is
 * over). */
static inline uint64_t xen_apply_undo_pairs(const XenGameApi *api, const void *t, const void *start,
                                            uint64_t n, uint64_t seed) {
    if (api->current_player(t, start) == XEN_TERMINAL) return 0;
    XenWalk w;
    xen_walk_begin(&w, api, t, start, seed);
    _Alignas(16) unsigned char before[XEN_MAX_STATE_SIZE];
    for (uint64_t done = 0; done < n; done++) {
        int player = xen_walk_player(&w);
        int k = api->legal_actions(t, w.s, w.codes);
        memcpy(before, w.s, api->state_size);
        api->apply(t, w.s, w.codes[xen_rng_below(&w.rng, (uint32_t)k)]);
        memcpy(w.s, before, api->state_size);
        XenCode code = player == XEN_CHANCE ? api->sample_chance(t, w.s, &w.rng)
                                            : w.codes[xen_rng_below(&w.rng, (uint32_t)k)];
        api->apply(t, w.s, code);
    }
    return n;
}

#endif
