/*
 * contention.c - the contention stage: the foreground collectives measured
 * clean and under background traffic (lib/background/fc_background.h), the figure
 * being the slowdown ratio, loaded median time / clean median time
 * (GPCNET's congestion impact factor).
 *
 * Ranks: on each node the first foreground_ranks_per_node ranks are the
 * foreground (the cluster, or each rack with scope: rack), the next
 * background_ranks_per_node generate traffic; any others wait
 * (lib/stage/fc_contention_role.h). The foreground runs on the stage's backend:
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
 * either side, so drift of the machine does not pass for contention
 * (lib/background/fc_contention_judge.c, rank 0). Every phase's output is checked bitwise by the engine. A loaded measurement
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
#include "fc_contention_stage.h"
#include "fc_ctl.h"
#include "fc_log.h"
#include "fc_stage.h"
#include "fc_stage_counters.h"

#define FC_PHASE_ALL 0xFFu
#define FC_SETTLE_US 300000     /* background ramp-up before measuring */

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
    fc_ctl_bcast_ints(run->ctrl, 0, "the next phase's traffic", &cmd, 1, -1,
                      (int)((1u << FC_BG_KINDS) - 1));
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
                     fc_contention_mask_name(mask));
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
    fc_stage_gather_summaries("the phase's summaries", &mine, all);
    fc_ctl_gather(MPI_COMM_WORLD, 0, "the phase's background tallies", &tally, sizeof(tally),
                  tallies);
    for (int r = 0; ctx->world_rank == 0 && r < ctx->world_size; ++r) {
        int sane = fc_ctl_str_ok(tallies[r].error, sizeof(tallies[r].error)) &&
                   fc_ctl_str_ok(tallies[r].note, sizeof(tallies[r].note)) &&
                   tallies[r].error_kind >= -1 && tallies[r].error_kind < FC_BG_KINDS;

        for (int k = 0; k < FC_BG_KINDS; ++k)
            sane &= (tallies[r].generating[k] & ~1) == 0;
        fc_ctl_check(sane, "the phase's background tallies", r, "a tally whose kinds or "
                     "texts cannot be");
    }
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
                fc_contention_judge_phase(ctx, run->cp, &points[i], ph, m);
            for (int m = 0; m < nmasks; ++m) {
                free(ph[m].sums);
                json_decref(ph[m].counters);
            }
        }
    }
    free(points);
    fc_ctl_bcast_ints(run->ctrl, 0, "the next phase's traffic", &end, 1, -1,
                      (int)((1u << FC_BG_KINDS) - 1));
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
    fc_ctl_allreduce(MPI_COMM_WORLD, "the self-tests' roles", FC_CTL_INT, FC_CTL_MAX, mine, first,
                     2);
    for (int k = 0; k < 2; ++k)
        fc_ctl_check(first[k] >= -1 && first[k] <= FC_ROLE_IDLE, "the self-tests' roles", -1,
                     "role %d", first[k]);
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
    fc_ctl_allreduce(MPI_COMM_WORLD, "the foreground ranks", FC_CTL_INT, FC_CTL_SUM, &is_fg, &nfg,
                     1);
    fc_ctl_allreduce(MPI_COMM_WORLD, "the background ranks", FC_CTL_INT, FC_CTL_SUM, &is_bg, &nbg,
                     1);
    fc_ctl_check(nfg >= 0 && nbg >= 0 && nfg + nbg <= ctx.world_size, "the ranks' roles", -1,
                 "%d foreground and %d background of %d", nfg, nbg, ctx.world_size);
    /* which ranks measure: a record names the hosts and racks of its
     * group's foreground ranks alone, so a rack whose hosts only generated
     * background traffic is not judged by this stage (docs/verdicts.md, rule 4) */
    {
        unsigned char mine = (unsigned char)is_fg;

        ctx.rank_measures = fc_xcalloc((size_t)ctx.world_size, 1, "the ranks that measure");
        fc_ctl_allgather(MPI_COMM_WORLD, "the ranks that measure", &mine, 1, ctx.rank_measures);
        for (int r = 0; r < ctx.world_size; ++r)
            fc_ctl_check(ctx.rank_measures[r] <= 1, "the ranks that measure", r, "%d",
                         ctx.rank_measures[r]);
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

        fc_ctl_allgather_ints(run.role_comm, "the background ranks' racks", &ctx.rack, 1, racks, 0,
                              ctx.inv.nracks - 1);
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
