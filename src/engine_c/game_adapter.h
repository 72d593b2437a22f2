/* game_adapter.h - a game's XenGameApi, perft and speed loops, generated
 * from its core's functions: the adapter is written once, here.
 *
 * A game's adapter.c defines
 *
 *     XEN_GAME_NAME    "GAME"
 *     XEN_PREFIX       P              the prefix of the core's functions
 *     XEN_TABLES       PTables
 *     XEN_STATE        AnaState       starts with its hash, ends with its hidden
 *                                     sums (zobrist.h); has a `turn` field
 *
 * and includes this file once. The core must provide the functions of the
 * game contract (game_api.h, where it is written once) and its tables' `zobrist` keys (zobrist.h), and gets P_game_api, P_perft,
 * P_random_actions, P_random_actions_unkeyed and P_apply_undo_pairs
 * (declared in its header, documented in walks.h), P_rekey and
 * P_check_keys (below).
 */
#include "game_api.h"
#include "walks.h"
#include "zobrist.h"

#define XEN_PASTE_(a, b) a##_##b
#define XEN_PASTE(a, b) XEN_PASTE_(a, b)
#define XEN_FN(name) XEN_PASTE(XEN_PREFIX, name)

#define XEN_T(p) ((const XEN_TABLES *)(p))
#define XEN_S(p) ((const XEN_STATE *)(p))

_Static_assert(sizeof(XEN_STATE) <= XEN_MAX_STATE_SIZE, "the walks' state buffers");
_Static_assert(offsetof(XEN_STATE, hash) == 0, "the hash is the state's first field");
_Static_assert(offsetof(XEN_STATE, hidden) + 2 * sizeof(uint64_t) == sizeof(XEN_STATE),
               "the hidden sums are the state's last field");

/* XEN_CURRENT_PLAYER: an inline form of P_current_player, if the core has
 * one (the walks and the playout ask it once an action). */
#ifndef XEN_CURRENT_PLAYER
#define XEN_CURRENT_PLAYER XEN_FN(current_player)
#endif

static int api_current_player(const void *t, const void *s) {
    (void)t;
    return XEN_CURRENT_PLAYER(XEN_S(s));
}

static int api_legal_actions(const void *t, const void *s, XenCode *out) {
    return XEN_FN(legal_actions)(XEN_T(t), XEN_S(s), out);
}

static int api_is_legal(const void *t, const void *s, XenCode code) {
    return XEN_FN(is_legal)(XEN_T(t), XEN_S(s), code);
}

static XenCode api_sample_chance(const void *t, const void *s, XenRng *rng) {
    return XEN_FN(sample_chance)(XEN_T(t), XEN_S(s), rng);
}

static void api_apply(const void *t, void *s, XenCode code) {
    XEN_FN(apply)(XEN_T(t), (XEN_STATE *)s, code, NULL);
}

static void api_apply_unkeyed(const void *t, void *s, XenCode code) {
    XEN_FN(apply_unkeyed)(XEN_T(t), (XEN_STATE *)s, code);
}

static void api_returns(const void *t, const void *s, double out[2]) {
    int r[2];
    (void)t;
    XEN_FN(returns)(XEN_S(s), r);
    out[0] = r[0];
    out[1] = r[1];
}

static uint64_t api_hash(const void *t, const void *s) {
    (void)t;
    return XEN_S(s)->hash;
}

static uint64_t api_information_set_key(const void *t, const void *s, int player) {
    return XEN_FN(information_set_key)(XEN_T(t), XEN_S(s), player);
}

static void api_resample(const void *t, void *s, int player, XenRng *rng) {
    XEN_FN(resample)(XEN_T(t), (XEN_STATE *)s, player, rng);
}

static double api_evaluate(const void *t, const void *s, int player) {
    return XEN_FN(evaluate)(XEN_T(t), XEN_S(s), player);
}

static int api_turn(const void *t, const void *s) {
    (void)t;
    return (int)XEN_S(s)->turn;
}

static XenCode api_playout_action(const void *t, const void *s, XenRng *rng) {
    return XEN_FN(playout_action)(XEN_T(t), XEN_S(s), rng);
}

static XenCode api_random_decision(const void *t, const void *s, XenRng *rng) {
    return XEN_FN(random_decision)(XEN_T(t), XEN_S(s), rng);
}

static const char *api_state_check(const void *t, const void *s) {
    return XEN_FN(state_check)(XEN_T(t), XEN_S(s));
}

extern const XenGameApi XEN_FN(game_api);

static double api_playout(const void *t, void *s, XenRng *rng, int cutoff_turns, int max_actions,
                          int uniform, double (*evaluate)(const void *, const void *, int)) {
    return xen_playout(&XEN_FN(game_api), t, s, rng, cutoff_turns, max_actions, uniform, evaluate);
}

const XenGameApi XEN_FN(game_api) = {
    XEN_GAME_NAME,
    sizeof(XEN_STATE),
    api_current_player,
    api_legal_actions,
    api_is_legal,
    api_sample_chance,
    api_apply,
    api_apply_unkeyed,
    api_returns,
    api_hash,
    api_information_set_key,
    api_resample,
    api_evaluate,
    api_turn,
    api_playout_action,
    api_random_decision,
    api_state_check,
    api_playout,
    NULL, /* policy_logits: the network's table only (game_api.h) */
};

/* Seat p's hidden sum from scratch (the keys are 0 outside its hidden bytes). */
static uint64_t hidden_from_scratch(const XEN_TABLES *t, const XEN_STATE *s, int p) {
    return xen_sum_bytes(s, t->zobrist, p, 0, sizeof *s);
}

void XEN_FN(rekey)(const XEN_TABLES *t, XEN_STATE *s) {
    s->hash = XEN_FN(hash_from_scratch)(t, s);
    for (int p = 0; p < 2; p++) s->hidden[p] = hidden_from_scratch(t, s, p);
}

/* The stored hash and hidden sums against their recomputations, then the
 * information-set keys they give against the keys from scratch. */
const char *XEN_FN(check_keys)(const XEN_TABLES *t, const XEN_STATE *s) {
    if (s->hash != XEN_FN(hash_from_scratch)(t, s))
        return "the hash differs from the hash from scratch";
    for (int p = 0; p < 2; p++)
        if (s->hidden[p] != hidden_from_scratch(t, s, p))
            return "a hidden sum differs from the one from scratch";
    for (int p = 0; p < 2; p++)
        if (XEN_FN(information_set_key)(t, s, p) !=
            XEN_FN(information_set_key_from_scratch)(t, s, p))
            return "an information-set key differs from the one from scratch";
    return NULL;
}

uint64_t XEN_FN(perft)(const XEN_TABLES *t, XEN_STATE *s, int depth) {
    return xen_perft(&XEN_FN(game_api), t, s, depth);
}

uint64_t XEN_FN(random_actions)(const XEN_TABLES *t, const XEN_STATE *start, uint64_t n,
                                uint64_t seed) {
    return xen_random_actions(&XEN_FN(game_api), t, start, n, seed, 1);
}

uint64_t XEN_FN(random_actions_unkeyed)(const XEN_TABLES *t, const XEN_STATE *start, uint64_t n,
                                        uint64_t seed) {
    return xen_random_actions(&XEN_FN(game_api), t, start, n, seed, 0);
}

uint64_t XEN_FN(apply_undo_pairs)(const XEN_TABLES *t, const XEN_STATE *start, uint64_t n,
                                  uint64_t seed) {
    return xen_apply_undo_pairs(&XEN_FN(game_api), t, start, n, seed);
}
