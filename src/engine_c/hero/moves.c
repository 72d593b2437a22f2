/* moves.c - Hero: legal actions (in ascending code order) and chance
 * outcomes (docs/hero-engine.md §8). */

#include "internal.h"

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
    for (; targets; targets &= targets - 1) out[n++] = XEN_CODE(kind, x, __builtin_ctz(targets));
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
            out[n++] = XEN_CODE(HERO_DEPLOY, card, 0);
        if (back_room) out[n++] = XEN_CODE(HERO_DEPLOY, card, 1);
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
            out[n++] = XEN_CODE(HERO_PLAY, card, HERO_NO_TARGET);
        else
            n = emit_targets(out, n, HERO_PLAY, card, legal_targets(t, s, &k->effects, u));
    }
    return n;
}

static int gen_retainer(const HeroTables *t, const HeroState *s, int u, uint16_t *out, int n) {
    if (s->row_n[u * 2 + 1] >= HERO_ROW_SIZE) return n;
    for (int card = 0; card < t->n_cards; card++)
        if (s->hand[u][card]) out[n++] = XEN_CODE(HERO_RETAINER, card, 0);
    return n;
}

static int gen_move(const HeroState *s, int u, uint16_t *out, int n) {
    for (int rel = 0; rel < 10; rel++) {
        int slot = u * 10 + rel, other = row_of(slot) ^ 1;
        if (occupied(s, slot) && (s->flags[slot] & HERO_F_CAN_MOVE) &&
            s->row_n[other] < HERO_ROW_SIZE)
            out[n++] = XEN_CODE(HERO_MOVE, 0, rel);
    }
    return n;
}

static int gen_ability(const HeroTables *t, const HeroState *s, int u, uint16_t *out, int n) {
    const HeroSeat *seat = &t->seat[u];
    if (seat->ability != HERO_AB_ACTIVATED || s->ability_used[u]) return n;
    if (seat->ability_fx.target == HERO_TG_NONE) {
        out[n++] = XEN_CODE(HERO_ABILITY, 0, HERO_NO_TARGET);
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
            out[n++] = XEN_CODE(HERO_ATTACK, rel, HERO_AVATAR_SLOT);
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
        if (occupied(s, slot) && can_guard(t, s, slot)) out[n++] = XEN_CODE(HERO_GUARD, 0, rel);
    }
    return n;
}

static int chance_codes(const HeroTables *t, const HeroState *s, uint16_t *out) {
    int d = hero_drawer(t, s), n = 0;
    for (int card = 0; card < t->n_cards; card++)
        if (s->deck[d][card]) out[n++] = XEN_CODE(HERO_DRAW, card, 0);
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
        out[n++] = XEN_CODE(HERO_END, 0, 0);
        n = gen_move(s, u, out, n);
        n = gen_deploy(t, s, u, &fc, out, n);
        n = gen_play(t, s, u, &fc, 1, out, n);
        n = gen_retainer(t, s, u, out, n);
        n = gen_ability(t, s, u, out, n);
        break;
    case HERO_PH_WINDOW:
        out[n++] = XEN_CODE(HERO_PASS, 0, 0);
        n = gen_play(t, s, u, &fc, 0, out, n);
        n = gen_retainer(t, s, u, out, n);
        break;
    case HERO_PH_BATTLE:
        out[n++] = XEN_CODE(HERO_END, 0, 0);
        n = gen_play(t, s, u, &fc, 0, out, n);
        n = gen_retainer(t, s, u, out, n);
        n = gen_attack(t, s, u, out, n);
        break;
    case HERO_PH_DEFEND:
        out[n++] = XEN_CODE(HERO_PASS, 0, 0);
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
        codes[n] = XEN_CODE(HERO_DRAW, card, 0);
        weights[n++] = s->deck[d][card];
        *total += s->deck[d][card];
    }
    return n;
}

int hero_is_legal(const HeroTables *t, const HeroState *s, uint16_t code) {
    if (hero_is_terminal(s)) return 0;
    if (hero_is_chance(s)) {
        int card = XEN_X(code);
        return XEN_KIND(code) == HERO_DRAW && XEN_Y(code) == 0 && card < t->n_cards &&
               s->deck[hero_drawer(t, s)][card] > 0;
    }
    uint16_t codes[XEN_MAX_ACTIONS];
    int n = decision_codes(t, s, codes), lo = 0, hi = n;
    while (lo < hi) {   /* the list is ascending */
        int mid = (lo + hi) / 2;
        if (codes[mid] < code) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && codes[lo] == code;
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
    return XEN_CODE(HERO_DRAW, card, 0);
}

