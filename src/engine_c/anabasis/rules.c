/* rules.c - Anabasis: the rules (docs/anabasis-engine.md; section numbers
 * (§n) and decisions (E-n, D-n) refer to it): the grid, stages, setup,
 * turns, market, battle, events and field actions; apply and undo.
 *
 * Every write to the state goes through the hashed setters of internal.h;
 * debug builds (XENOPHON_DEBUG) recompute the hash after every apply and
 * undo and check every invariant.
 */
#include "internal.h"
#include "multiset.h"

/* ================================================================ grid */

static void grid_put(const AnaTables *t, AnaState *s, int q, int card, int owner, int face_down) {
    set8(t, s, &s->sq_card[q], card);
    bb_set(t, s, &s->occ[owner], q);
    if (t->card[card].kind == ANA_CHARACTER) {
        bb_set(t, s, &s->chars, q);
        bb_set(t, s, &s->ready, q);
    } else if (face_down) {
        bb_set(t, s, &s->face_down, q);
    }
}

static void grid_clear(const AnaTables *t, AnaState *s, int q) {
    set8(t, s, &s->sq_card[q], ANA_NONE);
    set8(t, s, &s->sq_damage[q], 0);
    set16(t, s, &s->sq_bonus[q], 0);
    bb_clear(t, s, &s->occ[0], q);
    bb_clear(t, s, &s->occ[1], q);
    bb_clear(t, s, &s->chars, q);
    bb_clear(t, s, &s->ready, q);
    bb_clear(t, s, &s->moved, q);
    bb_clear(t, s, &s->face_down, q);
}

/* A character goes from a to b with its damage, bonus and flags. */
static void grid_move(const AnaTables *t, AnaState *s, int a, int b) {
    int owner = owner_of(s, a);
    int ready = (int)((s->ready >> a) & 1), moved = (int)((s->moved >> a) & 1);
    int damage = s->sq_damage[a], bonus = s->sq_bonus[a], card = s->sq_card[a];
    grid_clear(t, s, a);
    set8(t, s, &s->sq_card[b], card);
    set8(t, s, &s->sq_damage[b], damage);
    set16(t, s, &s->sq_bonus[b], bonus);
    bb_set(t, s, &s->occ[owner], b);
    bb_set(t, s, &s->chars, b);
    bb_put(t, s, &s->ready, b, ready);
    bb_put(t, s, &s->moved, b, moved);
}

/* The card on q leaves the grid for its owner's cemetery. */
static void grid_destroy(const AnaTables *t, AnaState *s, int q) {
    AnaPlayer *pl = &s->pl[owner_of(s, q)];
    ms_add(t, s, pl->cemetery, s->sq_card[q], 1);
    add16(t, s, &pl->cem_cards, 1);
    grid_clear(t, s, q);
}

/* Adds damage to the card on q; returns 1 if that destroyed it. */
static int grid_damage(const AnaTables *t, AnaState *s, int q, int damage) {
    int total = s->sq_damage[q] + damage;
    if (total >= t->card[s->sq_card[q]].hp) {
        grid_destroy(t, s, q);
        return 1;
    }
    set8(t, s, &s->sq_damage[q], total);
    return 0;
}

/* ================================================================ stages */

static void enter(const AnaTables *t, AnaState *s, int stage, int sub, int draws) {
    set8(t, s, &s->stage, stage);
    set8(t, s, &s->sub, sub);
    set8(t, s, &s->draws_left, draws);
}

static void clear_battle(const AnaTables *t, AnaState *s) {
    set8(t, s, &s->b_att, 0);
    set8(t, s, &s->b_tgt, 0);
    set8(t, s, &s->b_step, 0);
    set8(t, s, &s->b_charge, 0);
    set8(t, s, &s->b_resp, 0);
}

static void clear_event(const AnaTables *t, AnaState *s) {
    set8(t, s, &s->ev_slot, 0);
    set8(t, s, &s->ev_arg, 0);
}

static void game_over(const AnaTables *t, AnaState *s, int outcome) {
    set8(t, s, &s->outcome, outcome);
    set8(t, s, &s->ret, 0);
    clear_battle(t, s);
    clear_event(t, s);
    enter(t, s, ANA_SG_OVER, 0, 0);
}

/* §6: after every strike and every event effect. Returns 1 if the game ended. */
static int check_end(const AnaTables *t, AnaState *s) {
    int lose[2];
    for (int p = 0; p < 2; p++)
        lose[p] = s->pl[p].castle_hp <= 0 || s->pl[p].cem_cards >= t->cemetery_limit;
    if (!lose[0] && !lose[1]) return 0;
    game_over(t, s, lose[0] && lose[1] ? XEN_RES_DRAW : lose[0] ? XEN_RES_WIN1 : XEN_RES_WIN0);
    return 1;
}

static void gain_funds(const AnaTables *t, AnaState *s, int p, int amount) {
    set8(t, s, &s->pl[p].funds, clampi(s->pl[p].funds + amount, 0, 99));
}

static void draw_card(const AnaTables *t, AnaState *s, int p, int card) {
    AnaPlayer *pl = &s->pl[p];
    hidden_add(t, s, pl->deck, card, -1);
    add16(t, s, &pl->deck_n, -1);
    hidden_add(t, s, pl->hand, card, 1);
    add16(t, s, &pl->hand_n, 1);
}

static void reveal_top(const AnaTables *t, AnaState *s, int pile, int card) {
    ms_add(t, s, s->unseen, card, -1);
    add16(t, s, &s->pile_n[pile], -1);
    set8(t, s, &s->top[pile], card);
}

/* The row stays sorted ascending with ANA_NONE at the end. */
static void row_insert(const AnaTables *t, AnaState *s, int card) {
    int n = row_count(s), i = n;
    while (i > 0 && s->row[i - 1] > card) {
        set8(t, s, &s->row[i], s->row[i - 1]);
        i--;
    }
    set8(t, s, &s->row[i], card);
}

static void row_remove(const AnaTables *t, AnaState *s, int card) {
    int n = row_count(s), i = 0;
    while (s->row[i] != card) i++;
    for (; i + 1 < n; i++) set8(t, s, &s->row[i], s->row[i + 1]);
    set8(t, s, &s->row[n - 1], ANA_NONE);
}

static void reveal_row(const AnaTables *t, AnaState *s, int card) {
    ms_add(t, s, s->unseen, card, -1);
    add16(t, s, &s->pile_n[ANA_PILE_ROW], -1);
    row_insert(t, s, card);
}

/* The field card f is revealed (appended) and becomes active. */
static void reveal_field(const AnaTables *t, AnaState *s, int f) {
    set8(t, s, &s->field_rev[s->field_n], f);
    set8(t, s, &s->field_idx, s->field_n);
    set8(t, s, &s->field_n, s->field_n + 1);
    set8(t, s, &s->field_left, t->field[f].duration);
}

/* ---------------------------------------------------------------- setup */

static void begin_turn(const AnaTables *t, AnaState *s);

static void setup_draws(const AnaTables *t, AnaState *s, int seat, int draws) {
    for (; seat < 2; seat++, draws = 3)
        if (draws > 0 && s->pl[seat].deck_n > 0) {
            enter(t, s, ANA_SG_SETUP_DRAW, seat, draws);
            return;
        }
    begin_turn(t, s);
}

static void setup_field(const AnaTables *t, AnaState *s) {
    if (t->n_fields > 0) enter(t, s, ANA_SG_SETUP_FIELD, 0, 0);
    else setup_draws(t, s, 0, 3);
}

static void setup_row(const AnaTables *t, AnaState *s) {
    if (row_count(s) < ANA_ROW_SIZE && s->pile_n[ANA_PILE_ROW] > 0)
        enter(t, s, ANA_SG_SETUP_ROW, 0, 0);
    else setup_field(t, s);
}

static void setup_piles(const AnaTables *t, AnaState *s, int pile) {
    for (; pile < 3; pile++)
        if (s->pile_n[pile] > 0) {
            enter(t, s, ANA_SG_SETUP_PILE, pile, 0);
            return;
        }
    setup_row(t, s);
}

/* Next DEAL node, from seat `seat` on: stage DEAL with sub = seat whose
 * to-deal multiset (computed from the stage) is not empty and has a free slot. */
static void setup_deals(const AnaTables *t, AnaState *s, int seat) {
    for (; seat < 2; seat++) {
        enter(t, s, ANA_SG_DEAL, seat, 0);
        if (first_empty_slot(s, seat) >= 0 && to_deal_total(t, s, seat) > 0) return;
    }
    setup_piles(t, s, 0);
}

#ifndef XEN_UNKEYED
void ana_initial_state(const AnaTables *t, AnaState *s) {
    memset(s, 0, sizeof *s);
    memset(s->sq_card, ANA_NONE, sizeof s->sq_card);
    memset(s->top, ANA_NONE, sizeof s->top);
    memset(s->row, ANA_NONE, sizeof s->row);
    s->turn = 1;
    for (int p = 0; p < 2; p++) {
        AnaPlayer *pl = &s->pl[p];
        memset(pl->slot, ANA_NONE, sizeof pl->slot);
        pl->castle_hp = (int16_t)t->castle_hp;
        pl->funds = p == 1 ? 1 : 0; /* D-12 */
        for (int c = 0; c < t->n_cards; c++)
            if (t->card[c].kind == ANA_CHARACTER) {
                pl->deck[c] = t->card[c].start_copies;
                pl->deck_n += t->card[c].start_copies;
            }
    }
    for (int c = 0; c < t->n_cards; c++)
        if (t->card[c].pile != ANA_PILE_NONE && t->card[c].copies) {
            s->unseen[c] = t->card[c].copies;
            s->pile_n[t->card[c].pile] += t->card[c].copies;
        }
    ana_rekey(t, s);
    if (t->start_territory >= 0)
        for (int p = 0; p < 2; p++) grid_put(t, s, VILLAGE_SQ[p], t->start_territory, p, 0);
    setup_deals(t, s, 0);
}
#endif

/* ---------------------------------------------------------------- turns */

static void income(const AnaTables *t, AnaState *s) {
    int p = s->active, ap = 3, funds = 2, q, a;
    FOR_BITS (q, s->occ[p] & ~s->chars & ~s->face_down) {
        ap += t->card[s->sq_card[q]].ap_income;
        funds += t->card[s->sq_card[q]].funds_income;
    }
    if (field_active(t, s, ANA_FX_INCOME_FUNDS, &a)) funds += a;
    set16(t, s, &s->pl[p].ap, ap);
    gain_funds(t, s, p, funds);
    enter(t, s, ANA_SG_STANDBY1, 0, 0);
}

/* Standby 1, automatic steps (§3). */
static void begin_turn(const AnaTables *t, AnaState *s) {
    int p = s->active, q;
    AnaPlayer *pl = &s->pl[p];
    for (int k = 0; k < ANA_SLOTS; k++)
        if (pl->slot[k] != ANA_NONE && slot_up(s, p, k)) {
            ms_add(t, s, pl->cemetery, pl->slot[k], 1);
            set8(t, s, &pl->slot[k], ANA_NONE);
        }
    set8(t, s, &pl->slot_up, 0);
    FOR_BITS (q, s->occ[p]) {
        set8(t, s, &s->sq_damage[q], 0);
        bb_clear(t, s, &s->face_down, q);
    }
    FOR_BITS (q, s->occ[p] & s->chars) {
        bb_set(t, s, &s->ready, q);
        bb_clear(t, s, &s->moved, q);
    }
    if (s->field_n > 0 && s->turn != 1) {
        set8(t, s, &s->field_left, s->field_left - 1);
        if (s->field_left == 0) {
            if (s->field_n < t->n_fields) {
                enter(t, s, ANA_SG_TURN_FIELD, 0, 0);
                return;
            }
            int next = (s->field_idx + 1) % s->field_n;
            set8(t, s, &s->field_idx, next);
            set8(t, s, &s->field_left, t->field[s->field_rev[next]].duration);
        }
    }
    income(t, s);
}

static void end_draws(const AnaTables *t, AnaState *s) {
    if (s->draws_left > 0 && s->pl[s->active].deck_n > 0) {
        enter(t, s, ANA_SG_END_DRAW, 0, s->draws_left);
        return;
    }
    set8(t, s, &s->turn, s->turn + 1);
    set8(t, s, &s->active, 1 - s->active);
    begin_turn(t, s);
}

/* End phase and Draw phase (§3). */
static void end_turn(const AnaTables *t, AnaState *s) {
    int p = s->active, q;
    AnaPlayer *pl = &s->pl[p];
    FOR_BITS (q, occupied(s)) set16(t, s, &s->sq_bonus[q], 0);
    int added = 0, c;
    int ids = (t->n_cards + 7) & ~7; /* whole words of counts (multiset.h) */
    FOR_BITS (c, xen_multiset_mask(pl->hand, ids) | xen_multiset_mask(pl->flow, ids)) {
        int n = pl->hand[c] + pl->flow[c];
        hidden_add(t, s, pl->deck, c, n);
        hidden_set8(t, s, &pl->hand[c], 0);
        set8(t, s, &pl->flow[c], 0);
        added += n;
    }
    add16(t, s, &pl->deck_n, added);
    set16(t, s, &pl->hand_n, 0);
    if (s->turn == ANA_MAX_TURNS) {
        game_over(t, s, XEN_RES_DRAW); /* D-11 */
        return;
    }
    set8(t, s, &s->draws_left, 3);
    end_draws(t, s);
}

/* ---------------------------------------------------------------- market */

/* After a purchase of `card`: empty its place, then a REVEAL node if its pile
 * has cards left, back to the standby phase `stage` otherwise. */
static void after_purchase(const AnaTables *t, AnaState *s, int card, int stage) {
    int pile = t->card[card].pile;
    if (pile == ANA_PILE_ROW) row_remove(t, s, card);
    else set8(t, s, &s->top[pile], ANA_NONE);
    if (s->pile_n[pile] > 0) {
        set8(t, s, &s->ret, stage);
        enter(t, s, ANA_SG_REFILL, pile, 0);
    }
}

static void do_buy(const AnaTables *t, AnaState *s, int card) {
    AnaPlayer *pl = &s->pl[s->active];
    set8(t, s, &pl->funds, pl->funds - price(t, s, card));
    ms_add(t, s, pl->flow, card, 1);
    after_purchase(t, s, card, s->stage);
}

static void do_buy_place(const AnaTables *t, AnaState *s, int card, int q) {
    AnaPlayer *pl = &s->pl[s->active];
    set8(t, s, &pl->funds, pl->funds - price(t, s, card));
    set16(t, s, &pl->ap, pl->ap - 1);
    grid_put(t, s, q, card, s->active, 1);
    after_purchase(t, s, card, s->stage);
}

static void do_place(const AnaTables *t, AnaState *s, int card, int q) {
    AnaPlayer *pl = &s->pl[s->active];
    hidden_add(t, s, pl->hand, card, -1);
    add16(t, s, &pl->hand_n, -1);
    set16(t, s, &pl->ap, pl->ap - 1);
    grid_put(t, s, q, card, s->active, 0);
}

static void do_set(const AnaTables *t, AnaState *s, int card) {
    AnaPlayer *pl = &s->pl[s->active];
    hidden_add(t, s, pl->hand, card, -1);
    add16(t, s, &pl->hand_n, -1);
    set8(t, s, &pl->slot[first_empty_slot(s, s->active)], card);
}

/* ---------------------------------------------------------------- battle */

/* Damage of the pending strike for outcome k (1 hit, 2 crit). */
static int strike_damage(const AnaTables *t, const AnaState *s, int k) {
    int x, y, main;
    strike_sides(s, &x, &y, &main);
    const AnaCard *c = &t->card[s->sq_card[x]];
    int d = c->atk + s->sq_bonus[x];
    if (main && s->b_charge && (c->keywords & ANA_KW_CHARGE)) d += 1;
    int building = s->sq_card[y] == ANA_NONE || !((s->chars >> y) & 1); /* castle or territory */
    int siege = building && (c->keywords & ANA_KW_SIEGE);
    d *= (k == ANA_STRIKE_CRIT && siege) ? 3 : (k == ANA_STRIKE_CRIT || siege) ? 2 : 1;
    if (s->sq_card[y] != ANA_NONE && (t->card[s->sq_card[y]].keywords & ANA_KW_ARMORED))
        d = d > 2 ? d - 1 : 1; /* ARMORED: 1 less, at least 1 (literally max(1, d - 1)) */
    return d;
}

static void finish_battle(const AnaTables *t, AnaState *s);

static void begin_strike(const AnaTables *t, AnaState *s, int step) {
    set8(t, s, &s->b_step, step);
    enter(t, s, ANA_SG_STRIKE, 0, 0);
}

/* §4 step 2, by the response that took effect. */
static void resolve_battle(const AnaTables *t, AnaState *s, int response) {
    set8(t, s, &s->b_resp, response);
    if (response == ANA_EV_AMBUSH) begin_strike(t, s, ANA_BS_AMBUSH);
    else if (response == ANA_EV_NONE) begin_strike(t, s, ANA_BS_MAIN);
    else finish_battle(t, s); /* evasion, fortify: no strike */
}

static void apply_strike(const AnaTables *t, AnaState *s, int k) {
    int x, y, main;
    strike_sides(s, &x, &y, &main);
    int step = s->b_step, bounty_card = -1;
    if (k != ANA_STRIKE_MISS) {
        int d = strike_damage(t, s, k);
        if (s->sq_card[y] == ANA_NONE) {
            AnaPlayer *pl = &s->pl[y == CASTLE0 ? 0 : 1];
            set16(t, s, &pl->castle_hp, pl->castle_hp - d);
        } else {
            int card = s->sq_card[y];
            if (grid_damage(t, s, y, d) && t->card[card].kind == ANA_TERRITORY) bounty_card = card;
        }
    }
    if (check_end(t, s)) return; /* the battle stops with the game */
    int a = s->b_att, b = s->b_tgt;
    if (step == ANA_BS_MAIN) {
        if (bounty_card >= 0) gain_funds(t, s, s->active, t->card[bounty_card].cost / 2);
        if (((s->chars >> b) & 1) && (t->attack_mask[s->sq_card[b]][owner_of(s, b)][b] & BIT(a))) {
            begin_strike(t, s, ANA_BS_COUNTER);
            return;
        }
    } else if (step == ANA_BS_AMBUSH && s->sq_card[a] != ANA_NONE) {
        begin_strike(t, s, ANA_BS_MAIN_AFTER_AMBUSH);
        return;
    }
    finish_battle(t, s);
}

/* §4 steps 4 to 6. */
static void finish_battle(const AnaTables *t, AnaState *s) {
    int a = s->b_att;
    if (s->sq_card[a] != ANA_NONE) {
        bb_clear(t, s, &s->ready, a);
        bb_clear(t, s, &s->moved, a);
    }
    if (s->b_resp == ANA_EV_EVASION && evade_mask(t, s)) {
        set8(t, s, &s->b_step, 0);
        enter(t, s, ANA_SG_EVADE, 0, 0);
        return;
    }
    clear_battle(t, s);
    enter(t, s, ANA_SG_FIELD, 0, 0);
}

static void do_attack(const AnaTables *t, AnaState *s, int a, int b) {
    AnaPlayer *pl = &s->pl[s->active];
    set16(t, s, &pl->ap, pl->ap - attack_cost(t, s, a));
    set8(t, s, &s->b_att, a);
    set8(t, s, &s->b_tgt, b);
    set8(t, s, &s->b_charge, (int)((s->moved >> a) & 1));
    if (has_face_down_event(s, 1 - s->active)) enter(t, s, ANA_SG_RESPONSE, 0, 0);
    else resolve_battle(t, s, ANA_EV_NONE);
}

static void turn_up(const AnaTables *t, AnaState *s, int p, int k) {
    set8(t, s, &s->pl[p].slot_up, s->pl[p].slot_up | (1 << k));
}

static void do_response(const AnaTables *t, AnaState *s, int code) {
    int d = 1 - s->active;
    if (XEN_KIND(code) == ANA_PASS) {
        resolve_battle(t, s, ANA_EV_NONE);
        return;
    }
    int k = XEN_X(code), effect = t->card[s->pl[d].slot[k]].effect;
    turn_up(t, s, d, k);
    if (has_face_down_event(s, s->active)) {
        set8(t, s, &s->b_resp, effect); /* pending, until the Nullify window closes */
        enter(t, s, ANA_SG_NULLIFY_RESPONSE, 0, 0);
    } else {
        resolve_battle(t, s, effect);
    }
}

static void do_nullify_response(const AnaTables *t, AnaState *s, int code) {
    if (XEN_KIND(code) == ANA_PASS) {
        resolve_battle(t, s, s->b_resp);
        return;
    }
    turn_up(t, s, s->active, XEN_X(code));
    resolve_battle(t, s, ANA_EV_NONE);
}

static void do_evade(const AnaTables *t, AnaState *s, int code) {
    if (XEN_KIND(code) == ANA_EVADE) grid_move(t, s, s->b_tgt, XEN_X(code));
    clear_battle(t, s);
    enter(t, s, ANA_SG_FIELD, 0, 0);
}

/* ---------------------------------------------------------------- events */

static void event_effect(const AnaTables *t, AnaState *s) {
    int p = s->active, arg = s->ev_arg, q;
    const AnaCard *c = &t->card[s->pl[p].slot[s->ev_slot]];
    switch (c->effect) {
    case ANA_EV_FLOOD:
        /* E-6: ascending squares, one end check after the whole effect */
        FOR_BITS (q, t->rank_mask[arg] & s->chars) grid_damage(t, s, q, c->amount);
        break;
    case ANA_EV_RALLY: set16(t, s, &s->sq_bonus[arg], s->sq_bonus[arg] + c->amount); break;
    case ANA_EV_FORCED_MARCH: set16(t, s, &s->pl[p].ap, s->pl[p].ap + c->amount); break;
    case ANA_EV_WINDFALL: gain_funds(t, s, p, c->amount); break;
    case ANA_EV_SABOTAGE: grid_damage(t, s, arg, c->amount); break;
    default: break;
    }
}

static void end_event(const AnaTables *t, AnaState *s, int nullified) {
    if (!nullified) {
        event_effect(t, s);
        if (check_end(t, s)) return;
    }
    clear_event(t, s);
    enter(t, s, ANA_SG_FIELD, 0, 0);
}

static void do_event(const AnaTables *t, AnaState *s, int k, int arg) {
    turn_up(t, s, s->active, k);
    set8(t, s, &s->ev_slot, k);
    set8(t, s, &s->ev_arg, arg);
    if (has_face_down_event(s, 1 - s->active)) enter(t, s, ANA_SG_EVENT_WINDOW, 0, 0);
    else end_event(t, s, 0);
}

static void do_event_window(const AnaTables *t, AnaState *s, int code) {
    if (XEN_KIND(code) == ANA_EVENT) turn_up(t, s, 1 - s->active, XEN_X(code));
    end_event(t, s, XEN_KIND(code) == ANA_EVENT);
}

/* ---------------------------------------------------------------- field */

static void do_move(const AnaTables *t, AnaState *s, int a, int b) {
    AnaPlayer *pl = &s->pl[s->active];
    set16(t, s, &pl->ap, pl->ap - move_cost(t, s));
    grid_move(t, s, a, b);
    bb_set(t, s, &s->moved, b);
}

static void do_ready(const AnaTables *t, AnaState *s, int q) {
    AnaPlayer *pl = &s->pl[s->active];
    set16(t, s, &pl->ap, pl->ap - 1);
    bb_set(t, s, &s->ready, q);
    bb_clear(t, s, &s->moved, q);
}

/* ================================================================ apply */

static void apply_chance(const AnaTables *t, AnaState *s, int x) {
    switch (s->stage) {
    case ANA_SG_DEAL:
        set8(t, s, &s->pl[s->sub].slot[first_empty_slot(s, s->sub)], x);
        setup_deals(t, s, s->sub);
        break;
    case ANA_SG_SETUP_PILE:
        reveal_top(t, s, s->sub, x);
        setup_piles(t, s, s->sub + 1);
        break;
    case ANA_SG_SETUP_ROW:
        reveal_row(t, s, x);
        setup_row(t, s);
        break;
    case ANA_SG_SETUP_FIELD:
        reveal_field(t, s, x);
        setup_draws(t, s, 0, 3);
        break;
    case ANA_SG_SETUP_DRAW:
        draw_card(t, s, s->sub, x);
        setup_draws(t, s, s->sub, s->draws_left - 1);
        break;
    case ANA_SG_REFILL: {
        int stage = s->ret;
        if (s->sub == ANA_PILE_ROW) reveal_row(t, s, x);
        else reveal_top(t, s, s->sub, x);
        set8(t, s, &s->ret, 0);
        enter(t, s, stage, 0, 0);
        break;
    }
    case ANA_SG_TURN_FIELD:
        reveal_field(t, s, x);
        income(t, s);
        break;
    case ANA_SG_STRIKE: apply_strike(t, s, x); break;
    case ANA_SG_END_DRAW:
        draw_card(t, s, s->active, x);
        set8(t, s, &s->draws_left, s->draws_left - 1);
        end_draws(t, s);
        break;
    default: XEN_ASSERT(0);
    }
}

static void apply_decision(const AnaTables *t, AnaState *s, uint16_t code) {
    int kind = XEN_KIND(code), x = XEN_X(code), y = XEN_Y(code);
    switch (s->stage) {
    case ANA_SG_STANDBY1:
    case ANA_SG_STANDBY2:
        switch (kind) {
        case ANA_END:
            if (s->stage == ANA_SG_STANDBY1) enter(t, s, ANA_SG_FIELD, 0, 0);
            else end_turn(t, s);
            break;
        case ANA_BUY: do_buy(t, s, x); break;
        case ANA_BUY_PLACE: do_buy_place(t, s, x, y); break;
        case ANA_PLACE: do_place(t, s, x, y); break;
        case ANA_SET: do_set(t, s, x); break;
        default: XEN_ASSERT(0);
        }
        break;
    case ANA_SG_FIELD:
        switch (kind) {
        case ANA_END: enter(t, s, ANA_SG_STANDBY2, 0, 0); break;
        case ANA_MOVE: do_move(t, s, x, y); break;
        case ANA_ATTACK: do_attack(t, s, x, y); break;
        case ANA_READY: do_ready(t, s, x); break;
        case ANA_EVENT: do_event(t, s, x, y); break;
        default: XEN_ASSERT(0);
        }
        break;
    case ANA_SG_RESPONSE: do_response(t, s, code); break;
    case ANA_SG_NULLIFY_RESPONSE: do_nullify_response(t, s, code); break;
    case ANA_SG_EVADE: do_evade(t, s, code); break;
    case ANA_SG_EVENT_WINDOW: do_event_window(t, s, code); break;
    default: XEN_ASSERT(0);
    }
}

/* Undo design: AnaUndo is a copy of the whole 744-byte state, restored with
 * one struct assignment. Measured against a delta record (every hashed
 * setter also appending (offset, old byte) to a log in the record, undone in
 * reverse; the setters make such a log complete by construction), gcc 12
 * -O3, one AMD EPYC core, reference card set, oracle-style pairs walk (apply
 * + undo of a random legal code, then advance), best of 3 x 5M steps:
 *
 *                      pair (apply+undo+legal list)   plain apply (no undo)
 *   full copy          114 ns standard, 116 expert    111 / 114 ns per action
 *   delta log          123 ns standard, 126 expert    123 / 127 ns per action
 *
 * The log holds 10.8 bytes on average (97 at most in 2M applies), but its
 * per-write bookkeeping also slows every apply without undo (playouts), and
 * a fixed-capacity record would be larger than the state. Copy kept. */
static void apply_code(const AnaTables *t, AnaState *s, uint16_t code) {
    XEN_ASSERT(ana_is_legal(t, s, code));
    if (stage_is_decision(s->stage)) apply_decision(t, s, code);
    else apply_chance(t, s, XEN_X(code));
    debug_check(t, s);
}

#ifdef XEN_UNKEYED
/* rules_unkeyed.c: the same rules with setters that only write. */
void ana_apply_unkeyed(const AnaTables *t, AnaState *s, uint16_t code) { apply_code(t, s, code); }
#else
void ana_apply(const AnaTables *t, AnaState *s, uint16_t code, AnaUndo *u) {
    if (u) u->prev = *s;
    apply_code(t, s, code);
}

void ana_undo(const AnaTables *t, AnaState *s, const AnaUndo *u) {
    (void)t;
    *s = u->prev;
    debug_check(t, s);
}
#endif
