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
 * (no transport to overlap). Runs on mpi
 * alone: the GPU overlap (a GEMM beside NCCL) is not built.
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
#include "fc_stage.h"
#include "fc_stage_wrong.h"

#define FC_OVL_CHUNKS 200       /* compute chunks (and polls) per kernel */
#define FC_OVL_MIN_RATIO 10     /* the shorter part at least 1/10 of the longer */

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

static int fc_ovl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double fc_ovl_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), fc_ovl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
            if (m != 1)
                fc_ovl_check(recv, count, n, it, &bad);
        }
        if (it >= ctx->sp.warmup)
            for (int m = 0; m < 3; ++m)
                mine[m * iters + it - ctx->sp.warmup] = t[m];
    }
    MPI_Reduce(mine, slow, 3 * iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(work, work_all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    wr.wrong = (double)bad.wrong;
    wr.rank = bad.wrong ? ctx->world_rank : n;
    MPI_Allreduce(&wr, &first, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    {
        /* the first bad rank's details travel to rank 0 */
        double det[4] = { bad.iter, (double)bad.pos, bad.expected, bad.actual };
        long long wrong_all = 0, w = bad.wrong;

        MPI_Reduce(&w, &wrong_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (first.wrong > 0)
            MPI_Bcast(det, 4, MPI_DOUBLE, first.rank, MPI_COMM_WORLD);
        if (ctx->world_rank == 0) {
            /* each iteration's efficiency from its own three times, taken
             * back to back (a load that comes and goes falls on all
             * three), then the median of those and of each time */
            double *effs = fc_xcalloc((size_t)iters, sizeof(double), "the efficiencies");
            double c, k, both, shorter, eff;

            for (int i = 0; i < iters; ++i) {
                double ci = slow[i], ki = slow[iters + i], ti = slow[2 * iters + i];
                double si = ci < ki ? ci : ki;

                effs[i] = si > 0 ? 100 * (ci + ki - ti) / si : 0;
            }
            eff = fc_ovl_median(effs, iters);
            free(effs);
            c = fc_ovl_median(slow, iters);
            k = fc_ovl_median(slow + iters, iters);
            both = fc_ovl_median(slow + 2 * iters, iters);
            shorter = c < k ? c : k;
            double work_pct = work_all[0] > 0 ? 100 * work_all[1] / work_all[0] : 0;
            json_t *rec = fc_stage_record(ctx, "overlap"), *reasons = json_array();
            json_t *hosts = json_array(), *racks = json_array(), *impl = json_null();
            const char *verdict = "PASS";
            char why[FC_REASON_MAX];

            fc_stage_group_members(ctx, 0, hosts, racks);
            if (n < 2) {
                snprintf(why, sizeof(why), "one rank: no transport to overlap (the "
                         "all_reduce of a single rank moves nothing between ranks); run it "
                         "on two or more");
                json_array_append_new(reasons, json_string(why));
                verdict = "INCOMPLETE";
            } else if (!(c > 0 && k > 0 && both > 0)) {
                snprintf(why, sizeof(why), "a measurement gave no time (collective %.1f us, "
                         "compute %.1f us, together %.1f us): no overlap can be measured",
                         c * 1e6, k * 1e6, both * 1e6);
                json_array_append_new(reasons, json_string(why));
                verdict = "FAIL";
            } else if (shorter < (c > k ? c : k) / FC_OVL_MIN_RATIO) {
                snprintf(why, sizeof(why), "the %s (%.1f us alone) is under 1/%d of the %s "
                         "(%.1f us alone): the overlap of so short a part is within the "
                         "noise, so it is not measured; choose a size or a compute_ms that "
                         "brings them closer", c < k ? "collective" : "compute", shorter * 1e6,
                         FC_OVL_MIN_RATIO, c < k ? "compute" : "collective",
                         (c > k ? c : k) * 1e6);
                json_array_append_new(reasons, json_string(why));
                verdict = "INCOMPLETE";
            } else if (eff < op->min_overlap_pct) {
                snprintf(why, sizeof(why), "overlap %.0f%% is below the limit %.0f%%: "
                         "collective %.1f us alone, compute %.1f us alone, %.1f us together "
                         "(%.1f us if they ran one after the other)", eff,
                         op->min_overlap_pct, c * 1e6, k * 1e6, both * 1e6, (c + k) * 1e6);
                json_array_append_new(reasons, json_string(why));
                verdict = "FAIL";
            } else if (work_pct < op->min_overlap_pct) {
                snprintf(why, sizeof(why), "the compute beside the collective did %.0f%% of "
                         "its work alone in the same time, below the limit %.0f%%: the "
                         "collective ran in its place, not beside it (the wall times give "
                         "overlap %.0f%%: collective %.1f us alone, compute %.1f us alone, "
                         "%.1f us together)", work_pct, op->min_overlap_pct, eff, c * 1e6,
                         k * 1e6, both * 1e6);
                json_array_append_new(reasons, json_string(why));
                verdict = "FAIL";
            }
            if (wrong_all > 0) {
                snprintf(why, sizeof(why), "%lld wrong elements; most on rank %d (host %s), "
                         "first there at iteration %d, element %lld: expected %g, got %g",
                         wrong_all, first.rank, ctx->rank_hosts[first.rank], (int)det[0],
                         (long long)det[1], det[2], det[3]);
                json_array_append_new(reasons, json_string(why));
                verdict = "FAIL";
                impl = fc_stage_wrong_implicates(ctx, first.rank);
            } else if (strcmp(verdict, "PASS") != 0 && n >= 2) {
                impl = json_pack("{s:s, s:s, s:s, s:O, s:b}", "part", "cluster", "host", "",
                                 "rack", fc_stage_group_rack(ctx, 0), "racks", racks,
                                 "quarantine", 0);
            }
            json_object_set_new(rec, "collective", json_string("all_reduce"));
            json_object_set_new(rec, "dtype", json_string("float32"));
            json_object_set_new(rec, "op", json_string("sum"));
            json_object_set_new(rec, "bytes", json_integer((json_int_t)(count * sizeof(float))));
            json_object_set_new(rec, "requested_bytes", json_integer((json_int_t)bytes));
            json_object_set_new(rec, "group", json_string(fc_stage_group_name(ctx, 0)));
            json_object_set_new(rec, "rack", json_string(fc_stage_group_rack(ctx, 0)));
            json_object_set_new(rec, "measured_hosts", hosts);
            json_object_set_new(rec, "racks", racks);
            json_object_set_new(rec, "kind", json_string("compute"));
            json_object_set_new(rec, "coll_alone_us", json_real(c * 1e6));
            json_object_set_new(rec, "compute_alone_us", json_real(k * 1e6));
            json_object_set_new(rec, "together_us", json_real(both * 1e6));
            json_object_set_new(rec, "overlap_pct", json_real(eff));
            json_object_set_new(rec, "compute_work_pct", json_real(work_pct));
            json_object_set_new(rec, "min_overlap_pct", json_real(op->min_overlap_pct));
            json_object_set_new(rec, "compute_ms", json_real(op->compute_ms));
            json_object_set_new(rec, "polls", json_integer(FC_OVL_CHUNKS));
            json_object_set_new(rec, "iters", json_integer(iters));
            json_object_set_new(rec, "warmup", json_integer(ctx->sp.warmup));
            json_object_set_new(rec, "wrong", json_integer((json_int_t)wrong_all));
            json_object_set_new(rec, "reasons", reasons);
            json_object_set_new(rec, "implicates", impl);
            json_object_set_new(rec, "verdict", json_string(verdict));
            if (strcmp(verdict, "PASS") != 0)
                ++ctx->failed_points;
            snprintf(what, sizeof(what), "all_reduce float32 sum %llu bytes beside compute",
                     (unsigned long long)(count * sizeof(float)));
            if (strcmp(verdict, "PASS") == 0)
                fc_tap_point(&ctx->tap, FC_OK, "%s", what);
            else
                fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s: %s%s", what,
                             strcmp(verdict, "INCOMPLETE") == 0 ? "INCOMPLETE: " : "",
                             json_string_value(json_array_get(reasons, 0)));
            fc_tap_yaml_begin(&ctx->tap);
            fc_tap_yaml_line(&ctx->tap, "coll_alone_us: %.1f", c * 1e6);
            fc_tap_yaml_line(&ctx->tap, "compute_alone_us: %.1f", k * 1e6);
            fc_tap_yaml_line(&ctx->tap, "together_us: %.1f", both * 1e6);
            fc_tap_yaml_line(&ctx->tap, "overlap_pct: %.1f", eff);
            fc_tap_yaml_line(&ctx->tap, "min_overlap_pct: %.1f", op->min_overlap_pct);
            fc_tap_yaml_line(&ctx->tap, "compute_work_pct: %.1f", work_pct);
            fc_tap_yaml_end(&ctx->tap);
            fc_results_append(&ctx->results, rec);
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
