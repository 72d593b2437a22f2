/* moves.c - Anabasis: legal actions (in ascending code order) and chance
 * outcomes with their weights (docs/anabasis-engine.md §8). */
#include "internal.h"
#include "multiset.h"

/* ================================================================ legal
 *
 * Decisions are generated as runs of codes (runs.h): the list is their
 * expansion, a uniformly random code one pick among them. */

static int runs_standby(const AnaTables *t, const AnaState *s, XenRun *runs) {
    int p = s->active, n = 0;
    const AnaPlayer *pl = &s->pl[p];
    uint64_t empty_home = t->home[p] & ~occupied(s);
    uint64_t held = xen_multiset_mask(pl->hand, (t->n_cards + 7) & ~7), events = 0, buy = 0;
    int change = price_change(t, s);
    n = xen_run_add(runs, n, ANA_END, 0, 0, 1);
    /* BUY: face-up market cards (tops, then the row's ids; a card id is in
     * one pile), ascending as bits */
    for (int i = 0; i < 3; i++)
        if (s->top[i] != ANA_NONE && price_with(t, s->top[i], change) <= pl->funds) buy |= BIT(s->top[i]);
    for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++)
        if (price_with(t, s->row[i], change) <= pl->funds) buy |= BIT(s->row[i]);
    n = xen_run_add(runs, n, ANA_BUY, 0, 1, buy);
    for (uint64_t m = held; m; m &= m - 1)
        if (t->card[__builtin_ctzll(m)].kind == ANA_EVENT_CARD) events |= m & -m;
    if (pl->ap >= 1) {
        for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++) {
            int c = s->row[i];   /* the row is sorted */
            if ((i > 0 && s->row[i - 1] == c) || t->card[c].kind != ANA_TERRITORY ||
                price_with(t, c, change) > pl->funds)
                continue;
            n = xen_run_add(runs, n, ANA_BUY_PLACE, c, 0, empty_home);
        }
        for (uint64_t m = held & ~events; m; m &= m - 1)
            n = xen_run_add(runs, n, ANA_PLACE, __builtin_ctzll(m), 0, empty_home);
    }
    if (first_empty_slot(s, p) >= 0) n = xen_run_add(runs, n, ANA_SET, 0, 1, events);
    return n;
}

/* The ATTACK runs of the field stage, ascending, after the n runs in `runs`
 * (the playout policy asks for them alone). */
int ana_field_attack_runs(const AnaTables *t, const AnaState *s, XenRun *runs, int n) {
    int p = s->active, d = 1 - p, a;
    uint64_t mine = s->ready & s->occ[p], targets = s->occ[d] | BIT(CASTLE_SQ[d]);
    FOR_BITS(a, attack_affordable(t, s, mine, s->pl[p].ap))
        n = xen_run_add(runs, n, ANA_ATTACK, a, 0, t->attack_mask[s->sq_card[a]][p][a] & targets);
    return n;
}

static int runs_field(const AnaTables *t, const AnaState *s, XenRun *runs) {
    int p = s->active, n = 0, a;
    const AnaPlayer *pl = &s->pl[p];
    uint64_t mine = s->ready & s->occ[p], free_sq = ~occupied(s) & ~t->castles;
    n = xen_run_add(runs, n, ANA_END, 0, 0, 1);
    if (pl->ap >= move_cost(t, s))
        FOR_BITS(a, mine) n = xen_run_add(runs, n, ANA_MOVE, a, 0, t->move_mask[s->sq_card[a]][p][a] & free_sq);
    n = ana_field_attack_runs(t, s, runs, n);
    if (pl->ap >= 1) n = xen_run_add(runs, n, ANA_READY, 0, 1, s->occ[p] & s->chars & ~s->ready);
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, p, k))
            n = xen_run_add(runs, n, ANA_EVENT, k, 0, event_args(s, p, t->card[pl->slot[k]].effect));
    return n;
}

/* PASS, then EVENT k 0 for each face-down slot of p whose effect is accepted. */
static int runs_window(const AnaTables *t, const AnaState *s, int p, int response, XenRun *runs) {
    uint64_t slots = 0;
    for (int k = 0; k < ANA_SLOTS; k++) {
        if (!slot_face_down(s, p, k)) continue;
        int effect = t->card[s->pl[p].slot[k]].effect;
        if (response ? response_matches(s, effect) : effect == ANA_EV_NULLIFY) slots |= BIT(k);
    }
    return xen_run_add(runs, xen_run_add(runs, 0, ANA_PASS, 0, 0, 1), ANA_EVENT, 0, 1, slots);
}

/* The runs of a decision (0 at a chance node or the end). */
static int decision_runs(const AnaTables *t, const AnaState *s, XenRun *runs) {
    switch (s->stage) {
    case ANA_SG_STANDBY1: case ANA_SG_STANDBY2: return runs_standby(t, s, runs);
    case ANA_SG_FIELD: return runs_field(t, s, runs);
    case ANA_SG_RESPONSE: return runs_window(t, s, 1 - s->active, 1, runs);
    case ANA_SG_NULLIFY_RESPONSE: return runs_window(t, s, s->active, 0, runs);
    case ANA_SG_EVENT_WINDOW: return runs_window(t, s, 1 - s->active, 0, runs);
    case ANA_SG_EVADE:
        return xen_run_add(runs, xen_run_add(runs, 0, ANA_PASS, 0, 0, 1), ANA_EVADE, 0, 1,
                           evade_mask(t, s));
    default: return 0;
    }
}

static int is_decision(const AnaState *s) {
    switch (s->stage) {
    case ANA_SG_STANDBY1: case ANA_SG_STANDBY2: case ANA_SG_FIELD: case ANA_SG_RESPONSE:
    case ANA_SG_NULLIFY_RESPONSE: case ANA_SG_EVENT_WINDOW: case ANA_SG_EVADE:
        return 1;
    default:
        return 0;
    }
}

int ana_legal_actions(const AnaTables *t, const AnaState *s, uint16_t *out) {
    if (s->stage == ANA_SG_OVER) return 0;
    if (!is_decision(s)) {
        uint32_t w[ANA_MAX_OUTCOMES], total;
        return ana_chance_outcomes(t, s, out, w, &total);
    }
    XenRun runs[ANA_MAX_RUNS];
    return xen_runs_expand(runs, decision_runs(t, s, runs), out);
}

XenCode ana_random_decision(const AnaTables *t, const AnaState *s, XenRng *rng) {
    XenRun runs[ANA_MAX_RUNS];
    int n = decision_runs(t, s, runs);
    return xen_runs_code(runs, n, (int)xen_rng_below(rng, (uint32_t)xen_runs_count(runs, n)));
}

/* ================================================================ chance */

static int outcomes_multiset(const uint8_t *counts, int kind, const uint8_t *ids, int n_ids,
                             uint16_t *codes, uint32_t *w, uint32_t *total) {
    int n = 0;
    for (int i = 0; i < n_ids; i++) {
        int c = ids ? ids[i] : i;
        if (!counts[c]) continue;
        codes[n] = XEN_CODE(kind, c, 0);
        w[n++] = counts[c];
        *total += counts[c];
    }
    return n;
}

int ana_chance_outcomes(const AnaTables *t, const AnaState *s, uint16_t *codes,
                        uint32_t *w, uint32_t *total) {
    int n = 0;
    *total = 0;
    switch (s->stage) {
    case ANA_SG_DEAL: {
        uint8_t counts[ANA_MAX_CARDS];
        for (int c = 0; c < t->n_cards; c++) counts[c] = (uint8_t)to_deal_count(t, s, s->sub, c);
        return outcomes_multiset(counts, ANA_DEAL, NULL, t->n_cards, codes, w, total);
    }
    case ANA_SG_SETUP_PILE: case ANA_SG_REFILL: case ANA_SG_SETUP_ROW: {
        int pile = s->stage == ANA_SG_SETUP_ROW ? ANA_PILE_ROW : s->sub;
        return outcomes_multiset(s->unseen, ANA_REVEAL, t->pile_cards[pile], t->pile_size[pile],
                                 codes, w, total);
    }
    case ANA_SG_SETUP_FIELD: case ANA_SG_TURN_FIELD: {
        uint32_t seen = 0;
        for (int i = 0; i < s->field_n; i++) seen |= 1u << s->field_rev[i];
        for (int f = 0; f < t->n_fields; f++)
            if (!(seen >> f & 1)) {
                codes[n] = XEN_CODE(ANA_FIELD, f, 0);
                w[n++] = 1;
                *total += 1;
            }
        return n;
    }
    case ANA_SG_SETUP_DRAW: case ANA_SG_END_DRAW: {
        int p = s->stage == ANA_SG_SETUP_DRAW ? s->sub : s->active;
        return outcomes_multiset(s->pl[p].deck, ANA_DRAW, NULL, t->n_cards, codes, w, total);
    }
    case ANA_SG_STRIKE: {
        uint32_t sw[3];
        strike_weights(t, s, sw);
        for (int k = 0; k < 3; k++)
            if (sw[k]) {
                codes[n] = XEN_CODE(ANA_STRIKE, k, 0);
                w[n++] = sw[k];
                *total += sw[k];
            }
        return n;
    }
    default:
        return 0;
    }
}

/* The code of the card whose cumulative range (ascending ids, or the order of
 * `ids`) holds r, r below the multiset's total. */
static uint16_t pick_card(const uint8_t *counts, const uint8_t *ids, int n_ids, int kind,
                          uint32_t r) {
    int c = 0;
    for (int i = 0; i < n_ids; i++) {
        c = ids ? ids[i] : i;
        if (r < counts[c]) break;
        r -= counts[c];
    }
    return XEN_CODE(kind, c, 0);
}

/* Drawn without listing the outcomes (a third of the actions of a game are
 * chance): the same total, the same ascending order and so the same draw as
 * ana_chance_outcomes' weights would give. */
uint16_t ana_sample_chance(const AnaTables *t, const AnaState *s, XenRng *rng) {
    switch (s->stage) {
    case ANA_SG_DEAL: {
        uint8_t counts[ANA_MAX_CARDS];
        for (int c = 0; c < t->n_cards; c++) counts[c] = (uint8_t)to_deal_count(t, s, s->sub, c);
        uint32_t total = (uint32_t)to_deal_total(t, s, s->sub);
        return pick_card(counts, NULL, t->n_cards, ANA_DEAL, xen_rng_below(rng, total));
    }
    case ANA_SG_SETUP_PILE: case ANA_SG_REFILL: case ANA_SG_SETUP_ROW: {
        int pile = s->stage == ANA_SG_SETUP_ROW ? ANA_PILE_ROW : s->sub;
        return pick_card(s->unseen, t->pile_cards[pile], t->pile_size[pile], ANA_REVEAL,
                         xen_rng_below(rng, s->pile_n[pile]));
    }
    case ANA_SG_SETUP_FIELD: case ANA_SG_TURN_FIELD: {
        uint32_t seen = 0;
        for (int i = 0; i < s->field_n; i++) seen |= 1u << s->field_rev[i];
        uint32_t unseen = ((1u << t->n_fields) - 1) & ~seen;
        uint32_t r = xen_rng_below(rng, (uint32_t)xen_popcount64(unseen));
        while (r--) unseen &= unseen - 1;
        return XEN_CODE(ANA_FIELD, __builtin_ctz(unseen), 0);
    }
    case ANA_SG_SETUP_DRAW: case ANA_SG_END_DRAW: {
        int p = s->stage == ANA_SG_SETUP_DRAW ? s->sub : s->active;
        return pick_card(s->pl[p].deck, NULL, t->n_cards, ANA_DRAW,
                         xen_rng_below(rng, s->pl[p].deck_n));
    }
    default: {   /* ANA_SG_STRIKE */
        uint32_t w[3];
        strike_weights(t, s, w);
        uint32_t r = xen_rng_below(rng, w[0] + w[1] + w[2]);
        int k = 0;
        while (k < 2 && (w[k] == 0 || r >= w[k])) r -= w[k++];
        return XEN_CODE(ANA_STRIKE, k, 0);
    }
    }
}

int ana_is_legal(const AnaTables *t, const AnaState *s, uint16_t code) {
    if (is_decision(s)) {
        XenRun runs[ANA_MAX_RUNS];
        return xen_runs_hold(runs, decision_runs(t, s, runs), code);
    }
    uint16_t list[XEN_MAX_ACTIONS];
    int lo = 0, hi = ana_legal_actions(t, s, list) - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (list[mid] == code) return 1;
        if (list[mid] < code) lo = mid + 1; else hi = mid - 1;
    }
    return 0;
}

