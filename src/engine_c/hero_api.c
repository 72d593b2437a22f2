/* hero_api.c - "A Hero incarnation" behind the game-independent search
 * interface (game_api.h), plus the two things only the search needs: a
 * static evaluation and a playout policy.
 *
 * The search copies states with memcpy and never undoes, so `apply` here
 * passes no undo record.
 */
#include <math.h>

#include "hero.h"

/* ================================================================ evaluation */

/* Weights of the static evaluation (see hero_evaluate). */
#define EVAL_W_HP 2.0       /* per unit of sqrt-HP difference (in [-1, 1]) */
#define EVAL_W_BOARD 0.05   /* per "point" of board difference */
#define EVAL_W_HAND 0.04    /* per card of hand-size difference */
#define EVAL_W_DECK 0.4     /* per unit of deck-safety difference (in [-1, 1]) */
#define EVAL_DECK_SAFE 5    /* a deck of this many cards or more is safe */

/* sqrt(hp / max) with hp clamped to [0, max]: HP weighs more as it runs out
 * (losing the 2nd of 20 HP matters less than losing the 19th). */
static double hp_value(const HeroTables *t, const HeroState *s, int p) {
    double hp = s->hp[p] < 0 ? 0.0 : (double)s->hp[p];
    double max = (double)t->seat[p].hp;
    return sqrt(hp > max ? 1.0 : hp / max);
}

/* Board points of seat p: every unit (tokens included) scores power / 1000
 * plus its attack, power and attack as derived by the rules (pumps and race
 * bonus in). A Goblin Raider scores 2, a Fire Drake 8. */
static double board_value(const HeroTables *t, const HeroState *s, int p) {
    double v = 0.0;
    for (int rr = p * 2; rr < p * 2 + 2; rr++)
        for (int i = 0; i < s->row_n[rr]; i++) {
            int slot = rr * 5 + i;
            v += hero_power(t, s, slot) / 1000.0 + hero_attack(t, s, slot);
        }
    return v;
}

/* Deck safety in [0, 1]: an empty deck loses (D-29), a short one will soon. */
static double deck_value(const HeroState *s, int p) {
    int n = s->deck_n[p] < EVAL_DECK_SAFE ? s->deck_n[p] : EVAL_DECK_SAFE;
    return (double)n / EVAL_DECK_SAFE;
}

/* Static evaluation from `player`'s side (me) against the other seat (op),
 * public information only (HP, fields, hand and deck sizes; never the cards
 * in a hand or deck):
 *
 *   x = 2.0  * (sqrt(hp_me / max_me) - sqrt(hp_op / max_op))
 *     + 0.05 * (board_me - board_op)          board = sum of power/1000 + attack
 *     + 0.04 * (hand_size_me - hand_size_op)
 *     + 0.4  * (min(deck_me, 5) - min(deck_op, 5)) / 5
 *   evaluate = tanh(x)                        in (-1, 1)
 *
 * At the end of the game: the exact return (+1, -1, 0). The weights are a
 * starting point to be tuned by experiment. */
double hero_evaluate(const HeroTables *t, const HeroState *s, int player) {
    int me = player, op = 1 - player;
    if (hero_is_terminal(s)) {
        int r[2];
        hero_returns(s, r);
        return (double)r[me];
    }
    double x = EVAL_W_HP * (hp_value(t, s, me) - hp_value(t, s, op)) +
               EVAL_W_BOARD * (board_value(t, s, me) - board_value(t, s, op)) +
               EVAL_W_HAND * ((double)s->hand_n[me] - (double)s->hand_n[op]) +
               EVAL_W_DECK * (deck_value(s, me) - deck_value(s, op));
    return tanh(x);
}

/* ============================================================ playout policy */

/* Probabilities of the playout corrections (see hero_playout_action). */
#define PLAYOUT_P_DEPLOY 0.9     /* replace an `end` of the action phase by a deploy */
#define PLAYOUT_P_ATTACK 0.75    /* replace an `end` of the battle phase by an attack */
#define PLAYOUT_P_KEEP_CARD 0.75 /* replace a Retainer discard by another code */

/* The range [*first, *last) of codes of one kind in an ascending list. */
static int kind_range(const uint16_t *codes, int n, int kind, int *first, int *last) {
    int i = 0;
    while (i < n && HERO_KIND(codes[i]) < kind) i++;
    *first = i;
    while (i < n && HERO_KIND(codes[i]) == kind) i++;
    *last = i;
    return *last > *first;
}

static uint16_t pick_in(const uint16_t *codes, int first, int last, XenRng *rng) {
    return codes[first + (int)xen_rng_below(rng, (uint32_t)(last - first))];
}

/* A uniformly random legal code, with three corrections of the obvious
 * weaknesses of uniform play, each taken with a fixed probability:
 *  - `end` in the action phase while a deploy is legal -> a random deploy (0.9);
 *  - `end` in the battle phase while an attack is legal -> a random attack (0.75);
 *  - a Retainer discard -> a random code of another kind (0.75), since uniform
 *    play otherwise throws most of its hand away (every card in hand gives a
 *    RETAINER code at every window).
 * Must be called at a decision node. */
uint16_t hero_playout_action(const HeroTables *t, const HeroState *s, XenRng *rng) {
    uint16_t codes[HERO_MAX_ACTIONS];
    int n = hero_legal_actions(t, s, codes), first, last;
    uint16_t code = codes[xen_rng_below(rng, (uint32_t)n)];
    int kind = HERO_KIND(code);
    if (kind == HERO_END && s->phase == HERO_PH_ACTION) {
        if (kind_range(codes, n, HERO_DEPLOY, &first, &last) &&
            xen_rng_unit(rng) < PLAYOUT_P_DEPLOY)
            code = pick_in(codes, first, last, rng);
    } else if (kind == HERO_END && s->phase == HERO_PH_BATTLE) {
        if (kind_range(codes, n, HERO_ATTACK, &first, &last) &&
            xen_rng_unit(rng) < PLAYOUT_P_ATTACK)
            code = pick_in(codes, first, last, rng);
    } else if (kind == HERO_RETAINER && xen_rng_unit(rng) < PLAYOUT_P_KEEP_CARD) {
        kind_range(codes, n, HERO_RETAINER, &first, &last);
        /* uniform over the codes outside [first, last); END or PASS is always there */
        int r = (int)xen_rng_below(rng, (uint32_t)(n - (last - first)));
        code = codes[r < first ? r : r + (last - first)];
    }
    return code;
}

/* ======================================================= the interface table */

static int api_current_player(const void *tables, const void *state) {
    (void)tables;
    return hero_current_player((const HeroState *)state);
}

static int api_legal_actions(const void *tables, const void *state, uint32_t *out) {
    uint16_t codes[HERO_MAX_ACTIONS];
    int n = hero_legal_actions((const HeroTables *)tables, (const HeroState *)state, codes);
    for (int i = 0; i < n; i++) out[i] = codes[i];
    return n;
}

static uint32_t api_sample_chance(const void *tables, const void *state, XenRng *rng) {
    return hero_sample_chance((const HeroTables *)tables, (const HeroState *)state, rng);
}

static void api_apply(const void *tables, void *state, uint32_t action) {
    hero_apply((const HeroTables *)tables, (HeroState *)state, (uint16_t)action, NULL);
}

static void api_returns(const void *tables, const void *state, double out[2]) {
    int r[2];
    (void)tables;
    hero_returns((const HeroState *)state, r);
    out[0] = r[0];
    out[1] = r[1];
}

static uint64_t api_hash(const void *tables, const void *state) {
    (void)tables;
    return ((const HeroState *)state)->hash;
}

static uint64_t api_information_set_key(const void *tables, const void *state, int player) {
    return hero_information_set_key((const HeroTables *)tables, (const HeroState *)state, player);
}

static void api_resample(const void *tables, void *state, int player, XenRng *rng) {
    hero_resample((const HeroTables *)tables, (HeroState *)state, player, rng);
}

static double api_evaluate(const void *tables, const void *state, int player) {
    return hero_evaluate((const HeroTables *)tables, (const HeroState *)state, player);
}

static int api_turn(const void *tables, const void *state) {
    (void)tables;
    return ((const HeroState *)state)->turn;
}

static uint32_t api_playout_action(const void *tables, const void *state, XenRng *rng) {
    return hero_playout_action((const HeroTables *)tables, (const HeroState *)state, rng);
}

const XenGameApi hero_game_api = {
    .name = "hero",
    .state_size = sizeof(HeroState),
    .current_player = api_current_player,
    .legal_actions = api_legal_actions,
    .sample_chance = api_sample_chance,
    .apply = api_apply,
    .returns = api_returns,
    .hash = api_hash,
    .information_set_key = api_information_set_key,
    .resample = api_resample,
    .evaluate = api_evaluate,
    .turn = api_turn,
    .playout_action = api_playout_action,
};
