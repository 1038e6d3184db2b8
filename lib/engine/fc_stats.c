/*
 * fc_stats.c - see fc_stats.h. The p99 uses the nearest-rank definition
 * (the ceil(0.99 n)-th smallest sample), so with fewer than 100 samples it
 * is the maximum: an honest upper figure rather than an interpolation.
 */
#include "fc_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

static int fc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double fc_sorted_median(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double fc_stats_median(const double *values, size_t n)
{
    double *s;
    double m;

    if (n == 0)
        return 0.0;
    s = fc_xcalloc(n, sizeof(*s), "a median's sorted values");
    memcpy(s, values, n * sizeof(*s));
    qsort(s, n, sizeof(*s), fc_cmp_double);
    m = fc_sorted_median(s, n);
    free(s);
    return m;
}

void fc_stats_compute(const double *samples, size_t n, fc_time_stats_t *stats_p)
{
    double *s;
    double sum = 0.0;
    size_t p99_rank;

    memset(stats_p, 0, sizeof(*stats_p));
    if (n == 0)
        return;
    s = fc_xcalloc(n, sizeof(*s), "the sorted samples");
    memcpy(s, samples, n * sizeof(*s));
    qsort(s, n, sizeof(*s), fc_cmp_double);
    for (size_t k = 0; k < n; ++k)
        sum += s[k];
    p99_rank = (size_t)ceil(0.99 * (double)n);
    stats_p->min = s[0];
    stats_p->median = fc_sorted_median(s, n);
    stats_p->p99 = s[(p99_rank ? p99_rank : 1) - 1];
    stats_p->max = s[n - 1];
    stats_p->mean = sum / (double)n;
    free(s);
}

double fc_stats_algbw(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / seconds / 1e9 : 0.0;
}
