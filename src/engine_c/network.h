/* network.h - the sparse-input value network both games may load (eval=net),
 * in the manner of NNUE: raw inputs of each side (per card, per zone; hundreds,
 * mostly zero) beside the learned evaluation's features (learned.h).
 *
 * A game describes each side of a world by the same list of n_inputs raw
 * numbers (its net_inputs function, in its folder): the evaluating player's
 * side "own", the other seat's "enemy", both read from the world evaluated.
 * Inside the search that world is one sampled from the searcher's
 * information, as for the features, so nothing hidden leaks. With x the
 * features (own minus enemy: odd under the swap of the sides) and
 * ph = min(turn, taper_turns) / taper_turns,
 *
 *     a_j(own, enemy, x) = sum_i own[i] * w_own[i][j] + sum_i enemy[i] * w_enemy[i][j]
 *                        + sum_k x[k] * w_feature[k][j] + bias[j] + ph * phase[j]
 *     h_j(own, enemy, x) = clamp(a_j, 0, 1)                       (clipped ReLU)
 *     z     = sum_k ((1 - ph) * opening[k] + ph * ending[k]) * x[k]
 *           + sum_j output[j] * (h_j(own, enemy, x) - h_j(enemy, own, -x))
 *     value = tanh(z / 2)
 *
 * Swapping the sides swaps the two h and negates x, so z is odd and the value
 * antisymmetric, value(s, p) = -value(s, 1 - p), as the learned one's. The
 * first layer is summed over the non-zero inputs only (a world's inputs are
 * mostly zero), in float, its weights stored input by input so that each
 * non-zero input adds one contiguous row.
 *
 * The weights are data (a network file, xenophon.lab.network), copied into the
 * tables by the bindings: n_hidden == 0 means none are loaded. The policy
 * head of the file is not read here: the search does not use it.
 */
#ifndef XENOPHON_NETWORK_H
#define XENOPHON_NETWORK_H

#include "learned.h"

/* The most raw inputs of one side, and the most hidden units. */
#define XEN_NET_MAX_INPUTS 448
#define XEN_NET_MAX_HIDDEN 64

typedef struct XenNetwork {
    int n_hidden; /* 0: no network loaded */
    int n_inputs; /* raw inputs of one side */
    int n_features;
    int taper_turns;
    double opening[XEN_MAX_FEATURES];
    double ending[XEN_MAX_FEATURES];
    double bias[XEN_NET_MAX_HIDDEN];
    double phase[XEN_NET_MAX_HIDDEN];
    double output[XEN_NET_MAX_HIDDEN];
    /* packed by the loaded n_hidden h, so that a world touches few cache lines:
     * raw input i's row at side[i * 2h] is w_own[i][0..h) then w_enemy[i][0..h);
     * feature k's row at feature[k * h] is w_feature[k][0..h) */
    float side[XEN_NET_MAX_INPUTS * 2 * XEN_NET_MAX_HIDDEN];
    float feature[XEN_MAX_FEATURES * XEN_NET_MAX_HIDDEN];
} XenNetwork;

/* acc[0..n) += value * row[0..n), in float (twice the lanes of double). */
static inline void xen_net_add(float *acc, const float *row, float value, int n) {
    for (int j = 0; j < n; j++) acc[j] += value * row[j];
}

static inline double xen_net_clamp(double a) { return a < 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a); }

/* z (see the top of this file) of a world whose sides' raw inputs are `own`
 * and `enemy` (n->n_inputs each) and whose features are x (n->n_features). */
static inline double xen_network_z(const XenNetwork *n, const double *own, const double *enemy,
                                   const double *x, int turn) {
    const int h = n->n_hidden;
    double ph = turn >= n->taper_turns ? 1.0 : (double)turn / n->taper_turns;
    /* side[0..2h): own times each input's (w_own | w_enemy) rows, side[2h..4h):
     * enemy times them. mine = own.w_own + enemy.w_enemy, theirs = enemy.w_own +
     * own.w_enemy: swapping the sides swaps the two halves' sums exactly, so the
     * value stays exactly antisymmetric although summed in float */
    float side[4 * XEN_NET_MAX_HIDDEN] = {0.0f}, f[XEN_NET_MAX_HIDDEN] = {0.0f};
    double z = 0.0;
    for (int i = 0; i < n->n_inputs; i++) {
        const float *row = n->side + (size_t)i * 2 * h;
        if (own[i] != 0.0) xen_net_add(side, row, (float)own[i], 2 * h);
        if (enemy[i] != 0.0) xen_net_add(side + 2 * h, row, (float)enemy[i], 2 * h);
    }
    for (int k = 0; k < n->n_features; k++) {
        if (x[k] == 0.0) continue;
        z += (n->opening[k] + ph * (n->ending[k] - n->opening[k])) * x[k];
        xen_net_add(f, n->feature + (size_t)k * h, (float)x[k], h);
    }
    const float *mine_own = side, *theirs_enemy = side + h;
    const float *theirs_own = side + 2 * h, *mine_enemy = side + 3 * h;
    for (int j = 0; j < h; j++) {
        double base = n->bias[j] + ph * n->phase[j];
        double mine = (double)(mine_own[j] + mine_enemy[j]);
        double theirs = (double)(theirs_own[j] + theirs_enemy[j]);
        z += n->output[j] *
             (xen_net_clamp(mine + f[j] + base) - xen_net_clamp(theirs - f[j] + base));
    }
    return z;
}

#endif
