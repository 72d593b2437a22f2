/* net_inputs.c - Hero: the raw inputs of the sparse-input network (network.h)
 * and the evaluation with it (eval=net).
 *
 * One side of a world is described by seven zones of one number per card id
 * of the card set (zone z, card c: input z * n_cards + c), in the order of
 * HERO_NET_ZONES: copies in hand, in the deck, in the graveyard, and units of
 * the card on the field by row and state (front ready, front used, back
 * ready, back used; Retainer tokens apart). They read the whole world
 * evaluated, as the features do: inside the search it is one sampled from the
 * searcher's information. The Python reference is
 * xenophon.hero.net_inputs (tested to agree through the value,
 * tests/test_network.py).
 */
#include "internal.h"
#include "network.h"

_Static_assert(HERO_NET_ZONES *HERO_MAX_CARDS <= XEN_NET_MAX_INPUTS,
               "the largest Hero card set's raw inputs exceed XEN_NET_MAX_INPUTS");

const char *const hero_net_zone_names[HERO_NET_ZONES] = {
    "hand", "deck", "graveyard", "front_ready", "front_used", "back_ready", "back_used",
};

void hero_net_side(const HeroTables *t, const HeroState *s, int p, XenNetSide *side) {
    const int n = t->n_cards;
    side->n = 0;
    for (int c = 0; c < n; c++) {
        if (s->hand[p][c]) xen_net_push(side, c, s->hand[p][c]);
        if (s->deck[p][c]) xen_net_push(side, n + c, s->deck[p][c]);
        if (s->grave[p][c]) xen_net_push(side, 2 * n + c, s->grave[p][c]);
    }
    for (int rr = p * 2; rr < p * 2 + 2; rr++)
        for (int i = 0; i < s->row_n[rr]; i++) {
            int slot = rr * 5 + i;
            if (s->card[slot] == HERO_TOKEN) continue;
            int zone = 3 + (is_front(slot) ? 0 : 2) + ((s->flags[slot] & HERO_F_USED) != 0);
            xen_net_push(side, zone * n + s->card[slot], 1.0f);
        }
}

static int hero_net_input_count(const HeroTables *t) { return HERO_NET_ZONES * t->n_cards; }

XEN_NETWORK_FUNCTIONS(hero, HeroTables, HeroState, hero_net_input_count)
