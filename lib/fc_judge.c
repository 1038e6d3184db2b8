/*
 * fc_judge.c - see fc_judge.h. The relative rule needs at least two groups
 * (one node alone has no peers); its median is over the groups that ran.
 */
#include "fc_judge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_stats.h"

__attribute__((format(printf, 2, 3)))
static void fc_judge_fail(fc_judgement_t *j, const char *fmt, ...)
{
    va_list ap;

    j->status = FC_ERR_FAIL;
    if (j->nreasons == (int)(sizeof(j->reasons) / sizeof(j->reasons[0])))
        return;
    va_start(ap, fmt);
    vsnprintf(j->reasons[j->nreasons++], FC_REASON_MAX, fmt, ap);
    va_end(ap);
}

static void fc_judge_one(const fc_stage_profile_t *sp,
                         const fc_test_point_t *pt,
                         const fc_point_summary_t *s, fc_judgement_t *j)
{
    const fc_limit_rule_t *rule;

    if (s->status != FC_OK) {
        j->status = (fc_status_t)s->status;
        snprintf(j->reasons[j->nreasons++], FC_REASON_MAX,
                 "could not run on host %s (%s)", s->host,
                 fc_status_str((fc_status_t)s->status));
        return;
    }
    if (s->wrong > sp->max_wrong)
        fc_judge_fail(j, "%llu wrong elements on %d rank(s); first on rank %d "
                      "(host %s) at iteration %d, element %llu: expected "
                      "0x%llx, got 0x%llx (%llu wrong on that rank)",
                      (unsigned long long)s->wrong, s->bad_ranks,
                      s->first_bad_rank, s->first_bad_host, s->first_bad_iter,
                      (unsigned long long)s->first_bad_pos,
                      (unsigned long long)s->first_expected,
                      (unsigned long long)s->first_actual,
                      (unsigned long long)s->first_rank_wrong);
    if (!s->digest_ranks_agree)
        fc_judge_fail(j, "ranks hold different output bits (rank %d differs "
                      "from rank %d, host %s)", s->disagree_rank,
                      s->first_world_rank, s->host);
    if (!s->digest_reps_agree)
        fc_judge_fail(j, "repetitions gave different output bits on rank %d",
                      s->disagree_rank);
    rule = fc_profile_find_limit(sp, pt->coll, pt->dtype, pt->op, s->bytes);
    j->limit = rule;
    if (rule != NULL && rule->min_busbw_gbps >= 0 &&
        s->busbw < rule->min_busbw_gbps)
        fc_judge_fail(j, "busbw %.3f GB/s is below the limit %.3f GB/s "
                      "(profile line %d); slowest rank %d on host %s",
                      s->busbw, rule->min_busbw_gbps, rule->line,
                      s->slowest_rank, s->slowest_host);
    if (rule != NULL && rule->max_latency_us >= 0 &&
        s->time.median * 1e6 > rule->max_latency_us)
        fc_judge_fail(j, "median time %.1f us is above the limit %.1f us "
                      "(profile line %d); slowest rank %d on host %s",
                      s->time.median * 1e6, rule->max_latency_us, rule->line,
                      s->slowest_rank, s->slowest_host);
}

void fc_judge_point(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                    const fc_point_summary_t *sums, int n, fc_judgement_t *out)
{
    double *busbw = calloc((size_t)n, sizeof(*busbw));
    double median = -1;
    int ran = 0;

    for (int g = 0; g < n; ++g) {
        memset(&out[g], 0, sizeof(out[g]));
        out[g].status = FC_OK;
        out[g].peer_median_busbw = -1;
        fc_judge_one(sp, pt, &sums[g], &out[g]);
        if (sums[g].status == FC_OK && busbw != NULL)
            busbw[ran++] = sums[g].busbw;
    }
    if (sp->max_below_median_pct >= 0 && ran >= 2 && pt->bytes >= sp->relative_min_bytes)
        median = fc_stats_median(busbw, (size_t)ran);
    for (int g = 0; g < n && median > 0; ++g) {
        double floor_bw = median * (1.0 - sp->max_below_median_pct / 100.0);

        out[g].peer_median_busbw = median;
        if (sums[g].status == FC_OK && sums[g].busbw < floor_bw)
            fc_judge_fail(&out[g], "busbw %.3f GB/s on host %s is %.0f%% below "
                          "the median of its peers (%.3f GB/s; allowed %.0f%%)",
                          sums[g].busbw, sums[g].host,
                          100.0 * (1.0 - sums[g].busbw / median), median,
                          sp->max_below_median_pct);
    }
    free(busbw);
}
