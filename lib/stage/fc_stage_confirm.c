/*
 * fc_stage_confirm.c - see fc_stage_confirm.h. World rank 0 makes the
 * plan (suspect and control groups, named by the world rank of their
 * first rank) and broadcasts it; each alone run is one group's point with
 * every other rank waiting in the gather that follows it, so runs never
 * overlap.
 */
#include "fc_stage_confirm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_confirm_rule.h"
#include "fc_ctl.h"
#include "fc_log.h"
#include "fc_quiet.h"
#include "fc_runq.h"
#include "fc_stage_wrong.h"
#include "fc_watchdog.h"

typedef struct fc_confirm_plan {
    int n;
    int first[FC_CONFIRM_MAX_GROUPS][2];    /* world rank of the suspect's and
                                             * the control's first rank, -1 */
    int index[FC_CONFIRM_MAX_GROUPS][2];    /* rank 0: their summary index */
} fc_confirm_plan_t;

int fc_stage_timing_failure(const fc_point_summary_t *s, const fc_judgement_t *j)
{
    /* calls left unchecked are no timing: no alone run can clear them */
    return j->status == FC_ERR_FAIL && s->status == FC_OK && !fc_stage_wrong_result(s) &&
           fc_calls_unchecked(&s->calls) == 0;
}

static const char *fc_confirm_kind(const fc_stage_ctx_t *ctx)
{
    return ctx->grouping == FC_GROUP_HOST ? "node" :
           ctx->grouping == FC_GROUP_RACK ? "rack" : "group";
}

/* A passing group of g's shape to measure beside it: the one whose
 * relative figure (busbw, or algbw for one rank) is closest to g's
 * reference (its class median), else the first. */
static int fc_confirm_control(const fc_test_point_t *pt, const fc_point_summary_t *sums,
                              const fc_judgement_t *js, int n, int g)
{
    int best = -1;
    double ref = js[g].peer_median_busbw;

    for (int h = 0; h < n; ++h) {
        double d, best_d;

        if (h == g || sums[h].status != FC_OK || js[h].status != FC_OK ||
            sums[h].nhosts != sums[g].nhosts || sums[h].nranks != sums[g].nranks)
            continue;
        if (best < 0 || ref < 0) {
            if (best < 0)
                best = h;
            continue;
        }
        d = fabs(fc_judge_relative_figure(pt->coll, &sums[h]) - ref);
        best_d = fabs(fc_judge_relative_figure(pt->coll, &sums[best]) - ref);
        if (d < best_d)
            best = h;
    }
    return best;
}

static void fc_confirm_make_plan(const fc_stage_ctx_t *ctx, const fc_test_point_t *pt,
                                 const fc_point_summary_t *sums, fc_judgement_t *js,
                                 int n, json_t **extra, fc_confirm_plan_t *plan)
{
    int over = 0;

    plan->n = 0;
    for (int g = 0; g < n; ++g) {
        int h;

        if (!fc_stage_timing_failure(&sums[g], &js[g]))
            continue;
        if (plan->n == FC_CONFIRM_MAX_GROUPS) {
            ++over;
            extra[g] = json_pack("{s:{s:s, s:s}}", "confirmation", "verdict", "unconfirmed",
                                 "text", "not re-measured alone: more groups failed this "
                                 "point than are confirmed one by one; the failure stands, "
                                 "nobody is blamed for it");
            continue;
        }
        h = fc_confirm_control(pt, sums, js, n, g);
        plan->index[plan->n][0] = g;
        plan->index[plan->n][1] = h;
        plan->first[plan->n][0] = sums[g].first_world_rank;
        plan->first[plan->n][1] = h >= 0 ? sums[h].first_world_rank : -1;
        plan->n++;
    }
    if (over)
        fc_log_info("%d %s(s) failed a point beyond the %d confirmed alone", over,
                    fc_confirm_kind(ctx), FC_CONFIRM_MAX_GROUPS);
}

/* One alone run of group `first` (all ranks); rank 0 gets its summary,
 * with the largest share of the run a rank of the group waited for a CPU
 * (each rank reads its own around the run: lib/base/fc_runq.h). */
static void fc_confirm_run(fc_stage_ctx_t *ctx, fc_backend_t *be, fc_engine_bufs_t *bufs,
                           int my_first, const fc_engine_ident_t *ident,
                           const fc_test_point_t *pt, int first,
                           fc_point_summary_t *gathered, fc_point_summary_t *out)
{
    fc_point_summary_t mine;
    double wait = -1;
    int known = 1;

    memset(&mine, 0, sizeof(mine));
    mine.cpu_wait_rank = -1;
    if (my_first == first) {
        double w0 = fc_runq_wait_s(), t0 = MPI_Wtime(), w1, took;

        fc_engine_run_point(be, pt, NULL, ident, bufs, &mine);
        w1 = fc_runq_wait_s();
        took = MPI_Wtime() - t0;
        if (be->rank != 0)
            mine.valid = 0;
        mine.cpu_wait = fc_runq_between(w0, w1) < 0 || took <= 0
                            ? -1 : fmin(fc_runq_between(w0, w1) / took, 1.0);
        mine.cpu_wait_rank = ctx->world_rank;
    }
    /* the other groups wait quietly: alone on the cores too (fc_quiet.h) */
    fc_stage_gather_summaries("the summaries of a point confirmed alone", &mine, gathered);
    if (ctx->world_rank != 0)
        return;
    memset(out, 0, sizeof(*out));
    for (int r = 0; r < ctx->world_size; ++r)
        if (gathered[r].valid)
            *out = gathered[r];
    out->cpu_wait_rank = -1;
    for (int r = 0; r < ctx->world_size; ++r) {
        const fc_point_summary_t *g = &gathered[r];

        if (g->cpu_wait_rank != r)
            continue;       /* not of the group (or a rank that says nonsense) */
        if (!(g->cpu_wait >= 0 && g->cpu_wait <= 1)) {
            known = 0;
        } else if (g->cpu_wait > wait) {
            wait = g->cpu_wait;
            out->cpu_wait_rank = r;
        }
    }
    out->cpu_wait = known ? wait : -1;
}

int fc_stage_confirm_held(const fc_point_summary_t *a, const fc_point_summary_t *c,
                          int slow)
{
    /* only beside a control measured in the same round: ranks that
     * outnumber their cores wait for each other (and Open MPI's polling
     * rank yields its core), so a group's share alone says nothing */
    if (!slow || a->cpu_wait < 0 || a->cpu_wait_rank < 0 || c == NULL || !c->valid ||
        c->cpu_wait < 0 || c->time.median <= 0)
        return 0;
    /* and the wait explains the slowness: the suspect's time less its
     * wait no longer than its control's time, or than
     * FC_SWEEP_HELD_RUN_FLOOR_S (a group slower than that is slow whatever
     * its CPUs did: judged as is) */
    return a->cpu_wait >= FC_SWEEP_HELD_WAIT && a->cpu_wait >= c->cpu_wait + FC_SWEEP_HELD_BEYOND &&
           a->time.median * (1 - a->cpu_wait) <= fmax(c->time.median, FC_SWEEP_HELD_RUN_FLOOR_S);
}

static json_t *fc_confirm_side_json(const fc_point_summary_t *s, const char *verdict)
{
    if (!s->valid)
        return json_null();
    return json_pack("{s:s, s:f, s:f, s:f, s:I, s:s}", "host", s->host, "median_us",
                     s->time.median * 1e6, "busbw_gbps", s->busbw, "algbw_gbps", s->algbw,
                     "wrong", (json_int_t)s->wrong, "verdict", verdict);
}

/* Append the confirmation's short form to the first reason, so the line a
 * person reads says both what failed and that it was reproduced. */
static void fc_confirm_append(fc_judgement_t *j, const char *text)
{
    size_t at = strlen(j->reasons[0]);

    if (j->nreasons == 0)
        j->nreasons = 1;
    snprintf(j->reasons[0] + at, sizeof(j->reasons[0]) - at, "; %s", text);
}

int fc_stage_confirm_round(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                           const char *kind, double ref, int relative, double pct,
                           const fc_point_summary_t *a, const fc_point_summary_t *c)
{
    fc_judgement_t ja;
    int fail;

    if (!a->valid || a->status != FC_OK)
        return -1;
    fc_judge_point_kind(sp, pt, a, 1, kind, &ja);
    fail = ja.status == FC_ERR_FAIL;
    if (relative) {
        double base = c->valid && c->status == FC_OK ? fc_judge_relative_figure(pt->coll, c)
                                                     : ref;

        fail |= fc_judge_relative_figure(pt->coll, a) < base * (1 - pct / 100.0);
    }
    return fail;
}

double fc_stage_confirm_tolerance(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                                  const fc_point_summary_t *c, int nrounds, double *spread_p)
{
    double figs[FC_CONFIRM_MAX_MEASURES];
    int n = 0;

    for (int r = 0; r < nrounds && r < FC_CONFIRM_MAX_MEASURES; ++r)
        if (c[r].valid && c[r].status == FC_OK)
            figs[n++] = fc_judge_relative_figure(pt->coll, &c[r]);
    *spread_p = fc_confirm_spread_pct(figs, n);
    return fc_confirm_tolerance(sp->max_below_median_pct, *spread_p);
}

/* 1 when the relative rule failed group g in the point (beside the others). */
static int fc_confirm_relative(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                               const fc_point_summary_t *s, const fc_judgement_t *j)
{
    double ref = j->peer_median_busbw;

    return ref >= 0 &&
           fc_judge_relative_figure(pt->coll, s) < ref * (1 - sp->max_below_median_pct / 100.0);
}

fc_confirm_decision_t fc_stage_confirm_decide(const fc_stage_profile_t *sp,
                                              const fc_test_point_t *pt, const char *kind,
                                              const fc_point_summary_t *s,
                                              const fc_judgement_t *j,
                                              const fc_point_summary_t *a,
                                              const fc_point_summary_t *c, int nrounds,
                                              int *fails)
{
    int relative = fc_confirm_relative(sp, pt, s, j);
    double spread, pct = fc_stage_confirm_tolerance(sp, pt, c, nrounds, &spread);

    for (int r = 0; r < nrounds; ++r)
        fails[r] = fc_stage_confirm_round(sp, pt, kind, j->peer_median_busbw, relative, pct,
                                          &a[r], &c[r]);
    return fc_confirm_decide(fails, nrounds);
}

/* The tolerance the alone rounds were judged by, and why (null without a
 * relative rule). */
static json_t *fc_stage_confirm_tolerance_json(const fc_stage_profile_t *sp,
                                               const fc_test_point_t *pt,
                                               const fc_point_summary_t *c, int nrounds, int h)
{
    double spread, pct = fc_stage_confirm_tolerance(sp, pt, c, nrounds, &spread);
    char why[FC_REASON_MAX];

    if (sp->max_below_median_pct < 0)
        return json_null();
    if (h < 0)
        snprintf(why, sizeof(why), "no control of its shape was measured alone beside it: "
                 "the profile's %.0f%%", sp->max_below_median_pct);
    else if (pct > sp->max_below_median_pct)
        snprintf(why, sizeof(why), "the control's own alone rounds spread %.0f%%: a tolerance "
                 "tighter than that cannot confirm anything, so %.0f%% below the control was "
                 "allowed, not the profile's %.0f%%", spread, pct, sp->max_below_median_pct);
    else
        snprintf(why, sizeof(why), "the profile's %.0f%% is at least the spread of the "
                 "control's alone rounds (%.0f%%)", sp->max_below_median_pct, spread);
    return json_pack("{s:f, s:f, s:f, s:b, s:s}", "profile_pct", sp->max_below_median_pct,
                     "spread_pct", spread, "used_pct", pct, "widened",
                     pct > sp->max_below_median_pct, "why", why);
}

/* "0.041, 0.912, 0.050" GB/s: the relative figure of each valid round */
static void fc_confirm_figures(const fc_test_point_t *pt, const fc_point_summary_t *x,
                               int nrounds, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int r = 0; r < nrounds; ++r) {
        if (x[r].valid && x[r].status == FC_OK)
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%.3f",
                                   r ? ", " : "", fc_judge_relative_figure(pt->coll, &x[r]));
        else
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%snot measured",
                                   r ? ", " : "");
    }
}

/* An alone run folded into its group's summary: its calls are calls of
 * the point too, and its wrong elements fail it (the first one named
 * where the group had none). A run that did not finish has no summary. */
static void fc_confirm_fold(fc_point_summary_t *sum, const fc_point_summary_t *alone)
{
    if (!alone->valid || alone->status != FC_OK)
        return;
    fc_calls_add(&sum->calls, &alone->calls);
    sum->digest_ranks_agree = sum->digest_ranks_agree && alone->digest_ranks_agree;
    sum->digest_reps_agree = sum->digest_reps_agree && alone->digest_reps_agree;
    if (sum->disagree_rank < 0)
        sum->disagree_rank = alone->disagree_rank;
    if (alone->wrong == 0)
        return;
    /* wrong bits alone: the retest's business, as any wrong result */
    fc_point_summary_take_first_bad(sum, alone);
    sum->wrong += alone->wrong;
    if (alone->bad_ranks > sum->bad_ranks)
        sum->bad_ranks = alone->bad_ranks;
}

void fc_stage_confirm_settle(const fc_stage_profile_t *sp, const char *kind,
                             const fc_test_point_t *pt, fc_point_summary_t *sums,
                             fc_judgement_t *js, int g, int h, const fc_point_summary_t *a,
                             const fc_point_summary_t *c, int nrounds, json_t **extra)
{
    const char *figure = fc_judge_relative_figure_name(pt->coll, sums[g].nranks);
    int fails[FC_CONFIRM_MAX_MEASURES];
    fc_confirm_decision_t d;
    json_t *rounds = json_array(), *round_reasons = json_array();
    char text[FC_REASON_MAX * 2], figs[FC_REASON_MAX / 4], cfigs[FC_REASON_MAX / 4];
    char brief[FC_REASON_MAX], tally[64], beside[96];

    if (nrounds > FC_CONFIRM_MAX_MEASURES)
        nrounds = FC_CONFIRM_MAX_MEASURES;
    d = fc_stage_confirm_decide(sp, pt, kind, &sums[g], &js[g], a, c, nrounds, fails);
    for (int r = 0; r < js[g].nreasons; ++r)
        json_array_append_new(round_reasons, json_string(js[g].reasons[r]));
    for (int r = 0; r < nrounds; ++r) {
        if (fails[r] < 0) {
            json_array_append_new(rounds, json_pack("{s:o, s:o}", "suspect", json_null(),
                                                    "control", json_null()));
            continue;
        }
        fc_confirm_fold(&sums[g], &a[r]);
        json_array_append_new(rounds, json_pack(
            "{s:o, s:o}", "suspect", fc_confirm_side_json(&a[r], fails[r] ? "FAIL" : "PASS"),
            "control", fc_confirm_side_json(&c[r], c[r].wrong ||
                                            fc_calls_unchecked(&c[r].calls) ? "FAIL" : "PASS")));
    }
    if (h >= 0) {
        /* the control's alone calls are its point's calls too: a wrong
         * one fails it, whatever its own run showed */
        for (int r = 0; r < nrounds; ++r)
            fc_confirm_fold(&sums[h], &c[r]);
        if (js[h].status == FC_OK &&
            (fc_stage_wrong_result(&sums[h]) || fc_calls_unchecked(&sums[h].calls) > 0))
            fc_judge_bits(sp, &sums[h], &js[h]);
    }
    fc_confirm_figures(pt, a, nrounds, figs, sizeof(figs));
    fc_confirm_figures(pt, c, nrounds, cfigs, sizeof(cfigs));
    fc_confirm_tally_text(fails, nrounds, tally, sizeof(tally));
    snprintf(beside, sizeof(beside), "beside the others %s %.3f GB/s, median %.1f us",
             figure, fc_judge_relative_figure(pt->coll, &sums[g]),
             sums[g].time.median * 1e6);
    if (h >= 0)
        snprintf(text, sizeof(text), "%s; alone, interleaved with %s (a passing %s of its "
                 "shape): %s %s GB/s against %s GB/s: %s", beside, sums[h].host, kind,
                 figure, figs, cfigs, tally);
    else
        snprintf(text, sizeof(text), "%s; alone: %s %s GB/s, median %.1f us: %s", beside,
                 figure, figs, a[nrounds - 1].time.median * 1e6, tally);
    if (h >= 0)
        snprintf(brief, sizeof(brief), "confirmed alone (%s): %s %s GB/s against %s GB/s "
                 "for %s", tally, figure, figs, cfigs, sums[h].host);
    else
        snprintf(brief, sizeof(brief), "confirmed alone (%s): %s %s GB/s, median %.1f us",
                 tally, figure, figs, a[nrounds - 1].time.median * 1e6);
    if (fc_stage_wrong_result(&sums[g])) {
        js[g].status = FC_ERR_FAIL;
    } else if (d == FC_CONFIRM_SLOW) {
        js[g].confirmed = 1;
        fc_confirm_append(&js[g], brief);
    } else if (d == FC_CONFIRM_CLEARED && fc_calls_unchecked(&sums[g].calls) == 0) {
        js[g].status = FC_OK;
        js[g].nreasons = 0;
    }
    /* not measured (or the rounds cut short): the failure stands,
     * unconfirmed (nobody blamed) */
    extra[g] = json_pack("{s:{s:s, s:s, s:s, s:o, s:o, s:o, s:i, s:i, s:o}}", "confirmation",
                         "verdict", fc_stage_wrong_result(&sums[g]) ? "wrong_result" :
                         js[g].confirmed ? "confirmed" : js[g].status == FC_OK
                             ? "not_reproduced" : "not_measured",
                         "text", text, "control", h >= 0 ? sums[h].host : "",
                         "concurrent", fc_confirm_side_json(&sums[g], "FAIL"),
                         "rounds", rounds, "round_reasons", round_reasons,
                         "alone_measurements", nrounds,
                         "alone_slow", fc_confirm_slow_count(fails, nrounds),
                         "tolerance", fc_stage_confirm_tolerance_json(sp, pt, c, nrounds, h));
}

/* The confirmation's waits for a CPU, for its record: each alone round's
 * suspect and control share, the rounds measured again in place of one
 * a rank's CPU held (that share and the rank's host), the rule. */
static json_t *fc_confirm_wait_pct(const fc_point_summary_t *s)
{
    return s->valid && s->cpu_wait >= 0 ? json_real(100 * s->cpu_wait) : json_null();
}

static json_t *fc_confirm_wait_json(const fc_point_summary_t *a, const fc_point_summary_t *c,
                                    int nrounds, const fc_point_summary_t *held_a,
                                    const fc_point_summary_t *held_c, int again,
                                    char (*hosts)[FC_HOST_MAX])
{
    json_t *rounds = json_array(), *redone = json_array();

    for (int r = 0; r < nrounds; ++r)
        json_array_append_new(rounds, json_pack("{s:o, s:o}", "suspect_pct",
                                                fc_confirm_wait_pct(&a[r]), "control_pct",
                                                fc_confirm_wait_pct(&c[r])));
    /* each round measured again in place of one held: its figures and
     * waits, the rank that waited and its host */
    for (int k = 0; k < again; ++k) {
        int rank = held_a[k].cpu_wait_rank;

        json_array_append_new(redone, json_pack(
            "{s:o, s:o, s:o, s:o, s:i, s:s}", "suspect", fc_confirm_side_json(&held_a[k], "FAIL"),
            "control", fc_confirm_side_json(&held_c[k], "PASS"), "suspect_pct",
            fc_confirm_wait_pct(&held_a[k]), "control_pct", fc_confirm_wait_pct(&held_c[k]),
            "rank", rank, "host", hosts != NULL && rank >= 0 ? hosts[rank] : ""));
    }
    return json_pack("{s:o, s:o, s:{s:f, s:f, s:i, s:f}}", "rounds", rounds,
                     "measured_again", redone, "rule", "held_at_least_pct",
                     100 * FC_SWEEP_HELD_WAIT, "beyond_control_pct", 100 * FC_SWEEP_HELD_BEYOND,
                     "measured_again_at_most", FC_SWEEP_HELD_AGAIN, "pause_s",
                     FC_SWEEP_HELD_PAUSE_S);
}

void fc_stage_confirm_point(fc_stage_ctx_t *ctx, fc_backend_t *be, fc_engine_bufs_t *bufs,
                            int my_first, const fc_engine_ident_t *ident, int index,
                            const fc_test_point_t *pt, fc_point_summary_t *sums,
                            fc_judgement_t *js, int n, json_t **extra)
{
    fc_confirm_plan_t plan;
    fc_point_summary_t *gathered = NULL;
    fc_point_summary_t a[FC_CONFIRM_MAX_MEASURES], c[FC_CONFIRM_MAX_MEASURES];
    fc_point_summary_t held_a[FC_SWEEP_HELD_AGAIN], held_c[FC_SWEEP_HELD_AGAIN];
    char what[160];

    memset(&plan, 0, sizeof(plan));
    if (ctx->world_rank == 0)
        fc_confirm_make_plan(ctx, pt, sums, js, n, extra, &plan);
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the groups to confirm alone", &plan.n, 1, 0,
                      FC_CONFIRM_MAX_GROUPS);
    if (plan.n == 0)
        return;
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the first ranks of the groups to confirm",
                      &plan.first[0][0], 2 * FC_CONFIRM_MAX_GROUPS, -1, ctx->world_size - 1);
    if (ctx->world_rank == 0)
        gathered = fc_xcalloc((size_t)ctx->world_size, sizeof(*gathered),
                              "the summaries of the groups confirmed alone");
    fc_point_label(pt, what, sizeof(what));
    snprintf(what + strlen(what), sizeof(what) - strlen(what), " (confirmed alone)");
    fc_watchdog_progress(index, what);
    for (int e = 0; e < plan.n; ++e) {
        int nrounds = 0, more = 1, again = 0;
        double t0 = MPI_Wtime();

        memset(a, 0, sizeof(a));
        memset(c, 0, sizeof(c));
        /* two alone rounds; a third when they disagree (fc_confirm_rule.h);
         * a round slow while a rank of the suspect group waited for a CPU
         * far longer than the control's did is measured again in its
         * place after a pause (more == 2) */
        while (more) {
            fc_confirm_run(ctx, be, bufs, my_first, ident, pt, plan.first[e][0], gathered,
                           &a[nrounds]);
            if (plan.first[e][1] >= 0)
                fc_confirm_run(ctx, be, bufs, my_first, ident, pt, plan.first[e][1], gathered,
                               &c[nrounds]);
            ++nrounds;
            if (ctx->world_rank == 0) {
                int g = plan.index[e][0], fails[FC_CONFIRM_MAX_MEASURES];
                fc_confirm_decision_t d = fc_stage_confirm_decide(
                    &ctx->sp, pt, fc_confirm_kind(ctx), &sums[g], &js[g], a, c, nrounds, fails);

                more = nrounds < FC_CONFIRM_MAX_MEASURES && d == FC_CONFIRM_MORE;
                if (again < FC_SWEEP_HELD_AGAIN &&
                    fc_stage_confirm_held(&a[nrounds - 1], plan.first[e][1] >= 0
                                          ? &c[nrounds - 1] : NULL, fails[nrounds - 1] == 1)) {
                    held_a[again] = a[nrounds - 1];     /* kept: every measurement is */
                    held_c[again] = c[nrounds - 1];
                    fc_quiet_sleep(FC_SWEEP_HELD_PAUSE_S * (double)(1 << again));
                    ++again;
                    --nrounds;
                    more = 2;
                }
            }
            fc_quiet_barrier(MPI_COMM_WORLD);
            fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "another alone round", &more, 1, 0, 2);
            if (more == 2 && ctx->world_rank != 0)
                --nrounds;
        }
        if (ctx->world_rank == 0) {
            int g = plan.index[e][0];

            fc_stage_confirm_settle(&ctx->sp, fc_confirm_kind(ctx), pt, sums, js, g,
                                    plan.index[e][1], a, c, nrounds, extra);
            json_object_set_new(json_object_get(extra[g], "confirmation"), "seconds",
                                json_real(MPI_Wtime() - t0));
            json_object_set_new(json_object_get(extra[g], "confirmation"), "cpu_wait",
                                fc_confirm_wait_json(a, c, nrounds, held_a, held_c, again,
                                                     ctx->rank_hosts));
            ctx->confirm_s += MPI_Wtime() - t0;
        }
    }
    free(gathered);
}
