/* moves.c - Hero: legal actions (in ascending code order) and chance
 * outcomes (docs/hero-engine.md §8). */

#include "internal.h"
#include "multiset.h"

/* ============================================================ legal actions */

/* Field colour counts of seat u (§5 condition): avatar, units, tokens. */
typedef struct FieldCount {
    int colour[5];
    int total;
} FieldCount;

static void field_count(const HeroTables *t, const HeroState *s, int u, FieldCount *fc) {
    const HeroSeat *seat = &t->seat[u];
    memset(fc, 0, sizeof *fc);
    fc->colour[seat->faction]++;
    fc->total = 1;
    for (uint32_t m = seat_units(s, u); m; m &= m - 1) {
        fc->colour[seat->unit_faction[s->card[u * 10 + __builtin_ctz(m)]]]++;
        fc->total++;
    }
}

/* A target mask of one relative code, or no target (HERO_NO_TARGET). */
static inline uint64_t targets_or_none(const HeroTables *t, const HeroState *s,
                                       const HeroEffects *fx, int u) {
    return fx->target == HERO_TG_NONE ? 1ULL << HERO_NO_TARGET : legal_targets(t, s, fx, u);
}

/* The card ids seat u holds, as a mask (bit c: id c), over all
 * HERO_MAX_CARDS counts (16 at a time with SSE2, multiset.h): the counts of
 * ids outside the card set are 0 (state.c, check_zones). */
static inline uint64_t held_cards(const HeroState *s, int u) {
    return xen_multiset_mask(s->hand[u], HERO_MAX_CARDS);
}

/* What every generator of one decision reads: who acts, their field colours
 * and the cards they hold. The colours are counted on the first card whose
 * condition is checked (fc_ready): most decisions check none (no card held
 * that could be used, or none affordable). */
typedef struct Decision {
    const HeroTables *t;
    const HeroState *s;
    int u;
    int fc_ready;
    FieldCount fc;
    uint64_t held;
} Decision;

/* Condition met and affordable (§5). */
static inline int can_use(Decision *d, int card) {
    const HeroCard *k = &d->t->card[card];
    const FieldCount *fc = &d->fc;
    if (d->s->charisma_used[d->u] + k->cost > d->t->seat[d->u].charisma) return 0;
    if (!d->fc_ready) {
        field_count(d->t, d->s, d->u, &d->fc);
        d->fc_ready = 1;
    }
    if (fc->total < k->cond_total) return 0;
    return fc->colour[0] >= k->cond[0] && fc->colour[1] >= k->cond[1] &&
           fc->colour[2] >= k->cond[2] && fc->colour[3] >= k->cond[3];
}

static int runs_deploy(Decision *d, XenRun *runs, int n) {
    const HeroState *s = d->s;
    int u = d->u;
    uint64_t front_room = s->row_n[u * 2] < HERO_ROW_SIZE;
    uint64_t back_room = s->row_n[u * 2 + 1] < HERO_ROW_SIZE;
    if (!front_room && !back_room) return n;
    for (uint64_t m = d->held & d->t->unit_ids; m; m &= m - 1) {
        int card = __builtin_ctzll(m);
        const HeroCard *k = &d->t->card[card];
        if (!can_use(d, card)) continue;
        uint64_t rows = (front_room && (k->keywords & HERO_KW_BLITZ)) | back_room << 1;
        n = xen_run_add(runs, n, HERO_DEPLOY, card, 0, rows);
    }
    return n;
}

static int runs_play(Decision *d, int normal_too, XenRun *runs, int n) {
    uint64_t playable = normal_too ? d->t->op_ids : d->t->fast_op_ids;
    for (uint64_t m = d->held & playable; m; m &= m - 1) {
        int card = __builtin_ctzll(m);
        const HeroCard *k = &d->t->card[card];
        if (!can_use(d, card)) continue;
        n = xen_run_add(runs, n, HERO_PLAY, card, 0,
                        targets_or_none(d->t, d->s, &k->effects, d->u));
    }
    return n;
}

static int runs_retainer(const Decision *d, XenRun *runs, int n) {
    if (d->s->row_n[d->u * 2 + 1] >= HERO_ROW_SIZE) return n;
    return xen_run_add(runs, n, HERO_RETAINER, 0, 1, d->held);
}

static int runs_move(const HeroState *s, int u, XenRun *runs, int n) {
    /* a unit moves to the other row of its seat, which needs room */
    uint32_t units = seat_units(s, u), movable = 0;
    if (s->row_n[u * 2 + 1] < HERO_ROW_SIZE) movable |= units & 0x1F;
    if (s->row_n[u * 2] < HERO_ROW_SIZE) movable |= units & 0x3E0;
    return xen_run_add(runs, n, HERO_MOVE, 0, 0, movable & seat_flagged(s, u, HERO_F_CAN_MOVE));
}

static int runs_ability(const HeroTables *t, const HeroState *s, int u, XenRun *runs, int n) {
    const HeroSeat *seat = &t->seat[u];
    if (seat->ability != HERO_AB_ACTIVATED || s->ability_used[u]) return n;
    return xen_run_add(runs, n, HERO_ABILITY, 0, 0, targets_or_none(t, s, &seat->ability_fx, u));
}

static int runs_attack(const HeroTables *t, const HeroState *s, int a, XenRun *runs, int n) {
    int op = 1 - a;
    uint32_t used = seat_units(s, op) & seat_flagged(s, op, HERO_F_USED);
    uint64_t used_front = (uint64_t)(used & 0x1F) << 10; /* relative codes 10..14 */
    uint64_t used_back = (uint64_t)(used & 0x3E0) << 10; /* 15..19 */
    for (uint32_t m = seat_units(s, a) & ~seat_flagged(s, a, HERO_F_USED); m; m &= m - 1) {
        int rel = __builtin_ctz(m), slot = a * 10 + rel;
        if (rel < 5)
            n = xen_run_add(runs, n, HERO_ATTACK, rel, 0,
                            used_front | used_back | 1ULL << HERO_AVATAR_SLOT);
        else if (keywords_at(t, s, slot) & HERO_KW_RANGED)
            n = xen_run_add(runs, n, HERO_ATTACK, rel, 0, used_front);
    }
    return n;
}

/* May the unit at absolute slot g guard the pending attack (§5 GUARD)? */
static int can_guard(const HeroTables *t, const HeroState *s, int g) {
    int x = s->att_from, target = s->att_to;
    if (x == HERO_REF_NONE || target == HERO_REF_NONE || g == target) return 0;
    if (s->flags[g] & HERO_F_USED) return 0;
    int target_is_unit = target != HERO_REF_AVATAR;
    if (target_is_unit && is_front(target) && !is_front(g)) return 0;
    int kx = keywords_at(t, s, x), kg = keywords_at(t, s, g);
    if ((kx & HERO_KW_FLYING) && !(kg & (HERO_KW_FLYING | HERO_KW_RANGED))) return 0;
    if ((kx & HERO_KW_RANGED) && is_front(x) && target_is_unit && !is_front(target) && is_front(g))
        return 0;
    return 1;
}

static int runs_guard(const HeroTables *t, const HeroState *s, int d, XenRun *runs, int n) {
    uint64_t guards = 0;
    for (uint32_t m = seat_units(s, d); m; m &= m - 1) {
        int rel = __builtin_ctz(m);
        if (can_guard(t, s, d * 10 + rel)) guards |= 1u << rel;
    }
    return xen_run_add(runs, n, HERO_GUARD, 0, 0, guards);
}

static int chance_codes(const HeroTables *t, const HeroState *s, uint16_t *out) {
    int d = hero_drawer(t, s), n = 0;
    for (int card = 0; card < t->n_cards; card++)
        if (s->deck[d][card]) out[n++] = XEN_CODE(HERO_DRAW, card, 0);
    return n;
}

/* The decision codes as runs, ascending (kind-major), per the table of §3;
 * runs holds HERO_MAX_RUNS. */
int hero_decision_runs(const HeroTables *t, const HeroState *s, XenRun *runs) {
    Decision d = {t, s, current_player_of(s), 0, {{0}, 0}, 0};
    int u = d.u, n = 0;
    if (s->pend_kind == HERO_PEND_TARGET)
        return xen_run_add(runs, 0, HERO_TARGET, 0, 0,
                           legal_targets(t, s, &t->card[s->pend_source].effects, u));
    d.held = held_cards(s, u); /* the cards held, not every id */
    switch (s->phase) {
    case HERO_PH_ACTION:
        n = xen_run_add(runs, n, HERO_END, 0, 0, 1);
        n = runs_move(s, u, runs, n);
        n = runs_deploy(&d, runs, n);
        n = runs_play(&d, 1, runs, n);
        n = runs_retainer(&d, runs, n);
        n = runs_ability(t, s, u, runs, n);
        break;
    case HERO_PH_WINDOW:
        n = xen_run_add(runs, n, HERO_PASS, 0, 0, 1);
        n = runs_play(&d, 0, runs, n);
        n = runs_retainer(&d, runs, n);
        break;
    case HERO_PH_BATTLE:
        n = xen_run_add(runs, n, HERO_END, 0, 0, 1);
        n = runs_play(&d, 0, runs, n);
        n = runs_retainer(&d, runs, n);
        n = runs_attack(t, s, u, runs, n);
        break;
    case HERO_PH_DEFEND:
        n = xen_run_add(runs, n, HERO_PASS, 0, 0, 1);
        n = runs_play(&d, 0, runs, n);
        n = runs_retainer(&d, runs, n);
        n = runs_guard(t, s, u, runs, n);
        break;
    default: break;
    }
    return n;
}

static int decision_codes(const HeroTables *t, const HeroState *s, uint16_t *out) {
    XenRun runs[HERO_MAX_RUNS];
    return xen_runs_expand(runs, hero_decision_runs(t, s, runs), out);
}

int hero_legal_actions(const HeroTables *t, const HeroState *s, uint16_t *out) {
    if (hero_is_terminal(s)) return 0;
    if (hero_is_chance(s)) return chance_codes(t, s, out);
    return decision_codes(t, s, out);
}

XenCode hero_random_decision(const HeroTables *t, const HeroState *s, XenRng *rng) {
    XenRun runs[HERO_MAX_RUNS];
    int n = hero_decision_runs(t, s, runs);
    return xen_runs_random(runs, n, rng);
}

int hero_chance_outcomes(const HeroTables *t, const HeroState *s, uint16_t *codes,
                         uint32_t *weights, uint32_t *total) {
    *total = 0;
    if (hero_is_terminal(s) || !hero_is_chance(s)) return 0;
    int d = hero_drawer(t, s), n = 0;
    for (int card = 0; card < t->n_cards; card++) {
        if (!s->deck[d][card]) continue;
        codes[n] = XEN_CODE(HERO_DRAW, card, 0);
        weights[n++] = s->deck[d][card];
        *total += s->deck[d][card];
    }
    return n;
}

int hero_is_legal(const HeroTables *t, const HeroState *s, uint16_t code) {
    if (hero_is_terminal(s)) return 0;
    if (hero_is_chance(s)) {
        int card = XEN_X(code);
        return XEN_KIND(code) == HERO_DRAW && XEN_Y(code) == 0 && card < t->n_cards &&
               s->deck[hero_drawer(t, s)][card] > 0;
    }
    XenRun runs[HERO_MAX_RUNS];
    return xen_runs_hold(runs, hero_decision_runs(t, s, runs), code);
}

/* ==================================================================== chance */

uint16_t hero_sample_chance(const HeroTables *t, const HeroState *s, XenRng *rng) {
    int d = hero_drawer(t, s);
    uint32_t r = xen_rng_below(rng, s->deck_n[d]);
    int card = xen_multiset_pick(s->deck[d], t->n_cards, r);
    return XEN_CODE(HERO_DRAW, card, 0);
}
