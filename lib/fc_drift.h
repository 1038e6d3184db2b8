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
 *
 * A slowdown that comes and goes (a flapping link, a GPU that throttles
 * every other minute) is never held over k consecutive windows, so a
 * second, robust condition judges it: the intermittent level is the
 * median that the slowest max(k, ceil(n/4)) windows all reached (an
 * upper quartile that takes at least k windows), against the same lower
 * quartile. A quarter of the windows slow, and at least k of them, is a
 * drift; one noisy window among eight is not.
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
    double intermittent;        /* the level the slowest `slow_windows`
                                 * windows all reached, s */
    double intermittent_pct;    /* it against reference; -1: not judged */
    int slow_windows;           /* max(k, ceil(n/4)) */
} fc_drift_t;

#define FC_DRIFT_MAX_WINDOWS 100000

/* n window medians m[] (seconds), k >= 1. */
void fc_drift_judge(const double *m, int n, int k, fc_drift_t *d);

/* The larger of the two: sustained or intermittent (-1: not judged). */
double fc_drift_worst_pct(const fc_drift_t *d);

#endif
