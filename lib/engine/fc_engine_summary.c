/*
 * fc_engine_summary.c - what rank 0 makes of one point's run (see
 * fc_engine_int.h): the time statistics of the slowest rank's time per
 * iteration, algbw and busbw (per call and batched), the digests' agreement
 * across ranks and repetitions, the first wrong element and its rank, the
 * calls made and checked (the fewest checked on any rank), and who
 * arrived last at the starting barrier (evidence, not blame).
 */
#include "fc_engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

/* Who arrived last at the starting barrier, iteration by iteration: the
 * rank that waited least (waits[r * iters + i]); the summary keeps the
 * one that was last most often and its median lateness. */
static void fc_engine_arrivals(const fc_test_point_t *pt, int nranks,
                               const fc_rank_report_t *reps, const double *waits,
                               fc_point_summary_t *s)
{
    int *last = fc_xcalloc((size_t)nranks, sizeof(int), "the ranks' last arrivals");
    double *late = fc_xcalloc((size_t)pt->iters, sizeof(double), "the last arrivals' lateness");
    int best = -1, nlate = 0;

    s->arrival_last_rank = -1;
    if (nranks < 2)
        goto out;
    for (int i = 0; i < pt->iters; ++i) {
        int r_min = 0;

        for (int r = 0; r < nranks; ++r) {
            double w = waits[(size_t)r * pt->iters + i];

            if (w < 0)
                goto out;           /* the backend cannot tell */
            if (w < waits[(size_t)r_min * pt->iters + i])
                r_min = r;
        }
        last[r_min]++;
    }
    for (int r = 0; r < nranks; ++r)
        if (best < 0 || last[r] > last[best])
            best = r;
    for (int i = 0; i < pt->iters; ++i) {
        double w_max = 0, w_best = waits[(size_t)best * pt->iters + i];
        int is_last = 1;

        for (int r = 0; r < nranks; ++r) {
            double w = waits[(size_t)r * pt->iters + i];

            w_max = w > w_max ? w : w_max;
            is_last &= w >= w_best;
        }
        if (is_last)
            late[nlate++] = w_max - w_best;
    }
    s->arrival_last_rank = reps[best].world_rank;
    snprintf(s->arrival_last_host, sizeof(s->arrival_last_host), "%s", reps[best].host);
    s->arrival_last_iters = last[best];
    s->arrival_late_s = nlate ? fc_stats_median(late, (size_t)nlate) : 0;
out:
    free(last);
    free(late);
}

void fc_point_summary_take_first_bad(fc_point_summary_t *to, const fc_point_summary_t *from)
{
    if (to->wrong > 0 || from->wrong == 0)
        return;
    to->first_bad_rank = from->first_bad_rank;
    memcpy(to->first_bad_host, from->first_bad_host, sizeof(to->first_bad_host));
    to->first_bad_iter = from->first_bad_iter;
    to->first_bad_pos = from->first_bad_pos;
    to->first_expected = from->first_expected;
    to->first_actual = from->first_actual;
    to->first_rank_wrong = from->first_rank_wrong;
}

void fc_engine_summarise(const fc_point_run_t *run, const fc_rank_report_t *reps,
                         const double *slowest_times, const double *waits,
                         fc_point_summary_t *s)
{
    const fc_test_point_t *pt = run->pt;
    const fc_coll_desc_t *desc = run->pr.desc;
    int nranks = run->be->size;
    double factor = nranks <= 1 ? 0 : desc->bus_factor_func(nranks), batch = 0;

    s->valid = 1;
    snprintf(s->host, sizeof(s->host), "%s", reps[0].host);
    s->nranks = nranks;
    s->nhosts = 0;
    for (int r = 0; r < nranks; ++r) {
        int seen = 0;

        for (int q = 0; q < r && !seen; ++q)
            seen = strcmp(reps[q].host, reps[r].host) == 0;
        s->nhosts += !seen;
    }
    s->first_world_rank = reps[0].world_rank;
    s->bytes = run->pr.counts.bytes;
    s->count = run->pr.counts.count;
    s->iters = pt->iters;
    s->warmup = pt->warmup;
    fc_stats_compute(slowest_times, (size_t)pt->iters, &s->time);
    fc_samples_keep(slowest_times, pt->iters, &s->samples);
    s->algbw = fc_stats_algbw(run->pr.counts.bytes, s->time.median);
    /* one rank moves nothing between ranks: busbw says nothing (0, and
     * the judge says why), whatever the collective's factor */
    s->busbw = s->algbw * factor;
    for (int r = 0; r < nranks && batch >= 0; ++r)
        batch = reps[r].batch_s < 0 ? -1 : reps[r].batch_s > batch ? reps[r].batch_s : batch;
    s->batch_time_s = batch;
    s->batch_busbw = batch > 0 ? fc_stats_algbw(run->pr.counts.bytes, batch) * factor : -1;
    s->batch_calls = batch > 0 ? run->batch_calls : 0;
    for (int r = 0; r < nranks; ++r)
        fc_calls_fold(&s->calls, &reps[r].calls, r == 0);
    s->first_bad_rank = -1;
    s->disagree_rank = -1;
    s->digest_ranks_agree = 1;
    s->digest_reps_agree = 1;
    s->digest = reps[0].digest0;
    for (int r = 0; r < nranks; ++r) {
        const fc_rank_report_t *rep = &reps[r];

        if (!rep->reps_agree) {
            s->digest_reps_agree = 0;
            if (s->disagree_rank < 0)
                s->disagree_rank = rep->world_rank;
        }
        if (desc->same_output && rep->digest0 != reps[0].digest0) {
            s->digest_ranks_agree = 0;
            if (s->disagree_rank < 0)
                s->disagree_rank = rep->world_rank;
        }
        if (rep->wrong == 0)
            continue;
        s->wrong += rep->wrong;
        s->bad_ranks++;
        if (s->first_bad_rank >= 0 && s->bad_one_host)
            s->bad_one_host = strcmp(rep->host, s->first_bad_host) == 0;
        if (s->first_bad_rank < 0) {
            s->bad_one_host = 1;
            s->first_bad_rank = rep->world_rank;
            snprintf(s->first_bad_host, sizeof(s->first_bad_host), "%s", rep->host);
            s->first_bad_iter = rep->first_iter;
            s->first_bad_pos = rep->first_pos;
            s->first_expected = rep->first_expected;
            s->first_actual = rep->first_actual;
            s->first_rank_wrong = rep->wrong;
        }
    }
    fc_engine_arrivals(pt, nranks, reps, waits, s);
}
