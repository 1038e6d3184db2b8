/*
 * fc_engine.c - the one place that owns warm-up, timing and checking.
 *
 * The timed call must see what an application's call sees, so nothing is
 * written into the output between calls: no poison. Instead each point has
 * two input sets from two seeds, filled once into two send buffers, and the
 * iterations alternate between them. The previous iteration's output is
 * then always wrong for the current one: a call that writes nothing, or a
 * transport that re-sends the previous iteration's data, leaves bits that
 * fail the check. Per iteration, outside the timed region, the output is
 * checked on the same buffer:
 *  - the first time an (input set, root) pair is seen, and whenever a
 *    digest differs from the verified one, every element is compared with
 *    its expectation (fc_kernels.h);
 *  - otherwise by its digest against that pair's verified digest (64-bit,
 *    so a changed bit escapes with probability 2^-64); a mismatch runs the
 *    element-wise pass that names the place.
 * A rooted collective rotates its root over the ranks, one iteration after
 * another, each root's turns alternating the input sets
 * (fc_point_rank_root). Where the backend's broadcast has one buffer
 * (MPI), the root of an out-of-place broadcast sends its input set where
 * it is, and that buffer is its output: a correct call leaves it as it
 * was (a copy into its recv before each call had the receivers read lines
 * the root had just written; docs/DECISIONS.md). A reduce's non-root recv
 * is recv[0] too, set to a known byte once per point before the warm-up
 * and then holding the rank's own last output as root: a correct call off
 * the root never writes it, so it needs nothing between calls, and any
 * byte a call writes there changes its digest and is named element by
 * element (a buffer of its own was one more to read per call). An
 * in-place collective's input is copied into recv before each call (it
 * consumes it), as an application's would be there. The warm-up's calls
 * are checked like the timed ones.
 *
 * Two timings: per iteration (barrier, one call, the slowest rank's time:
 * what the limits judge) and, after the checked iterations, batched like
 * nccl-tests (calls back to back under one timer, alternating the input
 * sets). Each call of the batch writes an output of its own, set before
 * the timer to what no correct call leaves there (FC_POINT_BATCH_BYTE,
 * then an in-place call's input; a reduce's non-root recv the known
 * byte), so that after the timer every call's output is still there and
 * is checked like an iteration's: no call of the batch goes unjudged, in
 * place as out of place. The batch makes iters calls, or fewer where
 * their outputs would take more than FC_ENGINE_BATCH_BYTES beyond two
 * (the record says how many). Every call is counted, made and checked,
 * by kind (fc_calls.h), and a point whose checked calls fall short of
 * its made ones cannot pass (fc_judge.c).
 * Buffers live in an fc_engine_bufs_t that a stage keeps for all its
 * points; they grow when a point needs more, and each new buffer is
 * written whole when it is allocated, so no timed call pays for
 * allocation or first touch.
 *
 * One rank's part of that contract (inputs, roots, staging, the check of
 * an output) is lib/engine/fc_point_rank.c, without MPI, shared with the
 * single-process GPU check; this file adds the calls, the timing and the
 * agreement between ranks; what rank 0 makes of the ranks' reports (the
 * summary) is fc_engine_summary.c.
 */
#include "fc_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_engine_int.h"
#include "fc_log.h"
#include "fc_point_rank.h"
#include "fc_profile.h"
#include "fc_watchdog.h"

/* The backend's memory, as fc_point_rank.h sees it. */
static fc_status_t fc_engine_fill(void *ctx, const fc_pattern_t *p, int32_t rank,
                                  uint64_t index_base, void *buf, size_t count)
{
    fc_backend_t *be = ctx;

    return be->ops->fill_func(be, p, rank, index_base, buf, count);
}

static fc_status_t fc_engine_poison(void *ctx, void *buf, size_t bytes, int byte)
{
    fc_backend_t *be = ctx;

    return be->ops->poison_func(be, buf, bytes, byte);
}

static fc_status_t fc_engine_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    fc_backend_t *be = ctx;

    return be->ops->copy_func(be, dst, src, bytes);
}

static fc_status_t fc_engine_verify(void *ctx, const fc_pattern_t *p, int32_t src,
                                    uint64_t index_base, const void *buf, size_t count,
                                    uint64_t pos_base, fc_mismatch_t *m)
{
    fc_backend_t *be = ctx;

    return be->ops->verify_func(be, p, src, index_base, buf, count, pos_base, m);
}

static fc_status_t fc_engine_untouched(void *ctx, const void *buf, size_t count, size_t esize,
                                       int byte, uint64_t pos_base, fc_mismatch_t *m)
{
    fc_backend_t *be = ctx;

    return be->ops->verify_untouched_func(be, buf, count, esize, byte, pos_base, m);
}

static fc_status_t fc_engine_digest(void *ctx, const void *buf, size_t bytes,
                                    uint64_t *digest_p)
{
    fc_backend_t *be = ctx;

    return be->ops->digest_func(be, buf, bytes, digest_p);
}

static const fc_point_mem_ops_t fc_engine_mem_ops = {
    fc_engine_fill, fc_engine_poison, fc_engine_copy, fc_engine_verify, fc_engine_untouched,
    fc_engine_digest,
};

void fc_point_label(const fc_test_point_t *pt, char *buf, size_t len)
{
    char size[32];

    fc_format_size(pt->bytes, size, sizeof(size));
    if (pt->op == FC_OP_NONE)
        snprintf(buf, len, "%s %s %s", fc_coll_desc(pt->coll)->name,
                 fc_dtype_info(pt->dtype)->name, size);
    else
        snprintf(buf, len, "%s %s %s %s", fc_coll_desc(pt->coll)->name,
                 fc_dtype_info(pt->dtype)->name, fc_op_name(pt->op), size);
}

/* Rank 0: every rank's report of a point holds values it can have (its
 * checksum said it arrived as sent; this says the sender was sane): a
 * first wrong iteration among the calls made (the batch's call k is
 * iteration warmup + iters + k), calls checked no more than made, made no
 * more than the point makes. */
static void fc_engine_check_reports(const fc_point_run_t *run, const fc_rank_report_t *reps)
{
    const fc_test_point_t *pt = run->pt;
    const int64_t most[FC_CALLS_KINDS] = { pt->warmup, pt->iters, run->batch_calls };
    int world = 0;

    MPI_Comm_size(MPI_COMM_WORLD, &world);
    for (int r = 0; r < run->be->size; ++r) {
        int calls_ok = 1;

        for (int k = 0; k < FC_CALLS_KINDS; ++k)
            calls_ok = calls_ok && reps[r].calls.made[k] >= 0 &&
                       reps[r].calls.made[k] <= most[k] && reps[r].calls.checked[k] >= 0 &&
                       reps[r].calls.checked[k] <= reps[r].calls.made[k];
        fc_ctl_check(reps[r].world_rank >= 0 && reps[r].world_rank < world &&
                     fc_ctl_str_ok(reps[r].host, sizeof(reps[r].host)) &&
                     reps[r].first_iter >= -1 &&
                     reps[r].first_iter < pt->warmup + pt->iters + run->batch_calls &&
                     (reps[r].reps_agree == 0 || reps[r].reps_agree == 1) && calls_ok,
                     "the ranks' reports of a point", fc_ctl_world_rank(run->be->comm, r),
                     "a report with world rank %d, first wrong iteration %d (of %d calls), "
                     "calls made %lld+%lld+%lld, checked %lld+%lld+%lld", reps[r].world_rank,
                     reps[r].first_iter, pt->warmup + pt->iters + run->batch_calls,
                     (long long)reps[r].calls.made[0], (long long)reps[r].calls.made[1],
                     (long long)reps[r].calls.made[2], (long long)reps[r].calls.checked[0],
                     (long long)reps[r].calls.checked[1], (long long)reps[r].calls.checked[2]);
    }
}

/* All ranks agree on a status (the worst one), so that no rank enters a
 * collective that another rank has given up on. */
static fc_status_t fc_engine_agree(fc_backend_t *be, fc_status_t status)
{
    int local = (int)status, worst;

    fc_ctl_allreduce(be->comm, "the point's status", FC_CTL_INT, FC_CTL_MAX, &local, &worst, 1);
    fc_ctl_check(worst >= FC_OK && worst <= FC_ERR_INTERNAL, "the point's status", -1,
                 "status %d is none fabcert has", worst);
    return (fc_status_t)worst;
}

void fc_engine_bufs_init(fc_engine_bufs_t *bufs)
{
    memset(bufs, 0, sizeof(*bufs));
}

void fc_engine_bufs_free(fc_backend_t *be, fc_engine_bufs_t *bufs)
{
    for (int k = 0; k < 2; ++k) {
        if (bufs->send[k])
            be->ops->free_func(be, bufs->send[k]);
        if (bufs->recv[k])
            be->ops->free_func(be, bufs->recv[k]);
    }
    for (int k = 0; k < bufs->nouts; ++k)
        if (bufs->outs[k])
            be->ops->free_func(be, bufs->outs[k]);
    free(bufs->outs);
    free(bufs->out_cap);
    fc_engine_bufs_init(bufs);
}

/* Grow the buffers to hold send_bytes and recv_bytes (each pair). Each
 * new buffer is written whole at once, outside any timer: fresh host
 * memory faults its pages in on first touch, and a buffer first written
 * by a timed call (recv[1] is first written in the batch) put those
 * faults in the first point's figure at each new size. */
static fc_status_t fc_engine_bufs_reserve(fc_backend_t *be, fc_engine_bufs_t *bufs,
                                          size_t send_bytes, size_t recv_bytes)
{
    if (send_bytes > bufs->send_cap || recv_bytes > bufs->recv_cap) {
        size_t s = send_bytes > bufs->send_cap ? send_bytes : bufs->send_cap;
        size_t r = recv_bytes > bufs->recv_cap ? recv_bytes : bufs->recv_cap;

        fc_engine_bufs_free(be, bufs);
        for (int k = 0; k < 2; ++k) {
            FC_CHECK(be->ops->alloc_func(be, s, &bufs->send[k]));
            FC_CHECK(be->ops->poison_func(be, bufs->send[k], s, 0));
            FC_CHECK(be->ops->alloc_func(be, r, &bufs->recv[k]));
            FC_CHECK(be->ops->poison_func(be, bufs->recv[k], r, 0));
        }
        bufs->send_cap = s;
        bufs->recv_cap = r;
    }
    return FC_OK;
}

/* The batch's outputs beyond recv[0] and recv[1]: n - 2 of at least
 * bytes each, a new one written whole once (as above). Each has its own
 * size, so that a large point's two outputs do not make a small point's
 * twenty as large. */
static fc_status_t fc_engine_bufs_reserve_outs(fc_backend_t *be, fc_engine_bufs_t *bufs, int n,
                                               size_t bytes)
{
    if (n - 2 > bufs->nouts) {
        bufs->outs = fc_xrealloc(bufs->outs, (size_t)n - 2, sizeof(*bufs->outs),
                                 "the batch's outputs");
        bufs->out_cap = fc_xrealloc(bufs->out_cap, (size_t)n - 2, sizeof(*bufs->out_cap),
                                    "the batch's outputs' sizes");
        for (int k = bufs->nouts; k < n - 2; ++k) {
            bufs->outs[k] = NULL;
            bufs->out_cap[k] = 0;
        }
        bufs->nouts = n - 2;
    }
    for (int k = 0; k < n - 2; ++k) {
        if (bufs->out_cap[k] >= bytes && bufs->outs[k] != NULL)
            continue;
        if (bufs->outs[k])
            be->ops->free_func(be, bufs->outs[k]);
        bufs->outs[k] = NULL;
        bufs->out_cap[k] = 0;
        FC_CHECK(be->ops->alloc_func(be, bytes, &bufs->outs[k]));
        FC_CHECK(be->ops->poison_func(be, bufs->outs[k], bytes, 0));
        bufs->out_cap[k] = bytes;
    }
    return FC_OK;
}

static int fc_selftest_hits(const fc_selftest_t *st, const fc_test_point_t *pt,
                            int world_rank, int iter)
{
    return st != NULL && st->enabled && st->rank == world_rank &&
           st->iter == iter && (st->coll == FC_ANY || st->coll == (int)pt->coll);
}

static void fc_engine_note_wrong(fc_rank_report_t *rep, int it, const fc_mismatch_t *m)
{
    if (m->wrong == 0)
        return;
    if (rep->wrong == 0) {
        rep->first_iter = it;
        rep->first_pos = m->first_pos;
        rep->first_expected = m->expected_bits;
        rep->first_actual = m->actual_bits;
    }
    rep->wrong += m->wrong;
}

void fc_engine_point_rank_init(fc_backend_t *be, const fc_test_point_t *pt,
                               fc_point_rank_t *pr)
{
    fc_point_rank_init(pr, &fc_engine_mem_ops, be, be->rank, be->size, pt->coll,
                       pt->dtype, pt->bytes);
    pr->bcast_one_buffer = be->bcast_one_buffer;
}

void fc_engine_call(const fc_test_point_t *pt, const fc_point_rank_t *pr, int it,
                    fc_coll_call_t *call_p)
{
    int set = it & 1, root = fc_point_rank_root(pr, it);

    *call_p = (fc_coll_call_t){ pt->coll, pt->dtype, pt->op, pr->send[set],
                                fc_point_rank_recv(pr, set, root), pr->counts.count, root };
}

/* This rank's steps after call `it`: the self-test's flip, the check
 * (counted in rep->calls once it is done). */
static fc_status_t fc_engine_after_call(fc_point_run_t *run, const fc_selftest_t *st,
                                        const fc_engine_ident_t *ident, int it, int set,
                                        int root, void *recv, fc_rank_report_t *rep)
{
    fc_backend_t *be = run->be;
    fc_mismatch_t m = { 0, 0, 0, 0 };
    uint64_t digest;
    size_t flip_byte = 0;
    int flipped = 0;

    if (fc_selftest_hits(st, run->pt, ident->world_rank, it)) {
        uint64_t idx = fc_point_rank_flip_index(&run->pr, root, st->index);

        flip_byte = idx * run->pr.esize + st->bit / 8;
        FC_CHECK(be->ops->flip_bit_func(be, recv, flip_byte, st->bit % 8));
        flipped = 1;
        fc_log_info("self-test: flipped bit %d of element %llu of the %s "
                    "output at iteration %d", st->bit, (unsigned long long)idx,
                    run->pr.desc->name, it);
    }
    FC_CHECK(fc_point_rank_check(&run->pr, recv, set, root, &digest, &m));
    /* an output that is an input set (a one-buffer broadcast's root): the
     * planted bit is one iteration's fault, not every later one's */
    if (flipped && fc_point_rank_is_input(&run->pr, recv))
        FC_CHECK(be->ops->flip_bit_func(be, recv, flip_byte, st->bit % 8));
    if (it == 0)
        rep->digest0 = digest;
    fc_engine_note_wrong(rep, it, &m);
    rep->calls.checked[it < run->pt->warmup ? FC_CALLS_WARMUP : FC_CALLS_TIMED]++;
    return FC_OK;
}

/* The checked iterations of one point on this rank. A local step that
 * fails here (staging, the check: on the nccl backend a kernel or a
 * bounded wait on this rank's GPU) does not leave the loop: the rank goes
 * on making the calls its peers make, skipping its own steps, and the
 * backend fails the next call in agreement with every peer (lib/gpu/
 * fc_gpu_agree.h), so all ranks leave at the same call; a failure after
 * the last call is agreed by fc_engine_run_point. A rank that left early
 * would be in an agreement of its own while its peers wait in the next
 * call's. */
static fc_status_t fc_engine_iterate(fc_point_run_t *run, const fc_selftest_t *st,
                                     const fc_engine_ident_t *ident, double *times,
                                     double *waits, fc_rank_report_t *rep)
{
    fc_backend_t *be = run->be;
    const fc_test_point_t *pt = run->pt;
    int total = pt->warmup + pt->iters;
    fc_status_t local = FC_OK;

    rep->first_iter = -1;
    rep->reps_agree = 1;
    for (int it = 0; it < total; ++it) {
        int set = it & 1, root;
        fc_coll_call_t call;
        fc_status_t called;
        double seconds = 0.0;

        fc_engine_call(pt, &run->pr, it, &call);
        root = call.root;
        if (local == FC_OK)
            local = fc_point_rank_stage(&run->pr, call.recv, set, root);
        fc_watchdog_call_enter();
        called = be->ops->run_func(be, &call, &seconds);
        fc_watchdog_call_done();
        if (called != FC_OK)
            return fc_status_worst(local, called);  /* agreed: every rank leaves here */
        rep->calls.made[it < pt->warmup ? FC_CALLS_WARMUP : FC_CALLS_TIMED]++;
        if (local == FC_OK)
            local = fc_engine_after_call(run, st, ident, it, set, root, call.recv, rep);
        if (it >= pt->warmup) {
            times[it - pt->warmup] = seconds;
            waits[it - pt->warmup] = be->last_wait_s;
        }
    }
    /* the same (set, root) must give the same bits every time: a digest
     * that differed was checked element-wise above, so a disagreement
     * with right elements cannot happen; a wrong one is already counted */
    return local;
}

const char *fc_engine_batch_none(const fc_backend_t *be, const fc_test_point_t *pt)
{
    if (!pt->batched)
        return "this stage times per iteration only";
    if (be->ops->run_batch_func == NULL)
        return "the backend has no batched mode";
    if (pt->iters < 2)
        return "fewer than 2 iterations";
    return NULL;
}

/* The batch's calls: iters, or as many as FC_ENGINE_BATCH_BYTES of
 * outputs beyond two hold, at most FC_ENGINE_BATCH_MAX; 0 when the point
 * has no batch. The same on every rank (the counts are). */
static int fc_engine_batch_calls(const fc_point_run_t *run)
{
    size_t bytes = fc_point_rank_recv_bytes(&run->pr);
    uint64_t fit = bytes ? 2 + FC_ENGINE_BATCH_BYTES / bytes : FC_ENGINE_BATCH_MAX;
    int n = run->pt->iters;

    if (fc_engine_batch_none(run->be, run->pt) != NULL)
        return 0;
    if ((uint64_t)n > fit)
        n = (int)fit;
    return n < FC_ENGINE_BATCH_MAX ? n : FC_ENGINE_BATCH_MAX;
}

/* The batched timing: run->batch_calls calls under one timer, call k of
 * input set k % 2 into an output of its own (recv[k], then bufs->outs),
 * set before the timer (fc_point_rank_batch_stage); after it every
 * output is checked. rep->batch_s is this rank's time per call, -1 when
 * fc_engine_batch_none says why not. A wrong output is named as the
 * iteration warmup + iters + k. */
static fc_status_t fc_engine_batch(fc_point_run_t *run, fc_engine_bufs_t *bufs,
                                   fc_rank_report_t *rep)
{
    fc_backend_t *be = run->be;
    const fc_test_point_t *pt = run->pt;
    int n = run->batch_calls;
    fc_coll_call_t *calls;
    fc_status_t local = FC_OK, called;
    double seconds = 0;

    rep->batch_s = -1;
    if (n == 0)
        return FC_OK;
    calls = fc_xcalloc((size_t)n, sizeof(*calls), "the batch's calls");
    for (int k = 0; k < n; ++k) {
        void *out = k < 2 ? bufs->recv[k] : bufs->outs[k - 2];

        calls[k] = (fc_coll_call_t){ pt->coll, pt->dtype, pt->op, run->pr.send[k & 1],
                                     fc_point_rank_batch_out(&run->pr, k, out),
                                     run->pr.counts.count, 0 };
        if (local == FC_OK)
            local = fc_point_rank_batch_stage(&run->pr, calls[k].recv, k);
    }
    /* made after a failed staging too, as fc_engine_iterate's calls */
    fc_watchdog_call_enter();
    called = be->ops->run_batch_func(be, calls, n, &seconds);
    fc_watchdog_call_done();
    local = fc_status_worst(local, called);
    if (called == FC_OK)
        rep->calls.made[FC_CALLS_BATCHED] = n;
    for (int k = 0; k < n && local == FC_OK; ++k) {
        fc_mismatch_t m = { 0, 0, 0, 0 };

        local = fc_point_rank_batch_check(&run->pr, calls[k].recv, k, &m);
        if (local != FC_OK)
            break;
        fc_engine_note_wrong(rep, pt->warmup + pt->iters + k, &m);
        rep->calls.checked[FC_CALLS_BATCHED]++;
    }
    free(calls);
    FC_CHECK(local);
    rep->batch_s = seconds / n;
    return FC_OK;
}

/* The point's inputs: two sets, filled once; a reduce's recv[0] set to
 * the known byte, once, before the warm-up; the batch's outputs. */
static fc_status_t fc_engine_prepare(fc_point_run_t *run, fc_engine_bufs_t *bufs)
{
    FC_CHECK(fc_engine_bufs_reserve(run->be, bufs, fc_point_rank_send_bytes(&run->pr),
                                    fc_point_rank_recv_bytes(&run->pr)));
    run->batch_calls = fc_engine_batch_calls(run);
    FC_CHECK(fc_engine_bufs_reserve_outs(run->be, bufs, run->batch_calls,
                                         fc_point_rank_recv_bytes(&run->pr)));
    return fc_point_rank_prepare(&run->pr, run->pt->op, run->pt->seed, bufs->send, bufs->recv);
}

fc_status_t fc_engine_run_point(fc_backend_t *be, const fc_test_point_t *pt,
                                const fc_selftest_t *selftest,
                                const fc_engine_ident_t *ident, fc_engine_bufs_t *bufs,
                                fc_point_summary_t *summary_p)
{
    fc_point_run_t run;
    fc_engine_bufs_t own;
    fc_rank_report_t rep, *reps = NULL;
    double *times = NULL, *slowest = NULL, *waits = NULL, *all_waits = NULL;
    fc_status_t status = FC_OK;

    memset(&run, 0, sizeof(run));
    memset(&rep, 0, sizeof(rep));
    memset(summary_p, 0, sizeof(*summary_p));
    summary_p->cpu_wait = -1;           /* read only by a confirmation alone */
    summary_p->cpu_wait_rank = -1;
    if (bufs == NULL) {
        fc_engine_bufs_init(&own);
        bufs = &own;
    }
    run.be = be;
    run.pt = pt;
    fc_engine_point_rank_init(be, pt, &run.pr);
    rep.world_rank = ident->world_rank;
    rep.batch_s = -1;
    snprintf(rep.host, sizeof(rep.host), "%s", ident->host);

    times = fc_xcalloc((size_t)pt->iters, sizeof(*times), "the iterations' times");
    slowest = fc_xcalloc((size_t)pt->iters, sizeof(*slowest), "the slowest rank's times");
    waits = fc_xcalloc((size_t)pt->iters, sizeof(*waits), "the iterations' barrier waits");
    reps = fc_xcalloc((size_t)be->size, sizeof(*reps), "the ranks' reports");
    if (be->rank == 0)
        all_waits = fc_xcalloc((size_t)pt->iters * (size_t)be->size, sizeof(*all_waits),
                               "every rank's barrier waits");
    status = fc_engine_prepare(&run, bufs);
    status = fc_engine_agree(be, status);
    if (status != FC_OK)
        goto out;

    status = fc_engine_iterate(&run, selftest, ident, times, waits, &rep);
    status = fc_engine_agree(be, status);
    if (status == FC_OK)
        status = fc_engine_agree(be, fc_engine_batch(&run, bufs, &rep));
    if (status != FC_OK)
        goto out;

    /* the slowest rank's time of each iteration, and every rank's report */
    fc_ctl_reduce(be->comm, 0, "the iterations' slowest times", FC_CTL_DOUBLE, FC_CTL_MAX,
                  times, slowest, pt->iters);
    fc_ctl_gather(be->comm, 0, "the ranks' reports of a point", &rep, sizeof(rep),
                  be->rank == 0 ? reps : NULL);
    fc_ctl_gather(be->comm, 0, "the iterations' barrier waits", waits,
                  (size_t)pt->iters * sizeof(*waits), all_waits);
    if (be->rank == 0) {
        fc_engine_check_reports(&run, reps);
        fc_engine_summarise(&run, reps, slowest, all_waits, summary_p);
    }

out:
    summary_p->status = status;
    if (be->rank == 0 && status != FC_OK) {
        /* a point that did not run still names its group, with its shape */
        snprintf(summary_p->host, sizeof(summary_p->host), "%s", ident->host);
        summary_p->first_world_rank = ident->world_rank;
        summary_p->nranks = be->size;
        summary_p->nhosts = ident->group_hosts;
        summary_p->arrival_last_rank = -1;
        summary_p->batch_time_s = summary_p->batch_busbw = -1;
    }
    if (be->rank == 0)
        summary_p->valid = 1;
    if (bufs == &own)
        fc_engine_bufs_free(be, &own);
    free(reps);
    free(slowest);
    free(waits);
    free(all_waits);
    free(times);
    return status;
}
