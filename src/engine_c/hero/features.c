/* features.c - Hero: the features of the learned evaluation (learned.h).
 *
 * Every feature is a per-side value, own minus the enemy's. They read the
 * whole state of the world evaluated: inside the search that world is one
 * sampled from the searcher's information (views.c), so hands and decks are
 * the sampled ones and nothing hidden leaks. The Python reference of the
 * same features is xenophon.kernel.evaluation.hero_features; the two are tested to
 * agree (tests/test_evaluation.py).
 *
 * A new feature: a name in SCALARS and one line in side_values (or
 * unit_values for a unit on the field); a new group of one feature per card:
 * a name in CARD_GROUPS and its array filled the same way.
 */
#include <math.h>
#include <stddef.h>

#include "internal.h"
#include "learned.h"

#define SCALARS(X) \
    X(to_move)    /* 1 for the active seat (whose turn it is) */ \
    X(first_seat) /* 1 for seat 0 */ \
    X(hp_sqrt)    /* sqrt(HP / starting HP), HP clamped at 0 */ \
    X(hp)         /* HP / starting HP */ \
    X(hp_danger)  /* 1 / (1 + HP left) */ \
    X(front_units) \
    X(back_units) \
    X(front_power) /* power / 1000, as derived by the rules */ \
    X(back_power) \
    X(front_attack) \
    X(back_attack) \
    X(pressure)     /* attack on the field / (1 + enemy HP left) */ \
    X(lethal)       /* 1 if the attack on the field reaches the enemy HP */ \
    X(tempo_attack) /* attack on the field, for the active seat only */ \
    X(damage)       /* damage on own units, / 1000 */ \
    X(tokens)       /* Retainer tokens on the field */ \
    X(ready_units)  /* units on the field not used this turn */ \
    X(ranged)       /* units with each keyword */ \
    X(blitz) \
    X(first_strike) \
    X(flying) \
    X(protection) \
    X(horde) \
    X(hand)          /* cards in hand */ \
    X(hand_units)    /* units in hand */ \
    X(hand_power)    /* their power / 1000 + attack */ \
    X(hand_cost)     /* cost of the cards in hand, / 10 */ \
    X(deck)          /* cards in the deck */ \
    X(deck_safety)   /* min(deck, 5) / 5: an empty deck loses */ \
    X(deck_danger)   /* 1 / (1 + cards in the deck) */ \
    X(charisma_left) /* charisma not used this turn */ \
    X(ability_used) \
    X(known)            /* cards in hand the other seat knows */ \
    X(castable)         /* cards in hand whose cost fits the charisma left */ \
    X(exposed)          /* used front-row units the enemy's strongest unit could \
                           destroy, less standby front-row units (guards) */ \
    X(unguarded_attack) /* attack of the next battle's attackers beyond the \
                           enemy's standby guards: a bound on the damage */ \
    X(unguarded_lethal) /* 1 if unguarded_attack reaches the enemy HP */

/* One feature per card id of the card set, for each group ("in_hand:Mercenary"):
 * what a side holds and will draw card by card, which the sums above blur
 * (a Fire Drake in hand is not two Goblin Raiders; the Crown wins outright). */
#define CARD_GROUPS(X) \
    X(in_hand)  /* copies in hand */ \
    X(in_deck)  /* copies in the deck / cards in the deck: the chance   \
                           that the next draw is this card (0: empty deck) */ \
    X(on_field) /* units of the card on the field (tokens apart) */

typedef struct Side {
    SCALARS(XEN_FEATURE_FIELD)
    double in_hand[HERO_MAX_CARDS];
    double in_deck[HERO_MAX_CARDS];
    double on_field[HERO_MAX_CARDS];
} Side;

static const char *const SCALAR_NAMES[] = {SCALARS(XEN_FEATURE_NAME)};
static const char *const CARD_GROUP_NAMES[] = {CARD_GROUPS(XEN_FEATURE_NAME)};

#define COUNT_ONE(name) +1
_Static_assert(0 SCALARS(COUNT_ONE) CARD_GROUPS(COUNT_ONE) * HERO_MAX_CARDS <= XEN_MAX_FEATURES,
               "the largest Hero card set's features exceed XEN_MAX_FEATURES");
#undef COUNT_ONE

const XenFeatureSet hero_feature_set = {
    (int)(sizeof SCALAR_NAMES / sizeof *SCALAR_NAMES),
    SCALAR_NAMES,
    (int)(sizeof CARD_GROUP_NAMES / sizeof *CARD_GROUP_NAMES),
    CARD_GROUP_NAMES,
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
    if (s->card[slot] == HERO_TOKEN) v->tokens += 1.0;
    else v->on_field[s->card[slot]] += 1.0;
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
        v->in_hand[c] = n;
        if (!n) continue;
        v->hand_cost += n * t->card[c].cost / 10.0;
        if (t->card[c].is_unit) {
            v->hand_units += n;
            v->hand_power += n * (seat->power[c] / 1000.0 + seat->attack[c]);
        }
        v->known += s->known[p][c];
    }
}

/* Cards in seat p's hand whose cost fits the charisma left this turn (the
 * usage condition and the room in the rows are not checked). */
static double castable(const HeroTables *t, const HeroState *s, int p) {
    int left = t->seat[p].charisma - s->charisma_used[p], n = 0;
    for (int c = 0; c < t->n_cards; c++)
        if (t->card[c].cost <= left) n += s->hand[p][c];
    return n;
}

/* The highest power among seat u's units (0 with none). */
static int32_t strongest(const HeroTables *t, const HeroState *s, int u) {
    int32_t best = 0;
    for (uint32_t m = seat_units(s, u); m; m &= m - 1) {
        int32_t power = power_of(t, s, u * 10 + __builtin_ctz(m));
        if (power > best) best = power;
    }
    return best;
}

/* Seat p's used front-row units that the enemy's strongest unit could
 * destroy in one battle, less p's standby front-row units that could guard
 * them (a used unit stays used through the enemy's next turn), at least 0. */
static double exposed(const HeroTables *t, const HeroState *s, int p) {
    int32_t enemy_power = strongest(t, s, 1 - p);
    uint32_t front = seat_units(s, p) & 0x1F, used = seat_flagged(s, p, HERO_F_USED);
    int at_risk = 0;
    for (uint32_t m = front & used; m; m &= m - 1)
        at_risk += power_of(t, s, p * 10 + __builtin_ctz(m)) <= enemy_power;
    int guards = __builtin_popcount(front & ~used);
    return at_risk > guards ? at_risk - guards : 0;
}

/* The attack of seat p's next battle beyond the enemy's guards: its
 * attackers are p's standby units if p is active, else all of p's units but
 * tokens (p's used units turn standby and tokens die before p's turn); each
 * standby enemy unit (tokens apart if p is not active) can guard one attack,
 * the strongest. Rows, FLYING and the enemy's own attacks this turn are not
 * counted: a bound on the damage to the enemy avatar. */
static double unguarded_attack(const HeroTables *t, const HeroState *s, int p) {
    int active = s->active == p;
    uint32_t attackers = seat_units(s, p), guards = seat_units(s, 1 - p);
    guards &= ~seat_flagged(s, 1 - p, HERO_F_USED);
    if (active) attackers &= ~seat_flagged(s, p, HERO_F_USED);
    int32_t attack[10];
    int n = 0, n_guards = 0;
    for (uint32_t m = attackers; m; m &= m - 1) {
        int slot = p * 10 + __builtin_ctz(m);
        if (active || s->card[slot] != HERO_TOKEN) attack[n++] = attack_of(t, s, slot);
    }
    for (uint32_t m = guards; m; m &= m - 1)
        n_guards += active || s->card[(1 - p) * 10 + __builtin_ctz(m)] != HERO_TOKEN;
    /* the guards take the strongest attacks: sum the n - n_guards weakest */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && attack[j - 1] > attack[j]; j--) {
            int32_t a = attack[j];
            attack[j] = attack[j - 1];
            attack[j - 1] = a;
        }
    double total = 0.0;
    for (int i = 0; i < n - n_guards; i++) total += attack[i];
    return total;
}

static void side_values(const HeroTables *t, const HeroState *s, int p, Side *v) {
    double max = (double)t->seat[p].hp, hp = s->hp[p] < 0 ? 0.0 : (double)s->hp[p];
    int deck = s->deck_n[p];
    /* the scalars, and of the card arrays only the set's n_cards entries (the
     * rest is never read: 3 x 64 doubles a side would be zeroed per leaf);
     * in_hand and in_deck are written for every card below */
    memset(v, 0, offsetof(Side, in_hand));
    memset(v->on_field, 0, (size_t)t->n_cards * sizeof v->on_field[0]);
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
    for (int c = 0; c < t->n_cards; c++)
        v->in_deck[c] = deck > 0 ? (double)s->deck[p][c] / deck : 0.0;
    v->deck_safety = (deck < 5 ? deck : 5) / 5.0;
    v->deck_danger = 1.0 / (1 + deck);
    v->charisma_left = t->seat[p].charisma - s->charisma_used[p];
    v->ability_used = s->ability_used[p] != 0;
    v->castable = castable(t, s, p);
    v->exposed = exposed(t, s, p);
    v->unguarded_attack = unguarded_attack(t, s, p);
    v->unguarded_lethal = v->unguarded_attack >= enemy_hp;
}

int hero_features(const HeroTables *t, const HeroState *s, int player, double *out) {
    Side side[2];
    int k = 0;
    side_values(t, s, player, &side[0]);
    side_values(t, s, 1 - player, &side[1]);
#define DIFF(name) out[k++] = side[0].name - side[1].name;
    SCALARS(DIFF)
#undef DIFF
#define DIFF_BY_CARD(group) \
    for (int c = 0; c < t->n_cards; c++) out[k++] = side[0].group[c] - side[1].group[c];
    CARD_GROUPS(DIFF_BY_CARD)
#undef DIFF_BY_CARD
    return k;
}
