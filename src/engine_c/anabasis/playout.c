/* playout.c - Anabasis for the search: the static evaluation and the
 * playout policy. */
#include <math.h>

#include "internal.h"
#include "learned.h"

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
 * other terms were set by hand.
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
    double score = 1.6 * (castle + cemetery) + 0.35 * (material[player] - material[o]) / 20.0 +
                   0.25 * (threat[player] - threat[o]) + 0.04 * (income[player] - income[o]) +
                   0.01 * ((double)s->pl[player].funds - s->pl[o].funds);
    return tanh(score);
}

/* The learned evaluation (learned.h): the weights of the tables over the
 * features of features.c; the hand-set one above while no weights are loaded. */
double ana_evaluate_learned(const AnaTables *t, const AnaState *s, int player) {
    double x[XEN_MAX_FEATURES];
    if (s->stage == ANA_SG_OVER || t->learned.n_features == 0) return ana_evaluate(t, s, player);
    ana_features(t, s, player, x);
    return xen_learned_value(&t->learned, x, s->turn);
}

/* ------------------------------------------------------------ playouts
 *
 * Playout policy "attack-first": at a decision where attacks are legal, an
 * attack (uniform among them) with probability 3/4; otherwise a uniformly
 * random legal action. Uniform random play wanders: most of its field-phase
 * actions are moves, so battles, which decide the game, come late. The
 * attacks are generated alone first (as runs, runs.h), so that three times
 * in four the other actions are never generated; no code list is written.
 */
XenCode ana_playout_action(const AnaTables *t, const AnaState *s, XenRng *rng) {
    if (s->stage == ANA_SG_FIELD) { /* the only stage with attacks */
        XenRun runs[ANA_MAX_RUNS];
        int n = ana_field_attack_runs(t, s, runs, 0), attacks = xen_runs_count(runs, n);
        if (attacks > 0 && xen_rng_below(rng, 4) != 0)
            return xen_runs_code(runs, n, (int)xen_rng_below(rng, (uint32_t)attacks));
        return ana_random_field_decision(t, s, runs, n, rng); /* the attacks not listed again */
    }
    return ana_random_decision(t, s, rng);
}
