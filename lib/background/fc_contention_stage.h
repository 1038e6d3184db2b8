/*
 * fc_contention_stage.h - what the contention stage's program
 * (suites/contention.c: the roles, the phases clean and loaded, each
 * phase's figures gathered on rank 0) and its judgement
 * (lib/background/fc_contention_judge.c, rank 0: each loaded phase against the clean
 * phases on either side, its contention records and its TAP point)
 * share: one phase's result, and the names of the phases.
 */
#ifndef FC_CONTENTION_STAGE_H
#define FC_CONTENTION_STAGE_H

#include "fc_background.h"
#include "fc_stage.h"

/* One phase of one foreground point, as rank 0 gathered it. */
typedef struct fc_phase_result {
    unsigned mask;                      /* 0: clean */
    fc_point_summary_t *sums;           /* per group (rank 0) */
    int ngroups;                        /* foreground groups that reported */
    double achieved[FC_BG_KINDS];       /* MB/s per generating rank */
    int generating[FC_BG_KINDS];
    char error[FC_BG_ERROR_MAX], note[FC_BG_ERROR_MAX];
    int error_kind;                     /* the kind that logged error */
    json_t *counters;                   /* every node's links over the phase
                                         * (NULL: not read) */
} fc_phase_result_t;

/* A phase's name: "clean" (mask 0), its one background kind's, or "all". */
const char *fc_contention_mask_name(unsigned mask);

/* Rank 0: judge the loaded phase ph[p] against the clean phases around it
 * (ph[p - 1], ph[p + 1]): a contention record per foreground group in
 * results.jsonl, and one TAP point for them all with each group's
 * slowdown in its YAML block. A failed or INCOMPLETE group counts one
 * failed point in ctx. */
void fc_contention_judge_phase(fc_stage_ctx_t *ctx, const fc_contention_profile_t *cp,
                               const fc_test_point_t *pt, const fc_phase_result_t *ph, int p);

#endif
