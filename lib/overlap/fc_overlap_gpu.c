/*
 * fc_overlap_gpu.c - the overlap stage on the nccl backend (backend: nccl
 * or auto on GPU ranks): cuBLASLt GEMMs (the GPU burn, lib/gpu/fc_burn.h,
 * kept open for the stage through the plugin's gemm_*_func) beside NCCL's
 * all_reduce (float32 sum) on the same GPUs. For each size, in turns, every
 * iteration all three, each from a barrier:
 *
 *   collective alone   the backend's all_reduce (gated; CUDA events on its
 *                      stream time it)
 *   compute alone      a batch of G GEMMs on the burn's own stream (events
 *                      around the batch time it)
 *   both together      the batch enqueued, then the all_reduce enqueued on
 *                      its stream and waited for, then the batch waited
 *                      for; timed by the host's wall clock from the
 *                      barrier, and each part by its own events
 *
 * G is calibrated once: a batch of 3 GEMMs to warm up, then one of 10
 * timed, the slowest rank's time per GEMM, G = compute_ms / that (1 to
 * 4096). Judged by fc_overlap_record as
 * the host form is (the slowest rank's times; the together time is wall
 * time, which holds the enqueue and the gate's agreement too, so the
 * efficiency errs low, never high); compute_work_pct is the GEMMs' GPU
 * time alone over together (their throughput beside the collective as a
 * share of alone: SMs the collective takes show there). Every all_reduce
 * output is checked element by element on the GPU (verify_func), every
 * GEMM's C by its digest against the burn's first C (bit for bit), and the
 * burns' first Cs across GPUs of one model and algorithm; a wrong one is
 * FAIL naming rank, host and device. Not yet run on a GPU.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_log.h"
#include "fc_overlap.h"
#include "fc_overlap_gpu.h"
#include "fc_plugin.h"
#include "fc_stage_wrong.h"

#define FC_OG_TIMES 7   /* coll, gemm (events), together (wall), coll and gemm
                         * together (events), coll and gemm alone (wall) */
#define FC_OG_KIND "bf16"
#define FC_OG_CAL 10    /* GEMMs of the timed calibration batch */

typedef struct fc_og {
    fc_stage_ctx_t *ctx;
    fc_backend_t be;
    fc_gpu_gemm_t *g;
    long gemms;
    double timeout_s;
    int gerr;                   /* this rank's burn failed: why */
    char why[512];
    fc_gpu_gemm_result_t last;
    long gemm_wrong;            /* GEMMs whose C differed, this rank */
    int gw_iter;                /* the first: iteration, GEMM, digest */
    long gw_gemm;
    uint64_t gw_digest;
    char agree[640];            /* rank 0: the GPUs' first Cs disagree: why */
} fc_og_t;

static int fc_og_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double fc_og_median(const double *v, int n)
{
    double *c = fc_xcalloc((size_t)n, sizeof(double), "the overlap medians"), m;

    memcpy(c, v, (size_t)n * sizeof(double));
    qsort(c, (size_t)n, sizeof(*c), fc_og_cmp);
    m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

/* This rank's device, for messages: "GPU 0000:1b:00.0 (local rank 1)". */
static void fc_og_device(fc_og_t *o, char *out, size_t len)
{
    char desc[512] = "";
    json_t *d = NULL;

    if (o->ctx->gpu->describe_func(&o->be, desc, sizeof(desc)) == FC_OK)
        d = json_loads(desc, 0, NULL);
    snprintf(out, len, "GPU %s (local rank %d)",
             json_string_value(json_object_get(d, "pci_bus_id")) ?
             json_string_value(json_object_get(d, "pci_bus_id")) : "?", o->ctx->local_rank);
    json_decref(d);
}

static void fc_og_fail(fc_og_t *o, const char *what)
{
    if (o->gerr)
        return;
    o->gerr = 1;
    fc_og_device(o, o->why, sizeof(o->why));
    snprintf(o->why + strlen(o->why), sizeof(o->why) - strlen(o->why), ": %s", what);
}

/* Start a batch (nothing once the burn failed on this rank). */
static int fc_og_start(fc_og_t *o, long gemms)
{
    char why[256];

    if (o->gerr)
        return 0;
    if (o->ctx->gpu->gemm_start_func(o->g, gemms, why, sizeof(why)) != FC_OK) {
        fc_og_fail(o, why);
        return 0;
    }
    return 1;
}

/* Wait for a started batch: its GPU seconds (0 when it failed). */
static double fc_og_wait(fc_og_t *o, int it)
{
    char why[256];

    if (o->ctx->gpu->gemm_wait_func(o->g, o->timeout_s, &o->last, why, sizeof(why)) != FC_OK) {
        fc_og_fail(o, why);
        return 0;
    }
    if (o->last.mismatched > 0 && o->gemm_wrong == 0) {
        o->gw_iter = it;
        o->gw_gemm = o->last.first_bad;
        o->gw_digest = o->last.bad_digest;
    }
    o->gemm_wrong += o->last.mismatched;
    return o->last.gpu_s;
}

/* G: compute_ms over the slowest rank's time per GEMM. Collective. */
static void fc_og_calibrate(fc_og_t *o)
{
    double per = 0, slowest = 0;

    /* a first batch warms the GEMM up (its first launch loads the
     * kernel) and sets the burn's reference C; the second is timed */
    if (fc_og_start(o, 3))
        fc_og_wait(o, -1);
    if (fc_og_start(o, FC_OG_CAL))
        per = fc_og_wait(o, -1) / FC_OG_CAL;
    fc_ctl_allreduce(MPI_COMM_WORLD, "the slowest GEMM", FC_CTL_DOUBLE, FC_CTL_MAX, &per, &slowest,
                     1);
    o->gemms = slowest > 0 ? (long)ceil(o->ctx->sp.overlap.compute_ms * 1e-3 / slowest) : 1;
    o->gemms = o->gemms < 1 ? 1 : o->gemms > 4096 ? 4096 : o->gemms;
}

/* The burns' first Cs across the GPUs: GPUs of the same model with the
 * same algorithm (its text names cuBLASLt's version and the SM count)
 * compute the same C (lib/gpu/fc_burn.h), so a GPU that is wrong from its
 * first GEMM on, which its own comparison cannot see, differs from its
 * peers. Rank 0 keeps the first disagreement in o->agree. Collective. */
#define FC_OG_KEY 256
static void fc_og_agree(fc_og_t *o)
{
    fc_stage_ctx_t *ctx = o->ctx;
    char desc[512] = "", key[FC_OG_KEY], *keys = NULL;
    unsigned long long mine = o->gerr ? 0 : o->last.digest, *all = NULL;
    json_t *d = NULL;

    if (ctx->gpu->describe_func(&o->be, desc, sizeof(desc)) == FC_OK)
        d = json_loads(desc, 0, NULL);
    snprintf(key, sizeof(key), "%s|%s", json_string_value(json_object_get(d, "gpu")) ?
             json_string_value(json_object_get(d, "gpu")) : "?", o->last.algo);
    json_decref(d);
    if (ctx->world_rank == 0) {
        keys = fc_xcalloc((size_t)ctx->world_size, FC_OG_KEY, "the GPUs' burn keys");
        all = fc_xcalloc((size_t)ctx->world_size, sizeof(*all), "the GPUs' first Cs");
    }
    fc_ctl_gather_strs(MPI_COMM_WORLD, 0, "the GPUs' burn keys", key, FC_OG_KEY, keys);
    fc_ctl_gather(MPI_COMM_WORLD, 0, "the GPUs' first Cs", &mine, sizeof(mine), all);
    for (int r = 1; ctx->world_rank == 0 && r < ctx->world_size && !o->agree[0]; ++r)
        for (int q = 0; q < r && !o->agree[0]; ++q)
            if (all[r] && all[q] && strcmp(keys + (size_t)r * FC_OG_KEY,
                                           keys + (size_t)q * FC_OG_KEY) == 0 && all[r] != all[q])
                snprintf(o->agree, sizeof(o->agree), "the GEMM burn's first C on rank %d "
                         "(host %s) is %016llx, on rank %d (host %s) %016llx: GPUs of the "
                         "same model with the same algorithm (%.300s) compute the same C, so "
                         "one of them computes wrongly", r, ctx->rank_hosts[r], all[r], q,
                         ctx->rank_hosts[q], all[q], keys + (size_t)r * FC_OG_KEY);
    free(keys);
    free(all);
}

/* One size: the three measurements, judged on rank 0. Collective. */
static fc_status_t fc_og_size(fc_og_t *o, uint64_t bytes, int index)
{
    fc_stage_ctx_t *ctx = o->ctx;
    fc_backend_t *be = &o->be;
    size_t count = bytes / sizeof(float) ? bytes / sizeof(float) : 1;
    int iters = ctx->sp.iters > 0 ? ctx->sp.iters : 1, n = ctx->world_size;
    int total = ctx->sp.warmup + iters;
    double *mine = fc_xcalloc(FC_OG_TIMES * (size_t)iters, sizeof(double), "the overlap times");
    double *slow = fc_xcalloc(FC_OG_TIMES * (size_t)iters, sizeof(double), "the overlap times");
    double gpu[2] = { 0, 0 }, gpu_all[2] = { 0, 0 };    /* GEMM seconds alone, together */
    const fc_selftest_t *st = &ctx->opts.selftest;
    fc_mismatch_t mm = { 0 };
    fc_calls_t calls = { { 0 }, { 0 } }, calls_all = { { 0 }, { 0 } };
    int mm_iter = -1;
    fc_pattern_t pat;
    void *send = NULL, *recv = NULL;
    fc_coll_call_t call;
    fc_status_t cst = FC_OK, lst = FC_OK;     /* the calls' (agreed), local steps' */
    char what[96];

    fc_pattern_make(FC_FLOAT32, FC_OP_SUM, n, ctx->profile.seed, &pat);
    /* a local step that fails is remembered by the nccl backend, which
     * then enqueues nothing and fails the next call on every rank
     * together (fc_backend.h): this rank still makes every call */
    if (be->ops->alloc_func(be, count * sizeof(float), &send) != FC_OK ||
        be->ops->alloc_func(be, count * sizeof(float), &recv) != FC_OK)
        lst = FC_ERR_FAIL;
    if (lst == FC_OK)
        lst = be->ops->fill_func(be, &pat, ctx->world_rank, 0, send, count);
    call = (fc_coll_call_t){ .coll = FC_COLL_ALL_REDUCE, .dtype = FC_FLOAT32, .op = FC_OP_SUM,
                             .send = send, .recv = recv, .count = count, .root = 0 };
    snprintf(what, sizeof(what), "all_reduce float32 sum %llu bytes beside GEMMs",
             (unsigned long long)bytes);
    fc_stage_progress(ctx, index, what);
    for (int it = 0; it < total && cst == FC_OK; ++it) {
        double t[FC_OG_TIMES] = { 0 };

        for (int m = 0; m < 3 && cst == FC_OK; ++m) {
            double t0, cs = 0, gs = 0, wall;
            int started = 0;

            if (m != 1 && lst == FC_OK)
                lst = be->ops->poison_func(be, recv, count * sizeof(float), 0xff);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (m != 0)
                started = fc_og_start(o, o->gemms);
            if (m != 1)
                cst = be->ops->run_func(be, &call, &cs);
            if (started)
                gs = fc_og_wait(o, it);
            wall = MPI_Wtime() - t0;
            if (m == 0) {
                t[0] = cs;
                t[5] = wall;
            } else if (m == 1) {
                t[1] = gs;
                t[6] = wall;
            } else {
                t[2] = wall;
                t[3] = cs;
                t[4] = gs;
            }
            if (it >= ctx->sp.warmup && m != 0)
                gpu[m - 1] += gs;
            if (cst == FC_OK && m != 1)
                calls.made[it < ctx->sp.warmup ? FC_CALLS_WARMUP : FC_CALLS_TIMED]++;
            if (cst != FC_OK || lst != FC_OK || m == 1)
                continue;
            if (m == 2 && st->enabled && st->rank == ctx->world_rank && st->iter == it &&
                (st->coll == FC_ANY || st->coll == FC_COLL_ALL_REDUCE)) {
                size_t e = st->index < 0 ? count / 2 : (size_t)st->index % count;

                lst = be->ops->flip_bit_func(be, recv,
                                             e * sizeof(float) + (st->bit / 8) % sizeof(float),
                                             st->bit % 8);
            }
            {
                uint64_t before = mm.wrong;

                if (lst == FC_OK)
                    lst = be->ops->verify_func(be, &pat, -1, 0, recv, count, 0, &mm);
                if (lst == FC_OK)
                    calls.checked[it < ctx->sp.warmup ? FC_CALLS_WARMUP : FC_CALLS_TIMED]++;
                if (before == 0 && mm.wrong > 0)
                    mm_iter = it;
            }
        }
        if (it >= ctx->sp.warmup)
            for (int k = 0; k < FC_OG_TIMES; ++k)
                mine[k * iters + it - ctx->sp.warmup] = t[k];
    }
    if (send)
        be->ops->free_func(be, send);
    if (recv)
        be->ops->free_func(be, recv);
    if (cst == FC_OK) {
        /* a local step that failed after the last call: no call told the
         * peers, so they are told here */
        int local_bad = lst != FC_OK, any = 0;

        fc_ctl_allreduce(MPI_COMM_WORLD, "a step failed on a GPU", FC_CTL_INT, FC_CTL_MAX,
                         &local_bad, &any, 1);
        if (any)
            cst = FC_ERR_FAIL;
    }
    if (cst != FC_OK) {
        /* agreed on every rank: the stage ends with it */
        if (ctx->world_rank == 0)
            fc_tap_diag(&ctx->tap, "overlap: the all_reduce of %llu bytes on nccl, or a "
                        "step on a GPU beside it (allocate, fill, poison, verify), failed (%s): "
                        "see the ranks' logs", (unsigned long long)bytes, fc_status_str(cst));
        free(mine);
        free(slow);
        return cst;
    }
    fc_ctl_reduce(MPI_COMM_WORLD, 0, "the iterations' slowest times", FC_CTL_DOUBLE, FC_CTL_MAX,
                  mine, slow, FC_OG_TIMES * iters);
    fc_ctl_reduce(MPI_COMM_WORLD, 0, "the GPUs' busy times", FC_CTL_DOUBLE, FC_CTL_SUM, gpu,
                  gpu_all, 2);
    fc_overlap_calls_reduce(&calls, &calls_all);
    {
        /* the wrong all_reduce elements and the wrong GEMMs: totals, and
         * the first bad rank's details, on rank 0 */
        struct { double v; int rank; } wr = { (double)mm.wrong, mm.wrong ? ctx->world_rank : n },
            gw = { (double)o->gemm_wrong + 1e9 * o->gerr,
                   o->gemm_wrong || o->gerr ? ctx->world_rank : n }, fw, fg;
        double det[4] = { mm_iter, (double)mm.first_pos, 0, 0 };
        long long wrong_all = 0, w = (long long)mm.wrong, gw_all = 0, gwm = o->gemm_wrong;
        char gwhy[640] = "";
        float ex, ac;
        uint32_t eb = (uint32_t)mm.expected_bits, ab = (uint32_t)mm.actual_bits;

        memcpy(&ex, &eb, sizeof(ex));
        memcpy(&ac, &ab, sizeof(ac));
        det[2] = ex;
        det[3] = ac;
        fc_ctl_reduce(MPI_COMM_WORLD, 0, "the wrong elements", FC_CTL_INT64, FC_CTL_SUM, &w,
                      &wrong_all, 1);
        fc_ctl_reduce(MPI_COMM_WORLD, 0, "the wrong GEMMs", FC_CTL_INT64, FC_CTL_SUM, &gwm,
                      &gw_all, 1);
        fc_ctl_allreduce_maxloc(MPI_COMM_WORLD, "the first rank with wrong elements", wr.v,
                                wr.rank, n, &fw.v, &fw.rank);
        fc_ctl_allreduce_maxloc(MPI_COMM_WORLD, "the first rank with wrong GEMMs", gw.v,
                                gw.rank, n, &fg.v, &fg.rank);
        if (fw.v > 0 && fw.rank < n)
            fc_ctl_bcast(MPI_COMM_WORLD, fw.rank, "the first wrong element", det, sizeof(det));
        if (fg.v > 0 && fg.rank < n) {
            if (ctx->world_rank == fg.rank) {
                char dev[160], where[48];

                fc_og_device(o, dev, sizeof(dev));
                if (o->gw_iter < 0)
                    snprintf(where, sizeof(where), "in the calibration");
                else
                    snprintf(where, sizeof(where), "at iteration %d", o->gw_iter);
                if (o->gerr)
                    snprintf(gwhy, sizeof(gwhy), "the GEMM burn failed on rank %d (host %s), "
                             "%s", ctx->world_rank, ctx->host, o->why);
                else
                    snprintf(gwhy, sizeof(gwhy), "%ld GEMMs on rank %d (host %s), %s, computed "
                             "a C that differs bit for bit from the burn's first C (%016llx): "
                             "first %s, GEMM %ld of its batch (digest %016llx)",
                             o->gemm_wrong, ctx->world_rank, ctx->host, dev,
                             (unsigned long long)o->last.digest, where, o->gw_gemm,
                             (unsigned long long)o->gw_digest);
            }
            fc_ctl_bcast_str(MPI_COMM_WORLD, fg.rank, "the first wrong GEMM", gwhy,
                             sizeof(gwhy));
        }
        if (ctx->world_rank == 0) {
            fc_ovl_meas_t m = { .bytes = (uint64_t)(count * sizeof(float)), .requested = bytes,
                                .iters = iters, .slow = slow, .wrong_all = wrong_all,
                                .first_rank = fw.rank, .kind = "gemm",
                                .work_pct = gpu_all[1] > 0 ? 100 * gpu_all[0] / gpu_all[1] : 0,
                                .extra_fail = fg.v > 0 ? gwhy :
                                              o->agree[0] ? o->agree : NULL,
                                .calls = calls_all };
            char digest[24];

            memcpy(m.det, det, sizeof(det));
            snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)o->last.digest);
            /* two GPUs that disagree: which is wrong is not known, the
             * cluster's part is (fc_overlap_record's default) */
            m.extra_impl = fg.v > 0 ? fc_stage_wrong_implicates(ctx, fg.rank) : NULL;
            m.extra = json_pack("{s:s, s:s, s:i, s:I, s:s, s:s, s:I, s:f, s:f, s:f, s:f, s:s}",
                                "backend", "nccl", "gemm_kind", o->last.kind, "gemm_n",
                                o->last.n, "gemms", (json_int_t)o->gemms, "gemm_algo",
                                o->last.algo, "gemm_digest", digest, "gemm_wrong",
                                (json_int_t)gw_all,
                                "coll_together_us", fc_og_median(slow + 3 * iters, iters) * 1e6,
                                "compute_together_us",
                                fc_og_median(slow + 4 * iters, iters) * 1e6, "coll_alone_wall_us",
                                fc_og_median(slow + 5 * iters, iters) * 1e6,
                                "compute_alone_wall_us",
                                fc_og_median(slow + 6 * iters, iters) * 1e6, "timing",
                                "alone: CUDA events on each part's stream; together: the "
                                "host's wall time from a barrier (each part's events beside it)");
            fc_overlap_record(ctx, &m);
            json_decref(m.extra_impl);
        }
    }
    free(mine);
    free(slow);
    return FC_OK;
}

fc_status_t fc_overlap_gpu(fc_stage_ctx_t *ctx, MPI_Comm all)
{
    fc_og_t o = { .ctx = ctx };
    fc_status_t st;
    char why[256] = "";
    int ok, all_ok;

    st = fc_stage_open_backend(ctx, all, &o.be);
    if (st != FC_OK)
        return st;      /* agreed on every rank, each named in its log */
    o.timeout_s = ctx->sp.timeout_s / 4 > 10 ? ctx->sp.timeout_s / 4 : 10;
    if (ctx->gpu->gemm_open_func == NULL)
        snprintf(why, sizeof(why), "the GPU plugin has no persistent GEMM burn (ABI 4's "
                 "gemm_open_func)");
    else
        o.g = ctx->gpu->gemm_open_func(&o.be, FC_OG_KIND, why, sizeof(why));
    if (o.g == NULL)
        fc_og_fail(&o, why);
    ok = !o.gerr;
    fc_ctl_allreduce(MPI_COMM_WORLD, "a GEMM burn on every GPU", FC_CTL_INT, FC_CTL_MIN, &ok,
                     &all_ok, 1);
    if (!all_ok) {
        /* each rank logs its own reason; the stage cannot measure */
        if (o.gerr)
            fc_error("overlap: no GEMM burn on rank %d (host %s): %s", ctx->world_rank,
                     ctx->host, o.why);
        if (o.g)
            ctx->gpu->gemm_close_func(o.g);
        o.be.ops->fini_func(&o.be);
        return FC_ERR_FAIL;
    }
    fc_og_calibrate(&o);
    fc_og_agree(&o);
    if (ctx->world_rank == 0)
        fc_tap_diag(&ctx->tap, "overlap on nccl: %d ranks, %ld %s GEMMs of %d x %d per "
                    "compute phase (compute_ms %.1f; %s), limit %.0f%%", ctx->world_size,
                    o.gemms, o.last.kind, o.last.n, o.last.n, ctx->sp.overlap.compute_ms,
                    o.last.algo, ctx->sp.overlap.min_overlap_pct);
    for (int s = 0; s < ctx->sp.nsizes && st == FC_OK; ++s)
        st = fc_og_size(&o, ctx->sp.sizes[s], s);
    ctx->gpu->gemm_close_func(o.g);
    o.be.ops->fini_func(&o.be);
    return st;
}
