/* anabasis.c - the Anabasis rules core. The spec is docs/anabasis-engine.md;
 * section numbers (§n) and decisions (E-n, D-n) refer to it and RULES.md.
 *
 * Every write to an AnaState goes through the setters below (set8, set16,
 * bb_set, ...), which keep the additive Zobrist hash up to date. Writing a
 * state field directly would break the hash; debug builds (XENOPHON_DEBUG)
 * recompute it after every apply and undo and check every invariant.
 */
#include "anabasis.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "anabasis_api.h"
#include "check.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bitboard hashing assumes little endian");
_Static_assert(sizeof(AnaPlayer) == 208, "AnaPlayer layout");
_Static_assert(offsetof(AnaState, pl) == 56, "AnaState layout");
_Static_assert(offsetof(AnaState, sq_card) == 472, "AnaState layout");
_Static_assert(offsetof(AnaState, sq_bonus) == 556, "AnaState layout");
_Static_assert(offsetof(AnaState, unseen) == 640, "AnaState layout");
_Static_assert(offsetof(AnaState, field_rev) == 704, "AnaState layout");
_Static_assert(offsetof(AnaState, turn) == 723, "AnaState layout");
_Static_assert(offsetof(AnaState, b_att) == 730, "AnaState layout");
_Static_assert(offsetof(AnaState, ev_slot) == 735, "AnaState layout");
_Static_assert(sizeof(AnaState) == 744, "AnaState layout");

#define BIT(q) (1ULL << (q))
#define FOR_BITS(q, bb) for (uint64_t b_ = (bb); b_ && (((q) = __builtin_ctzll(b_)), 1); b_ &= b_ - 1)

enum { CASTLE0 = 3, CASTLE1 = 38, VILLAGE0 = 6, VILLAGE1 = 35 };
static const int CASTLE_SQ[2] = {CASTLE0, CASTLE1};
static const int VILLAGE_SQ[2] = {VILLAGE0, VILLAGE1};

#ifdef XENOPHON_DEBUG
static void debug_check(const AnaTables *t, const AnaState *s) {
    const char *why = ana_state_check(t, s);
    if (why) fprintf(stderr, "anabasis: broken state: %s\n", why);
    assert(why == NULL);
}
#else
#define debug_check(t, s) ((void)0)
#endif

/* ================================================================ setters */

static inline void zadd(const AnaTables *t, AnaState *s, const void *p, int delta) {
    s->hash += (uint64_t)(int64_t)delta * t->zobrist[(const uint8_t *)p - (const uint8_t *)s];
}

static inline void set8(const AnaTables *t, AnaState *s, uint8_t *p, int v) {
    zadd(t, s, p, (int)(uint8_t)v - (int)*p);
    *p = (uint8_t)v;
}

/* uint16_t or int16_t field: two bytes, each hashed at its own offset. */
static inline void set16(const AnaTables *t, AnaState *s, void *p, int v) {
    uint16_t nv = (uint16_t)v;
    uint8_t *b = p;
    zadd(t, s, b, (int)(nv & 0xFF) - (int)b[0]);
    zadd(t, s, b + 1, (int)(nv >> 8) - (int)b[1]);
    memcpy(p, &nv, 2);
}

static inline void bb_set(const AnaTables *t, AnaState *s, uint64_t *bb, int q) {
    if (*bb & BIT(q)) return;
    *bb |= BIT(q);
    zadd(t, s, (uint8_t *)bb + (q >> 3), 1 << (q & 7));
}

static inline void bb_clear(const AnaTables *t, AnaState *s, uint64_t *bb, int q) {
    if (!(*bb & BIT(q))) return;
    *bb &= ~BIT(q);
    zadd(t, s, (uint8_t *)bb + (q >> 3), -(1 << (q & 7)));
}

static inline void bb_put(const AnaTables *t, AnaState *s, uint64_t *bb, int q, int on) {
    if (on) bb_set(t, s, bb, q); else bb_clear(t, s, bb, q);
}

static inline void ms_add(const AnaTables *t, AnaState *s, uint8_t *ms, int card, int d) {
    set8(t, s, &ms[card], ms[card] + d);
}

static inline void add16(const AnaTables *t, AnaState *s, uint16_t *p, int d) {
    set16(t, s, p, *p + d);
}

/* ================================================================ queries */

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline uint64_t occupied(const AnaState *s) { return s->occ[0] | s->occ[1]; }
static inline int owner_of(const AnaState *s, int q) { return (int)((s->occ[1] >> q) & 1); }
static inline int slot_up(const AnaState *s, int p, int k) { return (s->pl[p].slot_up >> k) & 1; }
static inline int slot_face_down(const AnaState *s, int p, int k) {
    return s->pl[p].slot[k] != ANA_NONE && !slot_up(s, p, k);
}

static int has_face_down_event(const AnaState *s, int p) {
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, p, k)) return 1;
    return 0;
}

static int first_empty_slot(const AnaState *s, int p) {
    for (int k = 0; k < ANA_SLOTS; k++)
        if (s->pl[p].slot[k] == ANA_NONE) return k;
    return -1;
}

static int row_count(const AnaState *s) {
    int n = 0;
    while (n < ANA_ROW_SIZE && s->row[n] != ANA_NONE) n++;
    return n;
}

/* The amount of the active field card if its effect is `effect`. */
static int field_active(const AnaTables *t, const AnaState *s, int effect, int *amount) {
    if (s->field_n == 0) return 0;
    const AnaFieldCard *f = &t->field[s->field_rev[s->field_idx]];
    if (f->effect != effect) return 0;
    *amount = f->amount;
    return 1;
}

/* AP costs never go below 0 (a card file may give a field a negative amount). */
static int move_cost(const AnaTables *t, const AnaState *s) {
    int a;
    return field_active(t, s, ANA_FX_MOVE_COST, &a) ? (a > 0 ? a : 0) : 1;
}

static int attack_cost(const AnaTables *t, const AnaState *s, int q) {
    int a;
    if (field_active(t, s, ANA_FX_ATTACK_COST, &a)) return a > 0 ? a : 0;
    return (s->moved >> q) & 1 ? 0 : 1;
}

static int price(const AnaTables *t, const AnaState *s, int card) {
    int a, p = t->card[card].cost;
    if (field_active(t, s, ANA_FX_PRICE, &a)) p += a;
    return p < 1 ? 1 : p;
}

/* The to-deal multiset of seat p is never stored: during the DEAL stages it
 * is the starting events minus what seat p's slots already hold (seat p's
 * slots are filled from it, in order), and it is empty afterwards. */
static int to_deal_count(const AnaTables *t, const AnaState *s, int p, int card) {
    if (s->stage != ANA_SG_DEAL || p < s->sub) return 0;
    int n = t->start_events[card];
    for (int k = 0; k < ANA_SLOTS; k++)
        if (s->pl[p].slot[k] == card) n--;
    return n;
}

static int to_deal_total(const AnaTables *t, const AnaState *s, int p) {
    if (s->stage != ANA_SG_DEAL || p < s->sub) return 0;
    int n = t->n_start_events;
    for (int k = 0; k < ANA_SLOTS; k++)
        if (s->pl[p].slot[k] != ANA_NONE) n--;
    return n;
}

int ana_current_player(const AnaState *s) {
    switch (s->stage) {
    case ANA_SG_STANDBY1: case ANA_SG_FIELD: case ANA_SG_STANDBY2:
    case ANA_SG_NULLIFY_RESPONSE:
        return s->active;
    case ANA_SG_RESPONSE: case ANA_SG_EVADE: case ANA_SG_EVENT_WINDOW:
        return 1 - s->active;
    case ANA_SG_OVER:
        return ANA_TERMINAL;
    default:
        return ANA_CHANCE;
    }
}

int ana_is_chance(const AnaState *s) { return ana_current_player(s) == ANA_CHANCE; }
int ana_is_terminal(const AnaState *s) { return s->stage == ANA_SG_OVER; }

int ana_phase(const AnaState *s) {
    switch (s->stage) {
    case ANA_SG_STANDBY1: return ANA_PH_STANDBY1;
    case ANA_SG_FIELD: return ANA_PH_FIELD;
    case ANA_SG_STANDBY2: return ANA_PH_STANDBY2;
    case ANA_SG_RESPONSE: return ANA_PH_RESPONSE;
    case ANA_SG_NULLIFY_RESPONSE: case ANA_SG_EVENT_WINDOW: return ANA_PH_NULLIFY;
    case ANA_SG_EVADE: return ANA_PH_EVADE;
    case ANA_SG_OVER: return ANA_PH_OVER;
    default: return ANA_PH_CHANCE;
    }
}

void ana_returns(const AnaState *s, int out[2]) {
    out[0] = out[1] = 0;
    if (s->outcome == ANA_RES_WIN0) { out[0] = 1; out[1] = -1; }
    if (s->outcome == ANA_RES_WIN1) { out[0] = -1; out[1] = 1; }
}

/* ================================================================ tables */

static int fail(char *err, size_t n, const char *msg) {
    if (err && n) snprintf(err, n, "%s", msg);
    return -1;
}

static uint64_t pattern_mask(const int *off, int n_off, int seat, int q) {
    int file = q % ANA_FILES, rank = q / ANA_FILES, sign = seat ? -1 : 1;
    uint64_t m = 0;
    for (int i = 0; i < n_off; i++) {
        int f = file + sign * off[2 * i], r = rank + sign * off[2 * i + 1];
        if (f >= 0 && f < ANA_FILES && r >= 0 && r < ANA_RANKS) m |= BIT(r * ANA_FILES + f);
    }
    return m;
}

static void build_geometry(AnaTables *t) {
    for (int q = 0; q < ANA_SQUARES; q++) {
        int file = q % ANA_FILES, rank = q / ANA_FILES;
        uint64_t m = 0;
        for (int df = -1; df <= 1; df++)
            for (int dr = -1; dr <= 1; dr++) {
                int f = file + df, r = rank + dr;
                if ((df || dr) && f >= 0 && f < ANA_FILES && r >= 0 && r < ANA_RANKS)
                    m |= BIT(r * ANA_FILES + f);
            }
        t->around[q] = m;
        t->rank_mask[rank] |= BIT(q);
        if (q < 14) t->home[0] |= BIT(q);
        if (q >= 28) t->home[1] |= BIT(q);
    }
    t->castles = BIT(CASTLE0) | BIT(CASTLE1);
    t->home[0] &= ~t->castles;
    t->home[1] &= ~t->castles;
}

/* Keys from a fixed seed, so hashes and keys are the same in every process. */
static void build_zobrist(AnaTables *t) {
    uint64_t seed = 0x58454E4F50484F4EULL;   /* "XENOPHON" */
    for (size_t o = 0; o < sizeof(AnaState); o++) t->zobrist[o] = xen_splitmix64(&seed);
    for (size_t o = 0; o < sizeof(uint64_t); o++) t->zobrist[offsetof(AnaState, hash) + o] = 0;
    for (int c = 0; c < ANA_MAX_CARDS; c++) t->z_unseen[c] = xen_splitmix64(&seed);
    for (int k = 0; k < ANA_SLOTS; k++) t->z_face_down[k] = xen_splitmix64(&seed);
    for (int p = 0; p < 2; p++) t->z_view[p] = xen_splitmix64(&seed);
}

static int card_in_range(const AnaCardSpec *c) {
    return c->cost >= 0 && c->cost <= 99 && c->copies >= 0 && c->copies <= 40 &&
           c->start_copies >= 0 && c->start_copies <= 40 && c->hp >= 0 && c->hp <= 99 &&
           c->atk >= 0 && c->atk <= 99 && c->hit >= 0 && c->hit <= 100 && c->crit >= 0 &&
           c->crit <= 100 && c->ap_income >= 0 && c->ap_income <= 20 && c->funds_income >= 0 &&
           c->funds_income <= 20 && c->amount >= 0 && c->amount <= 99 && c->n_move >= 0 &&
           c->n_move <= ANA_MAX_OFFSETS && c->n_attack >= 0 && c->n_attack <= ANA_MAX_OFFSETS;
}

int ana_tables_init(AnaTables *t, const AnaCardSpec *cards, int n_cards,
                    const AnaFieldSpec *fields, int n_fields, int mode,
                    char *err, size_t err_size) {
    memset(t, 0, sizeof *t);
    if (n_cards < 1 || n_cards > ANA_MAX_CARDS)
        return fail(err, err_size, "the card set must hold 1 to 48 cards");
    if (n_fields < 0 || n_fields > ANA_MAX_FIELDS)
        return fail(err, err_size, "the card set may hold at most 16 field cards");
    if (mode != ANA_STANDARD && mode != ANA_EXPERT) return fail(err, err_size, "unknown mode");
    t->n_cards = n_cards;
    t->n_fields = mode == ANA_EXPERT ? n_fields : 0;
    t->mode = mode;
    t->castle_hp = mode == ANA_EXPERT ? 15 : 10;
    t->cemetery_limit = mode == ANA_EXPERT ? 12 : 8;
    t->start_territory = -1;
    build_geometry(t);
    for (int i = 0; i < n_cards; i++) {
        const AnaCardSpec *c = &cards[i];
        AnaCard *d = &t->card[i];
        if (!card_in_range(c) || c->kind < 0 || c->kind > ANA_EVENT_CARD)
            return fail(err, err_size, "a card has a value out of range");
        d->kind = (uint8_t)c->kind;
        d->cost = (uint8_t)c->cost;
        d->copies = (uint8_t)c->copies;
        d->start_copies = (uint8_t)c->start_copies;
        d->hp = (uint8_t)c->hp;
        d->atk = (uint8_t)c->atk;
        d->hit = (uint8_t)c->hit;
        d->crit = (uint8_t)c->crit;
        d->keywords = (uint8_t)c->keywords;
        d->ap_income = (uint8_t)c->ap_income;
        d->funds_income = (uint8_t)c->funds_income;
        d->effect = (uint8_t)c->effect;
        d->amount = (uint8_t)c->amount;
        if (c->kind == ANA_CHARACTER) {
            if (c->hp < 1) return fail(err, err_size, "a character needs HP >= 1");
            if (c->pile == ANA_PILE_NONE && c->copies)
                return fail(err, err_size, "a starting character cannot have market copies");
            if (c->pile != ANA_PILE_NONE && (c->pile < ANA_PILE_A || c->pile > ANA_PILE_C))
                return fail(err, err_size, "a character's pile must be A, B, C or none");
            d->pile = (uint8_t)c->pile;
            for (int s = 0; s < 2; s++)
                for (int q = 0; q < ANA_SQUARES; q++) {
                    t->move_mask[i][s][q] = pattern_mask(c->move, c->n_move, s, q);
                    t->attack_mask[i][s][q] = pattern_mask(c->attack, c->n_attack, s, q);
                }
        } else {
            d->pile = ANA_PILE_ROW;
            d->keywords = 0;
            if (c->kind == ANA_TERRITORY && c->hp < 1)
                return fail(err, err_size, "a territory needs HP >= 1");
            if (c->kind == ANA_EVENT_CARD && (c->effect < ANA_EV_FLOOD || c->effect > ANA_EV_SABOTAGE))
                return fail(err, err_size, "an event has an unknown effect");
        }
        if (c->kind == ANA_TERRITORY && c->start_copies) {
            if (c->start_copies != 1 || t->start_territory >= 0)
                return fail(err, err_size, "at most one starting territory, with start_copies = 1");
            t->start_territory = i;
        }
        if (c->kind == ANA_EVENT_CARD && c->start_copies) {
            if (c->start_copies != 1) return fail(err, err_size, "a starting event has start_copies = 1");
            t->start_events[i] = 1;
            t->n_start_events++;
        }
        if (d->pile != ANA_PILE_NONE && c->copies) {
            int p = d->pile;
            t->pile_cards[p][t->pile_size[p]++] = (uint8_t)i;
        }
    }
    if (t->n_start_events > ANA_SLOTS)
        return fail(err, err_size, "at most 3 starting events (one per EVENT slot)");
    for (int f = 0; f < t->n_fields; f++) {
        if (fields[f].duration < 1 || fields[f].duration > 50 || fields[f].amount < -100 ||
            fields[f].amount > 100 || fields[f].effect < ANA_FX_HIT || fields[f].effect > ANA_FX_ATTACK_COST)
            return fail(err, err_size, "a field card has a value out of range");
        t->field[f].duration = (uint8_t)fields[f].duration;
        t->field[f].effect = (uint8_t)fields[f].effect;
        t->field[f].amount = (int8_t)fields[f].amount;
    }
    build_zobrist(t);
    return 0;
}

/* ================================================================ hashing */

uint64_t ana_hash_from_scratch(const AnaTables *t, const AnaState *s) {
    const uint8_t *b = (const uint8_t *)s;
    uint64_t h = 0;
    for (size_t o = 0; o < sizeof(AnaState); o++) h += (uint64_t)b[o] * t->zobrist[o];
    return h;
}

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
    game_over(t, s, lose[0] && lose[1] ? ANA_RES_DRAW : lose[0] ? ANA_RES_WIN1 : ANA_RES_WIN0);
    return 1;
}

static void gain_funds(const AnaTables *t, AnaState *s, int p, int amount) {
    set8(t, s, &s->pl[p].funds, clampi(s->pl[p].funds + amount, 0, 99));
}

static void draw_card(const AnaTables *t, AnaState *s, int p, int card) {
    AnaPlayer *pl = &s->pl[p];
    ms_add(t, s, pl->deck, card, -1);
    add16(t, s, &pl->deck_n, -1);
    ms_add(t, s, pl->hand, card, 1);
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
    if (row_count(s) < ANA_ROW_SIZE && s->pile_n[ANA_PILE_ROW] > 0) enter(t, s, ANA_SG_SETUP_ROW, 0, 0);
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
        pl->funds = p == 1 ? 1 : 0;   /* D-12 */
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
    s->hash = ana_hash_from_scratch(t, s);
    if (t->start_territory >= 0)
        for (int p = 0; p < 2; p++) grid_put(t, s, VILLAGE_SQ[p], t->start_territory, p, 0);
    setup_deals(t, s, 0);
}

/* ---------------------------------------------------------------- turns */

static void income(const AnaTables *t, AnaState *s) {
    int p = s->active, ap = 3, funds = 2, q, a;
    FOR_BITS(q, s->occ[p] & ~s->chars & ~s->face_down) {
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
    FOR_BITS(q, s->occ[p]) {
        set8(t, s, &s->sq_damage[q], 0);
        bb_clear(t, s, &s->face_down, q);
    }
    FOR_BITS(q, s->occ[p] & s->chars) {
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
    FOR_BITS(q, occupied(s)) set16(t, s, &s->sq_bonus[q], 0);
    int added = 0;
    for (int c = 0; c < t->n_cards; c++) {
        int n = pl->hand[c] + pl->flow[c];
        if (!n) continue;
        ms_add(t, s, pl->deck, c, n);
        set8(t, s, &pl->hand[c], 0);
        set8(t, s, &pl->flow[c], 0);
        added += n;
    }
    add16(t, s, &pl->deck_n, added);
    set16(t, s, &pl->hand_n, 0);
    if (s->turn == ANA_MAX_TURNS) {
        game_over(t, s, ANA_RES_DRAW);   /* D-11 */
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
    ms_add(t, s, pl->hand, card, -1);
    add16(t, s, &pl->hand_n, -1);
    set16(t, s, &pl->ap, pl->ap - 1);
    grid_put(t, s, q, card, s->active, 0);
}

static void do_set(const AnaTables *t, AnaState *s, int card) {
    AnaPlayer *pl = &s->pl[s->active];
    ms_add(t, s, pl->hand, card, -1);
    add16(t, s, &pl->hand_n, -1);
    set8(t, s, &pl->slot[first_empty_slot(s, s->active)], card);
}

/* ---------------------------------------------------------------- battle */

/* Striker x, target y (a square; the castle square for a castle) and whether
 * it is the main strike, for the pending b_step. */
static void strike_sides(const AnaState *s, int *x, int *y, int *main_strike) {
    int main = s->b_step == ANA_BS_MAIN || s->b_step == ANA_BS_MAIN_AFTER_AMBUSH;
    *x = main ? s->b_att : s->b_tgt;
    *y = main ? s->b_tgt : s->b_att;
    *main_strike = main;
}

static int command_near(const AnaTables *t, const AnaState *s, int x, int owner) {
    int q;
    FOR_BITS(q, t->around[x] & s->occ[owner] & s->chars)
        if (t->card[s->sq_card[q]].keywords & ANA_KW_COMMAND) return 1;
    return 0;
}

/* Weights over 10,000 of miss, hit, crit for the pending strike (§4). */
static void strike_weights(const AnaTables *t, const AnaState *s, uint32_t w[3]) {
    int x, y, main, a;
    strike_sides(s, &x, &y, &main);
    const AnaCard *c = &t->card[s->sq_card[x]];
    int owner = owner_of(s, x), hit = c->hit, crit = c->crit;
    if (command_near(t, s, x, owner)) hit += 10;
    if (field_active(t, s, ANA_FX_HIT, &a)) hit += a;
    if (main && ((s->chars >> y) & 1) &&
        !(t->attack_mask[s->sq_card[y]][owner_of(s, y)][y] & BIT(x))) {
        hit += 20;   /* out of the target's range */
        crit += 10;
    }
    hit = clampi(hit, 0, 100);
    crit = clampi(crit, 0, 100);
    w[0] = (uint32_t)((100 - hit) * 100);
    w[1] = (uint32_t)(hit * (100 - crit));
    w[2] = (uint32_t)(hit * crit);
}

/* Damage of the pending strike for outcome k (1 hit, 2 crit). */
static int strike_damage(const AnaTables *t, const AnaState *s, int k) {
    int x, y, main;
    strike_sides(s, &x, &y, &main);
    const AnaCard *c = &t->card[s->sq_card[x]];
    int d = c->atk + s->sq_bonus[x];
    if (main && s->b_charge && (c->keywords & ANA_KW_CHARGE)) d += 1;
    int building = s->sq_card[y] == ANA_NONE || !((s->chars >> y) & 1);   /* castle or territory */
    int siege = building && (c->keywords & ANA_KW_SIEGE);
    d *= (k == ANA_STRIKE_CRIT && siege) ? 3 : (k == ANA_STRIKE_CRIT || siege) ? 2 : 1;
    if (s->sq_card[y] != ANA_NONE && (t->card[s->sq_card[y]].keywords & ANA_KW_ARMORED))
        d = d > 2 ? d - 1 : 1;   /* ARMORED: 1 less, at least 1 (literally max(1, d - 1)) */
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
    else finish_battle(t, s);   /* evasion, fortify: no strike */
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
    if (check_end(t, s)) return;   /* the battle stops with the game */
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

static uint64_t evade_mask(const AnaTables *t, const AnaState *s) {
    int q = s->b_tgt;
    return t->move_mask[s->sq_card[q]][owner_of(s, q)][q] & ~occupied(s) & ~t->castles;
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

/* The response that matches the attack on b (§4 step 1). */
static int response_matches(const AnaState *s, int effect) {
    int target_is_character = (int)((s->chars >> s->b_tgt) & 1);
    if (effect == ANA_EV_EVASION || effect == ANA_EV_AMBUSH) return target_is_character;
    if (effect == ANA_EV_FORTIFY) return !target_is_character;
    return 0;
}

static void turn_up(const AnaTables *t, AnaState *s, int p, int k) {
    set8(t, s, &s->pl[p].slot_up, s->pl[p].slot_up | (1 << k));
}

static void do_response(const AnaTables *t, AnaState *s, int code) {
    int d = 1 - s->active;
    if (ANA_KIND(code) == ANA_PASS) {
        resolve_battle(t, s, ANA_EV_NONE);
        return;
    }
    int k = ANA_X(code), effect = t->card[s->pl[d].slot[k]].effect;
    turn_up(t, s, d, k);
    if (has_face_down_event(s, s->active)) {
        set8(t, s, &s->b_resp, effect);   /* pending, until the Nullify window closes */
        enter(t, s, ANA_SG_NULLIFY_RESPONSE, 0, 0);
    } else {
        resolve_battle(t, s, effect);
    }
}

static void do_nullify_response(const AnaTables *t, AnaState *s, int code) {
    if (ANA_KIND(code) == ANA_PASS) {
        resolve_battle(t, s, s->b_resp);
        return;
    }
    turn_up(t, s, s->active, ANA_X(code));
    resolve_battle(t, s, ANA_EV_NONE);
}

static void do_evade(const AnaTables *t, AnaState *s, int code) {
    if (ANA_KIND(code) == ANA_EVADE) grid_move(t, s, s->b_tgt, ANA_X(code));
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
        FOR_BITS(q, t->rank_mask[arg] & s->chars) grid_damage(t, s, q, c->amount);
        break;
    case ANA_EV_RALLY:
        set16(t, s, &s->sq_bonus[arg], s->sq_bonus[arg] + c->amount);
        break;
    case ANA_EV_FORCED_MARCH:
        set16(t, s, &s->pl[p].ap, s->pl[p].ap + c->amount);
        break;
    case ANA_EV_WINDFALL:
        gain_funds(t, s, p, c->amount);
        break;
    case ANA_EV_SABOTAGE:
        grid_damage(t, s, arg, c->amount);
        break;
    default:
        break;
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
    if (ANA_KIND(code) == ANA_EVENT) turn_up(t, s, 1 - s->active, ANA_X(code));
    end_event(t, s, ANA_KIND(code) == ANA_EVENT);
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
    case ANA_SG_STRIKE:
        apply_strike(t, s, x);
        break;
    case ANA_SG_END_DRAW:
        draw_card(t, s, s->active, x);
        set8(t, s, &s->draws_left, s->draws_left - 1);
        end_draws(t, s);
        break;
    default:
        assert(0);
    }
}

static void apply_decision(const AnaTables *t, AnaState *s, uint16_t code) {
    int kind = ANA_KIND(code), x = ANA_X(code), y = ANA_Y(code);
    switch (s->stage) {
    case ANA_SG_STANDBY1: case ANA_SG_STANDBY2:
        switch (kind) {
        case ANA_END:
            if (s->stage == ANA_SG_STANDBY1) enter(t, s, ANA_SG_FIELD, 0, 0);
            else end_turn(t, s);
            break;
        case ANA_BUY: do_buy(t, s, x); break;
        case ANA_BUY_PLACE: do_buy_place(t, s, x, y); break;
        case ANA_PLACE: do_place(t, s, x, y); break;
        case ANA_SET: do_set(t, s, x); break;
        default: assert(0);
        }
        break;
    case ANA_SG_FIELD:
        switch (kind) {
        case ANA_END: enter(t, s, ANA_SG_STANDBY2, 0, 0); break;
        case ANA_MOVE: do_move(t, s, x, y); break;
        case ANA_ATTACK: do_attack(t, s, x, y); break;
        case ANA_READY: do_ready(t, s, x); break;
        case ANA_EVENT: do_event(t, s, x, y); break;
        default: assert(0);
        }
        break;
    case ANA_SG_RESPONSE: do_response(t, s, code); break;
    case ANA_SG_NULLIFY_RESPONSE: do_nullify_response(t, s, code); break;
    case ANA_SG_EVADE: do_evade(t, s, code); break;
    case ANA_SG_EVENT_WINDOW: do_event_window(t, s, code); break;
    default: assert(0);
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
void ana_apply(const AnaTables *t, AnaState *s, uint16_t code, AnaUndo *u) {
#ifdef XENOPHON_DEBUG
    assert(ana_is_legal(t, s, code));
#endif
    if (u) u->prev = *s;
    if (ana_current_player(s) == ANA_CHANCE) apply_chance(t, s, ANA_X(code));
    else apply_decision(t, s, code);
    debug_check(t, s);
}

void ana_undo(const AnaTables *t, AnaState *s, const AnaUndo *u) {
    (void)t;
    *s = u->prev;
    debug_check(t, s);
}

/* ================================================================ legal */

static int gen_standby(const AnaTables *t, const AnaState *s, uint16_t *out) {
    int p = s->active, n = 0, q;
    const AnaPlayer *pl = &s->pl[p];
    uint64_t empty_home = t->home[p] & ~occupied(s);
    out[n++] = ANA_CODE(ANA_END, 0, 0);
    /* BUY: face-up market cards (tops, then the row's distinct ids), sorted */
    int cand[3 + ANA_ROW_SIZE], nc = 0;
    for (int i = 0; i < 3; i++)
        if (s->top[i] != ANA_NONE) cand[nc++] = s->top[i];
    for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++)
        if (i == 0 || s->row[i] != s->row[i - 1]) cand[nc++] = s->row[i];
    for (int i = 1; i < nc; i++)
        for (int j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
            int tmp = cand[j]; cand[j] = cand[j - 1]; cand[j - 1] = tmp;
        }
    for (int i = 0; i < nc; i++)
        if (price(t, s, cand[i]) <= pl->funds) out[n++] = ANA_CODE(ANA_BUY, cand[i], 0);
    if (pl->ap >= 1) {
        for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++) {
            int c = s->row[i];
            if ((i > 0 && s->row[i - 1] == c) || t->card[c].kind != ANA_TERRITORY ||
                price(t, s, c) > pl->funds)
                continue;
            FOR_BITS(q, empty_home) out[n++] = ANA_CODE(ANA_BUY_PLACE, c, q);
        }
        for (int c = 0; c < t->n_cards; c++)
            if (pl->hand[c] && t->card[c].kind != ANA_EVENT_CARD)
                FOR_BITS(q, empty_home) out[n++] = ANA_CODE(ANA_PLACE, c, q);
    }
    if (first_empty_slot(s, p) >= 0)
        for (int c = 0; c < t->n_cards; c++)
            if (pl->hand[c] && t->card[c].kind == ANA_EVENT_CARD) out[n++] = ANA_CODE(ANA_SET, c, 0);
    return n;
}

/* The arguments of a field-phase event of `effect` played by p, as a mask
 * (bit a: EVENT k a is legal): a rank to flood, an own character to rally, an
 * enemy territory to sabotage, 0 for the others; none for the events that are
 * only played as responses. */
static uint64_t event_args(const AnaState *s, int p, int effect) {
    switch (effect) {
    case ANA_EV_FLOOD: return (1ULL << ANA_RANKS) - 1;
    case ANA_EV_RALLY: return s->occ[p] & s->chars;
    case ANA_EV_SABOTAGE: return s->occ[1 - p] & ~s->chars;
    case ANA_EV_FORCED_MARCH: case ANA_EV_WINDFALL: return 1;
    default: return 0;
    }
}

static int gen_field(const AnaTables *t, const AnaState *s, uint16_t *out) {
    int p = s->active, d = 1 - p, n = 0, a, b;
    const AnaPlayer *pl = &s->pl[p];
    uint64_t mine = s->ready & s->occ[p], free_sq = ~occupied(s) & ~t->castles;
    out[n++] = ANA_CODE(ANA_END, 0, 0);
    if (pl->ap >= move_cost(t, s))
        FOR_BITS(a, mine)
            FOR_BITS(b, t->move_mask[s->sq_card[a]][p][a] & free_sq) out[n++] = ANA_CODE(ANA_MOVE, a, b);
    uint64_t targets = s->occ[d] | BIT(CASTLE_SQ[d]);
    FOR_BITS(a, mine)
        if (pl->ap >= attack_cost(t, s, a))
            FOR_BITS(b, t->attack_mask[s->sq_card[a]][p][a] & targets) out[n++] = ANA_CODE(ANA_ATTACK, a, b);
    if (pl->ap >= 1)
        FOR_BITS(a, s->occ[p] & s->chars & ~s->ready) out[n++] = ANA_CODE(ANA_READY, a, 0);
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, p, k))
            FOR_BITS(b, event_args(s, p, t->card[pl->slot[k]].effect)) out[n++] = ANA_CODE(ANA_EVENT, k, b);
    return n;
}

/* PASS, then EVENT k 0 for each face-down slot of p whose effect is accepted. */
static int gen_window(const AnaTables *t, const AnaState *s, int p, int response, uint16_t *out) {
    int n = 0;
    out[n++] = ANA_CODE(ANA_PASS, 0, 0);
    for (int k = 0; k < ANA_SLOTS; k++) {
        if (!slot_face_down(s, p, k)) continue;
        int effect = t->card[s->pl[p].slot[k]].effect;
        if (response ? response_matches(s, effect) : effect == ANA_EV_NULLIFY)
            out[n++] = ANA_CODE(ANA_EVENT, k, 0);
    }
    return n;
}

int ana_legal_actions(const AnaTables *t, const AnaState *s, uint16_t *out) {
    int n = 0, q;
    switch (s->stage) {
    case ANA_SG_STANDBY1: case ANA_SG_STANDBY2: return gen_standby(t, s, out);
    case ANA_SG_FIELD: return gen_field(t, s, out);
    case ANA_SG_RESPONSE: return gen_window(t, s, 1 - s->active, 1, out);
    case ANA_SG_NULLIFY_RESPONSE: return gen_window(t, s, s->active, 0, out);
    case ANA_SG_EVENT_WINDOW: return gen_window(t, s, 1 - s->active, 0, out);
    case ANA_SG_EVADE:
        out[n++] = ANA_CODE(ANA_PASS, 0, 0);
        FOR_BITS(q, evade_mask(t, s)) out[n++] = ANA_CODE(ANA_EVADE, q, 0);
        return n;
    case ANA_SG_OVER: return 0;
    default: {
        uint32_t w[ANA_MAX_OUTCOMES], total;
        return ana_chance_outcomes(t, s, out, w, &total);
    }
    }
}

/* ================================================================ chance */

static int outcomes_multiset(const uint8_t *counts, int kind, const uint8_t *ids, int n_ids,
                             uint16_t *codes, uint32_t *w, uint32_t *total) {
    int n = 0;
    for (int i = 0; i < n_ids; i++) {
        int c = ids ? ids[i] : i;
        if (!counts[c]) continue;
        codes[n] = ANA_CODE(kind, c, 0);
        w[n++] = counts[c];
        *total += counts[c];
    }
    return n;
}

int ana_chance_outcomes(const AnaTables *t, const AnaState *s, uint16_t *codes,
                        uint32_t *w, uint32_t *total) {
    int n = 0;
    *total = 0;
    switch (s->stage) {
    case ANA_SG_DEAL: {
        uint8_t counts[ANA_MAX_CARDS];
        for (int c = 0; c < t->n_cards; c++) counts[c] = (uint8_t)to_deal_count(t, s, s->sub, c);
        return outcomes_multiset(counts, ANA_DEAL, NULL, t->n_cards, codes, w, total);
    }
    case ANA_SG_SETUP_PILE: case ANA_SG_REFILL: case ANA_SG_SETUP_ROW: {
        int pile = s->stage == ANA_SG_SETUP_ROW ? ANA_PILE_ROW : s->sub;
        return outcomes_multiset(s->unseen, ANA_REVEAL, t->pile_cards[pile], t->pile_size[pile],
                                 codes, w, total);
    }
    case ANA_SG_SETUP_FIELD: case ANA_SG_TURN_FIELD: {
        uint32_t seen = 0;
        for (int i = 0; i < s->field_n; i++) seen |= 1u << s->field_rev[i];
        for (int f = 0; f < t->n_fields; f++)
            if (!(seen >> f & 1)) {
                codes[n] = ANA_CODE(ANA_FIELD, f, 0);
                w[n++] = 1;
                *total += 1;
            }
        return n;
    }
    case ANA_SG_SETUP_DRAW: case ANA_SG_END_DRAW: {
        int p = s->stage == ANA_SG_SETUP_DRAW ? s->sub : s->active;
        return outcomes_multiset(s->pl[p].deck, ANA_DRAW, NULL, t->n_cards, codes, w, total);
    }
    case ANA_SG_STRIKE: {
        uint32_t sw[3];
        strike_weights(t, s, sw);
        for (int k = 0; k < 3; k++)
            if (sw[k]) {
                codes[n] = ANA_CODE(ANA_STRIKE, k, 0);
                w[n++] = sw[k];
                *total += sw[k];
            }
        return n;
    }
    default:
        return 0;
    }
}

uint16_t ana_sample_chance(const AnaTables *t, const AnaState *s, XenRng *rng) {
    uint16_t codes[ANA_MAX_OUTCOMES];
    uint32_t w[ANA_MAX_OUTCOMES], total;
    int n = ana_chance_outcomes(t, s, codes, w, &total);
    uint32_t r = xen_rng_below(rng, total);
    int i = 0;
    while (i < n - 1 && r >= w[i]) r -= w[i++];
    return codes[i];
}

int ana_is_legal(const AnaTables *t, const AnaState *s, uint16_t code) {
    uint16_t list[ANA_MAX_ACTIONS];
    int lo = 0, hi = ana_legal_actions(t, s, list) - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (list[mid] == code) return 1;
        if (list[mid] < code) lo = mid + 1; else hi = mid - 1;
    }
    return 0;
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
            if (c != ANA_NONE || s->sq_damage[q] || s->sq_bonus[q]) return "leftovers on an empty square";
            continue;
        }
        if (c >= t->n_cards || t->card[c].kind == ANA_EVENT_CARD) return "a bad card on the grid";
        if ((t->card[c].kind == ANA_CHARACTER) != (int)((s->chars >> q) & 1)) return "chars bitboard";
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
        if (c >= t->n_cards || t->card[c].pile == ANA_PILE_NONE) return "a market card outside every pile";
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
        if (c >= t->n_cards || t->card[c].pile != ANA_PILE_ROW) return "a row card of the wrong pile";
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
    if ((s->outcome != ANA_RES_NONE) != (st == ANA_SG_OVER) || s->outcome > ANA_RES_DRAW)
        return "outcome";
    int uses_sub = st == ANA_SG_DEAL || st == ANA_SG_SETUP_PILE || st == ANA_SG_SETUP_DRAW ||
                   st == ANA_SG_REFILL;
    if (!uses_sub && s->sub) return "sub outside its stages";
    if (uses_sub && s->sub > (st == ANA_SG_REFILL ? 3 : st == ANA_SG_SETUP_PILE ? 2 : 1)) return "sub";
    if ((st == ANA_SG_SETUP_DRAW || st == ANA_SG_END_DRAW) != (s->draws_left > 0)) return "draws_left";
    if (s->draws_left > 3) return "draws_left";
    if (st == ANA_SG_REFILL ? (s->ret != ANA_SG_STANDBY1 && s->ret != ANA_SG_STANDBY2) : s->ret)
        return "ret";
    int battle = st == ANA_SG_RESPONSE || st == ANA_SG_NULLIFY_RESPONSE || st == ANA_SG_STRIKE ||
                 st == ANA_SG_EVADE;
    if (!battle && (s->b_att | s->b_tgt | s->b_step | s->b_charge | s->b_resp)) return "battle leftovers";
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
    int pile = st == ANA_SG_SETUP_ROW ? ANA_PILE_ROW
             : st == ANA_SG_SETUP_PILE || st == ANA_SG_REFILL ? s->sub : -1;
    if (pile == ANA_PILE_ROW && row_count(s) == ANA_ROW_SIZE) return "a reveal into a full row";
    if (pile >= 0 && pile < ANA_PILE_ROW && s->top[pile] != ANA_NONE) return "a reveal onto a face-up top";
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
    if (st != ANA_SG_RESPONSE && st != ANA_SG_NULLIFY_RESPONSE && st != ANA_SG_STRIKE && st != ANA_SG_EVADE)
        return NULL;   /* no battle: check_control wants its bookkeeping zero */
    if (!is_character_of(s, s->b_att, p)) return "the attacker is not a character of the active player";
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
           : resp == ANA_EV_AMBUSH && (step == ANA_BS_AMBUSH || step == ANA_BS_MAIN_AFTER_AMBUSH);
        ok = ok && (step == ANA_BS_MAIN || target_is_character);
        break;
    default: ok = resp == ANA_EV_EVASION && target_is_character; break;   /* EVADE */
    }
    return ok ? NULL : "a battle stage with a step or response that does not lead to it";
}

/* The event window: the event played is a face-up event of the active
 * player, with an argument its effect takes (what event_effect reads). */
static const char *check_event(const AnaTables *t, const AnaState *s) {
    if (s->stage != ANA_SG_EVENT_WINDOW) return NULL;   /* check_control wants the fields zero */
    int p = s->active, k = s->ev_slot;
    if (k >= ANA_SLOTS || s->pl[p].slot[k] == ANA_NONE || !slot_up(s, p, k))
        return "the event played is not a face-up event of the active player";
    uint64_t args = event_args(s, p, t->card[s->pl[p].slot[k]].effect);
    if (s->ev_arg >= 64 || !((args >> s->ev_arg) & 1)) return "the event's argument is not one it takes";
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
const char *ana_state_check(const AnaTables *t, const AnaState *s) {
    const char *why;
    if ((why = check_control(t, s)) || (why = check_grid(t, s)) || (why = check_players(t, s)) ||
        (why = check_market(t, s)) || (why = check_setup(t, s)) || (why = check_reveals(t, s)) ||
        (why = check_supply(t, s)) || (why = check_battle(s)) || (why = check_event(t, s)) ||
        (why = check_not_lost(t, s)))
        return why;
    if (s->hash != ana_hash_from_scratch(t, s)) return "incremental hash differs from the recomputed one";
    return xen_check_has_move(&anabasis_game_api, t, s);
}

int ana_state_is_ok(const AnaTables *t, const AnaState *s) { return ana_state_check(t, s) == NULL; }

/* ================================================================ information */

/* The opponent's unseen multiset U (§9): hand + DECK + face-down slots +
 * to-deal (during setup). */
static int unseen_of(const AnaTables *t, const AnaState *s, int o, uint8_t u[ANA_MAX_CARDS]) {
    const AnaPlayer *op = &s->pl[o];
    int n = 0;
    for (int c = 0; c < ANA_MAX_CARDS; c++) {
        u[c] = (uint8_t)(op->deck[c] + op->hand[c] + (c < t->n_cards ? to_deal_count(t, s, o, c) : 0));
        n += u[c];
    }
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, o, k)) u[op->slot[k]]++, n++;
    return n;
}

/* The full hash with the opponent's hidden bytes (hand, DECK, face-down slot
 * identities) taken out and what `player` knows of them put in: U, and which
 * slots are face down (hand and DECK sizes are public bytes already). */
uint64_t ana_information_set_key(const AnaTables *t, const AnaState *s, int player) {
    int o = 1 - player;
    const AnaPlayer *op = &s->pl[o];
    size_t base = (size_t)((const uint8_t *)op - (const uint8_t *)s);
    const uint64_t *z_deck = &t->zobrist[base + offsetof(AnaPlayer, deck)];
    const uint64_t *z_hand = &t->zobrist[base + offsetof(AnaPlayer, hand)];
    const uint64_t *z_slot = &t->zobrist[base + offsetof(AnaPlayer, slot)];
    uint8_t u[ANA_MAX_CARDS];
    unseen_of(t, s, o, u);
    uint64_t h = s->hash + t->z_view[player];
    for (int c = 0; c < ANA_MAX_CARDS; c++)
        h += (uint64_t)u[c] * t->z_unseen[c] - (uint64_t)op->deck[c] * z_deck[c] -
             (uint64_t)op->hand[c] * z_hand[c];
    for (int k = 0; k < ANA_SLOTS; k++)
        if (slot_face_down(s, o, k)) h += t->z_face_down[k] - (uint64_t)op->slot[k] * z_slot[k];
    return h;
}

/* One card drawn uniformly from the multiset u (only events if events_only),
 * removed from it: r = below(total), the card whose cumulative range in
 * ascending id order holds r. */
static int draw_from(const AnaTables *t, uint8_t u[ANA_MAX_CARDS], int events_only, XenRng *rng) {
    uint32_t total = 0;
    for (int c = 0; c < t->n_cards; c++)
        if (!events_only || t->card[c].kind == ANA_EVENT_CARD) total += u[c];
    uint32_t r = xen_rng_below(rng, total);
    for (int c = 0; c < t->n_cards; c++) {
        if (events_only && t->card[c].kind != ANA_EVENT_CARD) continue;
        if (r < u[c]) {
            u[c]--;
            return c;
        }
        r -= u[c];
    }
    assert(0);
    return -1;
}

/* §9, drawing in this order: the opponent's face-down slots (slot order, from
 * the events of U), during setup the to-deal multiset (from the remaining
 * events of U; it is stored implicitly as the starting events minus the
 * slots, which is the same multiset), then the hand (hand-size cards from
 * the rest); the rest is the DECK. */
void ana_resample(const AnaTables *t, const AnaState *s, int player, XenRng *rng, AnaState *out) {
    int o = 1 - player, hand_n = s->pl[o].hand_n, to_deal = to_deal_total(t, s, o), fd[ANA_SLOTS];
    uint8_t u[ANA_MAX_CARDS];
    unseen_of(t, s, o, u);
    for (int k = 0; k < ANA_SLOTS; k++) fd[k] = slot_face_down(s, o, k);
    if (out != s) *out = *s;   /* everything read from s is read above: out may be s */
    AnaPlayer *op = &out->pl[o];
    for (int c = 0; c < t->n_cards; c++) {
        set8(t, out, &op->deck[c], 0);
        set8(t, out, &op->hand[c], 0);
    }
    for (int k = 0; k < ANA_SLOTS; k++)
        if (fd[k]) set8(t, out, &op->slot[k], draw_from(t, u, 1, rng));
    for (int i = 0; i < to_deal; i++) draw_from(t, u, 1, rng);
    for (int i = 0; i < hand_n; i++) ms_add(t, out, op->hand, draw_from(t, u, 0, rng), 1);
    for (int c = 0; c < t->n_cards; c++) set8(t, out, &op->deck[c], u[c]);
    debug_check(t, out);
}

/* ================================================================ playouts */

static uint16_t random_code(const AnaTables *t, const AnaState *s, XenRng *rng, uint16_t *buf) {
    if (ana_is_chance(s)) return ana_sample_chance(t, s, rng);
    int n = ana_legal_actions(t, s, buf);
    return buf[xen_rng_below(rng, (uint32_t)n)];
}

uint64_t ana_random_playout(const AnaTables *t, AnaState *s, XenRng *rng) {
    uint16_t buf[ANA_MAX_ACTIONS];
    uint64_t n = 0;
    while (s->stage != ANA_SG_OVER) {
        ana_apply(t, s, random_code(t, s, rng, buf), NULL);
        n++;
    }
    return n;
}

uint64_t ana_random_games(const AnaTables *t, const AnaState *start, int n_games, uint64_t seed) {
    XenRng rng;
    xen_rng_seed(&rng, seed);
    uint64_t total = 0;
    for (int g = 0; g < n_games; g++) {
        AnaState s = *start;
        total += ana_random_playout(t, &s, &rng);
    }
    return total;
}

uint64_t ana_random_actions(const AnaTables *t, const AnaState *start, uint64_t n, uint64_t seed) {
    uint16_t buf[ANA_MAX_ACTIONS];
    XenRng rng;
    xen_rng_seed(&rng, seed);
    if (start->stage == ANA_SG_OVER) return 0;
    AnaState s = *start;
    for (uint64_t i = 0; i < n; i++) {
        if (s.stage == ANA_SG_OVER) s = *start;
        ana_apply(t, &s, random_code(t, &s, &rng, buf), NULL);
    }
    return n;
}

uint64_t ana_apply_undo_pairs(const AnaTables *t, const AnaState *start, uint64_t n, uint64_t seed) {
    uint16_t buf[ANA_MAX_ACTIONS];
    XenRng rng;
    xen_rng_seed(&rng, seed);
    if (start->stage == ANA_SG_OVER) return 0;
    AnaState s = *start;
    AnaUndo u;
    for (uint64_t i = 0; i < n; i++) {
        if (s.stage == ANA_SG_OVER) s = *start;
        int m = ana_legal_actions(t, &s, buf);
        ana_apply(t, &s, buf[xen_rng_below(&rng, (uint32_t)m)], &u);
        ana_undo(t, &s, &u);
        ana_apply(t, &s, random_code(t, &s, &rng, buf), NULL);
    }
    return n;
}

uint64_t ana_perft(const AnaTables *t, AnaState *s, int depth) {
    if (depth <= 0) return 1;
    uint16_t list[ANA_MAX_ACTIONS];
    int n = ana_legal_actions(t, s, list);
    if (depth == 1) return (uint64_t)n;
    AnaUndo u;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ana_apply(t, s, list[i], &u);
        total += ana_perft(t, s, depth - 1);
        ana_undo(t, s, &u);
    }
    return total;
}
