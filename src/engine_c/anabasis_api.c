/* anabasis_api.c - Anabasis behind the search's game interface (game_api.h):
 * the adapter functions, the static evaluation and the playout policy.
 */
#include <math.h>

#include "anabasis_api.h"

/* ------------------------------------------------------------ evaluation
 *
 * Static evaluation from `player`'s side, on public information only (the
 * grid, castles, cemeteries, funds and territories; never a hand or a
 * face-down event), squashed to [-1, 1]:
 *
 *   score = 1.6 * (castle + cemetery) + 0.35 * material + 0.25 * threat
 *         + 0.04 * income + 0.01 * funds
 *
 *   castle   = (own castle HP - enemy castle HP) / starting castle HP
 *   cemetery = (enemy cemetery - own cemetery) / cemetery limit
 *   material = sum over own characters of cost * HP left / HP, minus the
 *              enemy's, divided by 20
 *   threat   = own characters that can strike the enemy castle from where
 *              they stand, minus the enemy's
 *   income   = (own funds income + AP income of face-up territories) minus
 *              the enemy's
 *   funds    = own funds minus the enemy's
 *
 *   value = tanh(score)
 *
 * The two loss conditions carry the weight: a castle point is a tenth of a
 * loss in standard mode and a cemetery card an eighth. The weights of the
 * other terms were set by self-play matches (docs/strength.md).
 */
static double side_material(const AnaTables *t, const AnaState *s, int p, double *threat,
                            double *income) {
    double material = 0.0;
    uint64_t mine = s->occ[p];
    uint64_t enemy_castle = 1ULL << (p == 0 ? 38 : 3);
    *threat = 0.0;
    *income = 0.0;
    while (mine) {
        int q = __builtin_ctzll(mine);
        mine &= mine - 1;
        const AnaCard *card = &t->card[s->sq_card[q]];
        if (card->kind == ANA_CHARACTER) {
            material += (double)card->cost * (card->hp - s->sq_damage[q]) / card->hp;
            if (t->attack_mask[s->sq_card[q]][p][q] & enemy_castle) *threat += 1.0;
        } else if (!((s->face_down >> q) & 1)) {
            *income += card->funds_income + card->ap_income;
        }
    }
    return material;
}

double ana_evaluate(const AnaTables *t, const AnaState *s, int player) {
    int o = 1 - player;
    double threat[2], income[2], material[2];
    if (s->stage == ANA_SG_OVER) {
        int r[2];
        ana_returns(s, r);
        return r[player];
    }
    material[0] = side_material(t, s, 0, &threat[0], &income[0]);
    material[1] = side_material(t, s, 1, &threat[1], &income[1]);
    double castle = (double)(s->pl[player].castle_hp - s->pl[o].castle_hp) / t->castle_hp;
    double cemetery = (double)(s->pl[o].cem_cards - s->pl[player].cem_cards) / t->cemetery_limit;
    double score = 1.6 * (castle + cemetery)
                 + 0.35 * (material[player] - material[o]) / 20.0
                 + 0.25 * (threat[player] - threat[o])
                 + 0.04 * (income[player] - income[o])
                 + 0.01 * ((double)s->pl[player].funds - s->pl[o].funds);
    return tanh(score);
}

/* ------------------------------------------------------------ playouts
 *
 * Playout policy "attack-first": at a decision where attacks are legal, an
 * attack (uniform among them) with probability 3/4; otherwise a uniformly
 * random legal action. Uniform random play wanders: most of its field-phase
 * actions are moves, so battles, which decide the game, come late.
 */
uint16_t ana_playout_action(const AnaTables *t, const AnaState *s, XenRng *rng) {
    uint16_t actions[ANA_MAX_ACTIONS];
    int n = ana_legal_actions(t, s, actions);
    int first_attack = -1, attacks = 0;
    for (int i = 0; i < n; i++) {
        if (ANA_KIND(actions[i]) == ANA_ATTACK) {
            if (first_attack < 0) first_attack = i;
            attacks++;
        }
    }
    if (attacks > 0 && xen_rng_below(rng, 4) != 0)
        return actions[first_attack + (int)xen_rng_below(rng, (uint32_t)attacks)];
    return actions[xen_rng_below(rng, (uint32_t)n)];
}

/* ------------------------------------------------------------ adapters */

static int api_current_player(const void *t, const void *s) {
    (void)t;
    return ana_current_player((const AnaState *)s);
}

static int api_legal_actions(const void *t, const void *s, uint32_t *out) {
    uint16_t codes[ANA_MAX_ACTIONS];
    int n = ana_legal_actions((const AnaTables *)t, (const AnaState *)s, codes);
    for (int i = 0; i < n; i++) out[i] = codes[i];
    return n;
}

static uint32_t api_sample_chance(const void *t, const void *s, XenRng *rng) {
    return ana_sample_chance((const AnaTables *)t, (const AnaState *)s, rng);
}

static void api_apply(const void *t, void *s, uint32_t action) {
    ana_apply((const AnaTables *)t, (AnaState *)s, (uint16_t)action, NULL);
}

static void api_returns(const void *t, const void *s, double out[2]) {
    int r[2];
    (void)t;
    ana_returns((const AnaState *)s, r);
    out[0] = r[0];
    out[1] = r[1];
}

static uint64_t api_hash(const void *t, const void *s) {
    (void)t;
    return ((const AnaState *)s)->hash;
}

static uint64_t api_information_set_key(const void *t, const void *s, int player) {
    return ana_information_set_key((const AnaTables *)t, (const AnaState *)s, player);
}

static void api_resample(const void *t, void *s, int player, XenRng *rng) {
    ana_resample((const AnaTables *)t, (const AnaState *)s, player, rng, (AnaState *)s);
}

static double api_evaluate(const void *t, const void *s, int player) {
    return ana_evaluate((const AnaTables *)t, (const AnaState *)s, player);
}

static int api_turn(const void *t, const void *s) {
    (void)t;
    return ((const AnaState *)s)->turn;
}

static uint32_t api_playout_action(const void *t, const void *s, XenRng *rng) {
    return ana_playout_action((const AnaTables *)t, (const AnaState *)s, rng);
}

const XenGameApi anabasis_game_api = {
    "anabasis",
    sizeof(AnaState),
    api_current_player,
    api_legal_actions,
    api_sample_chance,
    api_apply,
    api_returns,
    api_hash,
    api_information_set_key,
    api_resample,
    api_evaluate,
    api_turn,
    api_playout_action,
};
