/*
 * fc_drift.h - the soak's drift rule, apart from MPI so that it is
 * unit-tested (tests/unit/soak_drift.c). Given the median time of each
 * window of a soak, the reference is their lower quartile (how fast the
 * point ran, not its single fastest window, which one lucky window would
 * make too fast), and the drift is the slowdown *sustained* over k
 * consecutive windows: the largest, over every run of k windows, of the
 * run's fastest median against the reference. One window slowed by a busy
 * neighbour is a peak, recorded but not judged; a link that degrades for
 * good or a GPU that throttles holds its slowdown window after window.
 */
#ifndef FC_DRIFT_H
#define FC_DRIFT_H

typedef struct fc_drift {
    double reference;           /* lower quartile of the window medians, s */
    double sustained;           /* the sustained run's fastest median, s */
    double drift_pct;           /* sustained against reference; -1: not judged
                                 * (fewer than 2 windows, or than k) */
    double peak_pct;            /* the single slowest window; -1 if < 2 */
    int from, to;               /* the sustained run: windows from..to */
} fc_drift_t;

#define FC_DRIFT_MAX_WINDOWS 100000

/* n window medians m[] (seconds), k >= 1. */
void fc_drift_judge(const double *m, int n, int k, fc_drift_t *d);

#endif
