/* hero.h - the "A Hero incarnation" rules core: tables, POD state, actions,
 * chance, apply/undo, Zobrist hash, information sets, resampling, perft and
 * speed loops.
 *
 * The rules are docs/hero-engine.md (the spec); section numbers below refer
 * to it. C11, no allocation, no Python: the bindings (src/bindings/hero.cpp)
 * call it, and the search through its game interface (game_api.h,
 * adapter.c). Its files are listed in internal.h.
 *
 * ---------------------------------------------------------------- actions (§8)
 *
 *   code = kind << 12 | x << 6 | y     (XenCode, codes.h; x, y in 0..63)
 *
 *   kind  0 END        1 PASS         2 MOVE 0 s      3 DEPLOY c row(0 front, 1 back)
 *         4 PLAY c t   5 RETAINER c 0 6 ABILITY 0 t   7 TARGET 0 t
 *         8 ATTACK a t 9 GUARD 0 g    15 DRAW c 0 (the only chance kind)
 *
 *   Slots are relative to the acting player: 0..4 my F1..F5, 5..9 my B1..B5,
 *   10..14 op.F1..op.F5, 15..19 op.B1..op.B5, 20 the enemy avatar (ATTACK),
 *   63 no target. Legal codes are produced kind-major, then x, then y, so the
 *   lists come out ascending without sorting.
 *
 * ---------------------------------------------------------------- units
 *
 * Inside the state a unit lives at an *absolute* slot 0..19:
 *   slot = seat * 10 + row * 5 + i     (row 0 front, 1 back; i = 0-based position)
 * and a row is rr = seat * 2 + row, holding slots rr*5 .. rr*5+4. Rows are
 * left-packed (§2): slots rr*5 .. rr*5 + row_n[rr] - 1 are occupied, every
 * other slot is all zero. A *ref* (§2) is an absolute slot, HERO_REF_NONE
 * (GONE, or no target) or HERO_REF_AVATAR.
 *
 * ---------------------------------------------------------------- state
 *
 * HeroState is one fixed-size struct without pointers: copy it with memcpy,
 * send it as bytes. It is zeroed on creation and every write goes through the
 * hashed setters (internal.h), so two equal game states are equal byte for byte
 * (padding included; "none" pending/attack fields are zero). Offsets in bytes
 * (checked by _Static_assert in state.c):
 *
 *     0  hash              u64  incremental Zobrist hash (below)
 *   ---- 32-bit region [8, 264): signed values
 *     8  hp[2]             i32  may go below 0 (E-16)
 *    16  draws_left        i32  pending draw: k (draw(n) takes n up to 100000)
 *    20  turn              i32  0 during setup, then 1, 2, ...
 *    24  damage[20]        i32  per absolute slot
 *   104  pump_power[20]    i32
 *   184  pump_attack[20]   i32
 *   ---- byte region [264, 840): unsigned values
 *   264  card[20]          u8   card id, or HERO_TOKEN (64) for a Retainer
 *   284  flags[20]         u8   HERO_F_USED | HERO_F_CAN_MOVE
 *   304  row_n[4]          u8   units in row rr (0..5)
 *   308  hand_n[2]         u8   hand sizes (a deck holds at most 200 cards)
 *   310  deck_n[2]         u8
 *   312  charisma_used[2]  u8   <= the avatar's charisma (<= 99)
 *   314  ability_used[2]   u8
 *   316  phase             u8   HERO_PH_*
 *   317  active            u8   seat of the active player
 *   318  result            u8   XEN_RES_*
 *   319  pend_kind         u8   HERO_PEND_NONE / TARGET / DRAW
 *   320  pend_source       u8   card id (for an ability draw: 0, see pend_ability)
 *   321  pend_ability      u8   1: the pending draw comes from the avatar ability
 *   322  pend_player       u8
 *   323  pend_effect       u8   index i of the suspended draw effect
 *   324  pend_target       u8   ref of the suspended effect list's target
 *   325  att_from          u8   ref of the attacker (phase defend only)
 *   326  att_to            u8   ref of the attack target, or HERO_REF_AVATAR
 *   327  zero_             u8
 *   328  hand[2][64]       u8   multisets: count per card id
 *   456  deck[2][64]       u8
 *   584  grave[2][64]      u8
 *   712  known[2][64]      u8   copies known to be in the hand (B11), <= hand
 *   840  hidden[2]         u64  the hidden sums of zobrist.h (seat 0, seat 1)
 *   856  sizeof(HeroState)
 *
 * Not stored: the exile zone (no effect of the vocabulary puts a card there,
 * E-18: it is always empty and reported as {}), `special_winner` (set by
 * win_if_units and consumed by the settle right after it, so it lives in the
 * apply context and is never part of a node), the setup drawer (derived from
 * the hand sizes), the decklists (tables).
 *
 * Hash: the additive Zobrist hash of zobrist.h, over the 32-bit region as
 * signed values and over the byte region byte by byte, odd keys from a fixed
 * seed. The hidden sums are kept by the same setters over each seat's hand
 * and deck counts; they make hero_information_set_key O(1) (views.c).
 *
 * Undo: see the measurement in the comment above hero_apply in rules.c.
 */
#ifndef XENOPHON_HERO_H
#define XENOPHON_HERO_H

#include <stddef.h>
#include <stdint.h>

#include "codes.h"
#include "learned.h"
#include "network.h"
#include "game_api.h"
#include "rng.h"
#include "tensor.h"
#include "zobrist_key.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HERO_MAX_CARDS = 64, /* spec limit: a card id fits 6 bits */
    HERO_MAX_EFFECTS = 4,
    HERO_ROW_SIZE = 5,
    HERO_SLOTS = 20, /* absolute unit slots, 2 seats x 2 rows x 5 */
    HERO_MAX_DECK = 200,
    HERO_MAX_NUMBER = 100000, /* bound on power and effect arguments */
    /* legal lists hold XEN_MAX_ACTIONS codes: the tables refuse a card set
     * whose worst case, 81 + 21 N, is above it */
    HERO_TOKEN = 64,      /* card code of a Retainer token */
    HERO_REF_NONE = 0xFF, /* GONE, or no target */
    HERO_REF_AVATAR = 0xFE,
    HERO_NO_TARGET = 63,   /* relative target code NONE */
    HERO_AVATAR_SLOT = 20, /* relative code of the enemy avatar (ATTACK) */
};

/* Action kinds (code >> 12). */
enum {
    HERO_END = 0,
    HERO_PASS = 1,
    HERO_MOVE = 2,
    HERO_DEPLOY = 3,
    HERO_PLAY = 4,
    HERO_RETAINER = 5,
    HERO_ABILITY = 6,
    HERO_TARGET = 7,
    HERO_ATTACK = 8,
    HERO_GUARD = 9,
    HERO_DRAW = 15,
};

/* Codes of §1. */
enum { HERO_R = 0, HERO_U = 1, HERO_G = 2, HERO_K = 3, HERO_N = 4 }; /* factions */
enum {
    HERO_KW_RANGED = 1,
    HERO_KW_BLITZ = 2,
    HERO_KW_FIRST_STRIKE = 4,
    HERO_KW_FLYING = 8,
    HERO_KW_PROTECTION = 16,
    HERO_KW_HORDE = 32,
};
enum { HERO_TG_NONE = 0, HERO_TG_UNIT = 1, HERO_TG_OWN_UNIT = 2, HERO_TG_ENEMY_UNIT = 3 };
enum {
    HERO_FX_DAMAGE_UNIT = 1,
    HERO_FX_DESTROY_UNIT = 2,
    HERO_FX_DAMAGE_AVATAR = 3,
    HERO_FX_HEAL_AVATAR = 4,
    HERO_FX_LOSE_HP = 5,
    HERO_FX_DRAW = 6,
    HERO_FX_PUMP = 7,
    HERO_FX_BOUNCE = 8,
    HERO_FX_TAP = 9,
    HERO_FX_UNTAP = 10,
    HERO_FX_WIN_IF_UNITS = 11,
};
enum {
    HERO_AB_NONE = 0,
    HERO_AB_ACTIVATED = 1,
    HERO_AB_ON_ENEMY_DESTROYED = 2,
    HERO_AB_RACE_BONUS = 3,
};

/* HeroState.phase (§3), .pend_kind, unit flags (.result: XEN_RES_*, codes.h). */
enum {
    HERO_PH_SETUP = 0,
    HERO_PH_DRAW,
    HERO_PH_ACTION,
    HERO_PH_WINDOW,
    HERO_PH_BATTLE,
    HERO_PH_DEFEND,
    HERO_PH_OVER,
};
enum { HERO_PEND_NONE = 0, HERO_PEND_TARGET = 1, HERO_PEND_DRAW = 2 };
enum { HERO_F_USED = 1, HERO_F_CAN_MOVE = 2 };

typedef struct HeroState {
    uint64_t hash;
    /* 32-bit region */
    int32_t hp[2];
    int32_t draws_left;
    int32_t turn;
    int32_t damage[HERO_SLOTS];
    int32_t pump_power[HERO_SLOTS];
    int32_t pump_attack[HERO_SLOTS];
    /* byte region */
    uint8_t card[HERO_SLOTS];
    uint8_t flags[HERO_SLOTS];
    uint8_t row_n[4];
    uint8_t hand_n[2];
    uint8_t deck_n[2];
    uint8_t charisma_used[2];
    uint8_t ability_used[2];
    uint8_t phase, active, result, pend_kind;
    uint8_t pend_source, pend_ability, pend_player, pend_effect;
    uint8_t pend_target, att_from, att_to, zero_;
    uint8_t hand[2][HERO_MAX_CARDS];
    uint8_t deck[2][HERO_MAX_CARDS];
    uint8_t grave[2][HERO_MAX_CARDS];
    uint8_t known[2][HERO_MAX_CARDS];
    uint64_t hidden[2];
} HeroState;

/* The undo record: the whole previous state (see the measurement in rules.c). */
typedef struct HeroUndo {
    HeroState prev;
} HeroUndo;

/* ------------------------------------------------------------ card specs */

/* Plain C input of hero_tables_init, filled by the binding from the plain data
 * of xenophon.hero.cards (HeroCardSet.core_data). Race ids are small integers
 * of the caller's choice (core_data numbers them by first appearance, avatars
 * then cards). */
typedef struct HeroEffectSpec {
    int op;   /* HERO_FX_* */
    int a, b; /* arguments (pump: a = power, b = attack), 0..100000 */
} HeroEffectSpec;

typedef struct HeroCardSpec {
    int is_unit;         /* 1 unit, 0 operation */
    int faction;         /* HERO_R .. HERO_N */
    int cost;            /* 1..99 */
    int cond_colours[4]; /* condition symbols R, U, G, K */
    int cond_generic;    /* the condition's number */
    int race;            /* units: race id */
    int power, attack;   /* units */
    int keywords;        /* HERO_KW_* bits */
    int fast;            /* operations: 1 fast, 0 normal */
    int target;          /* HERO_TG_* shared by all effects (E-21) */
    int n_effects;
    HeroEffectSpec effects[HERO_MAX_EFFECTS];
} HeroCardSpec;

typedef struct HeroAvatarSpec {
    int faction, hp, hand, charisma, race;
    int ability;   /* HERO_AB_* */
    int target;    /* activated: HERO_TG_* */
    int n_effects; /* activated and on_enemy_destroyed */
    HeroEffectSpec effects[HERO_MAX_EFFECTS];
    int bonus_race, bonus_power, bonus_attack; /* race_bonus */
} HeroAvatarSpec;

/* ------------------------------------------------------------ tables */

typedef struct HeroEffect {
    int32_t op, a, b;
} HeroEffect;

/* An effect list with its target kind: a card's or an avatar ability's. */
typedef struct HeroEffects {
    uint8_t n, target;
    int32_t destroy_max; /* min max_power of its destroy_unit effects, else INT32_MAX */
    HeroEffect fx[HERO_MAX_EFFECTS];
} HeroEffects;

typedef struct HeroCard {
    uint8_t is_unit, faction, cost, fast, keywords;
    uint8_t cond[4];
    int32_t cond_total; /* symbols + number */
    HeroEffects effects;
} HeroCard;

/* What depends on the seat: its avatar, its decklist, and the derived
 * values of its units (race bonus folded in, §1), indexed by card code
 * (HERO_TOKEN included). */
typedef struct HeroSeat {
    int32_t hp, hand, charisma;
    uint8_t faction, ability;
    HeroEffects ability_fx;            /* activated / on_enemy_destroyed */
    int32_t power[HERO_MAX_CARDS + 1]; /* printed + race bonus */
    int32_t attack[HERO_MAX_CARDS + 1];
    uint8_t unit_faction[HERO_MAX_CARDS + 1];
    uint8_t keywords[HERO_MAX_CARDS + 1]; /* a token has none */
    uint8_t decklist[HERO_MAX_CARDS];
    int32_t deck_size;
} HeroSeat;

/* Everything fixed for one game: card data, the two seats, Zobrist keys. */
typedef struct HeroTables {
    int n_cards;
    /* The set's ids by kind, as masks (bit c: id c), for the move generator. */
    uint64_t unit_ids, op_ids, fast_op_ids;
    HeroCard card[HERO_MAX_CARDS];
    HeroSeat seat[2];
    XenKey zobrist[sizeof(HeroState)]; /* per byte offset (zobrist.h); 0 outside
                                             hashed fields */
    uint64_t z_view[2];                /* information-set keys: whose view */
    XenLearnedEval learned;            /* the learned evaluation's weights (learned.h) */
    XenNetwork network;                /* the sparse-input network's weights (network.h) */
} HeroTables;

/* ------------------------------------------------------------ functions */

/* Build the tables from the card set and the two seats (avatar + decklist
 * counts per card id). Returns 0, or -1 with a one-line reason in err. Refuses
 * anything out of the spec's ranges and any card set whose worst-case number
 * of legal codes, 81 + 21 N (§8), exceeds XEN_MAX_ACTIONS (N <= 44). */
int hero_tables_init(HeroTables *t, const HeroCardSpec *cards, int n_cards,
                     const HeroAvatarSpec avatars[2], const int decks[2][HERO_MAX_CARDS], char *err,
                     size_t err_size);

/* The state at creation (§4): the first setup chance node (or, with two
 * empty starting hands, the first Draw phase). */
void hero_initial_state(const HeroTables *t, HeroState *s);

/* 0 or 1 at a decision, XEN_CHANCE, XEN_TERMINAL. */
int hero_current_player(const HeroState *s);
int hero_is_chance(const HeroState *s);
int hero_is_terminal(const HeroState *s);
/* The seat that draws at a chance node (§3). */
int hero_drawer(const HeroTables *t, const HeroState *s);

/* Legal codes (decision) or DRAW outcome codes (chance), ascending; out must
 * hold XEN_MAX_ACTIONS codes. Returns the count (0 when over). */
int hero_legal_actions(const HeroTables *t, const HeroState *s, uint16_t *out);

/* Chance outcomes with integer weights (deck counts); probability =
 * weight / *total. Buffers of HERO_MAX_CARDS. Returns the count (0 at a decision). */
int hero_chance_outcomes(const HeroTables *t, const HeroState *s, uint16_t *codes,
                         uint32_t *weights, uint32_t *total);

/* 1 if code is legal here (a decision code or a chance outcome). */
int hero_is_legal(const HeroTables *t, const HeroState *s, uint16_t code);

/* Play a legal code; u (may be NULL) receives what hero_undo needs. Codes are
 * not checked (use hero_is_legal); debug builds assert. */
void hero_apply(const HeroTables *t, HeroState *s, uint16_t code, HeroUndo *u);
void hero_undo(const HeroTables *t, HeroState *s, const HeroUndo *u);
/* hero_apply for playouts (rules_unkeyed.c): the same rules, but neither the
 * hash nor the hidden sums are kept, so the state's hash and information-set
 * keys are stale afterwards (until hero_rekey); no undo. */
void hero_apply_unkeyed(const HeroTables *t, HeroState *s, uint16_t code);

/* A chance outcome with the true probabilities. */
uint16_t hero_sample_chance(const HeroTables *t, const HeroState *s, XenRng *rng);

/* [r0, r1]: +1 win, -1 loss, 0 draw or game not over. */
void hero_returns(const HeroState *s, int out[2]);

uint64_t hero_hash_from_scratch(const HeroTables *t, const HeroState *s);
/* The hash and the hidden sums recomputed from the other bytes (for states
 * written without the setters: the dict reader, fuzzing). */
void hero_rekey(const HeroTables *t, HeroState *s);

/* NULL when every invariant holds, else a static message naming the first
 * broken one (the hash included). */
const char *hero_state_check(const HeroTables *t, const HeroState *s);

/* Derived unit values (§1) of the unit at absolute slot `slot`. */
int32_t hero_power(const HeroTables *t, const HeroState *s, int slot);
int32_t hero_attack(const HeroTables *t, const HeroState *s, int slot);

/* §11: a 64-bit hash of `player`'s information view: equal views give equal
 * keys. O(1) from the hidden sums; the _from_scratch form reads every card
 * id (the state check compares the two). */
uint64_t hero_information_set_key(const HeroTables *t, const HeroState *s, int player);
uint64_t hero_information_set_key_from_scratch(const HeroTables *t, const HeroState *s, int player);

/* §11.1: 1 if `seat` is shown which code `code` (legal at s) is, 0 if it
 * sees only that an action or outcome of its kind happened. */
int hero_observed_by(const HeroTables *t, const HeroState *s, XenCode code, int seat);

/* §11: redraw the other seat's hand and deck in place, uniformly among the
 * states `player` cannot tell apart. Reads only what `player` knows. */
void hero_resample(const HeroTables *t, HeroState *s, int player, XenRng *rng);

/* Leaves of the tree of the given depth, chance nodes expanded (each
 * outcome one branch); a game that ends before the depth counts 0. */
uint64_t hero_perft(const HeroTables *t, HeroState *s, int depth);

/* n random codes from a copy of *start (uniform decisions, true-probability
 * chance), starting a new game from *start whenever one ends. Returns n
 * (0 if *start is terminal). */
uint64_t hero_random_actions(const HeroTables *t, const HeroState *start, uint64_t n,
                             uint64_t seed);
/* The same codes applied with hero_apply_unkeyed, as the search's playouts do. */
uint64_t hero_random_actions_unkeyed(const HeroTables *t, const HeroState *start, uint64_t n,
                                     uint64_t seed);

/* Random walk from a copy of *start: at each state one apply + undo of a
 * uniformly random legal code (a counted pair), then a step (uniform
 * decision, true-probability chance); a new game when one ends. Returns n
 * (0 if *start is terminal). */
uint64_t hero_apply_undo_pairs(const HeroTables *t, const HeroState *start, uint64_t n,
                               uint64_t seed);

/* ------------------------------------------------ for the search (playout.c, adapter.c) */

/* The game for the search (game_api.h): states are HeroState, tables HeroTables. */
extern const XenGameApi hero_game_api;

/* Static evaluation in [-1, 1] from `player`'s side, public information only
 * (the formula is in playout.c); the exact result at the end of the game. */
double hero_evaluate(const HeroTables *t, const HeroState *s, int player);

/* The learned evaluation (learned.h, playout.c): the tables' weights over
 * hero_features; the hand-set hero_evaluate while no weights are loaded. */
double hero_evaluate_learned(const HeroTables *t, const HeroState *s, int player);
/* The features of the learned evaluation from `player`'s side (features.c):
 * xen_feature_count(&hero_feature_set, t->n_cards) values into out. */
int hero_features(const HeroTables *t, const HeroState *s, int player, double *out);
extern const XenFeatureSet hero_feature_set;

/* The sparse-input network (network.h, net_inputs.c): a side's raw inputs,
 * HERO_NET_ZONES zones of one number per card id (zone z, card c: z * n_cards
 * + c), seat p's side of the world; returns their count. */
enum { HERO_NET_ZONES = 7 };
extern const char *const hero_net_zone_names[HERO_NET_ZONES];
int hero_net_inputs(const HeroTables *t, const HeroState *s, int p, double *out);
/* The same side as its non-zero inputs (what the evaluation sums over). */
void hero_net_side(const HeroTables *t, const HeroState *s, int p, XenNetSide *side);
/* The network's value in [-1, 1] for `player` (the hand-set hero_evaluate
 * while the tables hold no network; the exact result at the end). */
double hero_evaluate_net(const HeroTables *t, const HeroState *s, int player);
/* The network policy head's logit of each of `count` codes for the player to
 * move (network.h); 0 while the tables hold no network, else 1. */
int hero_policy_logits(const HeroTables *t, const HeroState *s, int count, const XenCode *codes,
                       double *out);

/* The playout policy at a decision node (playout.c): a uniformly random
 * legal code, with the few corrections documented there (playout.c). */
XenCode hero_playout_action(const HeroTables *t, const HeroState *s, XenRng *rng);
/* At a decision node: hero_legal_actions' list[xen_rng_below(rng, n)], drawn
 * without writing the list (game_api.h, random_decision). */
XenCode hero_random_decision(const HeroTables *t, const HeroState *s, XenRng *rng);

/* ------------------------------------------------ tensors (tensors.c, docs/tensors.md) */

/* `player`'s information-state tensor: hero_tensor_size floats into out
 * (equal for two states exactly when their information-set keys are). Returns
 * the number of floats. */
int hero_information_state_tensor(const HeroTables *t, const HeroState *s, int player, float *out);
/* `player`'s observation tensor: the information-state tensor without its
 * remembered blocks. Returns the number of floats. */
int hero_observation_tensor(const HeroTables *t, const HeroState *s, int player, float *out);
/* The blocks of the information-state tensor (XEN_MAX_TENSOR_BLOCKS entries
 * in blocks); returns their number. */
int hero_tensor_layout(const HeroTables *t, XenTensorBlock *blocks);

#ifdef __cplusplus
}
#endif

#endif
