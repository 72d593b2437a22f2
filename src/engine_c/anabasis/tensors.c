/* tensors.c - Anabasis: a seat's information-state tensor and observation
 * tensor (tensor.h; the layout, block by block, is in docs/tensors.md).
 *
 * Everything is seen from the seat: "own" blocks are the seat's, "enemy"
 * blocks the other seat's, and the board is turned for seat 1 (square q of
 * the tensor is square 41 - q of the board: a point reflection, which keeps
 * the castles on 3 and 38 and turns seat 1's patterns into seat 0's), so
 * that the seat always plays from ranks 1-2 towards rank 6.
 *
 * The information-state tensor holds every byte of the state that
 * ana_information_set_key_from_scratch holds (views.c), each as a float, and
 * nothing else: it is equal for two states exactly when their keys are
 * (tests/test_tensors.py checks both ways over random games). The opponent's
 * hand, DECK and face-down events appear only as their unseen multiset U. */
#include "internal.h"
#include "tensor.h"

/* Square i of the seat's board is square board_square(p, i) of the state. */
static int board_square(int p, int i) { return p == 0 ? i : ANA_SQUARES - 1 - i; }

/* One plane of 42 floats: bit q of a bitboard, turned for the seat. */
static void plane_bits(XenTensorWriter *w, int p, uint64_t bb) {
    float *f = xen_tensor_span(w, ANA_SQUARES);
    int q;
    if (f)
        FOR_BITS (q, bb) xen_tensor_set(w, f, board_square(p, q));
}

/* One plane per card id: 1 where seat `owner` has that card. */
static void card_planes(XenTensorWriter *w, const AnaTables *t, const AnaState *s, int p,
                        int owner) {
    float *f = xen_tensor_span(w, t->n_cards * ANA_SQUARES);
    int q;
    if (f)
        FOR_BITS (q, s->occ[owner])
            xen_tensor_set(w, f, s->sq_card[q] * ANA_SQUARES + board_square(p, q));
}

/* A per-card count array as floats (the card set's ids only). */
static void counts(XenTensorWriter *w, const AnaTables *t, const uint8_t *ms) {
    xen_tensor_bytes(w, ms, t->n_cards);
}

static void counters(XenTensorWriter *w, const AnaPlayer *pl) {
    xen_tensor_put(w, pl->castle_hp);
    xen_tensor_put(w, pl->ap);
    xen_tensor_put(w, pl->funds);
    xen_tensor_put(w, pl->deck_n);
    xen_tensor_put(w, pl->hand_n);
    xen_tensor_put(w, pl->cem_cards);
}

/* Per slot: the event's id one-hot (when the seat sees it), face up, face down. */
static void slots(XenTensorWriter *w, const AnaTables *t, const AnaState *s, int owner,
                  int sees_face_down) {
    for (int k = 0; k < ANA_SLOTS; k++) {
        int c = s->pl[owner].slot[k], up = slot_up(s, owner, k), down = slot_face_down(s, owner, k);
        xen_tensor_one_hot(w, t->n_cards, c != ANA_NONE && (up || sees_face_down) ? c : -1);
        xen_tensor_put(w, (float)up);
        xen_tensor_put(w, (float)down);
    }
}

static void market(XenTensorWriter *w, const AnaTables *t, const AnaState *s) {
    xen_tensor_block(w, "market_tops", 0);
    for (int i = 0; i < 3; i++)
        xen_tensor_one_hot(w, t->n_cards, s->top[i] == ANA_NONE ? -1 : s->top[i]);
    xen_tensor_block(w, "market_row", 0);
    uint8_t row[ANA_MAX_CARDS] = {0};
    for (int i = 0; i < ANA_ROW_SIZE; i++)
        if (s->row[i] != ANA_NONE) row[s->row[i]]++;
    counts(w, t, row);
    xen_tensor_block(w, "market_piles", 0);
    for (int i = 0; i < 4; i++) xen_tensor_put(w, s->pile_n[i]);
}

/* The stage one-hot, then the remaining bytes of the turn, the battle and
 * the event in state order (squares as the state holds them). */
static void bookkeeping(XenTensorWriter *w, const AnaState *s) {
    xen_tensor_block(w, "stage", 0);
    xen_tensor_one_hot(w, ANA_SG_COUNT, s->stage);
    xen_tensor_block(w, "field", 0);
    xen_tensor_bytes(w, s->field_rev, ANA_MAX_FIELDS);
    xen_tensor_put(w, s->field_n);
    xen_tensor_put(w, s->field_idx);
    xen_tensor_put(w, s->field_left);
    xen_tensor_block(w, "bookkeeping", 0);
    const uint8_t bytes[] = {s->turn,    s->active,  s->sub,   s->ret,    s->draws_left,
                             s->outcome, s->b_att,   s->b_tgt, s->b_step, s->b_charge,
                             s->b_resp,  s->ev_slot, s->ev_arg};
    xen_tensor_bytes(w, bytes, (int)sizeof bytes);
}

/* The whole tensor of seat p through w (both tensors and the layout). */
static void write_tensor(XenTensorWriter *w, const AnaTables *t, const AnaState *s, int p) {
    int o = 1 - p;
    const AnaPlayer *own = &s->pl[p], *enemy = &s->pl[o];
    xen_tensor_block(w, "seat", 0);
    xen_tensor_put(w, (float)p);
    xen_tensor_put(w, s->active == p ? 1.0f : 0.0f);
    xen_tensor_block(w, "own_cards", 0);
    card_planes(w, t, s, p, p);
    xen_tensor_block(w, "enemy_cards", 0);
    card_planes(w, t, s, p, o);
    xen_tensor_block(w, "ready", 0);
    plane_bits(w, p, s->ready);
    xen_tensor_block(w, "moved", 0);
    plane_bits(w, p, s->moved);
    xen_tensor_block(w, "face_down", 0);
    plane_bits(w, p, s->face_down);
    xen_tensor_block(w, "damage", 0);
    float *f = xen_tensor_claim(w, ANA_SQUARES);
    for (int i = 0; f && i < ANA_SQUARES; i++) f[i] = s->sq_damage[board_square(p, i)];
    xen_tensor_block(w, "rally", 0);
    f = xen_tensor_claim(w, ANA_SQUARES);
    for (int i = 0; f && i < ANA_SQUARES; i++) f[i] = s->sq_bonus[board_square(p, i)];
    xen_tensor_block(w, "own_counters", 0);
    counters(w, own);
    xen_tensor_block(w, "enemy_counters", 0);
    counters(w, enemy);
    xen_tensor_block(w, "own_slots", 0);
    slots(w, t, s, p, 1);
    xen_tensor_block(w, "enemy_slots", 0);
    slots(w, t, s, o, 0);
    xen_tensor_block(w, "own_hand", 0);
    counts(w, t, own->hand);
    xen_tensor_block(w, "own_flow", 0);
    counts(w, t, own->flow);
    xen_tensor_block(w, "enemy_flow", 0);
    counts(w, t, enemy->flow);
    xen_tensor_block(w, "own_cemetery", 0);
    counts(w, t, own->cemetery);
    xen_tensor_block(w, "enemy_cemetery", 0);
    counts(w, t, enemy->cemetery);
    market(w, t, s);
    bookkeeping(w, s);
    /* remembered: known from the record, not on the table now */
    xen_tensor_block(w, "own_deck", 1);
    counts(w, t, own->deck);
    xen_tensor_block(w, "enemy_unseen", 1);
    uint8_t u[ANA_MAX_CARDS];
    ana_unseen_of(t, s, o, u);
    counts(w, t, u);
    xen_tensor_block(w, "market_unseen", 1);
    counts(w, t, s->unseen);
}

XEN_TENSOR_FUNCTIONS(ana, AnaTables, AnaState)
