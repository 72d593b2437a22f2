/* learned.h - the learned evaluation both games share: a feature set
 * described by names, a block of weights in each game's tables, and the
 * value of a feature vector under those weights.
 *
 * A game's features (its features.c) are all "own minus the enemy's": each
 * is a per-side value (castle HP, units in the front row, copies of a card
 * owned...) taken for the evaluating player and for the other seat. The
 * evaluation is then antisymmetric, value(s, p) = -value(s, 1 - p), as the
 * returns of a zero-sum game are, and needs no intercept. The side to move
 * and the first seat are features like the others (+1, -1).
 *
 * The weights are tapered by the phase of the game, as chess engines taper
 * between middlegame and endgame: with ph = min(turn, taper_turns) / taper_turns,
 *
 *     z     = sum_i ((1 - ph) * opening[i] + ph * ending[i]) * x[i]
 *           + network(x, ph)                    (0 without a hidden layer)
 *     value = tanh(z / 2)            (= 2 * sigmoid(z) - 1, in (-1, 1))
 *
 * so sigmoid(z) is the fitted probability of winning (draws count a half).
 *
 * The network (weights files of version 2) is one hidden layer of n_hidden
 * tanh units on the same features, with the phase as an input of each unit,
 * made odd in x as f(x) - f(-x) so that the value stays antisymmetric:
 *
 *     a_j = sum_i hidden_weights[i][j] * x[i]
 *     c_j = hidden_bias[j] + ph * hidden_phase[j]
 *     network(x, ph) = sum_j output[j] * (tanh(c_j + a_j) - tanh(c_j - a_j))
 *
 * a_j is computed once for both signs. The weights are stored feature by
 * feature, so a feature that is zero (most per-card counts) costs nothing.
 *
 * The weights are data (src/data/<game>/weights.json, written by
 * `xenophon tune`), copied into the tables by the bindings: n_features == 0
 * means none are loaded.
 */
#ifndef XENOPHON_FEATURES_H
#define XENOPHON_FEATURES_H

#include <math.h>

/* An upper bound on the feature count of every game (scalars and a few groups
 * per card of its card set; each game checks its own count against it in its
 * features.c). */
#define XEN_MAX_FEATURES 232
/* The most hidden units a network may have. */
#define XEN_MAX_HIDDEN 64

/* A game's features by name: its scalar features first, then, for each card
 * group, one feature per card id of the card set ("grid:Militia"). */
typedef struct XenFeatureSet {
    int n_scalar;
    const char *const *scalar_names;
    int n_card_groups;
    const char *const *card_group_names;
} XenFeatureSet;

static inline int xen_feature_count(const XenFeatureSet *set, int n_cards) {
    return set->n_scalar + set->n_card_groups * n_cards;
}

typedef struct XenLearnedEval {
    int n_features;  /* 0: no weights loaded */
    int taper_turns; /* at least 1 */
    int n_hidden;    /* 0: the linear value alone */
    double opening[XEN_MAX_FEATURES];
    double ending[XEN_MAX_FEATURES];
    double hidden_bias[XEN_MAX_HIDDEN];
    double hidden_phase[XEN_MAX_HIDDEN];
    double output[XEN_MAX_HIDDEN];
    double hidden_weights[XEN_MAX_FEATURES][XEN_MAX_HIDDEN];
} XenLearnedEval;

/* The phase in [0, 1] at `turn`. */
static inline double xen_phase(const XenLearnedEval *e, int turn) {
    return turn >= e->taper_turns ? 1.0 : (double)turn / e->taper_turns;
}

/* The hidden layer's term of z (see the top of this file). */
static inline double xen_network_term(const XenLearnedEval *e, const double *x, double ph) {
    double a[XEN_MAX_HIDDEN] = {0.0}, z = 0.0;
    const int h = e->n_hidden;
    for (int i = 0; i < e->n_features; i++) {
        if (x[i] == 0.0) continue;
        const double *w = e->hidden_weights[i];
        for (int j = 0; j < h; j++) a[j] += w[j] * x[i];
    }
    for (int j = 0; j < h; j++) {
        double c = e->hidden_bias[j] + ph * e->hidden_phase[j];
        z += e->output[j] * (tanh(c + a[j]) - tanh(c - a[j]));
    }
    return z;
}

/* tanh(z / 2) of the features x (e->n_features of them) at `turn`. */
static inline double xen_learned_value(const XenLearnedEval *e, const double *x, int turn) {
    double ph = xen_phase(e, turn), z = 0.0;
    for (int i = 0; i < e->n_features; i++)
        z += (e->opening[i] + ph * (e->ending[i] - e->opening[i])) * x[i];
    if (e->n_hidden > 0) z += xen_network_term(e, x, ph);
    return tanh(0.5 * z);
}

/* The features of a side-value struct S (one double field per scalar
 * feature, listed by the X-macro LIST, then card arrays): own minus enemy's. */
#define XEN_FEATURE_NAME(name) #name,
#define XEN_FEATURE_FIELD(name) double name;

#endif
