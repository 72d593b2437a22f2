/* features.c - Anabasis: the features of the learned evaluation (learned.h).
 *
 * Every feature is a per-side value, own minus the enemy's. They read the
 * whole state of the world evaluated: inside the search that world is one
 * sampled from the searcher's information (views.c), so hands and decks are
 * the sampled ones and nothing hidden leaks. The Python reference of the
 * same features is xenophon.kernel.evaluation.anabasis_features; the two are tested
 * to agree (tests/test_evaluation.py).
 *
 * A new scalar feature: a name in SCALARS and one line in side_values.
 */
#include "internal.h"
#include "learned.h"
#include "multiset.h"

/* The scalar features, in order (the side value each one differences). */
#define SCALARS(X) \
    X(to_move)          /* 1 for the active seat (whose turn it is) */ \
    X(first_seat)       /* 1 for seat 0 */ \
    X(castle)           /* castle HP / starting castle HP */ \
    X(castle_danger)    /* 1 / (1 + castle HP left) */ \
    X(cemetery)         /* cemetery cards / cemetery limit */ \
    X(cemetery_danger)  /* 1 / (1 + cards the cemetery may still take) */ \
    X(material)         /* characters: sum of cost * HP left / HP, / 20 */ \
    X(characters)       /* characters on the grid */ \
    X(damage)           /* damage on own characters */ \
    X(threat)           /* characters that can strike the enemy castle */ \
    X(tempo_threat)     /* threat, for the active seat only */ \
    X(castle_pressure)  /* threat / (1 + enemy castle HP left) */ \
    X(attacked_squares) /* squares own characters can strike */ \
    X(attacked_enemies) /* enemy characters own characters can strike */ \
    X(tempo_attacks)    /* attacked_enemies, for the active seat only */ \
    X(ready)            /* ready characters */ \
    X(advanced)         /* characters in the enemy's home zone */ \
    X(territories)      /* face-up territories */ \
    X(funds_income)     /* funds income of face-up territories */ \
    X(ap_income)        /* AP income of face-up territories */ \
    X(funds) \
    X(ap) \
    X(affordable)    /* face-up market cards the funds pay for */ \
    X(deck)          /* cards in the deck */ \
    X(hand)          /* cards in hand */ \
    X(flow)          /* cards in the FLOW (the next deck) */ \
    X(slots)         /* event slots filled */ \
    X(slots_up)      /* event slots face up */ \
    X(held_events)   /* events in hand or face down in a slot: options kept */ \
    X(flood_targets) /* held Floods x the best rank's enemy characters less own */ \
    X(rally_targets) /* held Rallies, if a character can strike an enemy or castle */ \
    X(nullify_cover) /* face-down Nullifies, if the enemy has a face-down event */ \
    X(castle_reach)  /* attack of the characters that can strike the enemy castle \
                        now or after one move: a bound on next turn's damage */

/* The card groups: one feature per card id. */
#define CARD_GROUPS(X) \
    X(grid)  /* copies on the grid */ \
    X(owned) /* copies in deck + hand + FLOW + event slots */

typedef struct Side {
    SCALARS(XEN_FEATURE_FIELD)
    double grid[ANA_MAX_CARDS];
    double owned[ANA_MAX_CARDS];
} Side;

static const char *const SCALAR_NAMES[] = {SCALARS(XEN_FEATURE_NAME)};
static const char *const CARD_GROUP_NAMES[] = {CARD_GROUPS(XEN_FEATURE_NAME)};

#define COUNT_ONE(name) +1
_Static_assert(0 SCALARS(COUNT_ONE) CARD_GROUPS(COUNT_ONE) * ANA_MAX_CARDS <= XEN_MAX_FEATURES,
               "the largest Anabasis card set's features exceed XEN_MAX_FEATURES");
#undef COUNT_ONE

const XenFeatureSet ana_feature_set = {
    (int)(sizeof SCALAR_NAMES / sizeof *SCALAR_NAMES),
    SCALAR_NAMES,
    (int)(sizeof CARD_GROUP_NAMES / sizeof *CARD_GROUP_NAMES),
    CARD_GROUP_NAMES,
};

/* The grid of seat p: material, threats, territories; grid copies. */
static void grid_values(const AnaTables *t, const AnaState *s, int p, Side *v) {
    uint64_t struck = 0, enemy_castle = BIT(CASTLE_SQ[1 - p]);
    int q;
    FOR_BITS (q, s->occ[p]) {
        int c = s->sq_card[q];
        const AnaCard *card = &t->card[c];
        v->grid[c] += 1.0;
        if (card->kind == ANA_CHARACTER) {
            uint64_t reach = t->attack_mask[c][p][q];
            v->material += (double)card->cost * (card->hp - s->sq_damage[q]) / card->hp / 20.0;
            v->characters += 1.0;
            v->damage += s->sq_damage[q];
            v->threat += (reach & enemy_castle) != 0;
            struck |= reach;
        } else if (!((s->face_down >> q) & 1)) {
            v->territories += 1.0;
            v->funds_income += card->funds_income;
            v->ap_income += card->ap_income;
        }
    }
    v->attacked_squares = __builtin_popcountll(struck & ~t->castles);
    v->attacked_enemies = __builtin_popcountll(struck & s->occ[1 - p] & s->chars);
    v->ready = __builtin_popcountll(s->ready & s->occ[p] & s->chars);
    v->advanced = __builtin_popcountll(t->home[1 - p] & s->occ[p] & s->chars);
}

/* The attack of seat p's characters that can strike the enemy castle from
 * their square or from one move onto an empty square (no AP, strike chance or
 * response counted: a bound on the damage of p's next field phase). */
static double castle_reach(const AnaTables *t, const AnaState *s, int p) {
    uint64_t enemy_castle = BIT(CASTLE_SQ[1 - p]), empty = ~occupied(s) & ~t->castles;
    double attack = 0.0;
    int q;
    FOR_BITS (q, s->occ[p] & s->chars) {
        int c = s->sq_card[q];
        uint64_t squares = BIT(q) | (t->move_mask[c][p][q] & empty);
        for (; squares; squares &= squares - 1) {
            if (t->attack_mask[c][p][__builtin_ctzll(squares)] & enemy_castle) {
                attack += t->card[c].atk + s->sq_bonus[q];
                break;
            }
        }
    }
    return attack;
}

/* The most characters of the enemy less own on one rank (0 if none): what a
 * Flood held by seat p could hit. */
static double flood_margin(const AnaTables *t, const AnaState *s, int p) {
    int best = 0;
    for (int r = 0; r < ANA_RANKS; r++) {
        uint64_t rank = t->rank_mask[r] & s->chars;
        int margin = __builtin_popcountll(rank & s->occ[1 - p]) -
                     __builtin_popcountll(rank & s->occ[p]);
        if (margin > best) best = margin;
    }
    return best;
}

/* The held events of seat p (hand and face-down slots) and their option
 * values: an event kept is worth what it could still do. */
static void event_values(const AnaTables *t, const AnaState *s, int p, Side *v) {
    const AnaPlayer *pl = &s->pl[p];
    int held[ANA_EV_SABOTAGE + 1] = {0}, face_down_nullify = 0;
    for (uint64_t m = t->event_ids; m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        held[t->card[c].effect] += pl->hand[c];
    }
    for (int k = 0; k < ANA_SLOTS; k++) {
        if (!slot_face_down(s, p, k)) continue;
        int effect = t->card[pl->slot[k]].effect;
        held[effect]++;
        face_down_nullify += effect == ANA_EV_NULLIFY;
    }
    for (int e = 1; e <= ANA_EV_SABOTAGE; e++) v->held_events += held[e];
    if (held[ANA_EV_FLOOD]) v->flood_targets = held[ANA_EV_FLOOD] * flood_margin(t, s, p);
    v->rally_targets = (v->attacked_enemies > 0 || v->threat > 0) ? held[ANA_EV_RALLY] : 0.0;
    v->nullify_cover = has_face_down_event(s, 1 - p) ? face_down_nullify : 0.0;
}

/* Face-up market cards (pile tops and the row) seat p's funds pay for. */
static double affordable(const AnaTables *t, const AnaState *s, int p) {
    double n = 0.0;
    int budget = purchase_budget(t, s, s->pl[p].funds);
    for (int i = 0; i < 3; i++)
        if (s->top[i] != ANA_NONE) n += t->card[s->top[i]].cost <= budget;
    for (int i = 0; i < ANA_ROW_SIZE && s->row[i] != ANA_NONE; i++)
        n += t->card[s->row[i]].cost <= budget;
    return n;
}

static void side_values(const AnaTables *t, const AnaState *s, int p, Side *v) {
    const AnaPlayer *pl = &s->pl[p];
    int hp_left = pl->castle_hp > 0 ? pl->castle_hp : 0;
    int cem_left = t->cemetery_limit - pl->cem_cards;
    /* the scalars and the card set's own entries: the rest is never read */
    memset(v, 0, offsetof(Side, grid));
    memset(v->grid, 0, (size_t)t->n_cards * sizeof v->grid[0]);
    v->to_move = s->active == p;
    v->first_seat = p == 0;
    v->castle = (double)pl->castle_hp / t->castle_hp;
    v->castle_danger = 1.0 / (1 + hp_left);
    v->cemetery = (double)pl->cem_cards / t->cemetery_limit;
    v->cemetery_danger = 1.0 / (1 + (cem_left > 0 ? cem_left : 0));
    grid_values(t, s, p, v);
    int enemy_hp = s->pl[1 - p].castle_hp > 0 ? s->pl[1 - p].castle_hp : 0;
    v->castle_pressure = v->threat / (1 + enemy_hp);
    if (s->active == p) {
        v->tempo_threat = v->threat;
        v->tempo_attacks = v->attacked_enemies;
    }
    v->funds = pl->funds;
    v->ap = pl->ap;
    v->affordable = affordable(t, s, p);
    v->deck = pl->deck_n;
    v->hand = pl->hand_n;
    v->flow = xen_multiset_total(pl->flow, ANA_MAX_CARDS);
    /* owned copies as bytes first: 48 byte sums in a few vector adds */
    uint8_t owned[ANA_MAX_CARDS];
    for (int c = 0; c < ANA_MAX_CARDS; c++)
        owned[c] = (uint8_t)(pl->deck[c] + pl->hand[c] + pl->flow[c]);
    for (int k = 0; k < ANA_SLOTS; k++) {
        if (pl->slot[k] == ANA_NONE) continue;
        v->slots += 1.0;
        v->slots_up += slot_up(s, p, k);
        owned[pl->slot[k]]++;
    }
    for (int c = 0; c < t->n_cards; c++) v->owned[c] = owned[c];
    event_values(t, s, p, v);
    v->castle_reach = castle_reach(t, s, p);
}

int ana_features(const AnaTables *t, const AnaState *s, int player, double *out) {
    Side side[2];
    int k = 0;
    side_values(t, s, player, &side[0]);
    side_values(t, s, 1 - player, &side[1]);
#define DIFF(name) out[k++] = side[0].name - side[1].name;
    SCALARS(DIFF)
#undef DIFF
    for (int c = 0; c < t->n_cards; c++) out[k++] = side[0].grid[c] - side[1].grid[c];
    for (int c = 0; c < t->n_cards; c++) out[k++] = side[0].owned[c] - side[1].owned[c];
    return k;
}
