/* tensors.c - Hero: a seat's information-state tensor and observation tensor
 * (tensor.h; the layout, block by block, is in docs/tensors.md).
 *
 * Everything is seen from the seat: "own" blocks are the seat's, "enemy"
 * blocks the other seat's, and unit slots are relative as in action codes
 * (0..4 own front, 5..9 own back, 10..14 enemy front, 15..19 enemy back).
 *
 * The information-state tensor holds every byte of the state that
 * hero_information_set_key_from_scratch holds (views.c), each as a float,
 * and nothing else: it is equal for two states exactly when their keys are
 * (tests/test_tensors.py checks both ways over random games). The other
 * seat's hand and deck appear only as their sizes and its known cards. */
#include "internal.h"
#include "tensor.h"

/* The state's absolute slot of relative slot r for seat p. */
static int absolute_slot(int p, int r) { return (r < 10 ? p : 1 - p) * 10 + r % 10; }

static void units(XenTensorWriter *w, const HeroTables *t, const HeroState *s, int p) {
    xen_tensor_block(w, "units", 0);
    for (int r = 0; r < HERO_SLOTS; r++) {
        int slot = absolute_slot(p, r), card = s->card[slot];
        int hot = !occupied(s, slot) ? -1 : card == HERO_TOKEN ? t->n_cards : card;
        xen_tensor_one_hot(w, t->n_cards + 1, hot);
    }
    xen_tensor_block(w, "unit_numbers", 0);
    for (int r = 0; r < HERO_SLOTS; r++) {
        int slot = absolute_slot(p, r);
        xen_tensor_put(w, (float)s->damage[slot]);
        xen_tensor_put(w, (float)s->pump_power[slot]);
        xen_tensor_put(w, (float)s->pump_attack[slot]);
        xen_tensor_put(w, (float)(s->flags[slot] & HERO_F_USED ? 1 : 0));
        xen_tensor_put(w, (float)(s->flags[slot] & HERO_F_CAN_MOVE ? 1 : 0));
        xen_tensor_put(w, (float)(s->flags[slot] & ~(HERO_F_USED | HERO_F_CAN_MOVE)));
    }
    xen_tensor_block(w, "rows", 0);
    for (int r = 0; r < 4; r++) xen_tensor_put(w, s->row_n[(r < 2 ? p : 1 - p) * 2 + r % 2]);
}

static void counters(XenTensorWriter *w, const HeroState *s, int u) {
    xen_tensor_put(w, (float)s->hp[u]);
    xen_tensor_put(w, s->hand_n[u]);
    xen_tensor_put(w, s->deck_n[u]);
    xen_tensor_put(w, s->charisma_used[u]);
    xen_tensor_put(w, s->ability_used[u]);
}

/* The phase one-hot, then the turn, the pending step and the attack in
 * state order (seats and refs as the state holds them). */
static void bookkeeping(XenTensorWriter *w, const HeroState *s) {
    xen_tensor_block(w, "phase", 0);
    xen_tensor_one_hot(w, HERO_PH_OVER + 1, s->phase);
    xen_tensor_block(w, "bookkeeping", 0);
    xen_tensor_put(w, (float)s->turn);
    xen_tensor_put(w, (float)s->draws_left);
    const uint8_t bytes[] = {s->active,       s->result,      s->pend_kind,   s->pend_source,
                             s->pend_ability, s->pend_player, s->pend_effect, s->pend_target,
                             s->att_from,     s->att_to};
    xen_tensor_bytes(w, bytes, (int)sizeof bytes);
}

/* The whole tensor of seat p through w (both tensors and the layout). */
static void write_tensor(XenTensorWriter *w, const HeroTables *t, const HeroState *s, int p) {
    int o = 1 - p, n = t->n_cards;
    xen_tensor_block(w, "seat", 0);
    xen_tensor_put(w, (float)p);
    xen_tensor_put(w, s->active == p ? 1.0f : 0.0f);
    units(w, t, s, p);
    xen_tensor_block(w, "own_counters", 0);
    counters(w, s, p);
    xen_tensor_block(w, "enemy_counters", 0);
    counters(w, s, o);
    xen_tensor_block(w, "own_hand", 0);
    xen_tensor_bytes(w, s->hand[p], n);
    xen_tensor_block(w, "own_grave", 0);
    xen_tensor_bytes(w, s->grave[p], n);
    xen_tensor_block(w, "enemy_grave", 0);
    xen_tensor_bytes(w, s->grave[o], n);
    bookkeeping(w, s);
    /* remembered: known from the record, not on the table now */
    xen_tensor_block(w, "own_deck", 1);
    xen_tensor_bytes(w, s->deck[p], n);
    xen_tensor_block(w, "own_known", 1);
    xen_tensor_bytes(w, s->known[p], n);
    xen_tensor_block(w, "enemy_known", 1);
    xen_tensor_bytes(w, s->known[o], n);
}

XEN_TENSOR_FUNCTIONS(hero, HeroTables, HeroState)
