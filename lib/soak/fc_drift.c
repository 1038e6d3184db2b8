/*
 * fc_drift.c - see fc_drift.h. Levels held over k windows are the
 * running maxima (held fast) and minima (held slow) of each k windows in
 * a row; the drift takes, for every first slow window s, the fastest held
 * level ending before s (a prefix minimum) and the slowest level every
 * window from s on reached (a suffix minimum); the noise floor takes, for
 * every held fast level, the slowest held level ending before it (a
 * prefix maximum). O(n k) in all, for at most FC_DRIFT_MAX_WINDOWS.
 * The lower quartile (for the peak only) is the sorted medians' element
 * (n-1)/4, rounded down.
 */
#include "fc_drift.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

static int fc_drift_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int fc_drift_min_windows(int k)
{
    return 2 * k;
}

/* The lower quartile and the slowest window against it. */
static void fc_drift_peak(const double *m, int n, fc_drift_t *d)
{
    double *sorted = fc_xcalloc((size_t)n, sizeof(*sorted), "the sorted window medians");

    memcpy(sorted, m, (size_t)n * sizeof(*m));
    qsort(sorted, (size_t)n, sizeof(*sorted), fc_drift_cmp);
    d->reference = sorted[(n - 1) / 4];
    if (d->reference > 0)
        d->peak_pct = (sorted[n - 1] / d->reference - 1) * 100;
    free(sorted);
}

/* The held levels: fast[a] the slowest of m[a..a+k-1], slow[a] its fastest. */
static void fc_drift_levels(const double *m, int n, int k, double *fast, double *slow)
{
    for (int a = 0; a + k <= n; ++a) {
        fast[a] = slow[a] = m[a];
        for (int i = a + 1; i < a + k; ++i) {
            fast[a] = m[i] > fast[a] ? m[i] : fast[a];
            slow[a] = m[i] < slow[a] ? m[i] : slow[a];
        }
    }
}

/* The drift: the largest step or trend that holds to the last window. */
static void fc_drift_step(const double *m, int n, int k, const double *fast, fc_drift_t *d)
{
    double after = m[n - 1], base = fast[0], best = 0;
    double *prefix = fc_xcalloc((size_t)n, sizeof(*prefix), "the held fast levels");
    int *at = fc_xcalloc((size_t)n, sizeof(*at), "the held fast levels' windows");
    int base_from = 0, found = 0;

    /* the fastest level held wholly before each window, upwards */
    for (int a = 0; a + k <= n; ++a) {
        if (fast[a] < base) {
            base = fast[a];
            base_from = a;
        }
        prefix[a] = base;
        at[a] = base_from;
    }
    /* each first slow window s, downwards, the level from s on growing
     * slower as s moves up; ties go to the longer run */
    for (int s = n - 1; s >= k; --s) {
        after = m[s] < after ? m[s] : after;
        if (s > n - k)
            continue;
        double pct = (after / prefix[s - k] - 1) * 100;

        if (!found || pct >= best) {
            found = 1;
            best = pct;
            d->from = s;
            d->sustained = after;
            d->base = prefix[s - k];
            d->base_from = at[s - k];
        }
    }
    d->drift_pct = best > 0 ? best : 0;     /* faster is no drift */
    free(at);
    free(prefix);
}

/* The noise floor: the largest fall from a held slow level to a held fast
 * level wholly after it. */
static void fc_drift_floor(int n, int k, const double *fast, const double *slow,
                           fc_drift_t *d)
{
    double slowest = 0;
    int slowest_at = -1;

    for (int b = k; b + k <= n; ++b) {
        if (slowest_at < 0 || slow[b - k] > slowest) {
            slowest = slow[b - k];
            slowest_at = b - k;
        }
        if (fast[b] <= 0)
            continue;
        double pct = (slowest / fast[b] - 1) * 100;

        if (pct > d->floor_pct) {
            d->floor_pct = pct;
            d->fall_slow = slowest_at;
            d->fall_fast = b;
            d->fall_slow_s = slowest;
            d->fall_fast_s = fast[b];
        }
    }
}

void fc_drift_judge(const double *m, int n, int k, double limit_pct, fc_drift_t *d)
{
    double *fast, *slow;

    memset(d, 0, sizeof(*d));
    d->n = n;
    d->k = k;
    d->limit_pct = limit_pct;
    d->drift_pct = d->peak_pct = -1;
    d->from = d->base_from = d->fall_slow = d->fall_fast = -1;
    d->tolerance_pct = limit_pct;
    if (n < 2 || n > FC_DRIFT_MAX_WINDOWS || k < 1)
        return;
    for (int w = 0; w < n; ++w)
        if (!(m[w] > 0))        /* a window without a time: nothing to judge */
            return;
    fc_drift_peak(m, n, d);
    if (n < fc_drift_min_windows(k))
        return;
    fast = fc_xcalloc((size_t)n, sizeof(*fast), "the held fast levels");
    slow = fc_xcalloc((size_t)n, sizeof(*slow), "the held slow levels");
    fc_drift_levels(m, n, k, fast, slow);
    fc_drift_step(m, n, k, fast, d);
    fc_drift_floor(n, k, fast, slow, d);
    if (d->floor_pct > d->tolerance_pct)
        d->tolerance_pct = d->floor_pct;
    free(slow);
    free(fast);
}

int fc_drift_seen(const fc_drift_t *d)
{
    return d->limit_pct >= 0 && d->drift_pct >= 0 && d->drift_pct > d->tolerance_pct;
}

void fc_drift_watch_init(fc_drift_watch_t *w)
{
    memset(w, 0, sizeof(*w));
    w->seen_at = -1;
}

int fc_drift_watch_step(fc_drift_watch_t *w, const double *m, int n, int k,
                        double limit_pct)
{
    fc_drift_t d;

    if (limit_pct < 0)
        return 0;
    if (w->seen_at >= 0)
        return n < w->seen_at + k;
    fc_drift_judge(m, n, k, limit_pct, &d);
    if (d.drift_pct < 0)
        return n < fc_drift_min_windows(k);
    if (!fc_drift_seen(&d))
        return 0;
    w->seen_at = n;
    w->first = d;
    return 1;
}

fc_drift_outcome_t fc_drift_watch_outcome(const fc_drift_watch_t *w, const fc_drift_t *d)
{
    if (d->drift_pct < 0)
        return FC_DRIFT_NOT_JUDGED;
    if (!fc_drift_seen(d))
        return w->seen_at >= 0 ? FC_DRIFT_CONTRADICTED : FC_DRIFT_NONE;
    if (w->seen_at >= 0 && d->n >= w->seen_at + d->k)
        return FC_DRIFT_CONFIRMED;
    return FC_DRIFT_UNCONFIRMED;
}

const char *fc_drift_outcome_name(fc_drift_outcome_t o)
{
    static const char *const names[] = {
        [FC_DRIFT_NOT_JUDGED] = "not judged", [FC_DRIFT_NONE] = "none",
        [FC_DRIFT_CONFIRMED] = "confirmed", [FC_DRIFT_CONTRADICTED] = "contradicted",
        [FC_DRIFT_UNCONFIRMED] = "unconfirmed",
    };

    return names[o];
}
