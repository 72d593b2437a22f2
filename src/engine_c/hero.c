/* hero.c - the "A Hero incarnation" rules core (docs/hero-engine.md).
 *
 * Layout of this file: tables; hashed setters; unit and row primitives;
 * settle and the end of the game; effects; attacks; the turn; actions
 * (legality, then application); chance; undo; hash, checks, information
 * sets; perft and speed loops.
 *
 * Every write to the state goes through w8 / w32, which keep the Zobrist
 * hash up to date. Everything an action does happens inside one Ctx, which
 * also carries what never survives an action: `special_winner` and the refs
 * being followed through removals (the effect target, the two battlers).
 */
#include "hero.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

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
_Static_assert(sizeof(HeroState) == 840, "layout");
_Static_assert(HERO_MAX_ACTIONS == XEN_MAX_ACTIONS, "one bound on the legal actions");

enum { REGION32_BEGIN = 8, REGION32_END = 264, REGION8_END = sizeof(HeroState) };

/* Seed of the Zobrist keys: fixed, so hashes are stable across runs. */
#define HERO_ZOBRIST_SEED 0x6865726f5a6f6272ULL  /* "heroZobr" */

#ifdef XENOPHON_DEBUG
#define HERO_ASSERT(x) assert(x)
#else
#define HERO_ASSERT(x) ((void)0)
#endif

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }

/* ==================================================================== tables */

static int effect_needs_target(int op) {
    return op == HERO_FX_DAMAGE_UNIT || op == HERO_FX_DESTROY_UNIT || op == HERO_FX_PUMP ||
           op == HERO_FX_BOUNCE || op == HERO_FX_TAP || op == HERO_FX_UNTAP;
}

/* The builders below return NULL, or the reason a spec is refused. */

static const char *build_effects(HeroEffects *out, const HeroEffectSpec *fx, int n, int target) {
    if (n < 0 || n > HERO_MAX_EFFECTS) return "more than 4 effects";
    if (target < HERO_TG_NONE || target > HERO_TG_ENEMY_UNIT) return "unknown target kind";
    out->n = (uint8_t)n;
    out->target = (uint8_t)target;
    out->destroy_max = INT32_MAX;
    int needs = 0;
    for (int i = 0; i < n; i++) {
        if (fx[i].op < HERO_FX_DAMAGE_UNIT || fx[i].op > HERO_FX_WIN_IF_UNITS)
            return "unknown effect opcode";
        if (fx[i].a < 0 || fx[i].a > HERO_MAX_NUMBER || fx[i].b < 0 || fx[i].b > HERO_MAX_NUMBER)
            return "effect argument outside 0..100000";
        out->fx[i] = (HeroEffect){fx[i].op, fx[i].a, fx[i].b};
        needs |= effect_needs_target(fx[i].op);
        if (fx[i].op == HERO_FX_DESTROY_UNIT && fx[i].a < out->destroy_max)
            out->destroy_max = fx[i].a;
    }
    /* E-21: `target` is none exactly when no effect needs one. */
    if (needs && target == HERO_TG_NONE)
        return "an effect needs a target but the target kind is none";
    if (!needs && target != HERO_TG_NONE)
        return "a target kind but no effect uses a target";
    return NULL;
}

static const char *build_card(HeroCard *c, const HeroCardSpec *s) {
    if (s->faction < HERO_R || s->faction > HERO_N) return "unknown faction";
    if (s->cost < 1 || s->cost > 99) return "cost outside 1..99";
    if (s->keywords < 0 || s->keywords > 63) return "unknown keyword bits";
    if (s->cond_generic < 0) return "negative condition number";
    c->is_unit = (uint8_t)(s->is_unit != 0);
    c->faction = (uint8_t)s->faction;
    c->cost = (uint8_t)s->cost;
    c->fast = (uint8_t)(s->fast != 0);
    c->keywords = (uint8_t)s->keywords;
    int64_t total = s->cond_generic;
    for (int k = 0; k < 4; k++) {
        if (s->cond_colours[k] < 0 || s->cond_colours[k] > 255)
            return "condition symbol count outside 0..255";
        c->cond[k] = (uint8_t)s->cond_colours[k];
        total += s->cond_colours[k];
    }
    c->cond_total = total > 1000 ? 1000 : (int32_t)total;   /* a field holds at most 11 cards */
    if (c->is_unit) {
        if (s->power < 1 || s->power > HERO_MAX_NUMBER) return "power outside 1..100000";
        if (s->attack < 0 || s->attack > 99) return "attack outside 0..99";
        if (s->race < 0) return "negative race id";
    } else if (s->n_effects < 1) {
        return "an operation without effects";
    }
    return build_effects(&c->effects, s->effects, s->n_effects, s->target);
}

static const char *build_avatar(HeroSeat *seat, const HeroAvatarSpec *a) {
    if (a->faction < HERO_R || a->faction > HERO_N) return "unknown avatar faction";
    if (a->hp < 1 || a->hp > 999) return "avatar HP outside 1..999";
    if (a->hand < 0 || a->hand > 39) return "avatar hand size outside 0..39";
    if (a->charisma < 1 || a->charisma > 99) return "avatar charisma outside 1..99";
    if (a->ability < HERO_AB_NONE || a->ability > HERO_AB_RACE_BONUS) return "unknown ability kind";
    seat->hp = a->hp;
    seat->hand = a->hand;
    seat->charisma = a->charisma;
    seat->faction = (uint8_t)a->faction;
    seat->ability = (uint8_t)a->ability;
    memset(&seat->ability_fx, 0, sizeof seat->ability_fx);
    if (a->ability == HERO_AB_ACTIVATED || a->ability == HERO_AB_ON_ENEMY_DESTROYED) {
        int target = a->ability == HERO_AB_ACTIVATED ? a->target : HERO_TG_NONE;
        if (a->n_effects < 1) return "an ability without effects";
        const char *why = build_effects(&seat->ability_fx, a->effects, a->n_effects, target);
        if (why) return why;
        for (int i = 0; a->ability == HERO_AB_ON_ENEMY_DESTROYED && i < a->n_effects; i++) {
            int op = a->effects[i].op;
            if (op != HERO_FX_HEAL_AVATAR && op != HERO_FX_DAMAGE_AVATAR && op != HERO_FX_LOSE_HP)
                return "an on_enemy_destroyed ability may only heal_avatar, damage_avatar, lose_hp";
        }
    }
    if (a->ability == HERO_AB_RACE_BONUS &&
        (a->bonus_power < 0 || a->bonus_power > HERO_MAX_NUMBER || a->bonus_attack < 0 ||
         a->bonus_attack > 99))
        return "race bonus outside 0..100000 power, 0..99 attack";
    return NULL;
}

/* The seat's derived unit values (race bonus folded in) and decklist. */
static const char *build_seat(HeroTables *t, HeroSeat *seat, const HeroAvatarSpec *a,
                              const int *deck, const HeroCardSpec *cards) {
    const char *why = build_avatar(seat, a);
    if (why) return why;
    for (int c = 0; c <= HERO_MAX_CARDS; c++) {
        int is_token = c == HERO_TOKEN;
        if (!is_token && c >= t->n_cards) continue;   /* stays 0 */
        int race = is_token ? a->race : cards[c].race;
        int bonus = a->ability == HERO_AB_RACE_BONUS && race == a->bonus_race;
        seat->power[c] = (is_token ? 500 : cards[c].power) + (bonus ? a->bonus_power : 0);
        seat->attack[c] = (is_token ? 0 : cards[c].attack) + (bonus ? a->bonus_attack : 0);
        seat->unit_faction[c] = (uint8_t)(is_token ? a->faction : cards[c].faction);
        seat->keywords[c] = (uint8_t)(is_token ? 0 : cards[c].keywords);
    }
    int size = 0;
    for (int c = 0; c < t->n_cards; c++) {
        if (deck[c] < 0 || deck[c] > HERO_MAX_DECK) return "a card count outside 0..200";
        seat->decklist[c] = (uint8_t)deck[c];
        size += deck[c];
    }
    if (size < 1 || size > HERO_MAX_DECK) return "deck size outside 1..200";
    seat->deck_size = size;
    return NULL;
}

/* Fixed-seed keys, odd so that a count difference never vanishes alone. */
static void build_zobrist(HeroTables *t) {
    uint64_t x = HERO_ZOBRIST_SEED;
    memset(t->zobrist, 0, sizeof t->zobrist);
    for (size_t o = REGION32_BEGIN; o < REGION32_END; o += 4)
        t->zobrist[o] = xen_splitmix64(&x) | 1;
    for (size_t o = REGION32_END; o < REGION8_END; o++)
        t->zobrist[o] = xen_splitmix64(&x) | 1;
    t->zobrist[offsetof(HeroState, zero_)] = 0;
    t->z_view[0] = xen_splitmix64(&x);
    t->z_view[1] = xen_splitmix64(&x);
}

/* err receives "card <id>: <reason>", "seat <p>: <reason>" or "<reason>". */
int hero_tables_init(HeroTables *t, const HeroCardSpec *cards, int n_cards,
                     const HeroAvatarSpec avatars[2], const int decks[2][HERO_MAX_CARDS],
                     char *err, size_t err_size) {
    memset(t, 0, sizeof *t);
    if (n_cards < 1 || n_cards > HERO_MAX_CARDS) {
        snprintf(err, err_size, "%d cards: a card set holds 1 to %d", n_cards, HERO_MAX_CARDS);
        return -1;
    }
    /* §8: at most 81 + 21 N legal codes; the buffers hold HERO_MAX_ACTIONS. */
    if (81 + 21 * n_cards > HERO_MAX_ACTIONS) {
        snprintf(err, err_size,
                 "%d cards: up to 81 + 21 x %d = %d legal actions, above the engine's bound of %d "
                 "(at most %d cards)", n_cards, n_cards, 81 + 21 * n_cards, HERO_MAX_ACTIONS,
                 (HERO_MAX_ACTIONS - 81) / 21);
        return -1;
    }
    t->n_cards = n_cards;
    for (int c = 0; c < n_cards; c++) {
        const char *why = build_card(&t->card[c], &cards[c]);
        if (why) {
            snprintf(err, err_size, "card %d: %s", c, why);
            return -1;
        }
    }
    for (int p = 0; p < 2; p++) {
        const char *why = build_seat(t, &t->seat[p], &avatars[p], decks[p], cards);
        if (why) {
            snprintf(err, err_size, "seat %d: %s", p, why);
            return -1;
        }
    }
    build_zobrist(t);
    return 0;
}

/* ============================================================ apply context */

/* Refs followed through removals while an action resolves. */
enum { REF_TARGET = 0, REF_X = 1, REF_Y = 2, N_REFS = 3 };

typedef struct Ctx {
    const HeroTables *t;
    HeroState *s;
    int special_winner;       /* -1, or the seat a win_if_units made win */
    uint8_t ref[N_REFS];
} Ctx;

/* Hashed setters: every state write goes through them. */
static inline void w8(Ctx *c, uint8_t *p, int v) {
    uint8_t old = *p;
    size_t off = (size_t)(p - (uint8_t *)c->s);
    c->s->hash += (uint64_t)(int64_t)(v - (int)old) * c->t->zobrist[off];
    *p = (uint8_t)v;
}

static inline void w32(Ctx *c, int32_t *p, int32_t v) {
    int32_t old = *p;
    size_t off = (size_t)((uint8_t *)p - (uint8_t *)c->s);
    c->s->hash += ((uint64_t)(int64_t)v - (uint64_t)(int64_t)old) * c->t->zobrist[off];
    *p = v;
}

/* ======================================================== units and rows */

static inline int seat_of(int slot) { return slot / 10; }
static inline int row_of(int slot) { return slot / 5; }          /* rr = seat * 2 + row */
static inline int is_front(int slot) { return (slot % 10) < 5; }
static inline int occupied(const HeroState *s, int slot) {
    return slot % 5 < s->row_n[slot / 5];
}

int32_t hero_power(const HeroTables *t, const HeroState *s, int slot) {
    return t->seat[seat_of(slot)].power[s->card[slot]] + s->pump_power[slot];
}

int32_t hero_attack(const HeroTables *t, const HeroState *s, int slot) {
    return t->seat[seat_of(slot)].attack[s->card[slot]] + s->pump_attack[slot];
}

static inline int keywords_at(const HeroTables *t, const HeroState *s, int slot) {
    return t->seat[seat_of(slot)].keywords[s->card[slot]];
}

/* Occupied slots as a 20-bit mask. */
static inline uint32_t occupied_mask(const HeroState *s) {
    uint32_t m = 0;
    for (int rr = 0; rr < 4; rr++) m |= ((1u << s->row_n[rr]) - 1) << (rr * 5);
    return m;
}

/* Relative target code of the acting player u <-> absolute ref. */
static inline int abs_slot(int u, int rel) {
    return rel < 10 ? u * 10 + rel : (1 - u) * 10 + rel - 10;
}
static inline int rel_slot(int u, int slot) {
    return seat_of(slot) == u ? slot % 10 : 10 + slot % 10;
}

/* Where `ref` points after the units of `mask` left at once (§2 refs). */
static inline uint8_t remap(uint8_t ref, uint32_t mask) {
    if (ref >= HERO_SLOTS) return ref;
    if ((mask >> ref) & 1) return HERO_REF_NONE;
    int base = row_of(ref) * 5;
    uint32_t below = mask & ((1u << ref) - (1u << base));
    return (uint8_t)(ref - popcount32(below));
}

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
    if (s->phase == HERO_PH_DEFEND) {   /* outside it the record is zero, not a ref */
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
    HERO_ASSERT(s->row_n[rr] < HERO_ROW_SIZE);
    w8(c, &s->card[slot], card);
    w8(c, &s->flags[slot], flags);
    w32(c, &s->damage[slot], damage);
    w32(c, &s->pump_power[slot], pp);
    w32(c, &s->pump_attack[slot], pa);
    w8(c, &s->row_n[rr], s->row_n[rr] + 1);
    return slot;
}

/* ================================================= settle, end of the game */

/* Step 4 of settle (B10). Returns 1 if the game is over. */
static int end_check(Ctx *c) {
    HeroState *s = c->s;
    int result = HERO_RES_NONE;
    if (c->special_winner >= 0) {
        result = c->special_winner == 0 ? HERO_RES_WIN0 : HERO_RES_WIN1;
        c->special_winner = -1;
    } else {
        int lose0 = s->hp[0] <= 0 || s->deck_n[0] == 0;
        int lose1 = s->hp[1] <= 0 || s->deck_n[1] == 0;
        if (lose0 && lose1) result = HERO_RES_DRAW;
        else if (lose0) result = HERO_RES_WIN1;
        else if (lose1) result = HERO_RES_WIN0;
    }
    if (result == HERO_RES_NONE) return 0;
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

/* An on_enemy_destroyed ability of seat u: HP only, no settle (E-12, E-14). */
static void enemy_destroyed_trigger(Ctx *c, int u) {
    const HeroSeat *seat = &c->t->seat[u];
    HeroState *s = c->s;
    for (int i = 0; i < seat->ability_fx.n; i++) {
        const HeroEffect *e = &seat->ability_fx.fx[i];
        if (e->op == HERO_FX_HEAL_AVATAR) {
            int32_t hp = s->hp[u] + e->a;
            w32(c, &s->hp[u], hp < seat->hp ? hp : seat->hp);
        } else if (e->op == HERO_FX_LOSE_HP) {
            w32(c, &s->hp[u], s->hp[u] - e->a);
        } else if (e->op == HERO_FX_DAMAGE_AVATAR) {
            w32(c, &s->hp[1 - u], s->hp[1 - u] - e->a);
        }
    }
}

/* Destroys the units of `mask` at once (settle steps 2 and 3): cards to their
 * owners' graveyards, tokens vanish, then the triggers in slot order, which
 * is the spec's order (seat 0 front, back, seat 1 front, back, left to right). */
static void destroy_units(Ctx *c, uint32_t mask) {
    HeroState *s = c->s;
    uint32_t owners = 0;   /* bit i: owner of the i-th destroyed unit, in order */
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

/* §7 settle. Returns 1 if the game is over. */
static int settle(Ctx *c) {
    const HeroState *s = c->s;
    uint32_t dead = 0;
    for (uint32_t m = occupied_mask(s); m; m &= m - 1) {
        int slot = __builtin_ctz(m);
        if (s->damage[slot] >= hero_power(c->t, s, slot)) dead |= 1u << slot;
    }
    if (dead) destroy_units(c, dead);
    return end_check(c);
}

/* ==================================================================== hands */

static void draw_card(Ctx *c, int seat, int card) {
    HeroState *s = c->s;
    w8(c, &s->deck[seat][card], s->deck[seat][card] - 1);
    w8(c, &s->deck_n[seat], s->deck_n[seat] - 1);
    w8(c, &s->hand[seat][card], s->hand[seat][card] + 1);
    w8(c, &s->hand_n[seat], s->hand_n[seat] + 1);
}

/* A card leaves u's hand (use or discard): the known count forgets one copy. */
static void leave_hand(Ctx *c, int u, int card) {
    HeroState *s = c->s;
    w8(c, &s->hand[u][card], s->hand[u][card] - 1);
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
        w8(c, &s->hand[owner][card], s->hand[owner][card] + 1);
        w8(c, &s->hand_n[owner], s->hand_n[owner] + 1);
        w8(c, &s->known[owner][card], s->known[owner][card] + 1);
    }
    remove_units(c, 1u << slot);
}

static int non_token_units(const HeroState *s, int u) {
    int n = 0;
    for (int slot = u * 10; slot < u * 10 + 10; slot++)
        n += occupied(s, slot) && s->card[slot] != HERO_TOKEN;
    return n;
}

static inline const HeroEffects *source_effects(const HeroTables *t, int card, int is_ability,
                                                int u) {
    return is_ability ? &t->seat[u].ability_fx : &t->card[card].effects;
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
        if (effect_needs_target(e->op) && t == HERO_REF_NONE) continue;   /* GONE: skipped (E-8) */
        switch (e->op) {
        case HERO_FX_DAMAGE_UNIT:
            w32(c, &s->damage[t], s->damage[t] + e->a);
            if (settle(c)) return 1;
            break;
        case HERO_FX_DESTROY_UNIT:
            if (hero_power(c->t, s, t) <= e->a) destroy_units(c, 1u << t);
            if (settle(c)) return 1;
            break;
        case HERO_FX_DAMAGE_AVATAR:
            w32(c, &s->hp[1 - u], s->hp[1 - u] - e->a);
            if (settle(c)) return 1;
            break;
        case HERO_FX_HEAL_AVATAR: {
            int32_t hp = s->hp[u] + e->a, cap = c->t->seat[u].hp;
            w32(c, &s->hp[u], hp < cap ? hp : cap);
            break;
        }
        case HERO_FX_LOSE_HP:
            w32(c, &s->hp[u], s->hp[u] - e->a);
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
        case HERO_FX_BOUNCE:
            bounce(c, t);
            break;
        case HERO_FX_TAP:
            w8(c, &s->flags[t], s->flags[t] | HERO_F_USED);
            break;
        case HERO_FX_UNTAP:
            w8(c, &s->flags[t], s->flags[t] & ~HERO_F_USED);
            break;
        case HERO_FX_WIN_IF_UNITS:
            if (non_token_units(s, u) >= e->a) c->special_winner = u;
            if (settle(c)) return 1;
            break;
        default:
            break;
        }
    }
    return 0;
}

/* Starts a source's effects on an absolute target ref (or HERO_REF_NONE). */
static void resolve_on(Ctx *c, int card, int is_ability, int u, int target) {
    c->ref[REF_TARGET] = (uint8_t)target;
    resolve(c, card, is_ability, u, 0);
}

/* §5 legal target of an effect list for user u. */
static inline int legal_target(const HeroTables *t, const HeroState *s, const HeroEffects *fx,
                               int u, int slot) {
    if (!occupied(s, slot)) return 0;
    if (keywords_at(t, s, slot) & HERO_KW_PROTECTION) return 0;
    int mine = seat_of(slot) == u;
    if (fx->target == HERO_TG_OWN_UNIT && !mine) return 0;
    if (fx->target == HERO_TG_ENEMY_UNIT && mine) return 0;
    return hero_power(t, s, slot) <= fx->destroy_max;
}

/* Legal targets of an effect list as relative codes (bit r = code r). */
static uint32_t legal_targets(const HeroTables *t, const HeroState *s, const HeroEffects *fx,
                              int u) {
    uint32_t out = 0;
    uint32_t occ = occupied_mask(s);
    for (uint32_t m = occ; m; m &= m - 1) {
        int slot = __builtin_ctz(m);
        if (legal_target(t, s, fx, u, slot)) out |= 1u << rel_slot(u, slot);
    }
    return out;
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
        w32(c, &s->damage[os], s->damage[os] + hero_power(t, s, fs));
        if (settle(c)) return;
        if (c->ref[o] == HERO_REF_NONE || c->ref[f] == HERO_REF_NONE) return;
        fs = c->ref[f];
        os = c->ref[o];
        w32(c, &s->damage[fs], s->damage[fs] + hero_power(t, s, os));
        settle(c);
    } else {
        int xs = c->ref[REF_X], ys = c->ref[REF_Y];
        int32_t px = hero_power(t, s, xs), py = hero_power(t, s, ys);
        w32(c, &s->damage[xs], s->damage[xs] + py);
        w32(c, &s->damage[ys], s->damage[ys] + px);
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
        w32(c, &s->hp[n], s->hp[n] - hero_attack(c->t, s, x));
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

/* ================================================================== players */

int hero_is_terminal(const HeroState *s) { return s->phase == HERO_PH_OVER; }

int hero_is_chance(const HeroState *s) {
    return s->phase == HERO_PH_SETUP || s->phase == HERO_PH_DRAW || s->pend_kind == HERO_PEND_DRAW;
}

int hero_current_player(const HeroState *s) {
    switch (s->phase) {
    case HERO_PH_OVER: return HERO_TERMINAL;
    case HERO_PH_SETUP:
    case HERO_PH_DRAW: return HERO_CHANCE;
    default: break;
    }
    if (s->pend_kind == HERO_PEND_DRAW) return HERO_CHANCE;
    if (s->pend_kind == HERO_PEND_TARGET) return s->pend_player;
    if (s->phase == HERO_PH_WINDOW || s->phase == HERO_PH_DEFEND) return 1 - s->active;
    return s->active;
}

int hero_drawer(const HeroTables *t, const HeroState *s) {
    if (s->pend_kind == HERO_PEND_DRAW) return s->pend_player;
    if (s->phase == HERO_PH_SETUP) return s->hand_n[0] < t->seat[0].hand ? 0 : 1;
    return s->active;
}

/* ============================================================ legal actions */

/* Field colour counts of seat u (§5 condition): avatar, units, tokens. */
typedef struct FieldCount {
    int colour[5];
    int total;
} FieldCount;

static void field_count(const HeroTables *t, const HeroState *s, int u, FieldCount *fc) {
    const HeroSeat *seat = &t->seat[u];
    memset(fc, 0, sizeof *fc);
    fc->colour[seat->faction]++;
    fc->total = 1;
    for (int slot = u * 10; slot < u * 10 + 10; slot++) {
        if (!occupied(s, slot)) continue;
        fc->colour[seat->unit_faction[s->card[slot]]]++;
        fc->total++;
    }
}

/* Condition met and affordable (§5). */
static inline int can_use(const HeroTables *t, const HeroState *s, int u, const FieldCount *fc,
                          int card) {
    const HeroCard *k = &t->card[card];
    if (s->charisma_used[u] + k->cost > t->seat[u].charisma) return 0;
    if (fc->total < k->cond_total) return 0;
    return fc->colour[0] >= k->cond[0] && fc->colour[1] >= k->cond[1] &&
           fc->colour[2] >= k->cond[2] && fc->colour[3] >= k->cond[3];
}

/* Appends kind/x codes for every target in `targets` (bit r = relative code r). */
static inline int emit_targets(uint16_t *out, int n, int kind, int x, uint32_t targets) {
    for (; targets; targets &= targets - 1) out[n++] = HERO_CODE(kind, x, __builtin_ctz(targets));
    return n;
}

static int gen_deploy(const HeroTables *t, const HeroState *s, int u, const FieldCount *fc,
                      uint16_t *out, int n) {
    int front_room = s->row_n[u * 2] < HERO_ROW_SIZE;
    int back_room = s->row_n[u * 2 + 1] < HERO_ROW_SIZE;
    if (!front_room && !back_room) return n;
    for (int card = 0; card < t->n_cards; card++) {
        if (!s->hand[u][card] || !t->card[card].is_unit || !can_use(t, s, u, fc, card)) continue;
        if (front_room && (t->card[card].keywords & HERO_KW_BLITZ))
            out[n++] = HERO_CODE(HERO_DEPLOY, card, 0);
        if (back_room) out[n++] = HERO_CODE(HERO_DEPLOY, card, 1);
    }
    return n;
}

static int gen_play(const HeroTables *t, const HeroState *s, int u, const FieldCount *fc,
                    int normal_too, uint16_t *out, int n) {
    for (int card = 0; card < t->n_cards; card++) {
        const HeroCard *k = &t->card[card];
        if (!s->hand[u][card] || k->is_unit || !(k->fast || normal_too)) continue;
        if (!can_use(t, s, u, fc, card)) continue;
        if (k->effects.target == HERO_TG_NONE)
            out[n++] = HERO_CODE(HERO_PLAY, card, HERO_NO_TARGET);
        else
            n = emit_targets(out, n, HERO_PLAY, card, legal_targets(t, s, &k->effects, u));
    }
    return n;
}

static int gen_retainer(const HeroTables *t, const HeroState *s, int u, uint16_t *out, int n) {
    if (s->row_n[u * 2 + 1] >= HERO_ROW_SIZE) return n;
    for (int card = 0; card < t->n_cards; card++)
        if (s->hand[u][card]) out[n++] = HERO_CODE(HERO_RETAINER, card, 0);
    return n;
}

static int gen_move(const HeroState *s, int u, uint16_t *out, int n) {
    for (int rel = 0; rel < 10; rel++) {
        int slot = u * 10 + rel, other = row_of(slot) ^ 1;
        if (occupied(s, slot) && (s->flags[slot] & HERO_F_CAN_MOVE) &&
            s->row_n[other] < HERO_ROW_SIZE)
            out[n++] = HERO_CODE(HERO_MOVE, 0, rel);
    }
    return n;
}

static int gen_ability(const HeroTables *t, const HeroState *s, int u, uint16_t *out, int n) {
    const HeroSeat *seat = &t->seat[u];
    if (seat->ability != HERO_AB_ACTIVATED || s->ability_used[u]) return n;
    if (seat->ability_fx.target == HERO_TG_NONE) {
        out[n++] = HERO_CODE(HERO_ABILITY, 0, HERO_NO_TARGET);
        return n;
    }
    return emit_targets(out, n, HERO_ABILITY, 0, legal_targets(t, s, &seat->ability_fx, u));
}

static int gen_attack(const HeroTables *t, const HeroState *s, int a, uint16_t *out, int n) {
    int op = 1 - a;
    uint32_t used_front = 0, used_back = 0;   /* relative codes 10..19 */
    for (int i = 0; i < s->row_n[op * 2]; i++)
        if (s->flags[op * 10 + i] & HERO_F_USED) used_front |= 1u << (10 + i);
    for (int i = 0; i < s->row_n[op * 2 + 1]; i++)
        if (s->flags[op * 10 + 5 + i] & HERO_F_USED) used_back |= 1u << (15 + i);
    for (int rel = 0; rel < 10; rel++) {
        int slot = a * 10 + rel;
        if (!occupied(s, slot) || (s->flags[slot] & HERO_F_USED)) continue;
        if (rel < 5) {
            n = emit_targets(out, n, HERO_ATTACK, rel, used_front | used_back);
            out[n++] = HERO_CODE(HERO_ATTACK, rel, HERO_AVATAR_SLOT);
        } else if (keywords_at(t, s, slot) & HERO_KW_RANGED) {
            n = emit_targets(out, n, HERO_ATTACK, rel, used_front);
        }
    }
    return n;
}

/* May the unit at absolute slot g guard the pending attack (§5 GUARD)? */
static int can_guard(const HeroTables *t, const HeroState *s, int g) {
    int x = s->att_from, target = s->att_to;
    if (x == HERO_REF_NONE || target == HERO_REF_NONE || g == target) return 0;
    if (s->flags[g] & HERO_F_USED) return 0;
    int target_is_unit = target != HERO_REF_AVATAR;
    if (target_is_unit && is_front(target) && !is_front(g)) return 0;
    int kx = keywords_at(t, s, x), kg = keywords_at(t, s, g);
    if ((kx & HERO_KW_FLYING) && !(kg & (HERO_KW_FLYING | HERO_KW_RANGED))) return 0;
    if ((kx & HERO_KW_RANGED) && is_front(x) && target_is_unit && !is_front(target) && is_front(g))
        return 0;
    return 1;
}

static int gen_guard(const HeroTables *t, const HeroState *s, int d, uint16_t *out, int n) {
    for (int rel = 0; rel < 10; rel++) {
        int slot = d * 10 + rel;
        if (occupied(s, slot) && can_guard(t, s, slot)) out[n++] = HERO_CODE(HERO_GUARD, 0, rel);
    }
    return n;
}

static int chance_codes(const HeroTables *t, const HeroState *s, uint16_t *out) {
    int d = hero_drawer(t, s), n = 0;
    for (int card = 0; card < t->n_cards; card++)
        if (s->deck[d][card]) out[n++] = HERO_CODE(HERO_DRAW, card, 0);
    return n;
}

/* Decision codes, ascending (kind-major), per the table of §3. */
static int decision_codes(const HeroTables *t, const HeroState *s, uint16_t *out) {
    int u = hero_current_player(s), n = 0;
    FieldCount fc;
    if (s->pend_kind == HERO_PEND_TARGET)
        return emit_targets(out, 0, HERO_TARGET, 0,
                            legal_targets(t, s, &t->card[s->pend_source].effects, u));
    field_count(t, s, u, &fc);
    switch (s->phase) {
    case HERO_PH_ACTION:
        out[n++] = HERO_CODE(HERO_END, 0, 0);
        n = gen_move(s, u, out, n);
        n = gen_deploy(t, s, u, &fc, out, n);
        n = gen_play(t, s, u, &fc, 1, out, n);
        n = gen_retainer(t, s, u, out, n);
        n = gen_ability(t, s, u, out, n);
        break;
    case HERO_PH_WINDOW:
        out[n++] = HERO_CODE(HERO_PASS, 0, 0);
        n = gen_play(t, s, u, &fc, 0, out, n);
        n = gen_retainer(t, s, u, out, n);
        break;
    case HERO_PH_BATTLE:
        out[n++] = HERO_CODE(HERO_END, 0, 0);
        n = gen_play(t, s, u, &fc, 0, out, n);
        n = gen_retainer(t, s, u, out, n);
        n = gen_attack(t, s, u, out, n);
        break;
    case HERO_PH_DEFEND:
        out[n++] = HERO_CODE(HERO_PASS, 0, 0);
        n = gen_play(t, s, u, &fc, 0, out, n);
        n = gen_retainer(t, s, u, out, n);
        n = gen_guard(t, s, u, out, n);
        break;
    default:
        break;
    }
    return n;
}

int hero_legal_actions(const HeroTables *t, const HeroState *s, uint16_t *out) {
    if (hero_is_terminal(s)) return 0;
    if (hero_is_chance(s)) return chance_codes(t, s, out);
    return decision_codes(t, s, out);
}

int hero_chance_outcomes(const HeroTables *t, const HeroState *s, uint16_t *codes,
                         uint32_t *weights, uint32_t *total) {
    *total = 0;
    if (hero_is_terminal(s) || !hero_is_chance(s)) return 0;
    int d = hero_drawer(t, s), n = 0;
    for (int card = 0; card < t->n_cards; card++) {
        if (!s->deck[d][card]) continue;
        codes[n] = HERO_CODE(HERO_DRAW, card, 0);
        weights[n++] = s->deck[d][card];
        *total += s->deck[d][card];
    }
    return n;
}

int hero_is_legal(const HeroTables *t, const HeroState *s, uint16_t code) {
    if (hero_is_terminal(s)) return 0;
    if (hero_is_chance(s)) {
        int card = HERO_X(code);
        return HERO_KIND(code) == HERO_DRAW && HERO_Y(code) == 0 && card < t->n_cards &&
               s->deck[hero_drawer(t, s)][card] > 0;
    }
    uint16_t codes[HERO_MAX_ACTIONS];
    int n = decision_codes(t, s, codes), lo = 0, hi = n;
    while (lo < hi) {   /* the list is ascending */
        int mid = (lo + hi) / 2;
        if (codes[mid] < code) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && codes[lo] == code;
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
    int u = hero_current_player(s), x = HERO_X(code), y = HERO_Y(code);
    switch (HERO_KIND(code)) {
    case HERO_END:
        if (s->phase == HERO_PH_ACTION) w8(c, &s->phase, HERO_PH_WINDOW);
        else end_turn(c);
        break;
    case HERO_PASS:
        if (s->phase == HERO_PH_WINDOW) w8(c, &s->phase, HERO_PH_BATTLE);
        else resolve_attack(c, HERO_REF_NONE);
        break;
    case HERO_MOVE:
        move_unit(c, u * 10 + y);
        break;
    case HERO_DEPLOY:
        deploy(c, u, x, y);
        break;
    case HERO_PLAY:
        use_card(c, u, x);
        to_grave(c, u, x);   /* E-7: before its effects */
        resolve_on(c, x, 0, u, y == HERO_NO_TARGET ? HERO_REF_NONE : abs_slot(u, y));
        break;
    case HERO_RETAINER:
        retainer(c, u, x);
        break;
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
    default:
        break;
    }
}

static void apply_code(const HeroTables *t, HeroState *s, uint16_t code) {
    Ctx c = {t, s, -1, {HERO_REF_NONE, HERO_REF_NONE, HERO_REF_NONE}};
    if (HERO_KIND(code) == HERO_DRAW) apply_draw(&c, HERO_X(code));
    else apply_decision(&c, code);
    if (s->phase != HERO_PH_OVER) settle(&c);   /* "after every action" (§5) */
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
void hero_apply(const HeroTables *t, HeroState *s, uint16_t code, HeroUndo *u) {
    HERO_ASSERT(hero_is_legal(t, s, code));
    if (u) memcpy(&u->prev, s, sizeof *s);
    apply_code(t, s, code);
#ifdef XENOPHON_DEBUG
    assert(s->hash == hero_hash_from_scratch(t, s));
    assert(hero_state_check(t, s) == NULL);
#endif
}

void hero_undo(const HeroTables *t, HeroState *s, const HeroUndo *u) {
    memcpy(s, &u->prev, sizeof *s);
#ifdef XENOPHON_DEBUG
    assert(s->hash == hero_hash_from_scratch(t, s));
    assert(hero_state_check(t, s) == NULL);
#else
    (void)t;
#endif
}

/* ==================================================================== setup */

void hero_initial_state(const HeroTables *t, HeroState *s) {
    memset(s, 0, sizeof *s);
    s->hash = hero_hash_from_scratch(t, s);   /* 0: every hashed field is 0 */
    Ctx c = {t, s, -1, {HERO_REF_NONE, HERO_REF_NONE, HERO_REF_NONE}};
    for (int p = 0; p < 2; p++) {
        w32(&c, &s->hp[p], t->seat[p].hp);
        for (int card = 0; card < t->n_cards; card++)
            w8(&c, &s->deck[p][card], t->seat[p].decklist[card]);
        w8(&c, &s->deck_n[p], t->seat[p].deck_size);
    }
    w8(&c, &s->phase, HERO_PH_SETUP);
    if (t->seat[0].hand == 0 && t->seat[1].hand == 0) begin_turn(&c);
}

/* ==================================================================== chance */

uint16_t hero_sample_chance(const HeroTables *t, const HeroState *s, XenRng *rng) {
    int d = hero_drawer(t, s);
    uint32_t r = xen_rng_below(rng, s->deck_n[d]);
    int card = 0;
    for (; card < t->n_cards - 1; card++) {
        if (r < s->deck[d][card]) break;
        r -= s->deck[d][card];
    }
    return HERO_CODE(HERO_DRAW, card, 0);
}

void hero_returns(const HeroState *s, int out[2]) {
    out[0] = out[1] = 0;
    if (s->result == HERO_RES_WIN0) { out[0] = 1; out[1] = -1; }
    if (s->result == HERO_RES_WIN1) { out[0] = -1; out[1] = 1; }
}

/* ===================================================== hash, checks, views */

uint64_t hero_hash_from_scratch(const HeroTables *t, const HeroState *s) {
    const uint8_t *b = (const uint8_t *)s;
    uint64_t h = 0;
    for (size_t o = REGION32_BEGIN; o < REGION32_END; o += 4) {
        int32_t v;
        memcpy(&v, b + o, 4);
        h += (uint64_t)(int64_t)v * t->zobrist[o];
    }
    for (size_t o = REGION32_END; o < REGION8_END; o++) h += (uint64_t)b[o] * t->zobrist[o];
    return h;
}

/* ---- hero_state_check, in parts; each relies on the ones before it (ids
 * and counts in range first, the move generator last). */

static const char *check_control(const HeroState *s) {
    if (s->phase > HERO_PH_OVER) return "phase out of range";
    if (s->active > 1) return "active seat out of range";
    if (s->result > HERO_RES_DRAW || (s->result != HERO_RES_NONE) != (s->phase == HERO_PH_OVER))
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
    if (s->phase != HERO_PH_OVER && s->damage[slot] >= hero_power(t, s, slot))
        return "a unit with damage >= power is still on the field";
    return NULL;
}

/* Rows are left-packed: units, then all-zero slots. */
static const char *check_rows(const HeroTables *t, const HeroState *s) {
    if (s->charisma_used[0] > t->seat[0].charisma || s->charisma_used[1] > t->seat[1].charisma)
        return "charisma overspent";   /* before the pumps, whose bound it is part of */
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
            if (card >= t->n_cards && (s->hand[p][card] || s->deck[p][card] || s->grave[p][card] ||
                                       s->known[p][card]))
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
    if (s->phase < HERO_PH_ACTION || s->phase > HERO_PH_DEFEND || u != phase_decider(s))
        return "a pending draw outside the phases where its player resolves effects";
    if (s->pend_ability ? s->pend_source != 0 || s->phase != HERO_PH_ACTION ||
                              t->seat[u].ability != HERO_AB_ACTIVATED
                        : s->pend_source >= t->n_cards)
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
        return "a pending draw target its source cannot take";
    return NULL;
}

static const char *check_pending(const HeroTables *t, const HeroState *s) {
    if (s->pend_kind > HERO_PEND_DRAW) return "pending kind out of range";
    if (s->pend_kind == HERO_PEND_NONE &&
        (s->pend_source || s->pend_ability || s->pend_player || s->pend_effect || s->pend_target ||
         s->draws_left))
        return "pending fields set without a pending";
    if (s->pend_kind == HERO_PEND_TARGET) {
        if (s->phase != HERO_PH_ACTION || s->pend_source >= t->n_cards ||
            s->pend_player != s->active || s->pend_ability || s->pend_effect || s->pend_target ||
            s->draws_left)
            return "bad pending target";
        const HeroCard *k = &t->card[s->pend_source];
        if (!k->is_unit || k->effects.n == 0 || k->effects.target == HERO_TG_NONE)
            return "a pending target of a card without an on_deploy effect that targets";
    }
    return s->pend_kind == HERO_PEND_DRAW ? check_pending_draw(t, s) : NULL;
}

static const char *check_attack(const HeroState *s) {
    if (s->phase != HERO_PH_DEFEND)
        return s->att_from || s->att_to ? "attack record outside the defend phase" : NULL;
    if (s->att_from != HERO_REF_NONE &&
        (s->att_from >= HERO_SLOTS || seat_of(s->att_from) != s->active || !occupied(s, s->att_from)))
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
    if (s->phase == HERO_PH_SETUP && (s->turn != 0 || s->active != 0)) return "setup after turn 0";
    if (s->phase != HERO_PH_SETUP && s->phase != HERO_PH_OVER && s->turn < 1)
        return "turn 0 after setup";
    if (s->turn >= 1 && s->active != ((s->turn & 1) ? 0 : 1))
        return "active seat does not match the turn";
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
            return "HP <= 0, HP above the avatar's or an empty deck in a game that goes on";
        if (s->phase == HERO_PH_SETUP && s->hand_n[p] > t->seat[p].hand)
            return "a starting hand above the avatar's hand size";
    }
    if (s->phase == HERO_PH_SETUP && s->hand_n[0] == t->seat[0].hand && s->hand_n[1] == t->seat[1].hand)
        return "a setup with both starting hands complete";
    return NULL;
}

const char *hero_state_check(const HeroTables *t, const HeroState *s) {
    const char *why;
    if ((why = check_control(s)) || (why = check_rows(t, s)) || (why = check_zones(t, s)) ||
        (why = check_pending(t, s)) || (why = check_attack(s)) || (why = check_turn(s)) ||
        (why = check_going_on(t, s)))
        return why;
    if (s->hash != hero_hash_from_scratch(t, s)) return "hash differs from the hash from scratch";
    return xen_check_has_move(&hero_game_api, t, s);
}

/* §11: the hash without the other seat's hand and deck multisets (their
 * sizes stay in), plus a key for whose view it is. */
uint64_t hero_information_set_key(const HeroTables *t, const HeroState *s, int player) {
    int o = 1 - player;
    const uint64_t *zh = &t->zobrist[offsetof(HeroState, hand) + (size_t)o * HERO_MAX_CARDS];
    const uint64_t *zd = &t->zobrist[offsetof(HeroState, deck) + (size_t)o * HERO_MAX_CARDS];
    uint64_t key = s->hash + t->z_view[player];
    for (int card = 0; card < t->n_cards; card++)
        key -= s->hand[o][card] * zh[card] + s->deck[o][card] * zd[card];
    return key;
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
    for (int slot = o * 10; slot < o * 10 + 10; slot++)
        if (occupied(s, slot) && s->card[slot] != HERO_TOKEN) unseen[s->card[slot]]--;
    for (int card = 0; card < t->n_cards; card++) total += unseen[card];
    int m = s->hand_n[o] - known;
    HERO_ASSERT(total == m + s->deck_n[o]);
    for (int j = 0; j < m; j++) {
        int r = (int)xen_rng_below(rng, (uint32_t)total), card = 0;
        while (r >= unseen[card]) r -= unseen[card++];
        unseen[card]--;
        drawn[card]++;
        total--;
    }
    Ctx c = {t, s, -1, {HERO_REF_NONE, HERO_REF_NONE, HERO_REF_NONE}};
    for (int card = 0; card < t->n_cards; card++) {
        w8(&c, &s->hand[o][card], s->known[o][card] + drawn[card]);
        w8(&c, &s->deck[o][card], unseen[card]);
    }
}

/* ========================================================= perft, speed loops */

uint64_t hero_perft(const HeroTables *t, HeroState *s, int depth) {
    if (depth <= 0) return 1;
    if (hero_is_terminal(s)) return 0;
    uint16_t codes[HERO_MAX_ACTIONS];
    int n = hero_legal_actions(t, s, codes);
    if (depth == 1) return (uint64_t)n;
    uint64_t leaves = 0;
    HeroUndo u;
    for (int i = 0; i < n; i++) {
        hero_apply(t, s, codes[i], &u);
        leaves += hero_perft(t, s, depth - 1);
        hero_undo(t, s, &u);
    }
    return leaves;
}

uint64_t hero_random_actions(const HeroTables *t, const HeroState *start, uint64_t n,
                             uint64_t seed) {
    if (hero_is_terminal(start)) return 0;   /* nothing to play */
    XenRng rng;
    xen_rng_seed(&rng, seed);
    HeroState s = *start;
    uint16_t codes[HERO_MAX_ACTIONS];
    for (uint64_t done = 0; done < n; done++) {
        if (hero_is_terminal(&s)) s = *start;
        uint16_t code;
        if (hero_is_chance(&s)) {
            code = hero_sample_chance(t, &s, &rng);
        } else {
            int k = decision_codes(t, &s, codes);
            code = codes[xen_rng_below(&rng, (uint32_t)k)];
        }
        hero_apply(t, &s, code, NULL);
    }
    return n;
}

uint64_t hero_apply_undo_pairs(const HeroTables *t, const HeroState *start, uint64_t n,
                               uint64_t seed) {
    if (hero_is_terminal(start)) return 0;   /* nothing to play */
    XenRng rng;
    xen_rng_seed(&rng, seed);
    HeroState s = *start;
    HeroUndo u;
    uint16_t codes[HERO_MAX_ACTIONS];
    for (uint64_t done = 0; done < n; done++) {
        if (hero_is_terminal(&s)) s = *start;
        int k = hero_legal_actions(t, &s, codes);
        hero_apply(t, &s, codes[xen_rng_below(&rng, (uint32_t)k)], &u);
        hero_undo(t, &s, &u);
        uint16_t code = hero_is_chance(&s) ? hero_sample_chance(t, &s, &rng)
                                           : codes[xen_rng_below(&rng, (uint32_t)k)];
        hero_apply(t, &s, code, NULL);
    }
    return n;
}
