/*
 * overlap.c - the overlap stage: does the collective hide under compute?
 * For each of the profile's sizes, every rank of the job runs, in turns
 * (each iteration all three, so drift of the machine falls on all alike):
 *
 *   collective alone   MPI_Iallreduce (float32 sum) and MPI_Wait
 *   compute alone      a host kernel for overlap.compute_ms, in chunks
 *                      of about 1/FC_OVL_CHUNKS of it
 *   both together      MPI_Iallreduce, the kernel with an MPI_Test after
 *                      each chunk (the polling a host framework does),
 *                      then MPI_Wait
 *
 * each timed from a barrier, the slowest rank's time per iteration:
 * overlap efficiency = (alone_coll + alone_compute - together) /
 * min(alone_coll, alone_compute), in percent, of each iteration's three
 * times (back to back, so a load that comes and goes on a shared host
 * falls on all three), the median of those judged; the medians of the
 * three times are shown beside it. 100 when the
 * shorter hid wholly under the longer, 0 when they ran one after the
 * other (a transport that moves data only inside a blocking call, a host
 * that cannot progress the collective beside the compute). Below
 * overlap.min_overlap_pct is FAIL with the three times; a wrong element
 * of either all_reduce (alone or together) is FAIL naming the rank, host,
 * iteration and element; a time of 0 is FAIL. A part under 1/10 of the
 * other (a 4 KiB all_reduce beside 20 ms of compute) is INCOMPLETE: its
 * overlap is within the noise. The kernel runs for compute_ms of wall
 * time whatever else the host runs (a duration known by construction, so
 * a busy host does not stretch it); the work it got done together, as a
 * share of the work alone (compute_work_pct: what the collective's
 * progress took from the compute), is judged too: below
 * overlap.min_overlap_pct is FAIL (the verdict is on the smaller of the
 * two), for a collective that runs serially inside a poll leaves the wall
 * times of an overlap and shows only in the work. One rank alone is INCOMPLETE
 * (no transport to overlap). With backend: nccl (or auto on GPU ranks)
 * the stage runs its GPU form instead, cuBLASLt GEMMs beside NCCL's
 * all_reduce (lib/overlap/fc_overlap_gpu.c), judged the same way (lib/
 * fc_overlap.c).
 * --selftest-corrupt flips its bit in the together phase's output of
 * that rank and iteration; --selftest-hang stops at the size's progress
 * mark (fc_stage_progress).
 *
 *   mpirun --hostfile H build/suites/overlap --racks FILE --profile FILE --out DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_overlap.h"
#include "fc_overlap_gpu.h"
#include "fc_stage.h"
#include "fc_stage_wrong.h"

#define FC_OVL_CHUNKS 200       /* compute chunks (and polls) per kernel */

static volatile double fc_ovl_sink;

/* units of a dependent multiply-add chain on 8 doubles in registers: no
 * memory traffic, so the collective's copies compete for the core alone */
static void fc_ovl_kernel(long units)
{
    double x[8] = { 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7 };

    for (long u = 0; u < units; ++u)
        for (int j = 0; j < 8; ++j)
            x[j] = x[j] * 0.999999 + 1e-7;
    fc_ovl_sink = x[0] + x[7];
}

/* The kernel for `ms` of wall time, in chunks of about ms/FC_OVL_CHUNKS;
 * after each, MPI_Test(*req) while one is pending. Returns the units of
 * work done (what the collective's progress took from it shows there). */
static long fc_ovl_compute(double ms, long chunk, MPI_Request *req)
{
    double end = MPI_Wtime() + ms * 1e-3;
    long done_units = 0;
    int done = 0;

    do {
        fc_ovl_kernel(chunk);
        done_units += chunk;
        if (req && !done)
            MPI_Test(req, &done, MPI_STATUS_IGNORE);
    } while (MPI_Wtime() < end);
    return done_units;
}

/* Units per millisecond on this rank (the best of 5 tries of 2e6, a few
 * ms each). */
static double fc_ovl_calibrate(void)
{
    double best = 0;

    for (int t = 0; t < 5; ++t) {
        double t0 = MPI_Wtime(), dt;

        fc_ovl_kernel(2000000);
        dt = MPI_Wtime() - t0;
        if (dt > 0 && 2000000 / (dt * 1e3) > best)
            best = 2000000 / (dt * 1e3);
    }
    return best;
}

typedef struct fc_ovl_bad {
    long long wrong;            /* wrong elements, this rank */
    int iter;                   /* first: iteration, element, values */
    long long pos;
    double expected, actual;
} fc_ovl_bad_t;

/* Check recv against the sum of every rank's input (exact in float32). */
static void fc_ovl_check(const float *recv, size_t count, int nranks, int iter,
                         fc_ovl_bad_t *bad)
{
    double base = 0;

    for (int r = 0; r < nranks; ++r)
        base += r % 7;
    for (size_t i = 0; i < count; ++i) {
        float want = (float)(base + (double)nranks * (double)(i % 5));

        if (recv[i] != want) {
            if (bad->wrong++ == 0) {
                bad->iter = iter;
                bad->pos = (long long)i;
                bad->expected = want;
                bad->actual = recv[i];
            }
        }
    }
}

/* One size: the three measurements, judged on rank 0. Collective. */
static void fc_ovl_size(fc_stage_ctx_t *ctx, uint64_t bytes, double units_per_ms, int index)
{
    const fc_overlap_profile_t *op = &ctx->sp.overlap;
    size_t count = bytes / sizeof(float) ? bytes / sizeof(float) : 1;
    int iters = ctx->sp.iters > 0 ? ctx->sp.iters : 1, n = ctx->world_size;
    int total = ctx->sp.warmup + iters;
    float *send = fc_xmalloc(count * sizeof(float), "the overlap stage's send buffer");
    float *recv = fc_xmalloc(count * sizeof(float), "the overlap stage's recv buffer");
    double *mine = fc_xcalloc(3 * (size_t)iters, sizeof(double), "the overlap times");
    double *slow = fc_xcalloc(3 * (size_t)iters, sizeof(double), "the overlap times");
    long chunk = (long)(op->compute_ms * units_per_ms / FC_OVL_CHUNKS) + 1;
    double work[2] = { 0, 0 }, work_all[2] = { 0, 0 };  /* units alone, together */
    fc_ovl_bad_t bad = { 0 };
    fc_calls_t calls = { { 0 }, { 0 } }, calls_all = { { 0 }, { 0 } };
    const fc_selftest_t *st = &ctx->opts.selftest;
    char what[96];
    struct { double wrong; int rank; } wr, first;

    for (size_t i = 0; i < count; ++i)
        send[i] = (float)(ctx->world_rank % 7 + (int)(i % 5));
    snprintf(what, sizeof(what), "all_reduce float32 sum %llu bytes beside compute",
             (unsigned long long)bytes);
    fc_stage_progress(ctx, index, what);
    for (int it = 0; it < total; ++it) {
        double t[3];

        for (int m = 0; m < 3; ++m) {
            MPI_Request req = MPI_REQUEST_NULL;
            double t0;

            memset(recv, 0xff, count * sizeof(float));
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (m != 1)
                MPI_Iallreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
            if (m != 0) {
                long u = fc_ovl_compute(op->compute_ms, chunk, m == 2 ? &req : NULL);

                if (it >= ctx->sp.warmup)
                    work[m - 1] += (double)u;
            }
            if (m != 1)
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            t[m] = MPI_Wtime() - t0;
            if (m == 2 && st->enabled && st->rank == ctx->world_rank && st->iter == it &&
                (st->coll == FC_ANY || st->coll == FC_COLL_ALL_REDUCE)) {
                /* --selftest-corrupt: one bit of the together phase's output */
                size_t e = st->index < 0 ? count / 2 : (size_t)st->index % count;

                ((unsigned char *)&recv[e])[(st->bit / 8) % sizeof(float)] ^=
                    (unsigned char)(1u << (st->bit % 8));
            }
            if (m != 1) {
                fc_calls_kind_t kind = it < ctx->sp.warmup ? FC_CALLS_WARMUP : FC_CALLS_TIMED;

                calls.made[kind]++;
                fc_ovl_check(recv, count, n, it, &bad);
                calls.checked[kind]++;
            }
        }
        if (it >= ctx->sp.warmup)
            for (int m = 0; m < 3; ++m)
                mine[m * iters + it - ctx->sp.warmup] = t[m];
    }
    fc_ctl_reduce(MPI_COMM_WORLD, 0, "the iterations' slowest times", FC_CTL_DOUBLE, FC_CTL_MAX,
                  mine, slow, 3 * iters);
    fc_ctl_reduce(MPI_COMM_WORLD, 0, "the compute done", FC_CTL_DOUBLE, FC_CTL_SUM, work,
                  work_all, 2);
    fc_overlap_calls_reduce(&calls, &calls_all);
    wr.wrong = (double)bad.wrong;
    wr.rank = bad.wrong ? ctx->world_rank : n;
    fc_ctl_allreduce_maxloc(MPI_COMM_WORLD, "the first rank with wrong elements", wr.wrong,
                            wr.rank, n, &first.wrong, &first.rank);
    {
        /* the first bad rank's details travel to rank 0 */
        double det[4] = { bad.iter, (double)bad.pos, bad.expected, bad.actual };
        long long wrong_all = 0, w = bad.wrong;

        fc_ctl_reduce(MPI_COMM_WORLD, 0, "the wrong elements", FC_CTL_INT64, FC_CTL_SUM, &w,
                      &wrong_all, 1);
        if (first.wrong > 0 && first.rank < n)
            fc_ctl_bcast(MPI_COMM_WORLD, first.rank, "the first wrong element", det,
                         sizeof(det));
        if (ctx->world_rank == 0) {
            fc_ovl_meas_t m = { .bytes = (uint64_t)(count * sizeof(float)), .requested = bytes,
                                .iters = iters, .slow = slow, .work_pct = work_all[0] > 0 ?
                                100 * work_all[1] / work_all[0] : 0, .wrong_all = wrong_all,
                                .first_rank = first.rank, .kind = "compute",
                                .extra = json_pack("{s:i}", "polls", FC_OVL_CHUNKS),
                                .calls = calls_all };

            memcpy(m.det, det, sizeof(det));
            fc_overlap_record(ctx, &m);
        }
    }
    free(send);
    free(recv);
    free(mine);
    free(slow);
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    MPI_Comm all;
    double upm;

    status = fc_stage_init(&argc, &argv, FC_STAGE_OVERLAP, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    if (ctx.skip_reason[0])
        return fc_stage_finish(&ctx, FC_ERR_SKIP);
    status = fc_stage_whole(&ctx, &all);
    if (status != FC_OK)
        return fc_stage_finish(&ctx, status);
    if (strcmp(ctx.opts.backend, "nccl") == 0) {
        /* the GPU form: GEMMs beside NCCL (lib/overlap/fc_overlap_gpu.c) */
        status = fc_overlap_gpu(&ctx, all);
        MPI_Comm_free(&all);
        return fc_stage_finish(&ctx, status);
    }
    upm = fc_ovl_calibrate();
    if (ctx.world_rank == 0)
        fc_tap_diag(&ctx.tap, "overlap: %d ranks, compute %.1f ms per kernel in %d chunks "
                    "(%.0f units/ms on rank 0), limit %.0f%%", ctx.world_size,
                    ctx.sp.overlap.compute_ms, FC_OVL_CHUNKS, upm,
                    ctx.sp.overlap.min_overlap_pct);
    for (int s = 0; s < ctx.sp.nsizes; ++s)
        fc_ovl_size(&ctx, ctx.sp.sizes[s], upm, s);
    MPI_Comm_free(&all);
    return fc_stage_finish(&ctx, FC_OK);
}
