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
#include <string.h>

#include "internal.h"
#include "network.h"

_Static_assert(HERO_NET_ZONES *HERO_MAX_CARDS <= XEN_NET_MAX_INPUTS,
               "the largest Hero card set's raw inputs exceed XEN_NET_MAX_INPUTS");

const char *const hero_net_zone_names[HERO_NET_ZONES] = {
    "hand", "deck", "graveyard", "front_ready", "front_used", "back_ready", "back_used",
};

int hero_net_inputs(const HeroTables *t, const HeroState *s, int p, double *out) {
    const int n = t->n_cards;
    memset(out, 0, (size_t)(HERO_NET_ZONES * n) * sizeof *out);
    for (int c = 0; c < n; c++) {
        out[c] = s->hand[p][c];
        out[n + c] = s->deck[p][c];
        out[2 * n + c] = s->grave[p][c];
    }
    for (int rr = p * 2; rr < p * 2 + 2; rr++)
        for (int i = 0; i < s->row_n[rr]; i++) {
            int slot = rr * 5 + i;
            if (s->card[slot] == HERO_TOKEN) continue;
            int zone = 3 + (is_front(slot) ? 0 : 2) + ((s->flags[slot] & HERO_F_USED) != 0);
            out[zone * n + s->card[slot]] += 1.0;
        }
    return HERO_NET_ZONES * n;
}

double hero_evaluate_net(const HeroTables *t, const HeroState *s, int player) {
    const XenNetwork *net = &t->network;
    if (hero_is_terminal(s) || net->n_hidden == 0) return hero_evaluate(t, s, player);
    double own[XEN_NET_MAX_INPUTS], enemy[XEN_NET_MAX_INPUTS], x[XEN_MAX_FEATURES];
    hero_net_inputs(t, s, player, own);
    hero_net_inputs(t, s, 1 - player, enemy);
    hero_features(t, s, player, x);
    return tanh(0.5 * xen_network_z(net, own, enemy, x, s->turn));
}
