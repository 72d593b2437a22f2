/* moves.c - Anabasis: legal actions (in ascending code order) and chance
 * outcomes with their weights (docs/anabasis-engine.md §8). */
#include "internal.h"

/* ================================================================ legal */

static int gen_standby(const AnaTables *t, const AnaState *s, uint16_t *out) {
    int p = s->active, n = 0, q;
    const AnaPlayer *pl = &s->pl[p];
    uint64_t empty_home = t->home[p] & ~occupied(s);
    out[n++] = XEN_CODE(ANA_END, 0, 0);
    /* BUY: face-up market cards (tops, then the row's distinct ids), sorted */
    int cand[3 + ANA_ROW_SIZE], nc = 0;
    for (int i = 0; i < 3; i++)
        if (s->top[i] != ANA_NONE) cand[nc++] = s->top[i];
    for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++)
        if (i == 0 || s->row[i] != s->row[i - 1]) cand[nc++] = s->row[i];
    for (int i = 1; i < nc; i++)
        for (int j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
            int tmp = cand[j]; cand[j] = cand[j - 1]; cand[j - 1] = tmp;
        }
    for (int i = 0; i < nc; i++)
        if (price(t, s, cand[i]) <= pl->funds) out[n++] = XEN_CODE(ANA_BUY, cand[i], 0);
    if (pl->ap >= 1) {
        for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++) {
            int c = s->row[i];
            if ((i > 0 && s->row[i - 1] == c) || t->card[c].kind != ANA_TERRITORY ||
                price(t, s, c) > pl->funds)
                continue;
            FOR_BITS(q, empty_home) out[n++] = XEN_CODE(ANA_BUY_PLACE, c, q);
        }
        for (int c = 0; c < t->n_cards; c++)
            if (pl->hand[c] && t->card[c].kind != ANA_EVENT_CARD)
                FOR_BITS(q, empty_home) out[n++] = XEN_CODE(ANA_PLACE, c, q);
    }
    if (first_empty_slot(s, p) >= 0)
        for (int c = 0; c < t->n_cards; c++)
            if (pl->hand[c] && t->card[c].kind == ANA_EVENT_CARD) out[n++] = XEN_CODE(ANA_SET, c, 0);
    return n;
}

static int gen_field(const AnaTables *t, const AnaState *s, uint16_t *out) {
    int p = s->active, d = 1 - p, n = 0, a, b;
    const AnaPlayer *pl = &s->pl[p];
    uint64_t mine = s->ready & s->occ[p], free_sq = ~occupied(s) & ~t->castles;
    out[n++] = XEN_CODE(ANA_END, 0, 0);
    if (pl->ap >= move_cost(t, s))
        FOR_BITS(a, mine)
            FOR_BITS(b, t->move_mask[s->sq_card[a]][p][a] & free_sq) out[n++] = XEN_CODE(ANA_MOVE, a, b);
    uint64_t targets = s->occ[d] | BIT(CASTLE_SQ[d]);
    FOR_BITS(a, mine)
        if (pl->ap >= attack_cost(t, s, a))
            FOR_BITS(b, t->attack_mask[s->sq_card[a]][p][a] & targets) out[n++] = XEN_CODE(ANA_ATTACK, a, b);
    if (pl->ap >= 1)
        FOR_BITS(a, s->occ[p] & s->chars & ~s->ready) out[n++] = XEN_CODE(ANA_READY, a, 0);
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, p, k))
            FOR_BITS(b, event_args(s, p, t->card[pl->slot[k]].effect)) out[n++] = XEN_CODE(ANA_EVENT, k, b);
    return n;
}

/* PASS, then EVENT k 0 for each face-down slot of p whose effect is accepted. */
static int gen_window(const AnaTables *t, const AnaState *s, int p, int response, uint16_t *out) {
    int n = 0;
    out[n++] = XEN_CODE(ANA_PASS, 0, 0);
    for (int k = 0; k < ANA_SLOTS; k++) {
        if (!slot_face_down(s, p, k)) continue;
        int effect = t->card[s->pl[p].slot[k]].effect;
        if (response ? response_matches(s, effect) : effect == ANA_EV_NULLIFY)
            out[n++] = XEN_CODE(ANA_EVENT, k, 0);
    }
    return n;
}

int ana_legal_actions(const AnaTables *t, const AnaState *s, uint16_t *out) {
    int n = 0, q;
    switch (s->stage) {
    case ANA_SG_STANDBY1: case ANA_SG_STANDBY2: return gen_standby(t, s, out);
    case ANA_SG_FIELD: return gen_field(t, s, out);
    case ANA_SG_RESPONSE: return gen_window(t, s, 1 - s->active, 1, out);
    case ANA_SG_NULLIFY_RESPONSE: return gen_window(t, s, s->active, 0, out);
    case ANA_SG_EVENT_WINDOW: return gen_window(t, s, 1 - s->active, 0, out);
    case ANA_SG_EVADE:
        out[n++] = XEN_CODE(ANA_PASS, 0, 0);
        FOR_BITS(q, evade_mask(t, s)) out[n++] = XEN_CODE(ANA_EVADE, q, 0);
        return n;
    case ANA_SG_OVER: return 0;
    default: {
        uint32_t w[ANA_MAX_OUTCOMES], total;
        return ana_chance_outcomes(t, s, out, w, &total);
    }
    }
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

uint16_t ana_sample_chance(const AnaTables *t, const AnaState *s, XenRng *rng) {
    uint16_t codes[ANA_MAX_OUTCOMES];
    uint32_t w[ANA_MAX_OUTCOMES], total;
    int n = ana_chance_outcomes(t, s, codes, w, &total);
    uint32_t r = xen_rng_below(rng, total);
    int i = 0;
    while (i < n - 1 && r >= w[i]) r -= w[i++];
    return codes[i];
}

int ana_is_legal(const AnaTables *t, const AnaState *s, uint16_t code) {
    uint16_t list[XEN_MAX_ACTIONS];
    int lo = 0, hi = ana_legal_actions(t, s, list) - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (list[mid] == code) return 1;
        if (list[mid] < code) lo = mid + 1; else hi = mid - 1;
    }
    return 0;
}

