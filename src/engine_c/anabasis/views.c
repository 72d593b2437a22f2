/* views.c - Anabasis: what a seat sees. Information-set keys and resampling
 * of the opponent's hidden cards (docs/anabasis-engine.md §9). */
#include "internal.h"
#include "multiset.h"

/* ================================================================ information */

/* The opponent's unseen multiset U (§9): hand + DECK + face-down slots +
 * to-deal (during setup). */
void ana_unseen_of(const AnaTables *t, const AnaState *s, int o, uint8_t u[ANA_MAX_CARDS]) {
    const AnaPlayer *op = &s->pl[o];
    for (int c = 0; c < ANA_MAX_CARDS; c++) u[c] = (uint8_t)(op->deck[c] + op->hand[c]);
    if (s->stage == ANA_SG_DEAL)
        for (int c = 0; c < t->n_cards; c++) u[c] = (uint8_t)(u[c] + to_deal_count(t, s, o, c));
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, o, k)) u[op->slot[k]]++;
}

/* The full hash with the opponent's hidden bytes (hand, DECK, face-down slot
 * identities) taken out and what `player` knows of them put in: U, and which
 * slots are face down (hand and DECK sizes are public bytes already). */
uint64_t ana_information_set_key_from_scratch(const AnaTables *t, const AnaState *s, int player) {
    int o = 1 - player;
    const AnaPlayer *op = &s->pl[o];
    size_t base = (size_t)((const uint8_t *)op - (const uint8_t *)s);
    const XenKey *z_deck = &t->zobrist[base + offsetof(AnaPlayer, deck)];
    const XenKey *z_hand = &t->zobrist[base + offsetof(AnaPlayer, hand)];
    const XenKey *z_slot = &t->zobrist[base + offsetof(AnaPlayer, slot)];
    uint8_t u[ANA_MAX_CARDS];
    ana_unseen_of(t, s, o, u);
    uint64_t h = s->hash + t->z_view[player];
    for (int c = 0; c < ANA_MAX_CARDS; c++)
        h += (uint64_t)u[c] * t->z_unseen[c] - (uint64_t)op->deck[c] * z_deck[c].hash -
             (uint64_t)op->hand[c] * z_hand[c].hash;
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, o, k))
            h += t->z_face_down[k] - (uint64_t)op->slot[k] * z_slot[k].hash;
    return h;
}

/* The same key, with the opponent's hand and DECK already swapped for their
 * share of U in its hidden sum (zobrist.h): what is left are the face-down
 * slots and, while the events are dealt, the to-deal multiset (the starting
 * events but those in the opponent's slots). */
uint64_t ana_information_set_key(const AnaTables *t, const AnaState *s, int player) {
    int o = 1 - player;
    const AnaPlayer *op = &s->pl[o];
    const XenKey *z_slot = &t->zobrist[offsetof(AnaState, pl) + (size_t)o * sizeof(AnaPlayer) +
                                       offsetof(AnaPlayer, slot)];
    int dealing = s->stage == ANA_SG_DEAL && o >= s->sub;
    uint64_t h = s->hash + t->z_view[player] + s->hidden[o] + (dealing ? t->z_start_events : 0);
    for (int k = 0; k < ANA_SLOTS; k++) {
        int c = op->slot[k];
        if (c == ANA_NONE) continue;
        if (dealing) h -= t->z_unseen[c];
        if (!slot_up(s, o, k))
            h += t->z_unseen[c] + t->z_face_down[k] - (uint64_t)c * z_slot[k].hash;
    }
    return h;
}

/* The events of the multiset u. */
static uint32_t events_total(const AnaTables *t, const uint8_t u[ANA_MAX_CARDS]) {
    uint32_t total = 0;
    int c;
    FOR_BITS (c, t->event_ids) total += u[c];
    return total;
}

/* One card drawn uniformly from the multiset u (only events if events_only),
 * removed from it: r = below(*total), the card whose cumulative range in
 * ascending id order holds r. *total is the count of the cards that may be
 * drawn (all of u, or its events), and stays so. */
static int draw_from(const AnaTables *t, uint8_t u[ANA_MAX_CARDS], int events_only, uint32_t *total,
                     XenRng *rng) {
    uint32_t r = xen_rng_below(rng, *total);
    int c = 0;
    if (!events_only) {
        c = xen_multiset_pick(u, t->n_cards, r);
    } else {
        FOR_BITS (c, t->event_ids) {
            if (r < u[c]) break;
            r -= u[c];
        }
    }
    XEN_ASSERT(u[c] > 0);
    u[c]--;
    --*total;
    return c;
}

/* §9, drawing in this order: the opponent's face-down slots (slot order, from
 * the events of U), during setup the to-deal multiset (from the remaining
 * events of U; it is stored implicitly as the starting events minus the
 * slots, which is the same multiset), then the hand (hand-size cards from
 * the rest); the rest is the DECK. */
void ana_resample(const AnaTables *t, AnaState *s, int player, XenRng *rng) {
    int o = 1 - player, hand_n = s->pl[o].hand_n, to_deal = to_deal_total(t, s, o), fd[ANA_SLOTS];
    uint8_t u[ANA_MAX_CARDS];
    ana_unseen_of(t, s, o, u);
    for (int k = 0; k < ANA_SLOTS; k++) fd[k] = slot_face_down(s, o, k);
    AnaPlayer *op = &s->pl[o];
    uint8_t hand[ANA_MAX_CARDS] = {0};
    uint32_t events = events_total(t, u), cards;
    for (int k = 0; k < ANA_SLOTS; k++)
        if (fd[k]) set8(t, s, &op->slot[k], draw_from(t, u, 1, &events, rng));
    for (int i = 0; i < to_deal; i++) draw_from(t, u, 1, &events, rng);
    cards = xen_multiset_total(u, ANA_MAX_CARDS);
    for (int i = 0; i < hand_n; i++) hand[draw_from(t, u, 0, &cards, rng)]++;
    /* most counts stay as they were: only the others pay a keyed write */
    int c;
    FOR_BITS (c, xen_multiset_differ(op->hand, hand, ANA_MAX_CARDS))
        hidden_set8(t, s, &op->hand[c], hand[c]);
    FOR_BITS (c, xen_multiset_differ(op->deck, u, ANA_MAX_CARDS))
        hidden_set8(t, s, &op->deck[c], u[c]);
    debug_check(t, s);
}


/* Spec §9.1: 1 when `seat` is shown which code was played, 0 when it sees
 * only that something of its kind happened: an event the opponent set face
 * down, a starting event dealt to the opponent, a card the opponent drew.
 * A seat sees its own decisions. Hidden means not shown, even where `seat`
 * could work the code out (the last starting event dealt is forced). */
int ana_observed_by(const AnaTables *t, const AnaState *s, XenCode code, int seat) {
    (void)t;
    int player = ana_current_player(s);
    if (player == seat) return 1;
    if (player != XEN_CHANCE) return XEN_KIND(code) != ANA_SET;
    switch (s->stage) {
    case ANA_SG_DEAL:
    case ANA_SG_SETUP_DRAW: return s->sub == seat;
    case ANA_SG_END_DRAW: return s->active == seat;
    default: return 1;
    }
}
