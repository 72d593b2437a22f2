/* playout.c - Hero for the search: the static evaluation and the playout
 * policy. */
#include <math.h>

#include "internal.h"
#include "learned.h"

/* ================================================================ evaluation */

/* Weights of the static evaluation (see hero_evaluate). */
#define EVAL_W_HP 2.0     /* per unit of sqrt-HP difference (in [-1, 1]) */
#define EVAL_W_BOARD 0.05 /* per "point" of board difference */
#define EVAL_W_HAND 0.04  /* per card of hand-size difference */
#define EVAL_W_DECK 0.4   /* per unit of deck-safety difference (in [-1, 1]) */
#define EVAL_DECK_SAFE 5  /* a deck of this many cards or more is safe */

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
            v += power_of(t, s, slot) / 1000.0 + attack_of(t, s, slot);
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

/* The learned evaluation (learned.h): the weights of the tables over the
 * features of features.c; the hand-set one above while no weights are loaded. */
double hero_evaluate_learned(const HeroTables *t, const HeroState *s, int player) {
    double x[XEN_MAX_FEATURES];
    if (hero_is_terminal(s) || t->learned.n_features == 0) return hero_evaluate(t, s, player);
    hero_features(t, s, player, x);
    return xen_learned_value(&t->learned, x, s->turn);
}

/* ============================================================ playout policy */

/* Probabilities of the playout corrections (see hero_playout_action). */
#define PLAYOUT_P_DEPLOY 0.9     /* replace an `end` of the action phase by a deploy */
#define PLAYOUT_P_ATTACK 0.75    /* replace an `end` of the battle phase by an attack */
#define PLAYOUT_P_KEEP_CARD 0.75 /* replace a Retainer discard by another code */

/* The number of codes of `kind` in the runs, and the index of its first. */
static int kind_codes(const XenRun *runs, int n, int kind, int *first) {
    int before = 0, count = 0;
    for (int i = 0; i < n; i++) {
        int size = xen_popcount64(runs[i].bits);
        if (runs[i].kind < kind) before += size;
        else if (runs[i].kind == kind) count += size;
    }
    *first = before;
    return count;
}

/* A uniformly random legal code, with three corrections of the obvious
 * weaknesses of uniform play, each taken with a fixed probability:
 *  - `end` in the action phase while a deploy is legal -> a random deploy (0.9);
 *  - `end` in the battle phase while an attack is legal -> a random attack (0.75);
 *  - a Retainer discard -> a random code of another kind (0.75), since uniform
 *    play otherwise throws most of its hand away (every card in hand gives a
 *    RETAINER code at every window).
 * Picked from the legal runs (runs.h) by index, the codes never listed: the
 * same draws pick the same codes as in the ascending list.
 * Must be called at a decision node. */
XenCode hero_playout_action(const HeroTables *t, const HeroState *s, XenRng *rng) {
    XenRun runs[HERO_MAX_RUNS];
    int n_runs = hero_decision_runs(t, s, runs), first, count;
    int n = xen_runs_count(runs, n_runs);
    XenCode code = xen_runs_code(runs, n_runs, (int)xen_rng_below(rng, (uint32_t)n));
    int kind = XEN_KIND(code);
    if (kind == HERO_END && s->phase == HERO_PH_ACTION) {
        count = kind_codes(runs, n_runs, HERO_DEPLOY, &first);
        if (count && xen_rng_unit(rng) < PLAYOUT_P_DEPLOY)
            code = xen_runs_code(runs, n_runs, first + (int)xen_rng_below(rng, (uint32_t)count));
    } else if (kind == HERO_END && s->phase == HERO_PH_BATTLE) {
        count = kind_codes(runs, n_runs, HERO_ATTACK, &first);
        if (count && xen_rng_unit(rng) < PLAYOUT_P_ATTACK)
            code = xen_runs_code(runs, n_runs, first + (int)xen_rng_below(rng, (uint32_t)count));
    } else if (kind == HERO_RETAINER && xen_rng_unit(rng) < PLAYOUT_P_KEEP_CARD) {
        count = kind_codes(runs, n_runs, HERO_RETAINER, &first);
        /* uniform over the codes outside the discards; END or PASS is always there */
        int r = (int)xen_rng_below(rng, (uint32_t)(n - count));
        code = xen_runs_code(runs, n_runs, r < first ? r : r + count);
    }
    return code;
}
