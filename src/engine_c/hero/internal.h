/* internal.h - what the files of the Hero core share (not part of its
 * interface, hero.h): the apply context and its hashed setters, unit and row
 * queries, and the functions one file of the core calls in another.
 *
 * The core, by concern (the same files as the Anabasis core's):
 *   tables.c   card data, the two seats and Zobrist keys (hero_tables_init)
 *   state.c    who is to move, results, the hash from scratch, state checks
 *   rules.c    the rules: units, settle, effects, attacks, turns; apply, undo
 *   moves.c    legal actions and chance outcomes
 *   views.c    information sets and resampling
 *   playout.c  the static evaluation and the playout policy
 *   tensors.c  the information-state and observation tensors (tensor.h)
 *   adapter.c  the game interface, perft and the speed loops (game_adapter.h)
 *
 * Every write to the state goes through w8 / w32 / w8_hidden, which keep the
 * Zobrist hash (and the hidden sums) up to date. Everything an action does
 * happens inside one Ctx, which also carries what never survives an action: `special_winner` and the refs
 * being followed through removals (the effect target, the two battlers).
 */
#ifndef XENOPHON_HERO_INTERNAL_H
#define XENOPHON_HERO_INTERNAL_H

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "codes.h"
#include "hero.h"
#include "runs.h"
#include "zobrist.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { REGION32_BEGIN = 8, REGION32_END = 264, REGION8_END = offsetof(HeroState, hidden) };

/* Debug builds (XENOPHON_DEBUG) check every invariant, the hash and the
 * information-set keys included, after every apply, undo and resample; after
 * an unkeyed apply (rules_unkeyed.c), every invariant but those. */
#ifdef XENOPHON_DEBUG
#ifdef XEN_UNKEYED
#define debug_check(t, s) xen_debug_report("hero", hero_state_check_unkeyed((t), (s)))
#else
#define debug_check(t, s) xen_debug_report("hero", hero_state_check((t), (s)))
#endif
#else
#define debug_check(t, s) ((void)0)
#endif


/* ============================================================ apply context */

/* Refs followed through removals while an action resolves. */
enum { REF_TARGET = 0, REF_X = 1, REF_Y = 2, N_REFS = 3 };

typedef struct Ctx {
    const HeroTables *t;
    HeroState *s;
    int special_winner; /* -1, or the seat a win_if_units made win */
    uint8_t ref[N_REFS];
    /* A unit's damage rose since the last settle. Only then can a unit have
     * died (powers are >= 1 and pumps >= 0, and a settle leaves no unit with
     * damage >= power): settle looks for deaths only then. */
    uint8_t damaged;
    /* An HP or a deck size changed since the last end check. Only then can
     * a seat have lost (a game that goes on has HP >= 1 and a deck in both
     * seats, state.c): the end check looks at them only then. */
    uint8_t vitals;
} Ctx;

/* The context of one action (or of a resample's writes) on s. */
static inline Ctx ctx_of(const HeroTables *t, HeroState *s) {
    Ctx c = {t, s, -1, {HERO_REF_NONE, HERO_REF_NONE, HERO_REF_NONE}, 0, 0};
    return c;
}

/* Hashed setters: every state write goes through them. w8_hidden writes a
 * hand or deck count, the bytes a seat hides, whose keys in the hidden sums
 * are not 0 (tables.c): the hash and the hidden sums follow (zobrist.h).
 * w8 and w32 write every other field: their hidden keys are 0, so only the
 * hash follows (the same sums, for a third of the multiplications). */
static inline void w8_hidden(Ctx *c, uint8_t *p, int v) {
    xen_set_u8(c->s, c->s->hidden, c->t->zobrist, p, v);
}

static inline void w8(Ctx *c, uint8_t *p, int v) { xen_set_u8(c->s, NULL, c->t->zobrist, p, v); }

static inline void w32(Ctx *c, int32_t *p, int32_t v) {
    xen_set_i32(c->s, NULL, c->t->zobrist, p, v);
}

/* hero_state_check without the hash and the hidden sums (state.c), for the
 * states of unkeyed applies, which keep neither; the check of those alone
 * (adapter.c, game_adapter.h). */
const char *hero_state_check_unkeyed(const HeroTables *t, const HeroState *s);
const char *hero_check_keys(const HeroTables *t, const HeroState *s);

/* The legal codes of a decision as runs (runs.h), ascending (moves.c): the
 * playout policy picks from them without listing the codes. */
enum { HERO_MAX_RUNS = HERO_MAX_CARDS + 16 }; /* a run per card held, and a few */
int hero_decision_runs(const HeroTables *t, const HeroState *s, XenRun *runs);


/* ============================================================ who is to move */

/* hero_current_player (§3), inline for the move generator, the rules and the
 * walks (adapter.c), which ask it once or more per action. The common case
 * first: nothing pending in a decision phase (action 2, window 3, battle 4,
 * defend 5), where the odd phases are the inactive seat's. */
static inline int current_player_of(const HeroState *s) {
    int phase = s->phase;
    if (s->pend_kind == HERO_PEND_NONE && (unsigned)(phase - HERO_PH_ACTION) < 4)
        return (phase & 1) ? 1 - s->active : s->active;
    if (phase == HERO_PH_OVER) return XEN_TERMINAL;
    if (phase == HERO_PH_SETUP || phase == HERO_PH_DRAW) return XEN_CHANCE;
    if (s->pend_kind == HERO_PEND_DRAW) return XEN_CHANCE;
    if (s->pend_kind == HERO_PEND_TARGET) return s->pend_player;
    if (phase == HERO_PH_WINDOW || phase == HERO_PH_DEFEND) return 1 - s->active;
    return s->active;
}
_Static_assert(HERO_PH_WINDOW == HERO_PH_ACTION + 1 && HERO_PH_DEFEND == HERO_PH_ACTION + 3 &&
                   (HERO_PH_WINDOW & 1) && (HERO_PH_DEFEND & 1) && !(HERO_PH_ACTION & 1) &&
                   !(HERO_PH_BATTLE & 1),
               "current_player_of: the decision phases, the odd ones the other seat's");


/* ======================================================== units and rows */

static inline int seat_of(int slot) { return slot / 10; }
static inline int row_of(int slot) { return slot / 5; } /* rr = seat * 2 + row */
static inline int is_front(int slot) { return (slot % 10) < 5; }
static inline int occupied(const HeroState *s, int slot) { return slot % 5 < s->row_n[slot / 5]; }

/* Seat u's units as a 10-bit mask of relative slots (bit i: slot u * 10 + i;
 * 0..4 front, 5..9 back): rows are left-packed, so no slot is tested. */
static inline uint32_t seat_units(const HeroState *s, int u) {
    return ((1u << s->row_n[u * 2]) - 1) | (((1u << s->row_n[u * 2 + 1]) - 1) << 5);
}

/* Derived unit values (§1): printed + race bonus + pumps (hero_power, hero_attack). */
static inline int32_t power_of(const HeroTables *t, const HeroState *s, int slot) {
    return t->seat[seat_of(slot)].power[s->card[slot]] + s->pump_power[slot];
}

static inline int32_t attack_of(const HeroTables *t, const HeroState *s, int slot) {
    return t->seat[seat_of(slot)].attack[s->card[slot]] + s->pump_attack[slot];
}

static inline int keywords_at(const HeroTables *t, const HeroState *s, int slot) {
    return t->seat[seat_of(slot)].keywords[s->card[slot]];
}

/* Seat u's slots whose flags have the bit `flag` (HERO_F_*), as a mask of
 * relative slots like seat_units' (empty slots have flags 0). With SSE2 the
 * 10 flag bytes are tested at once: the load reads the 6 bytes after them
 * too (row_n, hand_n, inside the state), which the mask drops. */
static inline uint32_t seat_flagged(const HeroState *s, int u, int flag) {
#ifdef __SSE2__
    __m128i f = _mm_loadu_si128((const __m128i *)&s->flags[u * 10]);
    __m128i off = _mm_cmpeq_epi8(_mm_and_si128(f, _mm_set1_epi8((char)flag)), _mm_setzero_si128());
    return ~(uint32_t)_mm_movemask_epi8(off) & 0x3FF;
#else
    uint32_t out = 0;
    for (int i = 0; i < 10; i++)
        if (s->flags[u * 10 + i] & flag) out |= 1u << i;
    return out;
#endif
}
_Static_assert(offsetof(HeroState, flags) + HERO_SLOTS + 6 <= sizeof(HeroState),
               "seat_flagged's load");

/* Occupied slots as a 20-bit mask. */
static inline uint32_t occupied_mask(const HeroState *s) {
    return seat_units(s, 0) | seat_units(s, 1) << 10;
}

/* The absolute ref of relative target code `rel` of the acting player u. */
static inline int abs_slot(int u, int rel) {
    return rel < 10 ? u * 10 + rel : (1 - u) * 10 + rel - 10;
}

/* Where `ref` points after the units of `mask` left at once (§2 refs). */
static inline uint8_t remap(uint8_t ref, uint32_t mask) {
    if (ref >= HERO_SLOTS) return ref;
    if ((mask >> ref) & 1) return HERO_REF_NONE;
    int base = row_of(ref) * 5;
    uint32_t below = mask & ((1u << ref) - (1u << base));
    return (uint8_t)(ref - xen_popcount64(below));
}


/* ---------------------------------------------------------------- effects and targets
 * (the tables, the rules and the move generator read them) */

static inline int effect_needs_target(int op) {
    return op == HERO_FX_DAMAGE_UNIT || op == HERO_FX_DESTROY_UNIT || op == HERO_FX_PUMP ||
           op == HERO_FX_BOUNCE || op == HERO_FX_TAP || op == HERO_FX_UNTAP;
}

static inline const HeroEffects *source_effects(const HeroTables *t, int card, int is_ability,
                                                int u) {
    return is_ability ? &t->seat[u].ability_fx : &t->card[card].effects;
}

/* §5 legal targets of an effect list for user u, as relative codes (bit r =
 * code r): units of the sides its target kind allows, without PROTECTION,
 * of power <= its destroy_max. */
static inline uint32_t legal_targets(const HeroTables *t, const HeroState *s, const HeroEffects *fx,
                                     int u) {
    uint32_t mine = fx->target == HERO_TG_ENEMY_UNIT ? 0 : seat_units(s, u);
    uint32_t theirs = fx->target == HERO_TG_OWN_UNIT ? 0 : seat_units(s, 1 - u);
    uint32_t out = 0;
    for (uint32_t m = mine | theirs << 10; m; m &= m - 1) {
        int rel = __builtin_ctz(m), slot = abs_slot(u, rel);
        if (keywords_at(t, s, slot) & HERO_KW_PROTECTION) continue;
        if (power_of(t, s, slot) <= fx->destroy_max) out |= 1u << rel;
    }
    return out;
}

#endif
