/* tables.c - Hero: the tables of one game (card data, the two seats and
 * their derived unit values, Zobrist keys), built once (docs/hero-engine.md). */

#include "internal.h"

/* Seed of the Zobrist keys: fixed, so hashes are stable across runs. */
#define HERO_ZOBRIST_SEED 0x6865726f5a6f6272ULL /* "heroZobr" */
/* ==================================================================== tables */

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
    if (!needs && target != HERO_TG_NONE) return "a target kind but no effect uses a target";
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
    c->cond_total = total > 1000 ? 1000 : (int32_t)total; /* a field holds at most 11 cards */
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
        if (!is_token && c >= t->n_cards) continue; /* stays 0 */
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

/* Fixed-seed keys, odd so that a count difference never vanishes alone.
 * The hidden-sum keys of seat p's hand and deck counts (zobrist.h) take
 * their hash keys out: the other seat's view holds only their sizes (§11). */
static void build_zobrist(HeroTables *t) {
    uint64_t x = HERO_ZOBRIST_SEED;
    memset(t->zobrist, 0, sizeof t->zobrist);
    for (size_t o = REGION32_BEGIN; o < REGION32_END; o += 4)
        t->zobrist[o].hash = xen_splitmix64(&x) | 1;
    for (size_t o = REGION32_END; o < REGION8_END; o++) t->zobrist[o].hash = xen_splitmix64(&x) | 1;
    t->zobrist[offsetof(HeroState, zero_)].hash = 0;
    t->z_view[0] = xen_splitmix64(&x);
    t->z_view[1] = xen_splitmix64(&x);
    for (int p = 0; p < 2; p++)
        for (int card = 0; card < HERO_MAX_CARDS; card++) {
            XenKey *hand =
                &t->zobrist[offsetof(HeroState, hand) + (size_t)(p * HERO_MAX_CARDS + card)];
            XenKey *deck =
                &t->zobrist[offsetof(HeroState, deck) + (size_t)(p * HERO_MAX_CARDS + card)];
            hand->hidden[p] = -hand->hash;
            deck->hidden[p] = -deck->hash;
        }
}

/* err receives "card <id>: <reason>", "seat <p>: <reason>" or "<reason>". */
int hero_tables_init(HeroTables *t, const HeroCardSpec *cards, int n_cards,
                     const HeroAvatarSpec avatars[2], const int decks[2][HERO_MAX_CARDS], char *err,
                     size_t err_size) {
    memset(t, 0, sizeof *t);
    if (n_cards < 1 || n_cards > HERO_MAX_CARDS) {
        snprintf(err, err_size, "%d cards: a card set holds 1 to %d", n_cards, HERO_MAX_CARDS);
        return -1;
    }
    /* §8: at most 81 + 21 N legal codes; the buffers hold XEN_MAX_ACTIONS. */
    if (81 + 21 * n_cards > XEN_MAX_ACTIONS) {
        snprintf(err, err_size,
                 "%d cards: up to 81 + 21 x %d = %d legal actions, above the engine's bound of %d "
                 "(at most %d cards)",
                 n_cards, n_cards, 81 + 21 * n_cards, XEN_MAX_ACTIONS, (XEN_MAX_ACTIONS - 81) / 21);
        return -1;
    }
    t->n_cards = n_cards;
    for (int c = 0; c < n_cards; c++) {
        const char *why = build_card(&t->card[c], &cards[c]);
        if (why) {
            snprintf(err, err_size, "card %d: %s", c, why);
            return -1;
        }
        uint64_t id = 1ULL << c;
        if (t->card[c].is_unit) t->unit_ids |= id;
        else t->op_ids |= id;
        if (!t->card[c].is_unit && t->card[c].fast) t->fast_op_ids |= id;
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
