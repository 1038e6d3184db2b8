/*
 * fc_judge.c - see fc_judge.h. A point is judged per group in three
 * steps: bits and digests, the absolute limit matched on the requested
 * size, then the relative rule against the group's peer class. The groups
 * that ran give their class a figure: busbw, or algbw where busbw means
 * nothing (one rank: a bus factor of 0), every member of a class alike.
 * A one-rank point whose call need move nothing (a broadcast, an in-place
 * variant: fc_coll.c's one_rank_copies) gives no figure at all: its time
 * is the call's overhead, and comparing it would fail healthy nodes on
 * timer noise; the record says so.
 */
#include "fc_judge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

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

/* A rule that could not judge this group, and why. */
__attribute__((format(printf, 2, 3)))
static void fc_judge_note(fc_judgement_t *j, const char *fmt, ...)
{
    va_list ap;

    if (j->nnotes == FC_JUDGE_NOTES)
        return;
    va_start(ap, fmt);
    vsnprintf(j->notes[j->nnotes++], FC_REASON_MAX, fmt, ap);
    va_end(ap);
}

int fc_judge_busbw_void(fc_coll_id_t coll, int nranks)
{
    return nranks <= 1 || fc_coll_desc(coll)->bus_factor_func(nranks) <= 0;
}

double fc_judge_relative_figure(fc_coll_id_t coll, const fc_point_summary_t *s)
{
    return fc_judge_busbw_void(coll, s->nranks) ? s->algbw : s->busbw;
}

const char *fc_judge_relative_figure_name(fc_coll_id_t coll, int nranks)
{
    return fc_judge_busbw_void(coll, nranks) ? "algbw" : "busbw";
}

int fc_judge_moves_nothing(fc_coll_id_t coll, int nranks)
{
    return nranks == 1 && !fc_coll_desc(coll)->one_rank_copies;
}

/* Why a one-rank call moves nothing: "broadcast moves nothing on one rank
 * (its root already holds the data)". */
static void fc_judge_nothing_why(fc_coll_id_t coll, char *buf, size_t len)
{
    const fc_coll_desc_t *d = fc_coll_desc(coll);

    snprintf(buf, len, "%s moves nothing on one rank (%s)", d->name,
             d->in_place ? "its input is already its output"
                         : "its root already holds the data");
}

/* Why busbw says nothing here: "the bus factor of all_reduce on 1 rank is
 * 0" or "broadcast on 1 rank moves no data between ranks". */
static void fc_judge_void_why(fc_coll_id_t coll, int nranks, char *buf, size_t len)
{
    const fc_coll_desc_t *d = fc_coll_desc(coll);

    if (d->bus_factor_func(nranks) <= 0)
        snprintf(buf, len, "the bus factor of %s on %d rank%s is 0", d->name, nranks,
                 nranks == 1 ? "" : "s");
    else
        snprintf(buf, len, "%s on %d rank moves no data between ranks", d->name, nranks);
}

void fc_judge_bits(const fc_stage_profile_t *sp, const fc_point_summary_t *s,
                   fc_judgement_t *j)
{
    char why[FC_REASON_MAX];

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
    /* no PASS from a call whose output was not checked (fc_calls.h) */
    if (fc_calls_unchecked(&s->calls) > 0) {
        fc_calls_why(&s->calls, why, sizeof(why));
        fc_judge_fail(j, "%s", why);
    }
}

/* The absolute limit, matched on the requested size. With a bus factor
 * of 0 the busbw limit says nothing and is not applied (said so). */
static void fc_judge_limits(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                            const fc_point_summary_t *s, fc_judgement_t *j)
{
    const fc_limit_rule_t *rule =
        fc_profile_find_limit(sp, pt->coll, pt->dtype, pt->op, pt->bytes);

    j->limit = rule;
    if (rule != NULL && rule->min_busbw_gbps >= 0) {
        if (fc_judge_busbw_void(pt->coll, s->nranks)) {
            char why[128];

            fc_judge_void_why(pt->coll, s->nranks, why, sizeof(why));
            fc_judge_note(j, "min_busbw_gbps (profile line %d) not applied: %s, so "
                          "busbw says nothing; judged on bits and time only",
                          rule->line, why);
        } else if (s->busbw < rule->min_busbw_gbps)
            fc_judge_fail(j, "busbw %.3f GB/s is below the limit %.3f GB/s "
                          "(profile line %d)", s->busbw, rule->min_busbw_gbps, rule->line);
    }
    if (rule != NULL && rule->max_latency_us >= 0 &&
        s->time.median * 1e6 > rule->max_latency_us)
        fc_judge_fail(j, "median time %.1f us is above the limit %.1f us "
                      "(profile line %d)", s->time.median * 1e6, rule->max_latency_us,
                      rule->line);
}

static void fc_judge_one(const fc_stage_profile_t *sp,
                         const fc_test_point_t *pt,
                         const fc_point_summary_t *s, fc_judgement_t *j)
{
    if (s->status != FC_OK) {
        j->status = (fc_status_t)s->status;
        snprintf(j->reasons[j->nreasons++], FC_REASON_MAX,
                 "could not run on host %s (%s)", s->host,
                 fc_status_str((fc_status_t)s->status));
        return;
    }
    fc_judge_bits(sp, s, j);
    fc_judge_limits(sp, pt, s, j);
}

/* Did an absolute limit judge this group's timing (a latency limit, or a
 * busbw limit whose busbw means something)? */
static int fc_judge_limits_judged(const fc_judgement_t *j, fc_coll_id_t coll, int nranks)
{
    return j->limit != NULL &&
           (j->limit->max_latency_us >= 0 ||
            (j->limit->min_busbw_gbps >= 0 && !fc_judge_busbw_void(coll, nranks)));
}

/* What judged a group the relative rule did not. */
static const char *fc_judge_alone_text(const fc_judgement_t *j, const fc_test_point_t *pt,
                                       const fc_point_summary_t *s)
{
    return fc_judge_limits_judged(j, pt->coll, s->nranks)
               ? "judged on the absolute limits alone"
               : "no absolute limit covers this point either: only its bits were judged";
}

/* The relative rule for every group that ran, against its peer class. */
static void fc_judge_relative(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                              const fc_point_summary_t *sums, int n, const char *kind,
                              fc_judgement_t *out)
{
    fc_peer_shape_t *shapes = fc_xcalloc((size_t)n + 1, sizeof(*shapes), "the groups' shapes");
    fc_peer_ref_t *refs = fc_xcalloc((size_t)n + 1, sizeof(*refs), "the groups' references");
    double *figure = fc_xcalloc((size_t)n + 1, sizeof(*figure), "the groups' figures");
    int *has = fc_xcalloc((size_t)n + 1, sizeof(*has), "the groups with a figure");

    for (int g = 0; g < n; ++g) {
        shapes[g].nhosts = sums[g].nhosts;
        shapes[g].nranks = sums[g].nranks;
        figure[g] = fc_judge_relative_figure(pt->coll, &sums[g]);
        has[g] = sums[g].status == FC_OK && figure[g] > 0 &&
                 !fc_judge_moves_nothing(pt->coll, sums[g].nranks);
    }
    fc_peers_reference(shapes, figure, has, n, FC_PEER_MEDIAN, kind, refs);
    for (int g = 0; g < n; ++g) {
        const fc_point_summary_t *s = &sums[g];
        fc_judgement_t *j = &out[g];
        const char *name = fc_judge_relative_figure_name(pt->coll, s->nranks);

        if (s->status != FC_OK)
            continue;
        if (fc_judge_moves_nothing(pt->coll, s->nranks)) {
            char why[128];

            fc_judge_nothing_why(pt->coll, why, sizeof(why));
            fc_judge_note(j, "relative rule not applied: %s, so its time is the call's "
                          "overhead, not a transfer; %s", why, fc_judge_alone_text(j, pt, s));
        } else if (!refs[g].applies) {
            fc_judge_note(j, "relative rule not applied: %s; %s", refs[g].why_not,
                          fc_judge_alone_text(j, pt, s));
        } else {
            double floor_bw = refs[g].reference * (1.0 - sp->max_below_median_pct / 100.0);

            j->peer_median_busbw = refs[g].reference;
            j->peer_algbw = fc_judge_busbw_void(pt->coll, s->nranks);
            j->peer_count = refs[g].members;
            snprintf(j->peer_class, sizeof(j->peer_class), "%s", refs[g].class_desc);
            if (figure[g] < floor_bw)
                fc_judge_fail(j, "%s %.3f GB/s on host %s is %.0f%% below %s "
                              "(%.3f GB/s; allowed %.0f%%)", name, figure[g], s->host,
                              100.0 * (1.0 - figure[g] / refs[g].reference),
                              refs[g].class_desc, refs[g].reference,
                              sp->max_below_median_pct);
        }
    }
    free(shapes);
    free(refs);
    free(figure);
    free(has);
}

void fc_judge_point_kind(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                         const fc_point_summary_t *sums, int n, const char *kind,
                         fc_judgement_t *out)
{
    for (int g = 0; g < n; ++g) {
        memset(&out[g], 0, sizeof(out[g]));
        out[g].status = FC_OK;
        out[g].peer_median_busbw = -1;
        fc_judge_one(sp, pt, &sums[g], &out[g]);
    }
    if (sp->max_below_median_pct < 0)
        return;         /* the profile has no relative rule for this stage */
    if (pt->bytes < sp->relative_min_bytes) {
        char size[32], from[32];

        fc_format_size(pt->bytes, size, sizeof(size));
        fc_format_size(sp->relative_min_bytes, from, sizeof(from));
        for (int g = 0; g < n; ++g)
            if (sums[g].status == FC_OK)
                fc_judge_note(&out[g], "relative rule not applied: %s is below "
                              "relative.min_bytes (%s)", size, from);
        return;
    }
    fc_judge_relative(sp, pt, sums, n, kind, out);
}

void fc_judge_point(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                    const fc_point_summary_t *sums, int n, fc_judgement_t *out)
{
    fc_judge_point_kind(sp, pt, sums, n, "group", out);
}

void fc_judgement_set_rules(json_t *rec, const fc_judgement_t *j,
                            double max_below_median_pct)
{
    json_t *notes = json_array();

    if (j->peer_median_busbw >= 0)
        json_object_set_new(rec, "relative", json_pack(
            "{s:f, s:f, s:s, s:i, s:s}", j->peer_algbw ? "peer_median_algbw_gbps"
                                                       : "peer_median_busbw_gbps",
            j->peer_median_busbw, "max_below_median_pct", max_below_median_pct, "class",
            j->peer_class, "peers", j->peer_count, "figure",
            j->peer_algbw ? "algbw" : "busbw"));
    for (int k = 0; k < j->nnotes; ++k)
        json_array_append_new(notes, json_string(j->notes[k]));
    json_object_set_new(rec, "rules_not_applied", notes);
}
