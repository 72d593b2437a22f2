/* tables.c - Anabasis: the tables of one game (card data, pattern masks,
 * Zobrist keys), built once from the card set (docs/anabasis-engine.md). */
#include "internal.h"

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

/* The hidden-sum keys of seat p's hand and DECK counts (zobrist.h): in the
 * other seat's view a card there counts as one of p's unseen cards U (§9). */
static void build_hidden_keys(AnaTables *t) {
    for (int p = 0; p < 2; p++) {
        size_t base = offsetof(AnaState, pl) + (size_t)p * sizeof(AnaPlayer);
        for (int c = 0; c < ANA_MAX_CARDS; c++) {
            XenKey *deck = &t->zobrist[base + offsetof(AnaPlayer, deck) + (size_t)c];
            XenKey *hand = &t->zobrist[base + offsetof(AnaPlayer, hand) + (size_t)c];
            deck->hidden[p] = t->z_unseen[c] - deck->hash;
            hand->hidden[p] = t->z_unseen[c] - hand->hash;
        }
    }
}

/* Keys from a fixed seed, so hashes and keys are the same in every process
 * (drawn in the same order as before the hidden sums existed: the hash and
 * the information-set keys of a state did not change with them). */
static void build_zobrist(AnaTables *t) {
    uint64_t seed = 0x58454E4F50484F4EULL; /* "XENOPHON" */
    memset(t->zobrist, 0, sizeof t->zobrist);
    for (size_t o = 0; o < offsetof(AnaState, hidden); o++)
        t->zobrist[o].hash = xen_splitmix64(&seed);
    for (size_t o = 0; o < sizeof(uint64_t); o++) t->zobrist[offsetof(AnaState, hash) + o].hash = 0;
    for (int c = 0; c < ANA_MAX_CARDS; c++) t->z_unseen[c] = xen_splitmix64(&seed);
    for (int k = 0; k < ANA_SLOTS; k++) t->z_face_down[k] = xen_splitmix64(&seed);
    for (int p = 0; p < 2; p++) t->z_view[p] = xen_splitmix64(&seed);
    build_hidden_keys(t);
}

static int card_in_range(const AnaCardSpec *c) {
    return c->cost >= 0 && c->cost <= ANA_MAX_COST && c->copies >= 0 && c->copies <= 40 &&
           c->start_copies >= 0 && c->start_copies <= 40 && c->hp >= 0 && c->hp <= 99 &&
           c->atk >= 0 && c->atk <= 99 && c->hit >= 0 && c->hit <= 100 && c->crit >= 0 &&
           c->crit <= 100 && c->ap_income >= 0 && c->ap_income <= 20 && c->funds_income >= 0 &&
           c->funds_income <= 20 && c->amount >= 0 && c->amount <= 99 && c->n_move >= 0 &&
           c->n_move <= ANA_MAX_OFFSETS && c->n_attack >= 0 && c->n_attack <= ANA_MAX_OFFSETS;
}

int ana_tables_init(AnaTables *t, const AnaCardSpec *cards, int n_cards, const AnaFieldSpec *fields,
                    int n_fields, int mode, char *err, size_t err_size) {
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
        if (c->kind == ANA_EVENT_CARD) t->event_ids |= BIT(i);
        if (c->kind == ANA_TERRITORY) t->territory_ids |= BIT(i);
        for (int b = c->cost; b <= ANA_MAX_COST; b++) t->cost_at_most[b] |= BIT(i);
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
            if (c->kind == ANA_EVENT_CARD &&
                (c->effect < ANA_EV_FLOOD || c->effect > ANA_EV_SABOTAGE))
                return fail(err, err_size, "an event has an unknown effect");
        }
        if (c->kind == ANA_TERRITORY && c->start_copies) {
            if (c->start_copies != 1 || t->start_territory >= 0)
                return fail(err, err_size, "at most one starting territory, with start_copies = 1");
            t->start_territory = i;
        }
        if (c->kind == ANA_EVENT_CARD && c->start_copies) {
            if (c->start_copies != 1)
                return fail(err, err_size, "a starting event has start_copies = 1");
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
            fields[f].amount > 100 || fields[f].effect < ANA_FX_HIT ||
            fields[f].effect > ANA_FX_ATTACK_COST)
            return fail(err, err_size, "a field card has a value out of range");
        t->field[f].duration = (uint8_t)fields[f].duration;
        t->field[f].effect = (uint8_t)fields[f].effect;
        t->field[f].amount = (int8_t)fields[f].amount;
    }
    build_zobrist(t);
    t->z_start_events = 0;
    for (int c = 0; c < ANA_MAX_CARDS; c++)
        t->z_start_events += t->start_events[c] * t->z_unseen[c];
    return 0;
}
