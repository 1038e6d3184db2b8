/*
 * fc_stats.h - timing statistics over iterations: min, median, p99 (nearest
 * rank), max and mean, and nccl-tests' bandwidths (GB = 10^9 bytes).
 */
#ifndef FC_STATS_H
#define FC_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fc_time_stats {
    double min, median, p99, max, mean;     /* seconds */
} fc_time_stats_t;

/* Samples are copied, not reordered. n must be >= 1. */
void fc_stats_compute(const double *samples, size_t n, fc_time_stats_t *stats_p);
/* Median of n values (copied). */
double fc_stats_median(const double *values, size_t n);
/* algbw in GB/s for bytes moved in seconds. */
double fc_stats_algbw(uint64_t bytes, double seconds);

#endif
