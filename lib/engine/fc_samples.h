/*
 * fc_samples.h - the per-iteration times a point or pair record keeps, so
 * that two runs can be compared by a rank test or a bootstrap (fabcert
 * compare) and a limit's margin can be set against the measured noise
 * (fabcert baseline, the sensitivity of every judged point). MPI-free.
 *
 * What is kept: the time of each timed iteration as the limits see it
 * (a point: the slowest rank's time of that iteration, on rank 0; a pair:
 * the slower side's time of each exchange), at most FC_SAMPLES_MAX of
 * them. With more iterations the kept ones are evenly spaced, in order:
 * iterations floor(k * of / FC_SAMPLES_MAX) for k = 0 .. FC_SAMPLES_MAX-1
 * (a fixed rule, not a random reservoir: the same run gives the same
 * samples, and a slowdown that sets in part way through is kept in its
 * proportion).
 *
 * In a record: "samples": {"unit_ns": U, "values": [v0, v1, ...],
 * "of": N}: sample k is v_k x U nanoseconds, each rounded to 3
 * significant digits, U the power of ten (at least 1 ns) that gives the
 * smallest sample 3 digits; N the timed iterations they were taken from.
 * Whole numbers, so the record is compact and reads back exactly.
 */
#ifndef FC_SAMPLES_H
#define FC_SAMPLES_H

#include <jansson.h>
#include <stdint.h>

#define FC_SAMPLES_MAX 64

typedef struct fc_samples {
    int32_t n;                      /* samples kept (0: none) */
    int32_t of;                     /* timed iterations they came from */
    double s[FC_SAMPLES_MAX];       /* seconds, in iteration order */
} fc_samples_t;

/* Keep up to FC_SAMPLES_MAX of the n times (seconds) by the rule above. */
void fc_samples_keep(const double *times, int n, fc_samples_t *out_p);

/* The record member for smp, or NULL when it holds none. */
json_t *fc_samples_json(const fc_samples_t *smp);

/* Read a record's "samples" member back into us (microseconds, at most
 * max): the count, 0 when the member is absent or null (a record of an
 * older fabcert), -1 when it is malformed (not whole positive numbers, a
 * unit that is not a power of ten, more values than iterations). */
int fc_samples_read(json_t *member, double *us, int max);

#endif
