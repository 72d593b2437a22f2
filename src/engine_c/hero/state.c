/* state.c - Hero: the state's layout (drawn in hero.h), who is to move,
 * results, the hash from scratch and the state checks. */

#include "internal.h"

/* The layout drawn in hero.h. */
_Static_assert(offsetof(HeroState, hp) == 8, "layout");
_Static_assert(offsetof(HeroState, draws_left) == 16, "layout");
_Static_assert(offsetof(HeroState, turn) == 20, "layout");
_Static_assert(offsetof(HeroState, damage) == 24, "layout");
_Static_assert(offsetof(HeroState, pump_power) == 104, "layout");
_Static_assert(offsetof(HeroState, pump_attack) == 184, "layout");
_Static_assert(offsetof(HeroState, card) == 264, "layout");
_Static_assert(offsetof(HeroState, flags) == 284, "layout");
_Static_assert(offsetof(HeroState, row_n) == 304, "layout");
_Static_assert(offsetof(HeroState, hand_n) == 308, "layout");
_Static_assert(offsetof(HeroState, phase) == 316, "layout");
_Static_assert(offsetof(HeroState, pend_source) == 320, "layout");
_Static_assert(offsetof(HeroState, pend_target) == 324, "layout");
_Static_assert(offsetof(HeroState, hand) == 328, "layout");
_Static_assert(offsetof(HeroState, deck) == 456, "layout");
_Static_assert(offsetof(HeroState, grave) == 584, "layout");
_Static_assert(offsetof(HeroState, known) == 712, "layout");
_Static_assert(offsetof(HeroState, hidden) == 840, "layout");
_Static_assert(sizeof(HeroState) == 856, "layout");
_Static_assert(XEN_MAX_ACTIONS == XEN_MAX_ACTIONS, "one bound on the legal actions");

/* ================================================================== players */

int hero_is_terminal(const HeroState *s) { return s->phase == HERO_PH_OVER; }

int hero_is_chance(const HeroState *s) {
    return s->phase == HERO_PH_SETUP || s->phase == HERO_PH_DRAW || s->pend_kind == HERO_PEND_DRAW;
}

int hero_current_player(const HeroState *s) { return current_player_of(s); }

int hero_drawer(const HeroTables *t, const HeroState *s) {
    if (s->pend_kind == HERO_PEND_DRAW) return s->pend_player;
    if (s->phase == HERO_PH_SETUP) return s->hand_n[0] < t->seat[0].hand ? 0 : 1;
    return s->active;
}

void hero_returns(const HeroState *s, int out[2]) {
    out[0] = out[1] = 0;
    if (s->result == XEN_RES_WIN0) {
        out[0] = 1;
        out[1] = -1;
    }
    if (s->result == XEN_RES_WIN1) {
        out[0] = -1;
        out[1] = 1;
    }
}

/* ===================================================== hash, checks, views */

uint64_t hero_hash_from_scratch(const HeroTables *t, const HeroState *s) {
    return xen_hash_i32(s, t->zobrist, REGION32_BEGIN, REGION32_END) +
           xen_hash_bytes(s, t->zobrist, REGION32_END, REGION8_END);
}

/* ---- hero_state_check, in parts; each relies on the ones before it (ids
 * and counts in range first, the move generator last). */

static const char *check_control(const HeroState *s) {
    if (s->phase > HERO_PH_OVER) return "phase out of range";
    if (s->active > 1) return "active seat out of range";
    if (s->result > XEN_RES_DRAW || (s->result != XEN_RES_NONE) != (s->phase == HERO_PH_OVER))
        return "result inconsistent with the phase";
    if (s->zero_ != 0) return "padding byte not zero";
    return NULL;
}

/* Bounds that keep every int32 sum of the rules in range. A card use or an
 * ability resolves at most HERO_MAX_EFFECTS effects of at most
 * HERO_MAX_NUMBER each; every use spends charisma (cost >= 1) or the
 * once-a-turn ability, and the end of a turn clears the pumps before the
 * charisma. So
 *     pump <= PUMP_BASE + PUMP_PER_USE * (charisma and abilities used this turn)
 * holds after every action when it held before (PUMP_BASE: what a position
 * built by hand may carry into the turn). With at most 2 * 99 + 2 uses, a
 * power (printed + race bonus <= 200000, plus the pump) stays below 0.99e9,
 * and a battle adds two of them to a damage: below 2^31. */
enum { PUMP_BASE = 900000000, PUMP_PER_USE = HERO_MAX_EFFECTS * HERO_MAX_NUMBER };

static int32_t pump_bound(const HeroState *s) {
    int uses = s->charisma_used[0] + s->charisma_used[1] + s->ability_used[0] + s->ability_used[1];
    return PUMP_BASE + PUMP_PER_USE * uses;
}

static const char *check_unit(const HeroTables *t, const HeroState *s, int slot) {
    int card = s->card[slot];
    if (card != HERO_TOKEN && card >= t->n_cards) return "unknown card on the field";
    if (card != HERO_TOKEN && !t->card[card].is_unit) return "operation on the field";
    if (s->flags[slot] & ~(HERO_F_USED | HERO_F_CAN_MOVE)) return "unknown unit flag";
    if (s->damage[slot] < 0 || s->pump_power[slot] < 0 || s->pump_attack[slot] < 0)
        return "negative damage or pump";
    if (s->pump_power[slot] > pump_bound(s) || s->pump_attack[slot] > pump_bound(s))
        return "a pump beyond what this turn's card uses can give";
    if (s->phase != HERO_PH_OVER && s->damage[slot] >= power_of(t, s, slot))
        return "a unit with damage >= power is still on the field";
    return NULL;
}

/* Rows are left-packed: units, then all-zero slots. */
static const char *check_rows(const HeroTables *t, const HeroState *s) {
    if (s->charisma_used[0] > t->seat[0].charisma || s->charisma_used[1] > t->seat[1].charisma)
        return "charisma overspent"; /* before the pumps, whose bound it is part of */
    if (s->ability_used[0] > 1 || s->ability_used[1] > 1) return "ability flag out of range";
    for (int rr = 0; rr < 4; rr++) {
        if (s->row_n[rr] > HERO_ROW_SIZE) return "row holds more than 5 units";
        for (int i = 0; i < HERO_ROW_SIZE; i++) {
            int slot = rr * 5 + i;
            const char *why = NULL;
            if (i < s->row_n[rr]) why = check_unit(t, s, slot);
            else if (s->card[slot] || s->flags[slot] || s->damage[slot] || s->pump_power[slot] ||
                     s->pump_attack[slot])
                why = "an empty slot is not zero";
            if (why) return why;
        }
    }
    return NULL;
}

/* Every card of a seat's decklist in exactly one zone; the sizes are the totals. */
static const char *check_zones(const HeroTables *t, const HeroState *s) {
    for (int p = 0; p < 2; p++) {
        int hand = 0, deck = 0;
        uint8_t field[HERO_MAX_CARDS] = {0};
        for (int slot = p * 10; slot < p * 10 + 10; slot++)
            if (occupied(s, slot) && s->card[slot] != HERO_TOKEN) field[s->card[slot]]++;
        for (int card = 0; card < HERO_MAX_CARDS; card++) {
            if (card >= t->n_cards &&
                (s->hand[p][card] || s->deck[p][card] || s->grave[p][card] || s->known[p][card]))
                return "a multiset counts a card outside the set";
            if (s->known[p][card] > s->hand[p][card]) return "known exceeds the hand";
            if (s->hand[p][card] + s->deck[p][card] + s->grave[p][card] + field[card] !=
                t->seat[p].decklist[card])
                return "cards are not conserved (hand + deck + graveyard + field != decklist)";
            hand += s->hand[p][card];
            deck += s->deck[p][card];
        }
        if (hand != s->hand_n[p] || deck != s->deck_n[p]) return "hand or deck size wrong";
    }
    return NULL;
}

/* The seat deciding in a phase when nothing is pending (§3). */
static int phase_decider(const HeroState *s) {
    return s->phase == HERO_PH_WINDOW || s->phase == HERO_PH_DEFEND ? 1 - s->active : s->active;
}

/* A pending draw: a draw(n) effect of a card or of an activated ability,
 * suspended by its user in a phase where effects resolve, with at most n
 * draws to go and the target its source may take (or none: GONE). */
static const char *check_pending_draw(const HeroTables *t, const HeroState *s) {
    int u = s->pend_player;
    if (s->draws_left < 1 || u > 1 || s->pend_ability > 1) return "bad pending draw";
    if (s->phase < HERO_PH_ACTION || s->phase > HERO_PH_DEFEND)
        return "pending: an effect draws only in the action, window, battle and defend phases";
    if (u != phase_decider(s))
        return "pending.player: the player who draws is the one deciding in this phase";
    if (s->pend_ability && (s->phase != HERO_PH_ACTION || t->seat[u].ability != HERO_AB_ACTIVATED))
        return "pending: only an activated ability, in the action phase, draws";
    if (s->pend_ability ? s->pend_source != 0 : s->pend_source >= t->n_cards)
        return "bad pending draw source";
    const HeroEffects *fx = source_effects(t, s->pend_source, s->pend_ability, u);
    if (s->pend_effect >= fx->n || fx->fx[s->pend_effect].op != HERO_FX_DRAW)
        return "bad pending draw effect";
    if (s->draws_left > fx->fx[s->pend_effect].a) return "more draws pending than the effect draws";
    int target = s->pend_target;
    if (target == HERO_REF_NONE) return NULL;
    if (target >= HERO_SLOTS || !occupied(s, target)) return "bad pending draw target";
    if (fx->target == HERO_TG_NONE || (fx->target == HERO_TG_OWN_UNIT && seat_of(target) != u) ||
        (fx->target == HERO_TG_ENEMY_UNIT && seat_of(target) == u))
        return "pending.target: not a unit of the side its source targets";
    return NULL;
}

static const char *check_pending(const HeroTables *t, const HeroState *s) {
    if (s->pend_kind > HERO_PEND_DRAW) return "pending kind out of range";
    if (s->pend_kind == HERO_PEND_NONE && (s->pend_source || s->pend_ability || s->pend_player ||
                                           s->pend_effect || s->pend_target || s->draws_left))
        return "pending fields set without a pending";
    if (s->pend_kind == HERO_PEND_TARGET) {
        if (s->phase != HERO_PH_ACTION || s->pend_source >= t->n_cards ||
            s->pend_player != s->active || s->pend_ability || s->pend_effect || s->pend_target ||
            s->draws_left)
            return "pending: an on_deploy target is chosen by the active player in the action phase";
        const HeroCard *k = &t->card[s->pend_source];
        if (!k->is_unit || k->effects.n == 0 || k->effects.target == HERO_TG_NONE)
            return "pending.source: a card with no on_deploy effect with a target";
    }
    return s->pend_kind == HERO_PEND_DRAW ? check_pending_draw(t, s) : NULL;
}

static const char *check_attack(const HeroState *s) {
    if (s->phase != HERO_PH_DEFEND)
        return s->att_from || s->att_to ? "attack record outside the defend phase" : NULL;
    if (s->att_from != HERO_REF_NONE &&
        (s->att_from >= HERO_SLOTS || seat_of(s->att_from) != s->active ||
         !occupied(s, s->att_from)))
        return "bad attacker ref";
    if (s->att_to != HERO_REF_NONE && s->att_to != HERO_REF_AVATAR &&
        (s->att_to >= HERO_SLOTS || seat_of(s->att_to) == s->active || !occupied(s, s->att_to)))
        return "bad attack target ref";
    return NULL;
}

/* The turn counter never overflows: every turn begins with a Draw phase that
 * draws a card, and a seat whose deck runs out loses. So turn + the cards
 * left in both decks never grows, but by the one card a Draw phase is about
 * to draw. HERO_MAX_TURN is far above any real game (and from_dict's bound). */
enum { HERO_MAX_TURN = 1000000000 };

static const char *check_turn(const HeroState *s) {
    if (s->turn < 0) return "negative turn";
    if (s->phase == HERO_PH_SETUP && (s->turn != 0 || s->active != 0))
        return "turn: the setup is turn 0 with seat 0 active";
    if (s->phase != HERO_PH_SETUP && s->phase != HERO_PH_OVER && s->turn < 1)
        return "turn: turn 0 is the setup";
    if (s->turn >= 1 && s->active != ((s->turn & 1) ? 0 : 1))
        return "active: seat 0 is active in odd turns (and during setup), seat 1 in even turns";
    if (s->phase != HERO_PH_OVER &&
        (int64_t)s->turn + s->deck_n[0] + s->deck_n[1] > HERO_MAX_TURN + (s->phase == HERO_PH_DRAW))
        return "turn beyond the bound";
    return NULL;
}

/* B10: a seat at HP <= 0 or without a deck has lost (settle ends the game
 * after every action); HP never rises above the avatar's. During the setup
 * the drawer is seat 0 until its hand is complete, then seat 1; once both
 * are complete the turns begin. */
static const char *check_going_on(const HeroTables *t, const HeroState *s) {
    if (s->phase == HERO_PH_OVER) return NULL;
    for (int p = 0; p < 2; p++) {
        if (s->hp[p] < 1 || s->hp[p] > t->seat[p].hp || s->deck_n[p] == 0)
            return "HP <= 0, HP above the avatar's or an empty deck in a game that goes on "
                   "(it would be over)";
        if (s->phase == HERO_PH_SETUP && s->hand_n[p] > t->seat[p].hand)
            return "hand: more cards than the avatar's starting hand during setup";
    }
    if (s->phase == HERO_PH_SETUP && s->hand_n[0] == t->seat[0].hand &&
        s->hand_n[1] == t->seat[1].hand)
        return "phase: both starting hands are complete: the setup is over";
    return NULL;
}

static const char *check_unkeyed(const HeroTables *t, const HeroState *s) {
    const char *why;
    if ((why = check_control(s)) || (why = check_rows(t, s)) || (why = check_zones(t, s)) ||
        (why = check_pending(t, s)) || (why = check_attack(s)) || (why = check_turn(s)) ||
        (why = check_going_on(t, s)))
        return why;
    return NULL;
}

const char *hero_state_check(const HeroTables *t, const HeroState *s) {
    const char *why;
    if ((why = check_unkeyed(t, s)) || (why = hero_check_keys(t, s))) return why;
    return xen_check_has_move(&hero_game_api, t, s);
}

const char *hero_state_check_unkeyed(const HeroTables *t, const HeroState *s) {
    const char *why = check_unkeyed(t, s);
    return why ? why : xen_check_has_move(&hero_game_api, t, s);
}
