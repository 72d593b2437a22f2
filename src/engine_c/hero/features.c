/* features.c - Hero: the features of the learned evaluation (learned.h).
 *
 * Every feature is a per-side value, own minus the enemy's. They read the
 * whole state of the world evaluated: inside the search that world is one
 * sampled from the searcher's information (views.c), so hands and decks are
 * the sampled ones and nothing hidden leaks. The Python reference of the
 * same features is xenophon.evaluation.hero_features; the two are tested to
 * agree (tests/test_evaluation.py).
 *
 * A new feature: a name in SCALARS and one line in side_values (or
 * unit_values for a unit on the field).
 */
#include <math.h>

#include "internal.h"
#include "learned.h"

#define SCALARS(X)                                                              \
    X(to_move)          /* 1 for the active seat (whose turn it is) */          \
    X(first_seat)       /* 1 for seat 0 */                                      \
    X(hp_sqrt)          /* sqrt(HP / starting HP), HP clamped at 0 */           \
    X(hp)               /* HP / starting HP */                                  \
    X(hp_danger)        /* 1 / (1 + HP left) */                                 \
    X(front_units)                                                              \
    X(back_units)                                                               \
    X(front_power)      /* power / 1000, as derived by the rules */             \
    X(back_power)                                                               \
    X(front_attack)                                                             \
    X(back_attack)                                                              \
    X(pressure)         /* attack on the field / (1 + enemy HP left) */         \
    X(lethal)           /* 1 if the attack on the field reaches the enemy HP */ \
    X(tempo_attack)     /* attack on the field, for the active seat only */     \
    X(damage)           /* damage on own units, / 1000 */                       \
    X(tokens)           /* Retainer tokens on the field */                      \
    X(ready_units)      /* units on the field not used this turn */             \
    X(ranged)           /* units with each keyword */                           \
    X(blitz)                                                                    \
    X(first_strike)                                                             \
    X(flying)                                                                   \
    X(protection)                                                               \
    X(horde)                                                                    \
    X(hand)             /* cards in hand */                                     \
    X(hand_units)       /* units in hand */                                     \
    X(hand_power)       /* their power / 1000 + attack */                       \
    X(hand_cost)        /* cost of the cards in hand, / 10 */                   \
    X(deck)             /* cards in the deck */                                 \
    X(deck_safety)      /* min(deck, 5) / 5: an empty deck loses */             \
    X(deck_danger)      /* 1 / (1 + cards in the deck) */                       \
    X(charisma_left)    /* charisma not used this turn */                       \
    X(ability_used)                                                             \
    X(known)            /* cards in hand the other seat knows */

typedef struct Side {
    SCALARS(XEN_FEATURE_FIELD)
} Side;

static const char *const SCALAR_NAMES[] = {SCALARS(XEN_FEATURE_NAME)};

const XenFeatureSet hero_feature_set = {
    (int)(sizeof SCALAR_NAMES / sizeof *SCALAR_NAMES), SCALAR_NAMES, 0, NULL,
};

/* The unit on `slot` (of its seat, p). */
static void unit_values(const HeroTables *t, const HeroState *s, int slot, Side *v) {
    int kw = keywords_at(t, s, slot);
    double power = power_of(t, s, slot) / 1000.0, attack = attack_of(t, s, slot);
    if (is_front(slot)) {
        v->front_units += 1.0;
        v->front_power += power;
        v->front_attack += attack;
    } else {
        v->back_units += 1.0;
        v->back_power += power;
        v->back_attack += attack;
    }
    v->damage += s->damage[slot] / 1000.0;
    v->tokens += s->card[slot] == HERO_TOKEN;
    v->ready_units += !(s->flags[slot] & HERO_F_USED);
    v->ranged += (kw & HERO_KW_RANGED) != 0;
    v->blitz += (kw & HERO_KW_BLITZ) != 0;
    v->first_strike += (kw & HERO_KW_FIRST_STRIKE) != 0;
    v->flying += (kw & HERO_KW_FLYING) != 0;
    v->protection += (kw & HERO_KW_PROTECTION) != 0;
    v->horde += (kw & HERO_KW_HORDE) != 0;
}

/* The cards in seat p's hand. */
static void hand_values(const HeroTables *t, const HeroState *s, int p, Side *v) {
    const HeroSeat *seat = &t->seat[p];
    for (int c = 0; c < t->n_cards; c++) {
        int n = s->hand[p][c];
        if (!n) continue;
        v->hand_cost += n * t->card[c].cost / 10.0;
        if (t->card[c].is_unit) {
            v->hand_units += n;
            v->hand_power += n * (seat->power[c] / 1000.0 + seat->attack[c]);
        }
        v->known += s->known[p][c];
    }
}

static void side_values(const HeroTables *t, const HeroState *s, int p, Side *v) {
    double max = (double)t->seat[p].hp, hp = s->hp[p] < 0 ? 0.0 : (double)s->hp[p];
    int deck = s->deck_n[p];
    memset(v, 0, sizeof *v);
    v->to_move = s->active == p;
    v->first_seat = p == 0;
    v->hp_sqrt = sqrt(hp > max ? 1.0 : hp / max);
    v->hp = s->hp[p] / max;
    v->hp_danger = 1.0 / (1.0 + hp);
    for (int rr = p * 2; rr < p * 2 + 2; rr++)
        for (int i = 0; i < s->row_n[rr]; i++) unit_values(t, s, rr * 5 + i, v);
    double attack = v->front_attack + v->back_attack;
    double enemy_hp = s->hp[1 - p] < 0 ? 0.0 : (double)s->hp[1 - p];
    v->pressure = attack / (1.0 + enemy_hp);
    v->lethal = attack >= enemy_hp;
    v->tempo_attack = s->active == p ? attack : 0.0;
    v->hand = s->hand_n[p];
    hand_values(t, s, p, v);
    v->deck = deck;
    v->deck_safety = (deck < 5 ? deck : 5) / 5.0;
    v->deck_danger = 1.0 / (1 + deck);
    v->charisma_left = t->seat[p].charisma - s->charisma_used[p];
    v->ability_used = s->ability_used[p] != 0;
}

int hero_features(const HeroTables *t, const HeroState *s, int player, double *out) {
    Side side[2];
    int k = 0;
    side_values(t, s, player, &side[0]);
    side_values(t, s, 1 - player, &side[1]);
#define DIFF(name) out[k++] = side[0].name - side[1].name;
    SCALARS(DIFF)
#undef DIFF
    return k;
}
