/* game_api.h - the C-level interface through which the search drives any game.
 *
 * Each game's core fills one static XenGameApi (anabasis_api.c, hero_api.c).
 * The search (src/search, Cython, nogil) sees only this table of functions,
 * the game's tables pointer and states as opaque fixed-size byte blocks, so
 * one search serves both games. States are plain old data: the search copies
 * them with memcpy (a sampled world per iteration) and never needs undo.
 */
#ifndef XENOPHON_GAME_API_H
#define XENOPHON_GAME_API_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define XEN_CHANCE (-1)
#define XEN_TERMINAL (-4)
/* An upper bound on the legal actions of any state of either game. */
#define XEN_MAX_ACTIONS 1024

typedef struct XenGameApi {
    const char *name;
    size_t state_size;
    /* 0 or 1 at a decision, XEN_CHANCE at a chance node, XEN_TERMINAL at the end. */
    int (*current_player)(const void *tables, const void *state);
    /* Legal decision actions in ascending order; returns their number. */
    int (*legal_actions)(const void *tables, const void *state, uint32_t *out);
    /* A chance outcome drawn with its true probability. */
    uint32_t (*sample_chance)(const void *tables, const void *state, XenRng *rng);
    void (*apply)(const void *tables, void *state, uint32_t action);
    /* out[p] = +1 win, -1 loss, 0 draw (only meaningful at the end). */
    void (*returns)(const void *tables, const void *state, double out[2]);
    /* The Zobrist hash of the whole state (perfect-information search keys on it). */
    uint64_t (*hash)(const void *tables, const void *state);
    /* Equal for two states exactly when `player` cannot tell them apart. */
    uint64_t (*information_set_key)(const void *tables, const void *state, int player);
    /* Redraws everything `player` cannot see, uniformly among the consistent states.
     * The result depends only on what `player` knows and on rng. */
    void (*resample)(const void *tables, void *state, int player, XenRng *rng);
    /* Static evaluation in [-1, 1] from `player`'s side (for cut-off playouts). */
    double (*evaluate)(const void *tables, const void *state, int player);
    /* The turn counter, used to cut playouts off after a number of turns. */
    int (*turn)(const void *tables, const void *state);
    /* One decision of the playout policy at a decision node. */
    uint32_t (*playout_action)(const void *tables, const void *state, XenRng *rng);
} XenGameApi;

#endif
