/* rules.c - Hero: the rules (docs/hero-engine.md; section numbers (§n) and
 * decisions (E-n, D-n, B-n) refer to it): units and rows, settle and the end
 * of the game, hands, effects, attacks, turns; the actions; apply, undo and
 * the initial state. */
#include "internal.h"

#ifndef XEN_UNKEYED
int32_t hero_power(const HeroTables *t, const HeroState *s, int slot) {
    return power_of(t, s, slot);
}

int32_t hero_attack(const HeroTables *t, const HeroState *s, int slot) {
    return attack_of(t, s, slot);
}
#endif

static void copy_unit(Ctx *c, int to, int from) {
    HeroState *s = c->s;
    w8(c, &s->card[to], s->card[from]);
    w8(c, &s->flags[to], s->flags[from]);
    w32(c, &s->damage[to], s->damage[from]);
    w32(c, &s->pump_power[to], s->pump_power[from]);
    w32(c, &s->pump_attack[to], s->pump_attack[from]);
}

static void clear_unit(Ctx *c, int slot) {
    HeroState *s = c->s;
    w8(c, &s->card[slot], 0);
    w8(c, &s->flags[slot], 0);
    w32(c, &s->damage[slot], 0);
    w32(c, &s->pump_power[slot], 0);
    w32(c, &s->pump_attack[slot], 0);
}

/* Removes the units of `mask` at once: each row closes its gaps, every ref
 * (in the state and in the context) follows. Destinations are the caller's. */
static void remove_units(Ctx *c, uint32_t mask) {
    HeroState *s = c->s;
    for (int rr = 0; rr < 4; rr++) {
        uint32_t row_mask = (mask >> (rr * 5)) & 31;
        if (!row_mask) continue;
        int n = s->row_n[rr], j = 0;
        for (int i = 0; i < n; i++) {
            if ((row_mask >> i) & 1) continue;
            if (j != i) copy_unit(c, rr * 5 + j, rr * 5 + i);
            j++;
        }
        for (int i = j; i < n; i++) clear_unit(c, rr * 5 + i);
        w8(c, &s->row_n[rr], j);
    }
    if (s->phase == HERO_PH_DEFEND) { /* outside it the record is zero, not a ref */
        w8(c, &s->att_from, remap(s->att_from, mask));
        w8(c, &s->att_to, remap(s->att_to, mask));
    }
    if (s->pend_kind == HERO_PEND_DRAW) w8(c, &s->pend_target, remap(s->pend_target, mask));
    for (int k = 0; k < N_REFS; k++) c->ref[k] = remap(c->ref[k], mask);
}

/* Appends a unit at the right end of row rr (which has room); returns its slot. */
static int append_unit(Ctx *c, int rr, int card, int flags, int32_t damage, int32_t pp,
                       int32_t pa) {
    HeroState *s = c->s;
    int slot = rr * 5 + s->row_n[rr];
    XEN_ASSERT(s->row_n[rr] < HERO_ROW_SIZE);
    w8(c, &s->card[slot], card);
    w8(c, &s->flags[slot], flags);
    w32(c, &s->damage[slot], damage);
    w32(c, &s->pump_power[slot], pp);
    w32(c, &s->pump_attack[slot], pa);
    w8(c, &s->row_n[rr], s->row_n[rr] + 1);
    return slot;
}

/* ================================================= settle, end of the game */

/* Step 4 of settle (B10), once something that can end the game happened.
 * Returns 1 if the game is over. */
static int end_if_over(Ctx *c) {
    HeroState *s = c->s;
    int result = XEN_RES_NONE;
    c->vitals = 0;
    if (c->special_winner >= 0) {
        result = c->special_winner == 0 ? XEN_RES_WIN0 : XEN_RES_WIN1;
        c->special_winner = -1;
    } else {
        int lose0 = s->hp[0] <= 0 || s->deck_n[0] == 0;
        int lose1 = s->hp[1] <= 0 || s->deck_n[1] == 0;
        if (lose0 && lose1) result = XEN_RES_DRAW;
        else if (lose0) result = XEN_RES_WIN1;
        else if (lose1) result = XEN_RES_WIN0;
    }
    if (result == XEN_RES_NONE) return 0;
    w8(c, &s->result, result);
    w8(c, &s->phase, HERO_PH_OVER);
    w8(c, &s->pend_kind, HERO_PEND_NONE);
    w8(c, &s->pend_source, 0);
    w8(c, &s->pend_ability, 0);
    w8(c, &s->pend_player, 0);
    w8(c, &s->pend_effect, 0);
    w8(c, &s->pend_target, 0);
    w32(c, &s->draws_left, 0);
    w8(c, &s->att_from, 0);
    w8(c, &s->att_to, 0);
    return 1;
}

/* Step 4 of settle (B10). Returns 1 if the game is over. Only a
 * win_if_units or a changed HP or deck size (Ctx.vitals) can end it. */
static inline int end_check(Ctx *c) {
    return (c->special_winner >= 0 || c->vitals) && end_if_over(c);
}

/* Seat p's HP becomes hp: the next end check looks at it (Ctx.vitals). */
static void set_hp(Ctx *c, int p, int32_t hp) {
    w32(c, &c->s->hp[p], hp);
    c->vitals = 1;
}

/* An on_enemy_destroyed ability of seat u: HP only, no settle (E-12, E-14). */
static void enemy_destroyed_trigger(Ctx *c, int u) {
    const HeroSeat *seat = &c->t->seat[u];
    HeroState *s = c->s;
    for (int i = 0; i < seat->ability_fx.n; i++) {
        const HeroEffect *e = &seat->ability_fx.fx[i];
        if (e->op == HERO_FX_HEAL_AVATAR) {
            int32_t hp = s->hp[u] + e->a;
            set_hp(c, u, hp < seat->hp ? hp : seat->hp);
        } else if (e->op == HERO_FX_LOSE_HP) {
            set_hp(c, u, s->hp[u] - e->a);
        } else if (e->op == HERO_FX_DAMAGE_AVATAR) {
            set_hp(c, 1 - u, s->hp[1 - u] - e->a);
        }
    }
}

/* Destroys the units of `mask` at once (settle steps 2 and 3): cards to their
 * owners' graveyards, tokens vanish, then the triggers in slot order, which
 * is the spec's order (seat 0 front, back, seat 1 front, back, left to right). */
static void destroy_units(Ctx *c, uint32_t mask) {
    HeroState *s = c->s;
    uint32_t owners = 0; /* bit i: owner of the i-th destroyed unit, in order */
    int n = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
        int slot = __builtin_ctz(m), owner = seat_of(slot), card = s->card[slot];
        if (card != HERO_TOKEN) w8(c, &s->grave[owner][card], s->grave[owner][card] + 1);
        owners |= (uint32_t)owner << n++;
    }
    remove_units(c, mask);
    for (int i = 0; i < n; i++) {
        int other = 1 - (int)((owners >> i) & 1);
        if (c->t->seat[other].ability == HERO_AB_ON_ENEMY_DESTROYED)
            enemy_destroyed_trigger(c, other);
    }
}

/* Damage dealt to the unit at `slot`: the next settle looks for deaths. */
static void add_damage(Ctx *c, int slot, int32_t amount) {
    w32(c, &c->s->damage[slot], c->s->damage[slot] + amount);
    c->damaged = 1;
}

/* Settle steps 2 and 3: the units with damage >= power die. */
static void destroy_dead(Ctx *c) {
    const HeroState *s = c->s;
    uint32_t dead = 0;
    for (uint32_t m = occupied_mask(s); m; m &= m - 1) {
        int slot = __builtin_ctz(m);
        if (s->damage[slot] >= power_of(c->t, s, slot)) dead |= 1u << slot;
    }
    c->damaged = 0;
    if (dead) destroy_units(c, dead);
}

/* §7 settle. Returns 1 if the game is over. Units can only have died if a
 * damage rose since the last settle (Ctx.damaged). */
static inline int settle(Ctx *c) {
    if (c->damaged) destroy_dead(c);
    return end_check(c);
}

/* ==================================================================== hands */

static void draw_card(Ctx *c, int seat, int card) {
    HeroState *s = c->s;
    w8_hidden(c, &s->deck[seat][card], s->deck[seat][card] - 1);
    w8(c, &s->deck_n[seat], s->deck_n[seat] - 1);
    c->vitals = 1; /* an empty deck loses: the next end check looks */
    w8_hidden(c, &s->hand[seat][card], s->hand[seat][card] + 1);
    w8(c, &s->hand_n[seat], s->hand_n[seat] + 1);
}

/* A card leaves u's hand (use or discard): the known count forgets one copy. */
static void leave_hand(Ctx *c, int u, int card) {
    HeroState *s = c->s;
    w8_hidden(c, &s->hand[u][card], s->hand[u][card] - 1);
    w8(c, &s->hand_n[u], s->hand_n[u] - 1);
    if (s->known[u][card]) w8(c, &s->known[u][card], s->known[u][card] - 1);
}

/* §5 Use: leaves the hand, charisma spent. */
static void use_card(Ctx *c, int u, int card) {
    leave_hand(c, u, card);
    w8(c, &c->s->charisma_used[u], c->s->charisma_used[u] + c->t->card[card].cost);
}

static void to_grave(Ctx *c, int u, int card) {
    w8(c, &c->s->grave[u][card], c->s->grave[u][card] + 1);
}

/* ================================================================== effects */

static void clear_pending(Ctx *c) {
    HeroState *s = c->s;
    w8(c, &s->pend_kind, HERO_PEND_NONE);
    w8(c, &s->pend_source, 0);
    w8(c, &s->pend_ability, 0);
    w8(c, &s->pend_player, 0);
    w8(c, &s->pend_effect, 0);
    w8(c, &s->pend_target, 0);
    w32(c, &s->draws_left, 0);
}

static void bounce(Ctx *c, int slot) {
    HeroState *s = c->s;
    int owner = seat_of(slot), card = s->card[slot];
    if (card != HERO_TOKEN) {
        w8_hidden(c, &s->hand[owner][card], s->hand[owner][card] + 1);
        w8(c, &s->hand_n[owner], s->hand_n[owner] + 1);
        w8(c, &s->known[owner][card], s->known[owner][card] + 1);
    }
    remove_units(c, 1u << slot);
}

static int non_token_units(const HeroState *s, int u) {
    int n = 0;
    for (uint32_t m = seat_units(s, u); m; m &= m - 1)
        n += s->card[u * 10 + __builtin_ctz(m)] != HERO_TOKEN;
    return n;
}

/* §7 Resolve: effects [from, n) of a source of user u on c->ref[REF_TARGET].
 * Returns 1 when resolution stops (suspended at a draw, or the game is over),
 * 0 when the list is done. */
static int resolve(Ctx *c, int card, int is_ability, int u, int from) {
    HeroState *s = c->s;
    const HeroEffects *list = source_effects(c->t, card, is_ability, u);
    for (int i = from; i < list->n; i++) {
        const HeroEffect *e = &list->fx[i];
        int t = c->ref[REF_TARGET];
        if (effect_needs_target(e->op) && t == HERO_REF_NONE) continue; /* GONE: skipped (E-8) */
        switch (e->op) {
        case HERO_FX_DAMAGE_UNIT:
            add_damage(c, t, e->a);
            if (settle(c)) return 1;
            break;
        case HERO_FX_DESTROY_UNIT:
            if (power_of(c->t, s, t) <= e->a) destroy_units(c, 1u << t);
            if (settle(c)) return 1;
            break;
        case HERO_FX_DAMAGE_AVATAR:
            set_hp(c, 1 - u, s->hp[1 - u] - e->a);
            if (settle(c)) return 1;
            break;
        case HERO_FX_HEAL_AVATAR: {
            int32_t hp = s->hp[u] + e->a, cap = c->t->seat[u].hp;
            set_hp(c, u, hp < cap ? hp : cap);
            break;
        }
        case HERO_FX_LOSE_HP:
            set_hp(c, u, s->hp[u] - e->a);
            if (settle(c)) return 1;
            break;
        case HERO_FX_DRAW:
            if (e->a == 0) break;
            /* suspend: a chance node per card (E-8) */
            w8(c, &s->pend_kind, HERO_PEND_DRAW);
            w8(c, &s->pend_source, is_ability ? 0 : card);
            w8(c, &s->pend_ability, is_ability);
            w8(c, &s->pend_player, u);
            w8(c, &s->pend_effect, i);
            w8(c, &s->pend_target, t);
            w32(c, &s->draws_left, e->a);
            return 1;
        case HERO_FX_PUMP:
            w32(c, &s->pump_power[t], s->pump_power[t] + e->a);
            w32(c, &s->pump_attack[t], s->pump_attack[t] + e->b);
            break;
        case HERO_FX_BOUNCE: bounce(c, t); break;
        case HERO_FX_TAP: w8(c, &s->flags[t], s->flags[t] | HERO_F_USED); break;
        case HERO_FX_UNTAP: w8(c, &s->flags[t], s->flags[t] & ~HERO_F_USED); break;
        case HERO_FX_WIN_IF_UNITS:
            if (non_token_units(s, u) >= e->a) c->special_winner = u;
            if (settle(c)) return 1;
            break;
        default: break;
        }
    }
    return 0;
}

/* Starts a source's effects on an absolute target ref (or HERO_REF_NONE). */
static void resolve_on(Ctx *c, int card, int is_ability, int u, int target) {
    c->ref[REF_TARGET] = (uint8_t)target;
    resolve(c, card, is_ability, u, 0);
}

/* ================================================================== attacks */

/* Battle between the units at c->ref[REF_X] (attacker) and c->ref[REF_Y] (§6). */
static void battle(Ctx *c) {
    const HeroTables *t = c->t;
    HeroState *s = c->s;
    int fx = (keywords_at(t, s, c->ref[REF_X]) & HERO_KW_FIRST_STRIKE) != 0;
    int fy = (keywords_at(t, s, c->ref[REF_Y]) & HERO_KW_FIRST_STRIKE) != 0;
    if (fx != fy) {
        int f = fx ? REF_X : REF_Y, o = fx ? REF_Y : REF_X;
        int fs = c->ref[f], os = c->ref[o];
        add_damage(c, os, power_of(t, s, fs));
        if (settle(c)) return;
        if (c->ref[o] == HERO_REF_NONE || c->ref[f] == HERO_REF_NONE) return;
        fs = c->ref[f];
        os = c->ref[o];
        add_damage(c, fs, power_of(t, s, os));
        settle(c);
    } else {
        int xs = c->ref[REF_X], ys = c->ref[REF_Y];
        int32_t px = power_of(t, s, xs), py = power_of(t, s, ys);
        add_damage(c, xs, py);
        add_damage(c, ys, px);
        settle(c);
    }
}

/* §6 step 3, right after `guard` (guard = its absolute slot) or `pass`
 * (guard = HERO_REF_NONE); then step 4. */
static void resolve_attack(Ctx *c, int guard) {
    HeroState *s = c->s;
    int x = s->att_from, target = s->att_to, n = 1 - s->active;
    if (guard != HERO_REF_NONE) {
        c->ref[REF_X] = (uint8_t)x;
        c->ref[REF_Y] = (uint8_t)guard;
        battle(c);
    } else if (x == HERO_REF_NONE || target == HERO_REF_NONE) {
        /* no battle */
    } else if (target == HERO_REF_AVATAR) {
        set_hp(c, n, s->hp[n] - attack_of(c->t, s, x));
        settle(c);
    } else {
        c->ref[REF_X] = (uint8_t)x;
        c->ref[REF_Y] = (uint8_t)target;
        battle(c);
    }
    if (s->phase == HERO_PH_OVER) return;
    w8(c, &s->att_from, 0);
    w8(c, &s->att_to, 0);
    w8(c, &s->phase, HERO_PH_BATTLE);
}

/* ==================================================================== turns */

/* §4 Begin turn (E-10). */
static void begin_turn(Ctx *c) {
    HeroState *s = c->s;
    w32(c, &s->turn, s->turn + 1);
    int a = (s->turn & 1) ? 0 : 1;
    w8(c, &s->active, a);
    for (int p = 0; p < 2; p++) {
        w8(c, &s->charisma_used[p], 0);
        w8(c, &s->ability_used[p], 0);
    }
    for (uint32_t m = occupied_mask(s); m; m &= m - 1) {
        int slot = __builtin_ctz(m);
        int f = s->flags[slot] | HERO_F_CAN_MOVE;
        if (seat_of(slot) == a) f &= ~HERO_F_USED;
        w8(c, &s->flags[slot], f);
    }
    w8(c, &s->phase, HERO_PH_DRAW);
}

/* §4 End turn (E-11), then the next turn unless the game is over. */
static void end_turn(Ctx *c) {
    HeroState *s = c->s;
    uint32_t tokens = 0;
    for (uint32_t m = occupied_mask(s); m; m &= m - 1) {
        int slot = __builtin_ctz(m);
        w32(c, &s->damage[slot], 0);
        w32(c, &s->pump_power[slot], 0);
        w32(c, &s->pump_attack[slot], 0);
        if (s->card[slot] == HERO_TOKEN) tokens |= 1u << slot;
    }
    if (tokens) destroy_units(c, tokens);
    if (end_check(c)) return;
    begin_turn(c);
}

/* ================================================================== actions */

/* §5 DEPLOY, with on_deploy (E-6). */
static void deploy(Ctx *c, int u, int card, int back) {
    const HeroCard *k = &c->t->card[card];
    use_card(c, u, card);
    append_unit(c, u * 2 + back, card, 0, 0, 0, 0);
    if (k->effects.n == 0) return;
    if (k->effects.target == HERO_TG_NONE) {
        resolve_on(c, card, 0, u, HERO_REF_NONE);
    } else if (legal_targets(c->t, c->s, &k->effects, u)) {
        w8(c, &c->s->pend_kind, HERO_PEND_TARGET);
        w8(c, &c->s->pend_source, card);
        w8(c, &c->s->pend_player, u);
    }
}

static void move_unit(Ctx *c, int slot) {
    HeroState *s = c->s;
    int card = s->card[slot], flags = s->flags[slot] & ~HERO_F_CAN_MOVE;
    int32_t damage = s->damage[slot], pp = s->pump_power[slot], pa = s->pump_attack[slot];
    remove_units(c, 1u << slot);
    append_unit(c, row_of(slot) ^ 1, card, flags, damage, pp, pa);
}

static void retainer(Ctx *c, int u, int card) {
    leave_hand(c, u, card);
    to_grave(c, u, card);
    append_unit(c, u * 2 + 1, HERO_TOKEN, 0, 0, 0, 0);
}

/* A DRAW outcome (§9), then what follows it. */
static void apply_draw(Ctx *c, int card) {
    HeroState *s = c->s;
    int drawer = hero_drawer(c->t, s);
    draw_card(c, drawer, card);
    if (settle(c)) return;
    if (s->phase == HERO_PH_SETUP) {
        if (s->hand_n[0] == c->t->seat[0].hand && s->hand_n[1] == c->t->seat[1].hand) begin_turn(c);
    } else if (s->phase == HERO_PH_DRAW) {
        w8(c, &s->phase, HERO_PH_ACTION);
    } else if (s->draws_left > 1) {
        w32(c, &s->draws_left, s->draws_left - 1);
    } else {
        int source = s->pend_source, is_ability = s->pend_ability, u = s->pend_player;
        int next = s->pend_effect + 1;
        c->ref[REF_TARGET] = s->pend_target;
        clear_pending(c);
        resolve(c, source, is_ability, u, next);
    }
}

static void apply_decision(Ctx *c, uint16_t code) {
    HeroState *s = c->s;
    int u = current_player_of(s), x = XEN_X(code), y = XEN_Y(code);
    switch (XEN_KIND(code)) {
    case HERO_END:
        if (s->phase == HERO_PH_ACTION) w8(c, &s->phase, HERO_PH_WINDOW);
        else end_turn(c);
        break;
    case HERO_PASS:
        if (s->phase == HERO_PH_WINDOW) w8(c, &s->phase, HERO_PH_BATTLE);
        else resolve_attack(c, HERO_REF_NONE);
        break;
    case HERO_MOVE: move_unit(c, u * 10 + y); break;
    case HERO_DEPLOY: deploy(c, u, x, y); break;
    case HERO_PLAY:
        use_card(c, u, x);
        to_grave(c, u, x); /* E-7: before its effects */
        resolve_on(c, x, 0, u, y == HERO_NO_TARGET ? HERO_REF_NONE : abs_slot(u, y));
        break;
    case HERO_RETAINER: retainer(c, u, x); break;
    case HERO_ABILITY:
        w8(c, &s->ability_used[u], 1);
        resolve_on(c, 0, 1, u, y == HERO_NO_TARGET ? HERO_REF_NONE : abs_slot(u, y));
        break;
    case HERO_TARGET: {
        int card = s->pend_source;
        clear_pending(c);
        resolve_on(c, card, 0, u, abs_slot(u, y));
        break;
    }
    case HERO_ATTACK:
        w8(c, &s->flags[u * 10 + x], s->flags[u * 10 + x] | HERO_F_USED);
        w8(c, &s->att_from, u * 10 + x);
        w8(c, &s->att_to, y == HERO_AVATAR_SLOT ? HERO_REF_AVATAR : abs_slot(u, y));
        w8(c, &s->phase, HERO_PH_DEFEND);
        break;
    case HERO_GUARD:
        w8(c, &s->flags[u * 10 + y], s->flags[u * 10 + y] | HERO_F_USED);
        resolve_attack(c, u * 10 + y);
        break;
    default: break;
    }
}

static void apply_code(const HeroTables *t, HeroState *s, uint16_t code) {
    Ctx c = ctx_of(t, s);
    if (XEN_KIND(code) == HERO_DRAW) apply_draw(&c, XEN_X(code));
    else apply_decision(&c, code);
    if (s->phase != HERO_PH_OVER) settle(&c); /* "after every action" (§5) */
}

/* Undo design: a full copy of the 840-byte state (Pons style), chosen by
 * measurement over a delta journal (every w8/w32 logging (offset, old value),
 * replayed backwards). gcc 12 -O3, one core, reference set, Crimson
 * Conqueror v Wild Grove, 3 alternating runs each:
 *
 *                                          full copy      delta journal
 *   apply + undo, 4096 fixed (state, code)  13.6-14.5 M/s  17.8-18.7 M/s
 *   copy + apply, no undo (the search)      16.9-21.1 M/s  19.1-19.5 M/s
 *   hero_random_actions                      7.65-7.72 M/s  7.18-7.35 M/s
 *   hero_apply_undo_pairs (walk)             4.81-4.89 M/s  4.80-4.84 M/s
 *
 * The journal wins isolated apply+undo by ~4 ns a pair, but its logging
 * branch costs 5-7% on every plain apply, which is what the search and the
 * playouts do (they copy states and never undo); in the walk the two are
 * equal (legal-action generation dominates). It would also need a proven
 * worst-case journal length (95 writes seen, ~900 by a loose count) for a
 * fixed-size record. So: full copy. */
#ifdef XEN_UNKEYED
/* rules_unkeyed.c: the same rules with setters that only write. */
void hero_apply_unkeyed(const HeroTables *t, HeroState *s, uint16_t code) {
    XEN_ASSERT(hero_is_legal(t, s, code));
    apply_code(t, s, code);
    debug_check(t, s);
}
#else
void hero_apply(const HeroTables *t, HeroState *s, uint16_t code, HeroUndo *u) {
    XEN_ASSERT(hero_is_legal(t, s, code));
    if (u) memcpy(&u->prev, s, sizeof *s);
    apply_code(t, s, code);
    debug_check(t, s);
}

void hero_undo(const HeroTables *t, HeroState *s, const HeroUndo *u) {
    memcpy(s, &u->prev, sizeof *s);
    debug_check(t, s);
}

/* ==================================================================== setup */

void hero_initial_state(const HeroTables *t, HeroState *s) {
    memset(s, 0, sizeof *s); /* every hashed field 0: hash and hidden sums 0 */
    Ctx c = ctx_of(t, s);
    for (int p = 0; p < 2; p++) {
        w32(&c, &s->hp[p], t->seat[p].hp);
        for (int card = 0; card < t->n_cards; card++)
            w8_hidden(&c, &s->deck[p][card], t->seat[p].decklist[card]);
        w8(&c, &s->deck_n[p], t->seat[p].deck_size);
    }
    w8(&c, &s->phase, HERO_PH_SETUP);
    if (t->seat[0].hand == 0 && t->seat[1].hand == 0) begin_turn(&c);
}
#endif
