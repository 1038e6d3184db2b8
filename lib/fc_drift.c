/*
 * fc_drift.c - see fc_drift.h. The lower quartile is the sorted medians'
 * element (n-1)/4, rounded down; the sustained level of a run of k windows
 * is its minimum, so every window of the run was at least that slow; the
 * intermittent level is the sorted medians' element n - max(k, ceil(n/4)),
 * so that many windows, wherever they fell, were at least that slow.
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

void fc_drift_judge(const double *m, int n, int k, fc_drift_t *d)
{
    double *sorted, pos, slowest = 0;
    int lo;

    memset(d, 0, sizeof(*d));
    d->drift_pct = d->peak_pct = d->intermittent_pct = -1;
    if (n < 2 || n > FC_DRIFT_MAX_WINDOWS || k < 1)
        return;
    sorted = fc_xcalloc((size_t)n, sizeof(*sorted), "the sorted window medians");
    memcpy(sorted, m, (size_t)n * sizeof(*m));
    qsort(sorted, (size_t)n, sizeof(*sorted), fc_drift_cmp);
    /* the order statistic at (n-1)/4, not interpolated: with a few windows
     * most of which have slowed, interpolation would lift the reference
     * towards the slow ones and hide the drift it is there to show */
    pos = (n - 1) * 0.25;
    lo = (int)pos;
    d->reference = sorted[lo];
    d->slow_windows = (n + 3) / 4 > k ? (n + 3) / 4 : k;
    if (d->slow_windows <= n)
        d->intermittent = sorted[n - d->slow_windows];
    free(sorted);
    if (d->reference <= 0)
        return;
    for (int w = 0; w < n; ++w)
        slowest = m[w] > slowest ? m[w] : slowest;
    d->peak_pct = (slowest / d->reference - 1) * 100;
    if (k > n)
        return;
    for (int w = 0; w + k <= n; ++w) {
        double held = m[w];

        for (int i = w + 1; i < w + k; ++i)
            held = m[i] < held ? m[i] : held;
        if (w == 0 || held > d->sustained) {
            d->sustained = held;
            d->from = w;
            d->to = w + k - 1;
        }
    }
    d->drift_pct = (d->sustained / d->reference - 1) * 100;
    if (d->drift_pct < 0)
        d->drift_pct = 0;
    d->intermittent_pct = (d->intermittent / d->reference - 1) * 100;
    if (d->intermittent_pct < 0)
        d->intermittent_pct = 0;
}

double fc_drift_worst_pct(const fc_drift_t *d)
{
    return d->intermittent_pct > d->drift_pct ? d->intermittent_pct : d->drift_pct;
}
