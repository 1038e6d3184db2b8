/*
 * fc_judge.h - applies a stage's profile to the summaries of one test
 * point: zero tolerance for wrong bits, digests that must agree, absolute
 * limits (min busbw, max median latency) and the relative rule (a group
 * more than X% below the median busbw of its peers fails). Each failure
 * becomes one sentence that names the host, rank and the part implicated.
 */
#ifndef FC_JUDGE_H
#define FC_JUDGE_H

#include "fc_engine.h"
#include "fc_profile.h"

#define FC_REASON_MAX 512

typedef struct fc_judgement {
    fc_status_t status;         /* FC_OK or FC_ERR_FAIL (or the run status) */
    int nreasons;
    char reasons[4][FC_REASON_MAX];
    const fc_limit_rule_t *limit;   /* the absolute rule applied, or NULL */
    double peer_median_busbw;       /* relative rule's median, or -1 */
} fc_judgement_t;

/* Judge each of n summaries of the same point; out has n entries. */
void fc_judge_point(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                    const fc_point_summary_t *sums, int n, fc_judgement_t *out);

#endif
