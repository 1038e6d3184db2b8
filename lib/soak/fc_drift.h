/*
 * fc_drift.h - the soak's drift rule, apart from MPI so that it is
 * unit-tested (tests/unit/soak_drift.c) and the reports judge a soak's
 * windows again by the same code. A burn-in's drift check is there to
 * catch a fabric that degrades (a link that falls back to a lower rate, a
 * throttle, an error storm): a slowdown that *persists*. A busy host makes
 * windows that swing both ways; that is noise, and it must not confirm.
 *
 * Given the median time of each window and k (confirm_windows):
 *   - a level is held over k consecutive windows: "held fast at Y" when
 *     all k were at most Y, "held slow at X" when all k were at least X.
 *     One window, fast or slow, is never a level;
 *   - the drift is a step or a trend that holds to the last window: for
 *     each first slow window s with k windows or more from s to the end,
 *     the level every one of them reached (their fastest) against the
 *     fastest level held over k windows wholly before s; the largest such
 *     slowdown. With fewer than 2k windows it is not judged (-1);
 *   - the noise floor is how far the windows swung back: the largest
 *     fall from a level held slow to a level held fast later (0 when they
 *     never came back down). A slowdown that comes and goes is this floor,
 *     not a drift;
 *   - the tolerance is the larger of max_drift_pct and the noise floor: a
 *     limit tighter than the windows' own swing cannot confirm anything,
 *     and the record says that it was widened.
 * A drift above the tolerance is then confirmed by more windows (the
 * soak runs on for k more, fc_drift_watch_t): judged again over every
 * window, it must still be above; if the new windows contradict it, the
 * soak blames nobody and says INCOMPLETE with both figures.
 */
#ifndef FC_DRIFT_H
#define FC_DRIFT_H

typedef struct fc_drift {
    int n, k;                   /* windows judged, the hold length */
    double limit_pct;           /* max_drift_pct; < 0: no drift limit */
    double base;                /* the fastest level held over k windows before
                                 * the drift, s */
    int base_from;              /* those windows: base_from..base_from+k-1 */
    double sustained;           /* the level windows from..n-1 all reached, s */
    int from;                   /* the drift's first window; -1 if not judged */
    double drift_pct;           /* sustained against base (0 if faster);
                                 * -1: not judged (fewer than 2k windows) */
    double floor_pct;           /* the noise floor: largest held fall, >= 0 */
    int fall_slow, fall_fast;   /* first windows of the held slow level and of
                                 * the held fast one after it; -1: none */
    double fall_slow_s, fall_fast_s;    /* those two levels, s */
    double tolerance_pct;       /* max(limit_pct, floor_pct) */
    double reference;           /* lower quartile of the windows, s (peak) */
    double peak_pct;            /* the slowest window against it; -1 if n < 2 */
} fc_drift_t;

#define FC_DRIFT_MAX_WINDOWS 100000

/* n window medians m[] (seconds), k >= 1, the limit in percent. */
void fc_drift_judge(const double *m, int n, int k, double limit_pct, fc_drift_t *d);

/* 1 when d's drift is above its tolerance (and a limit applies). */
int fc_drift_seen(const fc_drift_t *d);

/* The fewest windows a drift is judged in: k held fast, k held slow. */
int fc_drift_min_windows(int k);

/* ---- confirmation: the soak runs on until the drift is settled ---------- */

typedef enum fc_drift_outcome {
    FC_DRIFT_NOT_JUDGED,        /* fewer than 2k windows, even with more time */
    FC_DRIFT_NONE,              /* judged, nothing above the tolerance */
    FC_DRIFT_CONFIRMED,         /* seen, and still seen k windows later */
    FC_DRIFT_CONTRADICTED,      /* seen, and gone k windows later */
    FC_DRIFT_UNCONFIRMED,       /* seen, and the time ran out before k more */
} fc_drift_outcome_t;

typedef struct fc_drift_watch {
    int seen_at;                /* windows when a drift was first seen; -1 */
    fc_drift_t first;           /* the drift as first seen */
} fc_drift_watch_t;

void fc_drift_watch_init(fc_drift_watch_t *w);

/* At the soak's end and after each window past it: judge m[0..n-1];
 * 1 while more windows are needed (fewer than 2k, or a drift seen fewer
 * than k windows ago), 0 when settled. */
int fc_drift_watch_step(fc_drift_watch_t *w, const double *m, int n, int k,
                        double limit_pct);

/* The outcome once the soak stopped, from the final judgement d over
 * every window (a drift seen only now is unconfirmed). */
fc_drift_outcome_t fc_drift_watch_outcome(const fc_drift_watch_t *w, const fc_drift_t *d);

/* "confirmed", "contradicted", ... for records. */
const char *fc_drift_outcome_name(fc_drift_outcome_t o);

#endif
