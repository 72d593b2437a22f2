/* state.c - Anabasis: the state's layout (drawn in anabasis.h), who is to
 * move, results, the hash from scratch and the state checks. */
#include "internal.h"

_Static_assert(sizeof(AnaPlayer) == 208, "AnaPlayer layout");
_Static_assert(offsetof(AnaState, pl) == 56, "AnaState layout");
_Static_assert(ANA_SG_COUNT <= 32, "stage_is_decision reads a stage from its 5 low bits");
_Static_assert(offsetof(AnaState, sq_card) == 472, "AnaState layout");
_Static_assert(offsetof(AnaState, sq_bonus) == 556, "AnaState layout");
_Static_assert(offsetof(AnaState, unseen) == 640, "AnaState layout");
_Static_assert(offsetof(AnaState, field_rev) == 704, "AnaState layout");
_Static_assert(offsetof(AnaState, turn) == 723, "AnaState layout");
_Static_assert(offsetof(AnaState, b_att) == 730, "AnaState layout");
_Static_assert(offsetof(AnaState, ev_slot) == 735, "AnaState layout");
_Static_assert(offsetof(AnaState, hidden) == 744, "AnaState layout");
_Static_assert(sizeof(AnaState) == 760, "AnaState layout");

int ana_current_player(const AnaState *s) { return mover(s); }

int ana_is_chance(const AnaState *s) { return mover(s) == XEN_CHANCE; }
int ana_is_terminal(const AnaState *s) { return s->stage == ANA_SG_OVER; }

int ana_phase(const AnaState *s) {
    switch (s->stage) {
    case ANA_SG_STANDBY1: return ANA_PH_STANDBY1;
    case ANA_SG_FIELD: return ANA_PH_FIELD;
    case ANA_SG_STANDBY2: return ANA_PH_STANDBY2;
    case ANA_SG_RESPONSE: return ANA_PH_RESPONSE;
    case ANA_SG_NULLIFY_RESPONSE:
    case ANA_SG_EVENT_WINDOW: return ANA_PH_NULLIFY;
    case ANA_SG_EVADE: return ANA_PH_EVADE;
    case ANA_SG_OVER: return ANA_PH_OVER;
    default: return ANA_PH_CHANCE;
    }
}

void ana_returns(const AnaState *s, int out[2]) { xen_returns(s->outcome, out); }
/* ================================================================ hashing */

/* Every byte is hashed (the keys of the hash and the hidden sums are 0). */
uint64_t ana_hash_from_scratch(const AnaTables *t, const AnaState *s) {
    return xen_hash_bytes(s, t->zobrist, 0, sizeof(AnaState));
}

/* ================================================================ checks */

static const char *check_grid(const AnaTables *t, const AnaState *s) {
    if (s->occ[0] & s->occ[1]) return "a square owned by both seats";
    if (occupied(s) & t->castles) return "a card on a castle";
    if (occupied(s) >> ANA_SQUARES) return "a card off the board";
    if ((s->ready | s->moved) & ~s->chars) return "ready or moved without a character";
    if (s->face_down & (s->chars | ~occupied(s))) return "face down without a territory";
    if (s->chars & ~occupied(s)) return "a character bit on an empty square";
    for (int q = 0; q < ANA_SQUARES; q++) {
        int c = s->sq_card[q];
        if (!((occupied(s) >> q) & 1)) {
            if (c != ANA_NONE || s->sq_damage[q] || s->sq_bonus[q])
                return "leftovers on an empty square";
            continue;
        }
        if (c >= t->n_cards || t->card[c].kind == ANA_EVENT_CARD) return "a bad card on the grid";
        if ((t->card[c].kind == ANA_CHARACTER) != (int)((s->chars >> q) & 1))
            return "chars bitboard";
        if (s->sq_damage[q] >= t->card[c].hp) return "a card with damage >= HP";
        if (s->sq_bonus[q] && t->card[c].kind != ANA_CHARACTER) return "a bonus on a territory";
    }
    return NULL;
}

static const char *check_players(const AnaTables *t, const AnaState *s) {
    for (int p = 0; p < 2; p++) {
        const AnaPlayer *pl = &s->pl[p];
        if (pl->deck_n != xen_multiset_total(pl->deck, ANA_MAX_CARDS)) return "deck_n";
        if (pl->hand_n != xen_multiset_total(pl->hand, ANA_MAX_CARDS)) return "hand_n";
        int cem = 0;
        for (int c = 0; c < ANA_MAX_CARDS; c++) {
            if (c >= t->n_cards && (pl->deck[c] | pl->hand[c] | pl->flow[c] | pl->cemetery[c]))
                return "a player holds an unknown card id";
            if (c < t->n_cards && t->card[c].kind != ANA_EVENT_CARD) cem += pl->cemetery[c];
        }
        if (pl->cem_cards != cem) return "cem_cards";
        if (pl->funds > 99) return "funds above 99";
        if (pl->zero_ || (pl->slot_up >> ANA_SLOTS)) return "nonzero spare bits of a player";
        for (int k = 0; k < ANA_SLOTS; k++) {
            int c = pl->slot[k];
            if (c == ANA_NONE) {
                if (slot_up(s, p, k)) return "an empty slot face up";
            } else if (c >= t->n_cards || t->card[c].kind != ANA_EVENT_CARD) {
                return "a slot holds a non-event";
            }
        }
    }
    return NULL;
}

static const char *check_market(const AnaTables *t, const AnaState *s) {
    int pile_total[4] = {0, 0, 0, 0};
    for (int c = 0; c < ANA_MAX_CARDS; c++) {
        if (!s->unseen[c]) continue;
        if (c >= t->n_cards || t->card[c].pile == ANA_PILE_NONE)
            return "a market card outside every pile";
        pile_total[t->card[c].pile] += s->unseen[c];
    }
    for (int i = 0; i < 4; i++)
        if (pile_total[i] != s->pile_n[i]) return "pile_n";
    for (int i = 0; i < 3; i++)
        if (s->top[i] != ANA_NONE && (s->top[i] >= t->n_cards || t->card[s->top[i]].pile != i))
            return "a pile top of the wrong pile";
    for (int i = 0; i < ANA_ROW_SIZE; i++) {
        int c = s->row[i];
        if (c == ANA_NONE) {
            if (i + 1 < ANA_ROW_SIZE && s->row[i + 1] != ANA_NONE) return "a hole in the row";
            continue;
        }
        if (c >= t->n_cards || t->card[c].pile != ANA_PILE_ROW)
            return "a row card of the wrong pile";
        if (i > 0 && s->row[i - 1] > c) return "the row is not sorted";
    }
    return NULL;
}

/* The copies of each card wherever they are: market, players (to-deal
 * included), grid and slots. */
static void card_counts(const AnaTables *t, const AnaState *s, int count[ANA_MAX_CARDS]) {
    for (int c = 0; c < ANA_MAX_CARDS; c++) count[c] = s->unseen[c];
    for (int i = 0; i < 3; i++)
        if (s->top[i] != ANA_NONE) count[s->top[i]]++;
    for (int i = 0; i < ANA_ROW_SIZE; i++)
        if (s->row[i] != ANA_NONE) count[s->row[i]]++;
    for (int q = 0; q < ANA_SQUARES; q++)
        if (s->sq_card[q] != ANA_NONE && s->sq_card[q] < ANA_MAX_CARDS) count[s->sq_card[q]]++;
    for (int p = 0; p < 2; p++) {
        const AnaPlayer *pl = &s->pl[p];
        for (int c = 0; c < ANA_MAX_CARDS; c++) {
            count[c] += pl->deck[c] + pl->hand[c] + pl->flow[c] + pl->cemetery[c];
            if (c < t->n_cards) count[c] += to_deal_count(t, s, p, c);
        }
        for (int k = 0; k < ANA_SLOTS; k++)
            if (pl->slot[k] != ANA_NONE && pl->slot[k] < ANA_MAX_CARDS) count[pl->slot[k]]++;
    }
}

/* Every copy is somewhere: market + players + grid = copies + 2 * start. */
int ana_cards_conserved(const AnaTables *t, const AnaState *s) {
    int count[ANA_MAX_CARDS];
    card_counts(t, s, count);
    for (int c = 0; c < t->n_cards; c++)
        if (count[c] != t->card[c].copies + 2 * t->card[c].start_copies) return 0;
    return 1;
}

static const char *check_control(const AnaTables *t, const AnaState *s) {
    int st = s->stage;
    if (st >= ANA_SG_COUNT) return "unknown stage";
    if (s->active > 1 || s->turn < 1 || s->turn > ANA_MAX_TURNS) return "turn or active";
    if ((s->outcome != XEN_RES_NONE) != (st == ANA_SG_OVER) || s->outcome > XEN_RES_DRAW)
        return "outcome";
    int uses_sub = st == ANA_SG_DEAL || st == ANA_SG_SETUP_PILE || st == ANA_SG_SETUP_DRAW ||
                   st == ANA_SG_REFILL;
    if (!uses_sub && s->sub) return "sub outside its stages";
    if (uses_sub && s->sub > (st == ANA_SG_REFILL ? 3 : st == ANA_SG_SETUP_PILE ? 2 : 1))
        return "sub";
    if ((st == ANA_SG_SETUP_DRAW || st == ANA_SG_END_DRAW) != (s->draws_left > 0))
        return "draws_left";
    if (s->draws_left > 3) return "draws_left";
    if (st == ANA_SG_REFILL ? (s->ret != ANA_SG_STANDBY1 && s->ret != ANA_SG_STANDBY2) : s->ret)
        return "ret";
    int battle = st == ANA_SG_RESPONSE || st == ANA_SG_NULLIFY_RESPONSE || st == ANA_SG_STRIKE ||
                 st == ANA_SG_EVADE;
    if (!battle && (s->b_att | s->b_tgt | s->b_step | s->b_charge | s->b_resp))
        return "battle leftovers";
    if ((st == ANA_SG_STRIKE) != (s->b_step != 0)) return "b_step";
    if (battle && (s->b_att >= ANA_SQUARES || s->b_tgt >= ANA_SQUARES)) return "battle squares";
    if (st != ANA_SG_EVENT_WINDOW && (s->ev_slot | s->ev_arg)) return "event leftovers";
    if (!xen_zero_bytes(s->zero_, sizeof s->zero_)) return "nonzero spare bytes";
    if (s->field_n > t->n_fields) return "field_n";
    if (s->field_n) {
        uint32_t seen = 0;
        for (int i = 0; i < s->field_n; i++) {
            if (s->field_rev[i] >= t->n_fields || (seen >> s->field_rev[i] & 1)) return "field_rev";
            seen |= 1u << s->field_rev[i];
        }
        if (s->field_idx >= s->field_n) return "field_idx";
        if (s->field_left > t->field[s->field_rev[s->field_idx]].duration) return "field_left";
        if ((s->field_left == 0) != (st == ANA_SG_TURN_FIELD)) return "field_left";
    } else if (s->field_idx || s->field_left) {
        return "field without cards";
    }
    for (int i = s->field_n; i < ANA_MAX_FIELDS; i++)
        if (s->field_rev[i]) return "field_rev tail";
    return NULL;
}

/* What the chance stages reveal into must have room (apply writes there):
 * a DEAL fills the dealt seat's first empty slot from its to-deal multiset
 * (the starting events minus what its slots hold, so never negative), a
 * pile's top is empty before it is turned up, the row has a free place. */
static const char *check_reveals(const AnaTables *t, const AnaState *s) {
    int st = s->stage;
    if (st == ANA_SG_DEAL) {
        if (first_empty_slot(s, s->sub) < 0) return "a deal to a seat without an empty slot";
        for (int p = s->sub; p < 2; p++)
            for (int c = 0; c < t->n_cards; c++)
                if (to_deal_count(t, s, p, c) < 0) return "slots hold starting events never dealt";
    }
    int pile = st == ANA_SG_SETUP_ROW                           ? ANA_PILE_ROW
               : st == ANA_SG_SETUP_PILE || st == ANA_SG_REFILL ? s->sub
                                                                : -1;
    if (pile == ANA_PILE_ROW && row_count(s) == ANA_ROW_SIZE) return "a reveal into a full row";
    if (pile >= 0 && pile < ANA_PILE_ROW && s->top[pile] != ANA_NONE)
        return "a reveal onto a face-up top";
    return NULL;
}

/* The setup (stages DEAL to SETUP_DRAW, §2) runs on what ana_initial_state
 * made, and each of its stages relies on it for the next ones to have an
 * outcome: turn 1 with seat 0 to play, no top on a pile not yet turned up,
 * no field card before SETUP_FIELD reveals the first. While the events are
 * dealt, a seat still to be dealt holds no event in its hand or deck, so
 * that its hidden events are its face-down slots and its to-deal, which is
 * what resampling redraws its slots from. */
static const char *check_setup(const AnaTables *t, const AnaState *s) {
    int st = s->stage;
    if (st > ANA_SG_SETUP_DRAW) return NULL;
    if (s->turn != 1 || s->active != 0) return "a setup stage after the start of turn 1";
    int first_pile = st == ANA_SG_DEAL ? 0 : st == ANA_SG_SETUP_PILE ? s->sub : 3;
    for (int i = first_pile; i < 3; i++)
        if (s->top[i] != ANA_NONE) return "a pile turned up before its setup stage";
    if (st != ANA_SG_SETUP_DRAW && s->field_n) return "a field card revealed before SETUP_FIELD";
    for (int p = st == ANA_SG_DEAL ? s->sub : 2; p < 2; p++)
        for (int c = 0; c < t->n_cards; c++)
            if (t->card[c].kind == ANA_EVENT_CARD && (s->pl[p].hand[c] || s->pl[p].deck[c]))
                return "an event in a hand or deck while the events are dealt";
    return NULL;
}

/* No card has more than 255 copies in all: every count is a byte, and a
 * move only moves copies, so then no count can overflow (a position built
 * by hand may hold more copies than the card set, not that many). The
 * market's face-down cards must be of the piles' card lists: the reveal
 * outcomes list only those, and pile_n is their total. */
static const char *check_supply(const AnaTables *t, const AnaState *s) {
    int count[ANA_MAX_CARDS];
    card_counts(t, s, count);
    for (int c = 0; c < t->n_cards; c++) {
        if (count[c] > UINT8_MAX) return "more than 255 copies of a card";
        if (s->unseen[c] && !t->card[c].copies) return "a face-down market card of no pile's list";
    }
    return NULL;
}

static int is_character_of(const AnaState *s, int q, int p) {
    return q < ANA_SQUARES && (int)(((s->occ[p] & s->chars) >> q) & 1);
}

/* The battle stages (§4): the attacker is a character of the active player,
 * the target a card or the castle of the defender, and each stage holds the
 * step and response that lead to it; the strikes, the counter, the evade and
 * the ambush read the card on their squares. */
static const char *check_battle(const AnaState *s) {
    int st = s->stage, p = s->active, d = 1 - p, b = s->b_tgt, resp = s->b_resp, step = s->b_step;
    if (st != ANA_SG_RESPONSE && st != ANA_SG_NULLIFY_RESPONSE && st != ANA_SG_STRIKE &&
        st != ANA_SG_EVADE)
        return NULL; /* no battle: check_control wants its bookkeeping zero */
    if (!is_character_of(s, s->b_att, p))
        return "the attacker is not a character of the active player";
    int target_is_character = is_character_of(s, b, d);
    if (b >= ANA_SQUARES || !(((s->occ[d] >> b) & 1) || b == CASTLE_SQ[d]))
        return "the attack target is not the defender's";
    if (s->b_charge > 1) return "b_charge";
    int ok;
    switch (st) {
    case ANA_SG_RESPONSE: ok = resp == ANA_EV_NONE; break;
    case ANA_SG_NULLIFY_RESPONSE:
        ok = (resp == ANA_EV_EVASION || resp == ANA_EV_AMBUSH || resp == ANA_EV_FORTIFY) &&
             response_matches(s, resp);
        break;
    case ANA_SG_STRIKE:
        ok = resp == ANA_EV_NONE ? step == ANA_BS_MAIN || step == ANA_BS_COUNTER
                                 : resp == ANA_EV_AMBUSH &&
                                       (step == ANA_BS_AMBUSH || step == ANA_BS_MAIN_AFTER_AMBUSH);
        ok = ok && (step == ANA_BS_MAIN || target_is_character);
        break;
    default: ok = resp == ANA_EV_EVASION && target_is_character; break; /* EVADE */
    }
    return ok ? NULL : "a battle stage with a step or response that does not lead to it";
}

/* The event window: the event played is a face-up event of the active
 * player, with an argument its effect takes (what event_effect reads). */
static const char *check_event(const AnaTables *t, const AnaState *s) {
    if (s->stage != ANA_SG_EVENT_WINDOW) return NULL; /* check_control wants the fields zero */
    int p = s->active, k = s->ev_slot;
    if (k >= ANA_SLOTS || s->pl[p].slot[k] == ANA_NONE || !slot_up(s, p, k))
        return "the event played is not a face-up event of the active player";
    uint64_t args = event_args(s, p, t->card[s->pl[p].slot[k]].effect);
    if (s->ev_arg >= 64 || !((args >> s->ev_arg) & 1))
        return "the event's argument is not one it takes";
    return NULL;
}

/* §6: a lost castle or a full cemetery ends the game at once. */
static const char *check_not_lost(const AnaTables *t, const AnaState *s) {
    if (s->stage == ANA_SG_OVER) return NULL;
    for (int p = 0; p < 2; p++)
        if (s->pl[p].castle_hp <= 0 || s->pl[p].cem_cards >= t->cemetery_limit)
            return "a game that goes on with a lost castle or a full cemetery";
    return NULL;
}

/* The checks in order: each relies on the ones before it (card ids in range
 * first, the move generator last). */
static const char *check_unkeyed(const AnaTables *t, const AnaState *s) {
    const char *why;
    if ((why = check_control(t, s)) || (why = check_grid(t, s)) || (why = check_players(t, s)) ||
        (why = check_market(t, s)) || (why = check_setup(t, s)) || (why = check_reveals(t, s)) ||
        (why = check_supply(t, s)) || (why = check_battle(s)) || (why = check_event(t, s)) ||
        (why = check_not_lost(t, s)))
        return why;
    return NULL;
}

const char *ana_state_check(const AnaTables *t, const AnaState *s) {
    const char *why;
    if ((why = check_unkeyed(t, s)) || (why = ana_check_keys(t, s))) return why;
    return xen_check_has_move(&ana_game_api, t, s);
}

const char *ana_state_check_unkeyed(const AnaTables *t, const AnaState *s) {
    const char *why = check_unkeyed(t, s);
    return why ? why : xen_check_has_move(&ana_game_api, t, s);
}

int ana_state_is_ok(const AnaTables *t, const AnaState *s) { return ana_state_check(t, s) == NULL; }
