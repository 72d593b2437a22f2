/* anabasis.h - the Anabasis rules core: tables, POD state, actions, chance,
 * apply/undo, Zobrist hash, information sets, resampling, evaluation,
 * playouts, perft.
 *
 * The rules are docs/anabasis-engine.md (the spec), section numbers below
 * refer to it. C11, no allocation, no Python: the bindings
 * (src/bindings/anabasis.cpp) call it, and the search through its game
 * interface (game_api.h, adapter.c). Its files are listed in internal.h.
 *
 * ---------------------------------------------------------------- squares
 *
 *   rank 6   35 36 37 [38] 39 40 41      q = (rank - 1) * 7 + file
 *   rank 5   28 29 30  31  32 33 34      file a = 0 .. g = 6
 *   rank 4   21 22 23  24  25 26 27      bit q of a uint64_t = square q
 *   rank 3   14 15 16  17  18 19 20      [3] = d1 castle of seat 0
 *   rank 2    7  8  9  10  11 12 13      [38] = d6 castle of seat 1
 *   rank 1    0  1  2  [3]  4  5  6      home zone: seat 0 q < 14, seat 1 q >= 28
 *             a  b  c   d   e  f  g
 *
 * ---------------------------------------------------------------- actions
 *
 *   code = kind << 12 | x << 6 | y     (XenCode, codes.h; x, y in 0..63)
 *
 *   kind  0 END         1 PASS        2 BUY t        3 BUY_PLACE t q
 *         4 PLACE t q   5 SET t       6 MOVE a b     7 ATTACK a b
 *         8 READY q     9 EVENT s arg 10 EVADE q
 *   chance outcomes: 11 DEAL t, 12 REVEAL t, 13 FIELD f, 14 DRAW t,
 *         15 STRIKE k (k: 0 miss, 1 hit, 2 crit)
 *
 *   Ascending codes are kind-major, then x, then y: every generator below
 *   emits in that order, so lists are sorted without sorting.
 *
 * ---------------------------------------------------------------- state
 *
 * AnaState is one fixed-size struct without pointers: copy it with memcpy,
 * send it as bytes. Every byte, padding included, is deterministic (the
 * state is zeroed on creation and every write goes through the hashed
 * setters (internal.h), so two equal game states are equal byte for byte.
 * Offsets in bytes (checked by _Static_assert in state.c):
 *
 *    0  hash           u64   incremental Zobrist hash (see below)
 *    8  occ[2]         u64   squares holding a card of seat 0 / seat 1
 *   24  chars          u64   squares holding a character
 *   32  ready          u64   ready characters
 *   40  moved          u64   moved characters
 *   48  face_down      u64   face-down territories
 *   56  pl[0]          AnaPlayer (208 bytes):
 *          +0   deck[48]       u8   multiset: count per card id
 *          +48  hand[48]       u8
 *          +96  flow[48]       u8
 *          +144 cemetery[48]   u8
 *          +192 deck_n, hand_n u16  totals of deck and hand
 *          +196 cem_cards      u16  characters + territories in the cemetery
 *          +198 castle_hp      i16  may go below 0 (E-8)
 *          +200 ap             u16
 *          +202 funds          u8   0..99
 *          +203 slot[3]        u8   event card id or ANA_NONE
 *          +206 slot_up        u8   bit k: slot k is face up
 *          +207 (zero)
 *  264  pl[1]
 *  472  sq_card[42]    u8    card id on the square or ANA_NONE
 *  514  sq_damage[42]  u8
 *  556  sq_bonus[42]   u16   Rally atk_bonus (u16: three Rallies of 99)
 *  640  unseen[48]     u8    market face-down cards; each card id belongs to
 *                            exactly one pile (A, B, C or the row pile)
 *  688  pile_n[4]      u16   cards in pile A, B, C, row pile
 *  696  top[3]         u8    face-up top of pile A, B, C or ANA_NONE
 *  699  row[5]         u8    face-up row, ascending card ids, ANA_NONE last
 *  704  field_rev[16]  u8    field cards in the order revealed
 *  720  field_n, field_idx, field_left    revealed count, active index, remaining
 *  723  turn, active, stage, sub, ret, draws_left, outcome
 *  730  b_att, b_tgt, b_step, b_charge, b_resp   battle bookkeeping (§4)
 *  735  ev_slot, ev_arg                          event bookkeeping (§5)
 *  737  7 zero bytes
 *  744  hidden[2]      u64   the hidden sums of zobrist.h (seat 0, seat 1)
 *                            sizeof = 760
 *
 * Hash: the additive Zobrist hash of zobrist.h over every byte of the state
 * but the hash and the hidden sums, bitboards byte by byte, keys from a fixed
 * seed. The hidden sums are kept by the same setters over each seat's hand
 * and DECK counts; they make ana_information_set_key O(1) (views.c).
 *
 * Undo: AnaUndo is a full copy of the state (Pons style), not a delta record:
 * measured faster (114 against 123 ns per apply+undo pair, and it keeps
 * playouts without undo 10% faster); the numbers are in the comment above
 * ana_apply in rules.c.
 */
#ifndef XENOPHON_ANABASIS_H
#define XENOPHON_ANABASIS_H

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
    ANA_FILES = 7,
    ANA_RANKS = 6,
    ANA_SQUARES = 42,
    ANA_MAX_CARDS = 48, /* card ids fit the 6 bits of an action code */
    ANA_MAX_FIELDS = 16,
    ANA_SLOTS = 3,
    ANA_ROW_SIZE = 5,
    /* legal lists hold XEN_MAX_ACTIONS codes (proven bound: standby <= 746,
     * field <= 600) */
    ANA_MAX_OUTCOMES = 48,
    ANA_MAX_TURNS = 200,
    ANA_MAX_OFFSETS = 168, /* a 13 x 13 pattern without its centre */
    ANA_NONE = 0xFF,
};

/* Action kinds (code >> 12). */
enum {
    ANA_END = 0,
    ANA_PASS = 1,
    ANA_BUY = 2,
    ANA_BUY_PLACE = 3,
    ANA_PLACE = 4,
    ANA_SET = 5,
    ANA_MOVE = 6,
    ANA_ATTACK = 7,
    ANA_READY = 8,
    ANA_EVENT = 9,
    ANA_EVADE = 10,
    ANA_DEAL = 11,
    ANA_REVEAL = 12,
    ANA_FIELD = 13,
    ANA_DRAW = 14,
    ANA_STRIKE = 15,
};

enum { ANA_STRIKE_MISS = 0, ANA_STRIKE_HIT = 1, ANA_STRIKE_CRIT = 2 };

/* Card kinds, keywords, market piles, effects, modes. */
enum { ANA_CHARACTER = 0, ANA_TERRITORY = 1, ANA_EVENT_CARD = 2 };
enum { ANA_MAX_COST = 99 }; /* a card's cost is 0 to ANA_MAX_COST */
enum { ANA_KW_ARMORED = 1, ANA_KW_CHARGE = 2, ANA_KW_SIEGE = 4, ANA_KW_COMMAND = 8 };
enum { ANA_PILE_A = 0, ANA_PILE_B = 1, ANA_PILE_C = 2, ANA_PILE_ROW = 3, ANA_PILE_NONE = 0xFF };
enum {
    ANA_EV_NONE = 0,
    ANA_EV_FLOOD,
    ANA_EV_EVASION,
    ANA_EV_NULLIFY,
    ANA_EV_RALLY,
    ANA_EV_FORCED_MARCH,
    ANA_EV_WINDFALL,
    ANA_EV_AMBUSH,
    ANA_EV_FORTIFY,
    ANA_EV_SABOTAGE,
};
enum {
    ANA_FX_NONE = 0,
    ANA_FX_HIT,
    ANA_FX_INCOME_FUNDS,
    ANA_FX_MOVE_COST,
    ANA_FX_PRICE,
    ANA_FX_ATTACK_COST,
};
enum { ANA_STANDARD = 0, ANA_EXPERT = 1 };

/* Internal stages of the state machine (AnaState.stage). */
enum {
    ANA_SG_DEAL = 0,    /* chance: deal a starting event to seat `sub` */
    ANA_SG_SETUP_PILE,  /* chance: turn up the top of pile `sub` */
    ANA_SG_SETUP_ROW,   /* chance: a row pile card into the row */
    ANA_SG_SETUP_FIELD, /* chance: the first field card */
    ANA_SG_SETUP_DRAW,  /* chance: seat `sub` draws (draws_left to go) */
    ANA_SG_STANDBY1,    /* decision of the active player */
    ANA_SG_FIELD,
    ANA_SG_STANDBY2,
    ANA_SG_REFILL,           /* chance: refill pile `sub` (3: row), then stage `ret` */
    ANA_SG_TURN_FIELD,       /* chance: next field card at Standby 1 step 4 */
    ANA_SG_RESPONSE,         /* decision of the defender */
    ANA_SG_NULLIFY_RESPONSE, /* decision of the attacker */
    ANA_SG_STRIKE,           /* chance: strike `b_step` */
    ANA_SG_EVADE,            /* decision of the defender */
    ANA_SG_EVENT_WINDOW,     /* decision of the opponent of the active player */
    ANA_SG_END_DRAW,         /* chance: the active player draws (draws_left) */
    ANA_SG_OVER,
    ANA_SG_COUNT,
};

/* Phases of the canonical dict (spec §8). */
enum {
    ANA_PH_STANDBY1 = 0,
    ANA_PH_FIELD,
    ANA_PH_STANDBY2,
    ANA_PH_RESPONSE,
    ANA_PH_NULLIFY,
    ANA_PH_EVADE,
    ANA_PH_CHANCE,
    ANA_PH_OVER,
};

/* AnaState.b_step: the strike pending at ANA_SG_STRIKE (§4 step 2). */
enum { ANA_BS_NONE = 0, ANA_BS_MAIN, ANA_BS_COUNTER, ANA_BS_AMBUSH, ANA_BS_MAIN_AFTER_AMBUSH };

typedef struct AnaPlayer {
    uint8_t deck[ANA_MAX_CARDS];
    uint8_t hand[ANA_MAX_CARDS];
    uint8_t flow[ANA_MAX_CARDS];
    uint8_t cemetery[ANA_MAX_CARDS];
    uint16_t deck_n, hand_n;
    uint16_t cem_cards;
    int16_t castle_hp;
    uint16_t ap;
    uint8_t funds;
    uint8_t slot[ANA_SLOTS];
    uint8_t slot_up;
    uint8_t zero_;
} AnaPlayer;

typedef struct AnaState {
    uint64_t hash;
    uint64_t occ[2];
    uint64_t chars, ready, moved, face_down;
    AnaPlayer pl[2];
    uint8_t sq_card[ANA_SQUARES];
    uint8_t sq_damage[ANA_SQUARES];
    uint16_t sq_bonus[ANA_SQUARES];
    uint8_t unseen[ANA_MAX_CARDS];
    uint16_t pile_n[4];
    uint8_t top[3];
    uint8_t row[ANA_ROW_SIZE];
    uint8_t field_rev[ANA_MAX_FIELDS];
    uint8_t field_n, field_idx, field_left;
    uint8_t turn, active, stage, sub, ret, draws_left, outcome;
    uint8_t b_att, b_tgt, b_step, b_charge, b_resp;
    uint8_t ev_slot, ev_arg;
    uint8_t zero_[7];
    uint64_t hidden[2];
} AnaState;

/* The undo record: the whole previous state (see the measurement in rules.c). */
typedef struct AnaUndo {
    AnaState prev;
} AnaUndo;

/* ------------------------------------------------------------ card specs */

/* One card as plain C data, read from the card file by the bindings.
 * Patterns are (file offset, rank offset) pairs for seat 0, flattened. */
typedef struct AnaCardSpec {
    int kind; /* ANA_CHARACTER, ANA_TERRITORY, ANA_EVENT_CARD */
    int cost, copies, start_copies;
    int pile; /* ANA_PILE_A/B/C (characters), ANA_PILE_ROW, ANA_PILE_NONE */
    int hp, atk, hit, crit;
    int keywords; /* ANA_KW_* bits */
    int ap_income, funds_income;
    int effect, amount;   /* events: ANA_EV_*, amount */
    int n_move, n_attack; /* number of (file, rank) pairs */
    const int *move;      /* 2 * n_move ints */
    const int *attack;
} AnaCardSpec;

typedef struct AnaFieldSpec {
    int duration, effect, amount; /* effect: ANA_FX_* */
} AnaFieldSpec;

typedef struct AnaCard {
    uint8_t kind, cost, copies, start_copies, pile;
    uint8_t hp, atk, hit, crit, keywords;
    uint8_t ap_income, funds_income, effect, amount;
} AnaCard;

typedef struct AnaFieldCard {
    uint8_t duration, effect;
    int8_t amount;
} AnaFieldCard;

/* Everything fixed for one game: card data, pattern masks, Zobrist keys. */
typedef struct AnaTables {
    int n_cards, n_fields, mode;
    int castle_hp, cemetery_limit;
    int start_territory; /* card id or -1 */
    int n_start_events;
    AnaCard card[ANA_MAX_CARDS];
    AnaFieldCard field[ANA_MAX_FIELDS];
    uint8_t start_events[ANA_MAX_CARDS];  /* the to-deal multiset of each player */
    uint8_t pile_cards[4][ANA_MAX_CARDS]; /* card ids of each market pile, ascending */
    uint8_t pile_size[4];                 /* number of card ids in pile_cards[i] */
    uint64_t move_mask[ANA_MAX_CARDS][2][ANA_SQUARES];
    uint64_t attack_mask[ANA_MAX_CARDS][2][ANA_SQUARES];
    uint64_t around[ANA_SQUARES]; /* the 8 squares around (COMMAND) */
    uint64_t home[2];             /* home zone without the castle */
    uint64_t castles;
    uint64_t event_ids;                      /* bit c: card c is an event */
    uint64_t territory_ids;                  /* bit c: card c is a territory */
    uint64_t cost_at_most[ANA_MAX_COST + 1]; /* [b] bit c: card c costs at most b */
    uint64_t rank_mask[ANA_RANKS];
    XenKey zobrist[sizeof(AnaState)]; /* per byte offset (zobrist.h); 0 on the hash
                                             and the hidden sums */
    uint64_t z_unseen[ANA_MAX_CARDS]; /* information sets: the opponent's U */
    uint64_t z_face_down[ANA_SLOTS];  /* opponent's slot k is face down */
    uint64_t z_view[2];               /* whose view */
    uint64_t z_start_events;          /* the starting events as unseen cards */
    XenLearnedEval learned;           /* the learned evaluation's weights (learned.h) */
    XenNetwork network;               /* the sparse-input network's weights (network.h) */
} AnaTables;

/* ------------------------------------------------------------ functions */

/* Build the tables. Returns 0, or -1 with a message in err (card set not
 * supported: too many cards, more than one starting territory, more than 3
 * starting events, a character without a pile that has market copies...). */
int ana_tables_init(AnaTables *t, const AnaCardSpec *cards, int n_cards, const AnaFieldSpec *fields,
                    int n_fields, int mode, char *err, size_t err_size);

/* The state before setup (a chance node), spec §2. */
void ana_initial_state(const AnaTables *t, AnaState *s);

/* 0 or 1 at a decision, XEN_CHANCE, XEN_TERMINAL. */
int ana_current_player(const AnaState *s);
int ana_phase(const AnaState *s);
int ana_is_chance(const AnaState *s);
int ana_is_terminal(const AnaState *s);

/* Legal actions (decision) or outcome codes (chance) in ascending order;
 * out must hold XEN_MAX_ACTIONS codes. Returns the count (0 when over). */
int ana_legal_actions(const AnaTables *t, const AnaState *s, uint16_t *out);

/* Chance outcomes with integer weights; probability = weight / *total.
 * Buffers of ANA_MAX_OUTCOMES. Returns the count (0 at a decision). */
int ana_chance_outcomes(const AnaTables *t, const AnaState *s, uint16_t *codes, uint32_t *weights,
                        uint32_t *total);

/* 1 if code is legal here (a decision or a chance outcome of nonzero weight). */
int ana_is_legal(const AnaTables *t, const AnaState *s, uint16_t code);

/* Play a legal code; u (may be NULL) receives what undo needs. Codes are not
 * checked (use ana_is_legal); debug builds assert. */
void ana_apply(const AnaTables *t, AnaState *s, uint16_t code, AnaUndo *u);
void ana_undo(const AnaTables *t, AnaState *s, const AnaUndo *u);
/* ana_apply for playouts (rules_unkeyed.c): the same rules, but neither the
 * hash nor the hidden sums are kept, so the state's hash and information-set
 * keys are stale afterwards (until ana_rekey); no undo. */
void ana_apply_unkeyed(const AnaTables *t, AnaState *s, uint16_t code);

/* Draw a chance outcome with the true probabilities: r = below(total), the
 * outcome whose cumulative weight range (ascending codes) holds r. */
uint16_t ana_sample_chance(const AnaTables *t, const AnaState *s, XenRng *rng);

/* [r0, r1]: +1 win, -1 loss, 0 draw or game not over. */
void ana_returns(const AnaState *s, int out[2]);

uint64_t ana_hash_from_scratch(const AnaTables *t, const AnaState *s);
/* The hash and the hidden sums recomputed from the other bytes (for states
 * written without the setters: the dict reader, fuzzing). */
void ana_rekey(const AnaTables *t, AnaState *s);

/* NULL when every structural invariant holds (bitboards, totals, sorted row,
 * bookkeeping zero outside its stages, zero spare bytes, the incremental hash
 * equal to the recomputed one...), else a static message naming the first
 * broken one. ana_state_is_ok is its boolean form. */
const char *ana_state_check(const AnaTables *t, const AnaState *s);
int ana_state_is_ok(const AnaTables *t, const AnaState *s);

/* 1 if every copy of every card is somewhere (market, players, grid, slots,
 * to-deal) exactly copies + 2 * start_copies times: true in every state
 * reached from ana_initial_state, not in positions built by hand. */
int ana_cards_conserved(const AnaTables *t, const AnaState *s);

/* Spec §9: equal exactly when `player` cannot tell the states apart. O(1)
 * from the hidden sums; the _from_scratch form reads every card id (the
 * state check compares the two). */
uint64_t ana_information_set_key(const AnaTables *t, const AnaState *s, int player);
uint64_t ana_information_set_key_from_scratch(const AnaTables *t, const AnaState *s, int player);

/* Spec §9.1: 1 if `seat` is shown which code `code` (legal at s) is, 0 if it
 * sees only that an action or outcome of its kind happened. */
int ana_observed_by(const AnaTables *t, const AnaState *s, XenCode code, int seat);

/* Spec §9: the opponent's hidden split of s redrawn in place. */
void ana_resample(const AnaTables *t, AnaState *s, int player, XenRng *rng);

/* Play uniformly random decisions and true-probability chance outcomes to the
 * end of the game. Returns the number of codes applied (chance included). */
uint64_t ana_random_playout(const AnaTables *t, AnaState *s, XenRng *rng);

/* n_games playouts, each from a copy of *start; total codes applied. */
uint64_t ana_random_games(const AnaTables *t, const AnaState *start, int n_games, uint64_t seed);

/* n random codes from *start (a copy), a new game from *start whenever one
 * ends. Returns n (0 if *start is over). */
uint64_t ana_random_actions(const AnaTables *t, const AnaState *start, uint64_t n, uint64_t seed);
/* The same codes applied with ana_apply_unkeyed, as the search's playouts do. */
uint64_t ana_random_actions_unkeyed(const AnaTables *t, const AnaState *start, uint64_t n,
                                    uint64_t seed);

/* Random walk from *start (a copy): n times, apply + undo a uniformly chosen
 * legal code (chance: outcome code), then advance by a random code (chance:
 * true probabilities); a new game whenever one ends. Returns n. */
uint64_t ana_apply_undo_pairs(const AnaTables *t, const AnaState *start, uint64_t n, uint64_t seed);

/* Leaves of the tree of the given depth, chance nodes expanded (each
 * outcome one branch); a finished game before the depth counts 0. */
uint64_t ana_perft(const AnaTables *t, AnaState *s, int depth);

/* ------------------------------------------------ for the search (playout.c, adapter.c) */

/* Static evaluation in [-1, 1] from `player`'s side, public information only. */
double ana_evaluate(const AnaTables *t, const AnaState *s, int player);
/* The learned evaluation (learned.h, playout.c): the tables' weights over
 * ana_features; the hand-set ana_evaluate while no weights are loaded. */
double ana_evaluate_learned(const AnaTables *t, const AnaState *s, int player);
/* The features of the learned evaluation from `player`'s side (features.c):
 * xen_feature_count(&ana_feature_set, t->n_cards) values into out. */
int ana_features(const AnaTables *t, const AnaState *s, int player, double *out);
extern const XenFeatureSet ana_feature_set;
/* The sparse-input network (network.h, net_inputs.c): a side's raw inputs,
 * ANA_NET_CARD_ZONES zones of one number per card id (zone z, card c:
 * z * n_cards + c), then ANA_NET_SQUARE_ZONES zones of one number per square
 * turned for the seat, seat p's side of the world; returns their count. */
enum { ANA_NET_CARD_ZONES = 6, ANA_NET_SQUARE_ZONES = 4 };
extern const char *const ana_net_zone_names[ANA_NET_CARD_ZONES + ANA_NET_SQUARE_ZONES];
int ana_net_input_count(const AnaTables *t);
int ana_net_inputs(const AnaTables *t, const AnaState *s, int p, double *out);
/* The same side as its non-zero inputs (what the evaluation sums over). */
void ana_net_side(const AnaTables *t, const AnaState *s, int p, XenNetSide *side);
/* The network's value in [-1, 1] for `player` (the hand-set ana_evaluate
 * while the tables hold no network; the exact result at the end). */
double ana_evaluate_net(const AnaTables *t, const AnaState *s, int player);
/* The network policy head's logit of each of `count` codes for the player to
 * move (network.h); 0 while the tables hold no network, else 1. */
int ana_policy_logits(const AnaTables *t, const AnaState *s, int count, const XenCode *codes,
                      double *out);
/* One decision of the playout policy ("attack-first"). */
XenCode ana_playout_action(const AnaTables *t, const AnaState *s, XenRng *rng);
/* At a decision node: ana_legal_actions' list[xen_rng_below(rng, n)], drawn
 * without writing the list (game_api.h, random_decision). */
XenCode ana_random_decision(const AnaTables *t, const AnaState *s, XenRng *rng);

/* The game for the search (game_api.h): states are AnaState, tables AnaTables. */
extern const XenGameApi ana_game_api;

/* ------------------------------------------------ tensors (tensors.c, docs/tensors.md) */

/* `player`'s information-state tensor: ana_tensor_size floats into out
 * (equal for two states exactly when their information-set keys are). Returns
 * the number of floats. */
int ana_information_state_tensor(const AnaTables *t, const AnaState *s, int player, float *out);
/* `player`'s observation tensor: the information-state tensor without its
 * remembered blocks. Returns the number of floats. */
int ana_observation_tensor(const AnaTables *t, const AnaState *s, int player, float *out);
/* The blocks of the information-state tensor (XEN_MAX_TENSOR_BLOCKS entries
 * in blocks); returns their number. */
int ana_tensor_layout(const AnaTables *t, XenTensorBlock *blocks);

#ifdef __cplusplus
}
#endif

#endif
