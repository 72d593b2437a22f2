/* internal.h - what the files of the Anabasis core share (not part of its
 * interface, anabasis.h): setters, queries, and the functions one file of
 * the core calls in another.
 *
 * The core, by concern (the same files as the Hero core's):
 *   tables.c   card data, pattern masks and Zobrist keys (ana_tables_init)
 *   state.c    who is to move, results, the hash from scratch, state checks
 *   rules.c    the rules: setup, turns, market, battle, events; apply, undo
 *   moves.c    legal actions and chance outcomes
 *   views.c    information sets and resampling
 *   playout.c  the static evaluation and the playout policy
 *   tensors.c  the information-state and observation tensors (tensor.h)
 *   adapter.c  the game interface, perft and the speed loops (game_adapter.h)
 */
#ifndef XENOPHON_ANABASIS_INTERNAL_H
#define XENOPHON_ANABASIS_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "anabasis.h"
#include "check.h"
#include "codes.h"
#include "runs.h"
#include "zobrist.h"

#define BIT(q) (1ULL << (q))
#define FOR_BITS(q, bb) \
    for (uint64_t b_ = (bb); b_ && (((q) = __builtin_ctzll(b_)), 1); b_ &= b_ - 1)

enum { CASTLE0 = 3, CASTLE1 = 38, VILLAGE0 = 6, VILLAGE1 = 35 };
static const int CASTLE_SQ[2] = {CASTLE0, CASTLE1};
static const int VILLAGE_SQ[2] = {VILLAGE0, VILLAGE1};
/* Debug builds (XENOPHON_DEBUG) check every invariant, the hash and the
 * information-set keys included, after every apply, undo and resample; after
 * an unkeyed apply (rules_unkeyed.c), every invariant but those. */
#ifdef XENOPHON_DEBUG
#ifdef XEN_UNKEYED
#define debug_check(t, s) xen_debug_report("anabasis", ana_state_check_unkeyed((t), (s)))
#else
#define debug_check(t, s) xen_debug_report("anabasis", ana_state_check((t), (s)))
#endif
#else
#define debug_check(t, s) ((void)0)
#endif

/* ================================================================ setters
 *
 * Every write to an AnaState goes through these (zobrist.h keeps the hash):
 * bytes and multiset counts, 16-bit fields as two bytes, bitboard bits. The
 * hand and DECK counts, which their seat hides, go through hidden_set8 /
 * hidden_add, which keep the hidden sums too; every other field is public
 * and its setters add to the hash alone (NULL for the sums; debug builds
 * assert that such a byte has no hidden keys). */

static inline void set8(const AnaTables *t, AnaState *s, uint8_t *p, int v) {
    xen_set_u8(s, NULL, t->zobrist, p, v);
}

static inline void set16(const AnaTables *t, AnaState *s, void *p, int v) {
    xen_set_u16_bytes(s, NULL, t->zobrist, p, v);
}

static inline void bb_put(const AnaTables *t, AnaState *s, uint64_t *bb, int q, int on) {
    xen_bit_put(s, NULL, t->zobrist, bb, q, on);
}

static inline void bb_set(const AnaTables *t, AnaState *s, uint64_t *bb, int q) {
    bb_put(t, s, bb, q, 1);
}

static inline void bb_clear(const AnaTables *t, AnaState *s, uint64_t *bb, int q) {
    bb_put(t, s, bb, q, 0);
}

static inline void ms_add(const AnaTables *t, AnaState *s, uint8_t *ms, int card, int d) {
    set8(t, s, &ms[card], ms[card] + d);
}

static inline void add16(const AnaTables *t, AnaState *s, uint16_t *p, int d) {
    set16(t, s, p, *p + d);
}

/* A hand or DECK count. */
static inline void hidden_set8(const AnaTables *t, AnaState *s, uint8_t *p, int v) {
    xen_set_u8(s, s->hidden, t->zobrist, p, v);
}

static inline void hidden_add(const AnaTables *t, AnaState *s, uint8_t *counts, int card, int d) {
    hidden_set8(t, s, &counts[card], counts[card] + d);
}

/* ================================================================ queries */

/* The stages where a seat decides (the others are chance, and OVER). */
#define ANA_DECISION_STAGES \
    (1u << ANA_SG_STANDBY1 | 1u << ANA_SG_FIELD | 1u << ANA_SG_STANDBY2 | 1u << ANA_SG_RESPONSE | \
     1u << ANA_SG_NULLIFY_RESPONSE | 1u << ANA_SG_EVADE | 1u << ANA_SG_EVENT_WINDOW)
/* ... and those where it is the seat that is not active. */
#define ANA_OTHER_SEAT_STAGES \
    (1u << ANA_SG_RESPONSE | 1u << ANA_SG_EVADE | 1u << ANA_SG_EVENT_WINDOW)

/* (stage & 31: no test needed, the stages fit 5 bits and a state's stage is
 * a known one; the mask keeps the shift defined whatever the byte holds) */
static inline int stage_is_decision(int stage) {
    return (int)(ANA_DECISION_STAGES >> (stage & 31) & 1);
}

/* ana_current_player, inlined where the rules ask it once an action. */
static inline int mover(const AnaState *s) {
    if (stage_is_decision(s->stage))
        return s->active ^ (int)(ANA_OTHER_SEAT_STAGES >> s->stage & 1);
    return s->stage == ANA_SG_OVER ? XEN_TERMINAL : XEN_CHANCE;
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline uint64_t occupied(const AnaState *s) { return s->occ[0] | s->occ[1]; }
static inline int owner_of(const AnaState *s, int q) { return (int)((s->occ[1] >> q) & 1); }
static inline int slot_up(const AnaState *s, int p, int k) { return (s->pl[p].slot_up >> k) & 1; }
static inline int slot_face_down(const AnaState *s, int p, int k) {
    return s->pl[p].slot[k] != ANA_NONE && !slot_up(s, p, k);
}

static inline int has_face_down_event(const AnaState *s, int p) {
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, p, k)) return 1;
    return 0;
}

static inline int first_empty_slot(const AnaState *s, int p) {
    for (int k = 0; k < ANA_SLOTS; k++)
        if (s->pl[p].slot[k] == ANA_NONE) return k;
    return -1;
}

static inline int row_count(const AnaState *s) {
    int n = 0;
    while (n < ANA_ROW_SIZE && s->row[n] != ANA_NONE) n++;
    return n;
}

/* The amount of the active field card if its effect is `effect`. */
static inline int field_active(const AnaTables *t, const AnaState *s, int effect, int *amount) {
    if (s->field_n == 0) return 0;
    const AnaFieldCard *f = &t->field[s->field_rev[s->field_idx]];
    if (f->effect != effect) return 0;
    *amount = f->amount;
    return 1;
}

/* AP costs never go below 0 (a card file may give a field a negative amount). */
static inline int move_cost(const AnaTables *t, const AnaState *s) {
    int a;
    return field_active(t, s, ANA_FX_MOVE_COST, &a) ? (a > 0 ? a : 0) : 1;
}

static inline int attack_cost(const AnaTables *t, const AnaState *s, int q) {
    int a;
    if (field_active(t, s, ANA_FX_ATTACK_COST, &a)) return a > 0 ? a : 0;
    return (s->moved >> q) & 1 ? 0 : 1;
}

/* The squares of `from` whose attack costs at most `ap` (attack_cost, for a
 * whole mask at once). */
static inline uint64_t attack_affordable(const AnaTables *t, const AnaState *s, uint64_t from,
                                         int ap) {
    int a;
    if (field_active(t, s, ANA_FX_ATTACK_COST, &a)) return ap >= (a > 0 ? a : 0) ? from : 0;
    return ap >= 1 ? from : from & s->moved;
}

/* What the active field card adds to every price (0 without one). */
static inline int price_change(const AnaTables *t, const AnaState *s) {
    int a;
    return field_active(t, s, ANA_FX_PRICE, &a) ? a : 0;
}

static inline int price(const AnaTables *t, const AnaState *s, int card) {
    int p = t->card[card].cost + price_change(t, s);
    return p < 1 ? 1 : p;
}

/* The greatest cost `funds` pay for: price(c) = max(1, cost + change) <=
 * funds exactly when cost <= budget (-1, nothing, without funds). */
static inline int purchase_budget(const AnaTables *t, const AnaState *s, int funds) {
    return funds >= 1 ? funds - price_change(t, s) : -1;
}

/* The card ids `funds` pay for, as bits. */
static inline uint64_t affordable_ids(const AnaTables *t, const AnaState *s, int funds) {
    int budget = purchase_budget(t, s, funds);
    return budget < 0 ? 0 : t->cost_at_most[budget < ANA_MAX_COST ? budget : ANA_MAX_COST];
}

/* The to-deal multiset of seat p is never stored: during the DEAL stages it
 * is the starting events minus what seat p's slots already hold (seat p's
 * slots are filled from it, in order), and it is empty afterwards. */
static inline int to_deal_count(const AnaTables *t, const AnaState *s, int p, int card) {
    if (s->stage != ANA_SG_DEAL || p < s->sub) return 0;
    int n = t->start_events[card];
    for (int k = 0; k < ANA_SLOTS; k++)
        if (s->pl[p].slot[k] == card) n--;
    return n;
}

static inline int to_deal_total(const AnaTables *t, const AnaState *s, int p) {
    if (s->stage != ANA_SG_DEAL || p < s->sub) return 0;
    int n = t->n_start_events;
    for (int k = 0; k < ANA_SLOTS; k++)
        if (s->pl[p].slot[k] != ANA_NONE) n--;
    return n;
}

/* Seat o's unseen multiset U as the other seat knows it (views.c, §9): hand +
 * DECK + face-down slots + to-deal. */
void ana_unseen_of(const AnaTables *t, const AnaState *s, int o, uint8_t u[ANA_MAX_CARDS]);

/* ---------------------------------------------------------------- battle and event queries
 * (the rules, the move generator and the checks read them) */

/* Striker x, target y (a square; the castle square for a castle) and whether
 * it is the main strike, for the pending b_step. */
static inline void strike_sides(const AnaState *s, int *x, int *y, int *main_strike) {
    int main = s->b_step == ANA_BS_MAIN || s->b_step == ANA_BS_MAIN_AFTER_AMBUSH;
    *x = main ? s->b_att : s->b_tgt;
    *y = main ? s->b_tgt : s->b_att;
    *main_strike = main;
}

static inline int command_near(const AnaTables *t, const AnaState *s, int x, int owner) {
    int q;
    FOR_BITS (q, t->around[x] & s->occ[owner] & s->chars)
        if (t->card[s->sq_card[q]].keywords & ANA_KW_COMMAND) return 1;
    return 0;
}

/* Weights over 10,000 of miss, hit, crit for the pending strike (§4). */
static inline void strike_weights(const AnaTables *t, const AnaState *s, uint32_t w[3]) {
    int x, y, main, a;
    strike_sides(s, &x, &y, &main);
    const AnaCard *c = &t->card[s->sq_card[x]];
    int owner = owner_of(s, x), hit = c->hit, crit = c->crit;
    if (command_near(t, s, x, owner)) hit += 10;
    if (field_active(t, s, ANA_FX_HIT, &a)) hit += a;
    if (main && ((s->chars >> y) & 1) &&
        !(t->attack_mask[s->sq_card[y]][owner_of(s, y)][y] & BIT(x))) {
        hit += 20; /* out of the target's range */
        crit += 10;
    }
    hit = clampi(hit, 0, 100);
    crit = clampi(crit, 0, 100);
    w[0] = (uint32_t)((100 - hit) * 100);
    w[1] = (uint32_t)(hit * (100 - crit));
    w[2] = (uint32_t)(hit * crit);
}

static inline uint64_t evade_mask(const AnaTables *t, const AnaState *s) {
    int q = s->b_tgt;
    return t->move_mask[s->sq_card[q]][owner_of(s, q)][q] & ~occupied(s) & ~t->castles;
}

/* The response that matches the attack on b (§4 step 1). */
static inline int response_matches(const AnaState *s, int effect) {
    int target_is_character = (int)((s->chars >> s->b_tgt) & 1);
    if (effect == ANA_EV_EVASION || effect == ANA_EV_AMBUSH) return target_is_character;
    if (effect == ANA_EV_FORTIFY) return !target_is_character;
    return 0;
}

/* The arguments of a field-phase event of `effect` played by p, as a mask
 * (bit a: EVENT k a is legal): a rank to flood, an own character to rally, an
 * enemy territory to sabotage, 0 for the others; none for the events that are
 * only played as responses. */
static inline uint64_t event_args(const AnaState *s, int p, int effect) {
    switch (effect) {
    case ANA_EV_FLOOD: return (1ULL << ANA_RANKS) - 1;
    case ANA_EV_RALLY: return s->occ[p] & s->chars;
    case ANA_EV_SABOTAGE: return s->occ[1 - p] & ~s->chars;
    case ANA_EV_FORCED_MARCH:
    case ANA_EV_WINDFALL: return 1;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- across files */

/* ana_state_check without the hash and the hidden sums (state.c), for the
 * states of unkeyed applies, which keep neither; the check of those alone
 * (adapter.c, game_adapter.h). */
const char *ana_state_check_unkeyed(const AnaTables *t, const AnaState *s);
const char *ana_check_keys(const AnaTables *t, const AnaState *s);

/* A decision's legal codes as runs (runs.h, moves.c): at most a move and an
 * attack run per square, and a few. */
enum { ANA_MAX_RUNS = 2 * ANA_SQUARES + 8 };
/* The ATTACK runs of the field stage, ascending, appended after n runs. */
int ana_field_attack_runs(const AnaTables *t, const AnaState *s, XenRun *runs, int n);
/* A uniformly random legal code of the field stage, given its attack runs
 * (ana_field_attack_runs from 0): the same draw as ana_random_decision. */
XenCode ana_random_field_decision(const AnaTables *t, const AnaState *s, const XenRun *attacks,
                                  int n_attacks, XenRng *rng);

#endif
