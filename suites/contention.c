/*
 * contention.c - the contention stage: the foreground collectives measured
 * clean and under background traffic (lib/fc_background.h), the figure
 * being the slowdown ratio, loaded median time / clean median time
 * (GPCNET's congestion impact factor).
 *
 * Ranks: on each node the first foreground_ranks_per_node ranks are the
 * foreground (the cluster, or each rack with scope: rack), the next
 * background_ranks_per_node generate traffic; any others wait
 * (lib/fc_contention_role.h). The foreground runs on the stage's backend:
 * on nccl its collectives are NCCL's on its ranks' GPUs, while the
 * background stays MPI and file I/O (it loads the fabric and the storage,
 * which is what the foreground is measured against). With
 * background_hosts, those nodes only generate and the others only measure
 * (traffic from other nodes that share the spine). For each
 * foreground point the phases are interleaved,
 *
 *     clean, kind 1, clean, kind 2, clean, ..., all kinds, clean
 *
 * and each loaded phase is compared with the mean of the clean phases on
 * either side, so drift of the machine does not pass for contention. Every
 * phase's output is checked bitwise by the engine. A loaded measurement
 * whose background did not reach min_background_pct of its target rate,
 * moved no byte at all, or whose generator logged an error (a storage_dir
 * missing, a write that failed: the error goes into the record) is
 * INCOMPLETE, never a pass: a generator that moved nothing must not make a
 * fabric look clean. A foreground point that failed, gave no time or
 * whose ranks disagree in any of the three phases is FAIL: its slowdown
 * would read 0.
 *
 *   mpirun --hostfile H --map-by node -np N build/suites/contention --racks F ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_background.h"
#include "fc_contention_role.h"
#include "fc_counters_check.h"
#include "fc_judge.h"
#include "fc_log.h"
#include "fc_counters_interval.h"
#include "fc_stage.h"
#include "fc_stage_counters.h"
#include "fc_stage_wrong.h"

#define FC_PHASE_ALL 0xFFu
#define FC_SETTLE_US 300000     /* background ramp-up before measuring */

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

typedef struct fc_cont_run {
    fc_stage_ctx_t *ctx;
    const fc_contention_profile_t *cp;
    int role;
    MPI_Comm role_comm, group, ctrl;
    fc_bg_t bg;
    fc_backend_t be;                    /* foreground: the group's backend */
    fc_engine_bufs_t bufs;              /* ... and its buffers, every phase */
    int have_be;
    int group_hosts;                    /* hosts in the foreground group */
    int kinds[FC_BG_KINDS], nkinds;
    int ngroups;
} fc_cont_run_t;

static const char *fc_mask_name(unsigned mask)
{
    if (mask == 0)
        return "clean";
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (mask == (1u << k))
            return fc_bg_kind_name(k);
    return "all";
}

/* One phase: rank 0 names it, the background generates until the
 * foreground has measured, then both report to rank 0. */
static void fc_cont_phase(fc_cont_run_t *run, const fc_test_point_t *pt, unsigned mask,
                          int index, fc_phase_result_t *out)
{
    fc_stage_ctx_t *ctx = run->ctx;
    fc_point_summary_t mine, *all = NULL;
    fc_bg_tally_t tally, *tallies = NULL;
    MPI_Request stop;
    int cmd = (int)mask, stopflag = 1;
    char what[160];
    fc_stage_ival_t ival;
    json_t *counters;

    double t0 = MPI_Wtime();

    memset(&mine, 0, sizeof(mine));
    memset(&tally, 0, sizeof(tally));
    MPI_Bcast(&cmd, 1, MPI_INT, 0, run->ctrl);
    /* the links over the whole phase, from the start of the background to
     * its stop, outside the foreground's timers */
    fc_stage_ival_open(ctx, &ival);
    if (run->role == FC_ROLE_BG) {
        MPI_Ibcast(&stopflag, 1, MPI_INT, 0, run->ctrl, &stop);
        fc_bg_run_phase(&run->bg, mask, &stop, &tally);
    } else {
        if (run->role == FC_ROLE_FG) {
            fc_engine_ident_t ident = { ctx->world_rank, ctx->host, run->group_hosts };

            fc_point_label(pt, what, sizeof(what));
            snprintf(what + strlen(what), sizeof(what) - strlen(what), " (%s)",
                     fc_mask_name(mask));
            fc_stage_progress(ctx, index, what);
            if (mask)
                usleep(FC_SETTLE_US);
            if (run->have_be) {
                fc_engine_run_point(&run->be, pt, &ctx->opts.selftest, &ident, &run->bufs,
                                    &mine);
                if (run->be.rank != 0)
                    mine.valid = 0;
            }
        }
        /* rank 0 keeps the background going for at least phase_s, so its
         * rate is measured over whole periods, not one opening burst */
        while (ctx->world_rank == 0 && mask && MPI_Wtime() - t0 < run->cp->phase_s)
            usleep(10000);
        MPI_Ibcast(&stopflag, 1, MPI_INT, 0, run->ctrl, &stop);
        MPI_Wait(&stop, MPI_STATUS_IGNORE);
    }
    counters = fc_stage_ival_close(ctx, &ival);
    if (ctx->world_rank == 0) {
        all = fc_xcalloc((size_t)ctx->world_size, sizeof(*all), "the phase's summaries");
        tallies = fc_xcalloc((size_t)ctx->world_size, sizeof(*tallies),
                             "the phase's background tallies");
    }
    MPI_Gather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gather(&tally, sizeof(tally), MPI_BYTE, tallies, sizeof(tally), MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (ctx->world_rank != 0)
        return;
    memset(out, 0, sizeof(*out));
    out->mask = mask;
    out->counters = counters;
    out->sums = fc_xcalloc((size_t)ctx->world_size, sizeof(*out->sums),
                           "the groups' summaries");
    run->ngroups = 0;
    for (int r = 0; r < ctx->world_size; ++r)
        if (all[r].valid)
            out->sums[run->ngroups++] = all[r];
    out->ngroups = run->ngroups;
    for (int k = 0; k < FC_BG_KINDS; ++k) {
        double bytes = 0, secs = 0;
        int gen = 0;

        for (int r = 0; r < ctx->world_size; ++r) {
            bytes += tallies[r].bytes[k];
            gen += tallies[r].generating[k];
            if (tallies[r].seconds > secs)
                secs = tallies[r].seconds;
        }
        out->generating[k] = gen;
        out->achieved[k] = gen && secs > 0 ? bytes / gen / secs / 1e6 : 0;
    }
    for (int r = 0; r < ctx->world_size; ++r) {
        if (!out->error[0] && tallies[r].error[0]) {
            snprintf(out->error, sizeof(out->error), "%s", tallies[r].error);
            out->error_kind = tallies[r].error_kind;
        }
        if (!out->note[0] && tallies[r].note[0])
            snprintf(out->note, sizeof(out->note), "%s", tallies[r].note);
    }
    free(all);
    free(tallies);
}

/* Rank 0: did group g's foreground point run and give a time in each of
 * the three phases (clean, loaded, clean) with every rank holding the same
 * bits? If not, why: a point that failed has a median of 0 and would
 * otherwise show a slowdown of 0. */
static int fc_cont_fg_failed(int ngroups, const fc_phase_result_t *const ph[3],
                             int g, char *why, size_t len)
{
    for (int i = 0; i < 3; ++i) {
        const fc_point_summary_t *s;
        const char *phase = fc_mask_name(ph[i]->mask);

        if (ph[i]->ngroups != ngroups || g >= ph[i]->ngroups) {
            snprintf(why, len, "the foreground point did not report from every group "
                     "in the %s phase (%d of %d groups): nothing to compare",
                     phase, ph[i]->ngroups, ngroups);
            return 1;
        }
        s = &ph[i]->sums[g];
        if (s->status != FC_OK) {
            snprintf(why, len, "the foreground point failed in the %s phase on the "
                     "group of host %s (%s): no slowdown can be measured",
                     phase, s->host, fc_status_str((fc_status_t)s->status));
            return 1;
        }
        if (!(s->time.median > 0)) {
            snprintf(why, len, "the foreground point gave no time in the %s phase on "
                     "the group of host %s", phase, s->host);
            return 1;
        }
        /* wrong elements explain differing digests, and are reported
         * with their rank and element below */
        if (s->wrong == 0 && (!s->digest_ranks_agree || !s->digest_reps_agree)) {
            snprintf(why, len, "ranks hold different output bits in the %s phase "
                     "(rank %d, group of host %s)", phase, s->disagree_rank, s->host);
            return 1;
        }
    }
    return 0;
}

/* Rank 0: a kind whose generator logged an error during the phase, or that
 * moved no byte at all, did not apply its load, however low the profile's
 * min_background_pct: the measurement under it is INCOMPLETE. */
static int fc_cont_load_unproven(const fc_phase_result_t *loaded, int k, double target,
                                 char *why, size_t len)
{
    if (loaded->error[0] && loaded->error_kind == k) {
        snprintf(why, len, "background %s logged an error (it reached %.3f MB/s per rank "
                 "of its %.3f MB/s target): %s: the load was not applied as the profile "
                 "says, so nothing is certified", fc_bg_kind_name(k), loaded->achieved[k],
                 target, loaded->error);
        return 1;
    }
    if (!(loaded->achieved[k] > 0)) {
        snprintf(why, len, "background %s moved no bytes (%d generating rank(s)): the "
                 "load was not applied, so nothing is certified", fc_bg_kind_name(k),
                 loaded->generating[k]);
        return 1;
    }
    return 0;
}

/* Rank 0: judge the loaded phase p against the clean phases around it. */
static void fc_cont_report(fc_cont_run_t *run, const fc_test_point_t *pt,
                           const fc_phase_result_t *ph, int p)
{
    fc_stage_ctx_t *ctx = run->ctx;
    const fc_contention_profile_t *cp = run->cp;
    const fc_phase_result_t *loaded = &ph[p], *before = &ph[p - 1], *after = &ph[p + 1];
    int n = before->ngroups > loaded->ngroups ? before->ngroups : loaded->ngroups;
    double *ratios;
    char label[128];
    int worst_fail = 0, worst_incomplete = 0;
    char first_reason[FC_REASON_MAX] = "";

    if (after->ngroups > n)
        n = after->ngroups;
    ratios = fc_xcalloc((size_t)n + 1, sizeof(double), "the groups' slowdowns");
    fc_point_label(pt, label, sizeof(label));
    for (int g = 0; g < n; ++g) {
        const fc_point_summary_t *s = &loaded->sums[g];
        double clean = (before->sums[g].time.median + after->sums[g].time.median) / 2;
        double ratio = clean > 0 ? s->time.median / clean : 0;
        json_t *rec = fc_stage_record(ctx, "contention"), *bgj = json_object();
        json_t *reasons = json_array(), *impl = json_null();
        json_t *measured_hosts = json_array(), *measured_racks = json_array();
        const char *verdict = "PASS";
        uint64_t wrong = s->wrong + before->sums[g].wrong + after->sums[g].wrong;
        char why[FC_REASON_MAX];
        const fc_phase_result_t *const three[3] = { before, loaded, after };

        fc_stage_group_members(ctx, s->first_world_rank, measured_hosts, measured_racks);
        if (fc_cont_fg_failed(n, three, g, why, sizeof(why))) {
            json_array_append_new(reasons, json_string(why));
            verdict = "FAIL";
            impl = json_pack("{s:s, s:s, s:s, s:O, s:b}", "part",
                             ctx->grouping == FC_GROUP_RACK ? "rack" : "cluster",
                             "host", s->host, "rack",
                             fc_stage_group_rack(ctx, s->first_world_rank), "racks",
                             measured_racks, "quarantine", 0);
            ratio = 0;
        }
        for (int k = 0; k < FC_BG_KINDS; ++k) {
            const fc_bg_profile_t *b = &cp->kinds[k];
            double target = b->rate_mbps * b->duty;

            if (!((loaded->mask >> k) & 1))
                continue;
            json_object_set_new(bgj, fc_bg_kind_name(k), json_pack(
                "{s:f, s:f, s:i}", "target_mbps", target, "achieved_mbps",
                loaded->achieved[k], "ranks", loaded->generating[k]));
            if (fc_cont_load_unproven(loaded, k, target, why, sizeof(why))) {
                /* an error or nothing moved: never a load, whatever
                 * min_background_pct says */
                if (loaded->error[0] && loaded->error_kind == k)
                    json_object_set_new(json_object_get(bgj, fc_bg_kind_name(k)), "error",
                                        json_string(loaded->error));
                json_array_append_new(reasons, json_string(why));
                if (strcmp(verdict, "FAIL") != 0)
                    verdict = "INCOMPLETE";
            } else if (loaded->achieved[k] < target * cp->min_background_pct / 100.0) {
                snprintf(why, sizeof(why), "background %s reached %.3f MB/s per rank, "
                         "below %.0f%% of its %.3f MB/s target: the load was not "
                         "applied, so nothing is certified", fc_bg_kind_name(k),
                         loaded->achieved[k], cp->min_background_pct, target);
                json_array_append_new(reasons, json_string(why));
                if (strcmp(verdict, "FAIL") != 0)
                    verdict = "INCOMPLETE";
            }
        }
        if (wrong > ctx->sp.max_wrong) {
            const fc_point_summary_t *bad = s->wrong ? s : before->sums[g].wrong
                                                              ? &before->sums[g] : &after->sums[g];

            snprintf(why, sizeof(why), "%llu wrong elements under load; first on rank %d "
                     "(host %s) at iteration %d, element %llu: expected 0x%llx, got 0x%llx",
                     (unsigned long long)wrong, bad->first_bad_rank, bad->first_bad_host,
                     bad->first_bad_iter, (unsigned long long)bad->first_bad_pos,
                     (unsigned long long)bad->first_expected,
                     (unsigned long long)bad->first_actual);
            json_array_append_new(reasons, json_string(why));
            verdict = "FAIL";
            json_decref(impl);
            /* the whole group until the runner's retest places it */
            impl = fc_stage_wrong_implicates(ctx, s->first_world_rank);
        }
        if (cp->max_slowdown > 0 && ratio > cp->max_slowdown) {
            snprintf(why, sizeof(why), "slowdown %.2fx under %s (median %.1f us loaded, "
                     "%.1f us clean) is above the limit %.2fx", ratio,
                     fc_mask_name(loaded->mask), s->time.median * 1e6, clean * 1e6,
                     cp->max_slowdown);
            json_array_append_new(reasons, json_string(why));
            if (strcmp(verdict, "FAIL") != 0 && json_is_null(impl))
                impl = json_pack("{s:s, s:s, s:s, s:O, s:b}", "part",
                                 ctx->grouping == FC_GROUP_RACK ? "rack" : "cluster",
                                 "host", "", "rack",
                                 fc_stage_group_rack(ctx, s->first_world_rank), "racks",
                                 measured_racks, "quarantine", 0);
            verdict = "FAIL";
        }
        json_object_set_new(rec, "collective", json_string(fc_coll_desc(pt->coll)->name));
        json_object_set_new(rec, "dtype", json_string(fc_dtype_info(pt->dtype)->name));
        json_object_set_new(rec, "op", json_string(fc_op_name(pt->op)));
        json_object_set_new(rec, "bytes", json_integer((json_int_t)(s->bytes ? s->bytes : pt->bytes)));
        json_object_set_new(rec, "requested_bytes", json_integer((json_int_t)pt->bytes));
        json_object_set_new(rec, "group", json_string(fc_stage_group_name(ctx, s->first_world_rank)));
        json_object_set_new(rec, "rack", json_string(fc_stage_group_rack(ctx, s->first_world_rank)));
        /* what was measured: the foreground's hosts and their racks (not
         * the background hosts, whose racks this record does not judge) */
        json_object_set_new(rec, "measured_hosts", measured_hosts);
        json_object_set_new(rec, "racks", measured_racks);
        json_object_set_new(rec, "kind", json_string(fc_mask_name(loaded->mask)));
        json_object_set_new(rec, "clean_median_us", json_real(clean * 1e6));
        json_object_set_new(rec, "loaded_median_us", json_real(s->time.median * 1e6));
        json_object_set_new(rec, "slowdown", json_real(ratio));
        json_object_set_new(rec, "max_slowdown", json_real(cp->max_slowdown));
        json_object_set_new(rec, "wrong", json_integer((json_int_t)wrong));
        json_object_set_new(rec, "background", bgj);
        /* the links of every node in the loaded phase and in the clean
         * one before it: what the background moved beside the slowdown */
        if (loaded->counters) {     /* judged, with the foreground's ranks */
            json_object_set_new(rec, "counters", fc_stage_ival_judged(ctx, loaded->counters,
                                                                      s->first_world_rank));
            json_object_set_new(rec, "ranks", json_integer(s->nranks));
            json_object_set_new(rec, "iters", json_integer(s->iters));
            json_object_set_new(rec, "warmup", json_integer(s->warmup));
        }
        if (before->counters)
            json_object_set(rec, "clean_counters", before->counters);
        if (cp->background_hosts[0])
            json_object_set_new(rec, "background_hosts", json_string(cp->background_hosts));
        if (loaded->note[0])
            json_object_set_new(rec, "note", json_string(loaded->note));
        json_object_set_new(rec, "reasons", reasons);
        json_object_set_new(rec, "implicates", impl);
        json_object_set_new(rec, "verdict", json_string(verdict));
        switch (fc_counters_apply(rec)) {   /* the loaded phase's link counters */
        case 1: verdict = "FAIL"; break;
        case 2: verdict = "INCOMPLETE"; break;
        default: break;
        }
        if (strcmp(verdict, "PASS") != 0 && !first_reason[0])
            snprintf(first_reason, sizeof(first_reason), "%s: %s",
                     fc_stage_group_name(ctx, s->first_world_rank),
                     json_string_value(json_array_get(reasons, 0)));
        worst_fail |= strcmp(verdict, "FAIL") == 0;
        worst_incomplete |= strcmp(verdict, "INCOMPLETE") == 0;
        fc_results_append(&ctx->results, rec);
        ratios[g] = ratio;
    }
    if (worst_fail || worst_incomplete)
        ++ctx->failed_points;
    if (worst_fail)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s under %s: %s", label,
                     fc_mask_name(loaded->mask), first_reason);
    else if (worst_incomplete)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s under %s: INCOMPLETE: %s", label,
                     fc_mask_name(loaded->mask), first_reason);
    else
        fc_tap_point(&ctx->tap, FC_OK, "%s under %s", label, fc_mask_name(loaded->mask));
    fc_tap_yaml_begin(&ctx->tap);
    for (int g = 0; g < n; ++g)
        fc_tap_yaml_line(&ctx->tap, "%s: {slowdown: %.3f, loaded_us: %.1f}",
                         fc_stage_group_name(ctx, loaded->sums[g].first_world_rank),
                         ratios[g], loaded->sums[g].time.median * 1e6);
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if ((loaded->mask >> k) & 1)
            fc_tap_yaml_line(&ctx->tap, "%s_mbps: {target: %.3f, achieved: %.3f}",
                             fc_bg_kind_name(k), run->cp->kinds[k].rate_mbps *
                             run->cp->kinds[k].duty, loaded->achieved[k]);
    if (loaded->counters) {
        char text[512];

        fc_interval_text(loaded->counters, text, sizeof(text));
        fc_tap_yaml_line(&ctx->tap, "counters: \"%s\"", text);
        fc_interval_text(before->counters, text, sizeof(text));
        fc_tap_yaml_line(&ctx->tap, "clean_counters: \"%s\"", text);
    }
    fc_tap_yaml_end(&ctx->tap);
    free(ratios);
}

static fc_status_t fc_cont_run(fc_cont_run_t *run)
{
    fc_stage_ctx_t *ctx = run->ctx;
    unsigned masks[2 * FC_BG_KINDS + 4];
    int nmasks = 0, index = 0, end = -1, npoints;
    fc_test_point_t *points = NULL;

    /* clean, k1, clean, k2, ..., all, clean */
    masks[nmasks++] = 0;
    for (int i = 0; i < run->nkinds; ++i) {
        masks[nmasks++] = 1u << run->kinds[i];
        masks[nmasks++] = 0;
    }
    if (run->nkinds > 1) {
        unsigned all = 0;

        for (int i = 0; i < run->nkinds; ++i)
            all |= 1u << run->kinds[i];
        masks[nmasks++] = all;
        masks[nmasks++] = 0;
    }
    npoints = fc_stage_points(ctx, &points);
    for (int i = 0; i < npoints; ++i) {
        fc_phase_result_t ph[2 * FC_BG_KINDS + 4];

        memset(ph, 0, sizeof(ph));
        for (int m = 0; m < nmasks; ++m)
            fc_cont_phase(run, &points[i], masks[m], index++, &ph[m]);
        if (ctx->world_rank == 0) {
            for (int m = 1; m < nmasks; m += 2)
                fc_cont_report(run, &points[i], ph, m);
            for (int m = 0; m < nmasks; ++m) {
                free(ph[m].sums);
                json_decref(ph[m].counters);
            }
        }
    }
    free(points);
    MPI_Bcast(&end, 1, MPI_INT, 0, run->ctrl);
    return FC_OK;
}

/* The self-tests act on the foreground only (the engine flips a bit of a
 * measured output; the hang is taken on entering a foreground point): a
 * rank of --selftest-corrupt or --selftest-hang that is a background or
 * idle rank would never fire, and the stage would pass a self-test that
 * did nothing. Collective: every rank returns the same status; rank 0
 * says which rank, on which host, and what it is. */
static fc_status_t fc_cont_check_selftest(const fc_stage_ctx_t *ctx, int role)
{
    static const char *const roles[] = { "foreground", "background", "idle" };
    int mine[2], first[2];
    const char *opt[2] = { "--selftest-corrupt", "--selftest-hang" };
    int want[2] = { ctx->opts.selftest.enabled ? ctx->opts.selftest.rank : -1,
                    ctx->opts.hang_rank };
    fc_status_t status = FC_OK;

    for (int k = 0; k < 2; ++k)
        mine[k] = want[k] == ctx->world_rank && role != FC_ROLE_FG ? role : -1;
    MPI_Allreduce(mine, first, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < 2; ++k) {
        if (want[k] < 0)
            continue;
        if (want[k] >= ctx->world_size) {
            if (ctx->world_rank == 0)
                fc_error("%s rank=%d: the contention stage has ranks 0 to %d only, so the "
                         "self-test would never fire", opt[k], want[k], ctx->world_size - 1);
            status = FC_ERR_INVALID;
        } else if (first[k] >= 0) {
            if (ctx->world_rank == 0)
                fc_error("%s rank=%d: rank %d (host %s) is a %s rank of the contention "
                         "stage, which the self-test does not act on: pick a foreground "
                         "rank (the first foreground_ranks_per_node ranks of a node that "
                         "is not in background_hosts)", opt[k], want[k], want[k],
                         ctx->rank_hosts[want[k]], roles[first[k]]);
            status = FC_ERR_INVALID;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_cont_run_t run;
    fc_status_t status;
    int nfg = 0, nbg = 0, is_fg, is_bg;

    status = fc_stage_init(&argc, &argv, FC_STAGE_CONTENTION, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    memset(&run, 0, sizeof(run));
    run.ctx = &ctx;
    run.cp = &ctx.sp.cont;
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (run.cp->kinds[k].enabled)
            run.kinds[run.nkinds++] = k;
    run.role = fc_contention_role(run.cp, ctx.host, ctx.local_rank);
    is_fg = run.role == FC_ROLE_FG;
    is_bg = run.role == FC_ROLE_BG;
    MPI_Allreduce(&is_fg, &nfg, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&is_bg, &nbg, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* which ranks measure: a record names the hosts and racks of its
     * group's foreground ranks alone, so a rack whose hosts only generated
     * background traffic is not judged by this stage (README rule 4) */
    {
        unsigned char mine = (unsigned char)is_fg;

        ctx.rank_measures = fc_xcalloc((size_t)ctx.world_size, 1, "the ranks that measure");
        MPI_Allgather(&mine, 1, MPI_UNSIGNED_CHAR, ctx.rank_measures, 1, MPI_UNSIGNED_CHAR,
                      MPI_COMM_WORLD);
    }
    if ((status = fc_cont_check_selftest(&ctx, run.role)) != FC_OK)
        return fc_stage_finish(&ctx, status);
    if (!ctx.skip_reason[0] && run.nkinds == 0) {
        char names[256] = "";

        for (int k = 0; k < FC_BG_KINDS; ++k)
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                     k ? ", " : "", fc_bg_kind_name(k));
        snprintf(ctx.skip_reason, sizeof(ctx.skip_reason), "the profile's contention stage "
                 "names no background traffic (%s)", names);
    } else if (!ctx.skip_reason[0] && (nbg == 0 || nfg == 0)) {
        snprintf(ctx.skip_reason, sizeof(ctx.skip_reason), "%s",
                 nbg == 0 && run.cp->background_hosts[0] ? "no background ranks: no host "
                 "of background_hosts is in this run (quarantined, or not in the inventory)" :
                 nbg == 0 ? "no background ranks: launch foreground_ranks_per_node + "
                 "background_ranks_per_node ranks per node" :
                 "no foreground ranks: every host of this run is in background_hosts");
    }
    if (ctx.skip_reason[0]) {
        if (ctx.world_rank == 0) {
            fprintf(stderr, "fabcert: stage contention skipped: %s\n", ctx.skip_reason);
            fc_tap_diag(&ctx.tap, "SKIP %s", ctx.skip_reason);
        }
        return fc_stage_finish(&ctx, FC_ERR_SKIP);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &run.ctrl);
    MPI_Comm_split(MPI_COMM_WORLD, run.role, ctx.world_rank, &run.role_comm);
    if (is_fg) {
        if (run.cp->scope_rack) {
            ctx.grouping = FC_GROUP_RACK;
            MPI_Comm_split(run.role_comm, ctx.rack, ctx.world_rank, &run.group);
        } else {
            ctx.grouping = FC_GROUP_ALL;
            MPI_Comm_dup(run.role_comm, &run.group);
        }
        run.group_hosts = fc_stage_comm_hosts(&ctx, run.group);
        fc_engine_bufs_init(&run.bufs);
    } else {
        ctx.grouping = run.cp->scope_rack ? FC_GROUP_RACK : FC_GROUP_ALL;
    }
    /* one backend for every phase of every point: the foreground's on the
     * stage's backend (nccl: its ranks' GPUs; the devices record names
     * them alone), collective over the world for that record */
    run.have_be = fc_stage_open_backend_on(&ctx, is_fg ? run.group : MPI_COMM_NULL, is_fg,
                                           &run.be) == FC_OK && is_fg;
    if (is_bg) {
        int *racks = fc_xcalloc((size_t)nbg, sizeof(int), "the background ranks' racks");

        MPI_Allgather(&ctx.rack, 1, MPI_INT, racks, 1, MPI_INT, run.role_comm);
        /* a kind that cannot run here (storage_dir) logs why itself */
        status = fc_bg_init(&run.bg, run.role_comm, run.cp, ctx.host, racks);
        free(racks);
    }
    if (ctx.world_rank == 0)
        fc_tap_diag(&ctx.tap, "contention: %d foreground and %d background ranks; "
                    "%d kind(s) of background traffic", nfg, nbg, run.nkinds);
    if (status == FC_OK)
        status = fc_cont_run(&run);
    if (is_bg)
        fc_bg_fini(&run.bg);
    if (is_fg) {
        if (run.have_be) {
            fc_engine_bufs_free(&run.be, &run.bufs);
            run.be.ops->fini_func(&run.be);
        }
        MPI_Comm_free(&run.group);
    }
    MPI_Comm_free(&run.role_comm);
    MPI_Comm_free(&run.ctrl);
    return fc_stage_finish(&ctx, status);
}
