/* net_inputs.c - Anabasis: the raw inputs of the sparse-input network
 * (network.h) and the evaluation with it (eval=net).
 *
 * One side of a world is ANA_NET_CARD_ZONES zones of one number per card id
 * of the card set (zone z, card c: input z * n_cards + c), then
 * ANA_NET_SQUARE_ZONES zones of one number per square (zone z, square q:
 * input ANA_NET_CARD_ZONES * n_cards + z * ANA_SQUARES + q), in the order of
 * ana_net_zone_names: copies in the deck, in hand, in the flow, in the
 * cemetery, in the event slots (face up or down) and on the board; then, per
 * square, the side's character, its ready character, its territory (face up
 * or down) and the damage on its card. The squares are turned for seat 1
 * (square q of the side is square 41 - q of the board, as in tensors.c), so
 * each side plays from ranks 1-2. They read the whole world evaluated, as the
 * features do: inside the search it is one sampled from the searcher's
 * information. The Python reference is xenophon.anabasis.net_inputs (tested
 * to agree, tests/test_network.py).
 */
#include "internal.h"
#include "network.h"

_Static_assert(ANA_NET_CARD_ZONES *ANA_MAX_CARDS + ANA_NET_SQUARE_ZONES * ANA_SQUARES <=
                   XEN_NET_MAX_INPUTS,
               "the largest Anabasis card set's raw inputs exceed XEN_NET_MAX_INPUTS");

const char *const ana_net_zone_names[ANA_NET_CARD_ZONES + ANA_NET_SQUARE_ZONES] = {
    "deck",  "hand",      "flow",  "cemetery",  "slot",
    "board", "character", "ready", "territory", "damage",
};

int ana_net_input_count(const AnaTables *t) {
    return ANA_NET_CARD_ZONES * t->n_cards + ANA_NET_SQUARE_ZONES * ANA_SQUARES;
}

static void card_zone(XenNetSide *side, int first, const uint8_t *counts, int n_cards) {
    for (int c = 0; c < n_cards; c++)
        if (counts[c]) xen_net_push(side, first + c, counts[c]);
}

void ana_net_side(const AnaTables *t, const AnaState *s, int p, XenNetSide *side) {
    const int n = t->n_cards, squares = ANA_NET_CARD_ZONES * n;
    const AnaPlayer *pl = &s->pl[p];
    side->n = 0;
    card_zone(side, 0, pl->deck, n);
    card_zone(side, n, pl->hand, n);
    card_zone(side, 2 * n, pl->flow, n);
    card_zone(side, 3 * n, pl->cemetery, n);
    for (int k = 0; k < ANA_SLOTS; k++)
        if (pl->slot[k] != ANA_NONE) xen_net_push(side, 4 * n + pl->slot[k], 1.0f);
    int q;
    FOR_BITS (q, s->occ[p]) {
        int turned = p == 0 ? q : ANA_SQUARES - 1 - q;
        xen_net_push(side, 5 * n + s->sq_card[q], 1.0f);
        if (s->chars >> q & 1) {
            xen_net_push(side, squares + turned, 1.0f);
            if (s->ready >> q & 1) xen_net_push(side, squares + ANA_SQUARES + turned, 1.0f);
        } else {
            xen_net_push(side, squares + 2 * ANA_SQUARES + turned, 1.0f);
        }
        if (s->sq_damage[q])
            xen_net_push(side, squares + 3 * ANA_SQUARES + turned, s->sq_damage[q]);
    }
}

XEN_NETWORK_FUNCTIONS(ana, AnaTables, AnaState, ana_net_input_count)
