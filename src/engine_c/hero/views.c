/* views.c - Hero: what a seat sees. Information-set keys and resampling of
 * the other seat's hand and deck (docs/hero-engine.md §11). */

#include "internal.h"


/* §11: the hash without the other seat's hand and deck multisets (their
 * sizes stay in), plus a key for whose view it is. */
uint64_t hero_information_set_key_from_scratch(const HeroTables *t, const HeroState *s,
                                               int player) {
    int o = 1 - player;
    const XenKey *zh = &t->zobrist[offsetof(HeroState, hand) + (size_t)o * HERO_MAX_CARDS];
    const XenKey *zd = &t->zobrist[offsetof(HeroState, deck) + (size_t)o * HERO_MAX_CARDS];
    uint64_t key = s->hash + t->z_view[player];
    for (int card = 0; card < t->n_cards; card++)
        key -= s->hand[o][card] * zh[card].hash + s->deck[o][card] * zd[card].hash;
    return key;
}

/* The same key: the other seat's hidden sum (zobrist.h) holds exactly the
 * hand and deck terms taken out above. */
uint64_t hero_information_set_key(const HeroTables *t, const HeroState *s, int player) {
    return s->hash + t->z_view[player] + s->hidden[1 - player];
}

/* §11 resample. The other seat's unseen multiset U is computed from public
 * data only (decklist - field - graveyard - known), never from its true hand
 * or deck, and drawn from as counts: the result is a function of `player`'s
 * view and of the generator alone. */
void hero_resample(const HeroTables *t, HeroState *s, int player, XenRng *rng) {
    int o = 1 - player;
    int unseen[HERO_MAX_CARDS], drawn[HERO_MAX_CARDS] = {0};
    int total = 0, known = 0;
    for (int card = 0; card < t->n_cards; card++) {
        unseen[card] = t->seat[o].decklist[card] - s->grave[o][card] - s->known[o][card];
        known += s->known[o][card];
    }
    for (uint32_t m = seat_units(s, o); m; m &= m - 1) {
        int card = s->card[o * 10 + __builtin_ctz(m)];
        if (card != HERO_TOKEN) unseen[card]--;
    }
    for (int card = 0; card < t->n_cards; card++) total += unseen[card];
    int m = s->hand_n[o] - known;
    XEN_ASSERT(total == m + s->deck_n[o]);
    for (int j = 0; j < m; j++) {
        int r = (int)xen_rng_below(rng, (uint32_t)total), card = 0;
        while (r >= unseen[card]) r -= unseen[card++];
        unseen[card]--;
        drawn[card]++;
        total--;
    }
    /* most counts stay as they were: only the others pay a keyed write */
    Ctx c = ctx_of(t, s);
    for (int card = 0; card < t->n_cards; card++) {
        int hand = s->known[o][card] + drawn[card];
        if (s->hand[o][card] != hand) w8_hidden(&c, &s->hand[o][card], hand);
        if (s->deck[o][card] != unseen[card]) w8_hidden(&c, &s->deck[o][card], unseen[card]);
    }
}


/* §11.1: 1 when `seat` is shown which code was played. Every decision is
 * public (every card used is shown); a draw is shown to the drawer only. */
int hero_observed_by(const HeroTables *t, const HeroState *s, XenCode code, int seat) {
    (void)code;
    if (hero_current_player(s) != XEN_CHANCE) return 1;
    return hero_drawer(t, s) == seat;
}
