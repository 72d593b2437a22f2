/* runs.h - legal lists as runs of codes, the form both move generators
 * produce: the whole list expanded from it, or one code of it picked without
 * writing the list.
 *
 * A run is the codes XEN_CODE(kind, x, y) of one kind for each set bit b of
 * a 64-bit mask, b being y with x fixed (a card and its targets, a square
 * and where it may go) or, with `over_x`, x with y fixed (the cards in a
 * hand). A generator appends its runs in ascending code order (codes.h), so
 * the expanded list is ascending, and the r-th code of the runs is the r-th
 * of the list: a uniformly random legal code costs the runs, a popcount per
 * run and one walk to its bit, where the list costs a store per code.
 */
#ifndef XENOPHON_RUNS_H
#define XENOPHON_RUNS_H

#include <stdint.h>

#include "codes.h"
#include "rng.h"

typedef struct XenRun {
    uint64_t bits;
    uint8_t kind, fixed, over_x;
} XenRun;

/* Appends a run unless it is empty; returns the new number of runs. */
static inline int xen_run_add(XenRun *runs, int n, int kind, int fixed, int over_x, uint64_t bits) {
    if (!bits) return n;
    runs[n].bits = bits;
    runs[n].kind = (uint8_t)kind;
    runs[n].fixed = (uint8_t)fixed;
    runs[n].over_x = (uint8_t)over_x;
    return n + 1;
}

static inline XenCode xen_run_code(const XenRun *run, int b) {
    return run->over_x ? XEN_CODE(run->kind, b, run->fixed) : XEN_CODE(run->kind, run->fixed, b);
}

/* The codes of the runs, in order, into out; returns how many. */
static inline int xen_runs_expand(const XenRun *runs, int n_runs, XenCode *out) {
    int n = 0;
    for (int i = 0; i < n_runs; i++)
        for (uint64_t m = runs[i].bits; m; m &= m - 1)
            out[n++] = xen_run_code(&runs[i], __builtin_ctzll(m));
    return n;
}

static inline int xen_runs_count(const XenRun *runs, int n_runs) {
    int n = 0;
    for (int i = 0; i < n_runs; i++) n += xen_popcount64(runs[i].bits);
    return n;
}

/* The r-th code (from 0) of the runs' list, r below their count. */
static inline XenCode xen_runs_code(const XenRun *runs, int n_runs, int r) {
    int i = 0, size;
    while (r >= (size = xen_popcount64(runs[i].bits))) {
        r -= size;
        i++;
        XEN_ASSERT(i < n_runs);
    }
    (void)n_runs;
    uint64_t m = runs[i].bits;
    while (r--) m &= m - 1;
    return xen_run_code(&runs[i], __builtin_ctzll(m));
}

/* A uniformly random code of the runs' list (n_runs > 0): the code
 * list[xen_rng_below(rng, n)] of the expanded list of n codes. */
static inline XenCode xen_runs_random(const XenRun *runs, int n_runs, XenRng *rng) {
    return xen_runs_code(runs, n_runs,
                         (int)xen_rng_below(rng, (uint32_t)xen_runs_count(runs, n_runs)));
}

/* 1 if code is one of the runs' codes. */
static inline int xen_runs_hold(const XenRun *runs, int n_runs, XenCode code) {
    int kind = XEN_KIND(code), x = XEN_X(code), y = XEN_Y(code);
    for (int i = 0; i < n_runs; i++) {
        const XenRun *run = &runs[i];
        if (run->kind != kind || run->fixed != (run->over_x ? y : x)) continue;
        if ((run->bits >> (run->over_x ? x : y)) & 1) return 1;
    }
    return 0;
}

#endif
