/*
 * fc_retest_records.h - the retest's judgement and its records (rank 0 of
 * suites/retest.c; no MPI here). Given every checked exchange of the
 * retest and the runner's list of groups with a wrong result, it places
 * the fault (lib/retest/fc_localise.h) and writes one `retest` record per group:
 *
 *   localised, culprit in the group: implicates {part: node, host, rack,
 *     quarantine: true}; reasons[0] "wrong data sent by H (rank 3)
 *     confirmed by 5 retests: H -> A wrong, A -> H right, ...";
 *   otherwise: implicates {part: group, racks, hosts, quarantine: false};
 *     reasons[0] "intermittent corruption in G (N hosts), not localised: ...".
 *
 * When every exchange was right, the leave-one-out all_reduces decide:
 * exactly one right (the one without unit X) places X ("confirmed by 6
 * all_reduce retests, each without one node: without H right, ...").
 * Every record carries the evidence: each leave-one-out result, the
 * method that placed the fault, and the exchanges (sender and receiver
 * rank and host, buffers, wrong buffers, wrong elements, first bad index
 * with its expected and actual bits) that involve the culprit, or the
 * wrong ones when nothing was placed, with the counts of all of them. A
 * culprit outside every group (confirmed, but not what the stage saw) gets
 * a record of its own with group "". Every retest record is a FAIL: a
 * wrong result was observed, whatever the retest found.
 */
#ifndef FC_RETEST_RECORDS_H
#define FC_RETEST_RECORDS_H

#include <jansson.h>

#include "fc_engine.h"
#include "fc_localise.h"
#include "fc_results.h"
#include "fc_tap.h"

typedef struct fc_retest_input {
    const char *run_id;
    const char *stage;              /* the stage retested */
    int nranks;
    char (*rank_hosts)[FC_HOST_MAX];
    const fc_exchange_t *exchanges; /* entries with iters 0 are byes */
    int nexchanges;
    int rounds;
    long bytes, iters;              /* per exchange, per direction */
    double seconds;                 /* the retest's wall time */
    const int *unit;                /* per rank: its leave-one-out unit (its
                                     * host index, or the rank itself when
                                     * the job has one host) */
    int nunits;
    const uint64_t *loo_wrong;      /* per unit: wrong elements of the
                                     * collective among all the others */
    const double *loo_seconds;      /* per unit: its median time (NULL when
                                     * it was not timed) */
    double all_seconds;             /* the same collective on every rank */
    const int *loo_ranks;           /* the ranks of the unit the leave-one-out
                                     * found, each left out alone in turn */
    const double *loo_rank_seconds; /* their median times (NULL: not run) */
    int nloo_ranks;
    const char *loo_label;          /* "all_reduce float32 sum 64 KiB" */
    json_t *groups;                 /* the runner's file: {stage, host_racks:
                                     * {host: rack}, groups: [{group, hosts,
                                     * racks, observed, points}]} */
} fc_retest_input_t;

/* Judge and append the records of the groups with a wrong result (kind
 * "wrong", the default); TAP lines to tap. Returns the number of records
 * written (each a FAIL). */
int fc_retest_write_records(const fc_retest_input_t *in, fc_results_t *results,
                            fc_tap_t *tap);
/* The same for the groups whose confirmed slowness waits to be placed
 * (kind "slow"): lib/retest/fc_retest_slow.c judges, lib/retest/fc_retest_slow_records.c
 * writes. */
int fc_retest_write_slow_records(const fc_retest_input_t *in, fc_results_t *results,
                                 fc_tap_t *tap);
/* Of n leave-one-out times, the one at least FC_SLOW_FACTOR times faster
 * than every other (n >= 3), or -1; *best_p, *rest_min_p, *rest_max_p get
 * the figures when given. */
int fc_retest_loo_fastest(const double *seconds, int n, double *best_p, double *rest_min_p,
                          double *rest_max_p);
/* vsnprintf at buf + at (when at < len); returns the new end, so a text
 * is built by successive calls and cut at len. */
size_t fc_retest_cat(char *buf, size_t len, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An exchange's first wrong element, into its JSON object o: first_index,
 * expected_bits and actual_bits ("0x..."). */
void fc_retest_first_wrong(json_t *o, uint64_t index, uint64_t expected, uint64_t actual);
/* 1 when the runner's group entry is of kind "slow". */
int fc_retest_group_is_slow(json_t *group);

#endif
