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
 * another. A reduce's non-root recv is a buffer of its own (recv[1]; the
 * root's output is recv[0]), set to a known byte once per point before the
 * warm-up: a correct call never writes it, so it stays valid through every
 * iteration and needs nothing between calls, and any byte a call writes
 * there is caught by its digest and named element by element. An in-place collective's input is copied into recv
 * before each call (it consumes it), as an application's would be there.
 *
 * Two timings: per iteration (barrier, one call, the slowest rank's time:
 * what the limits judge) and, after the checked iterations, batched like
 * nccl-tests (the same number of calls back to back under one timer,
 * alternating inputs and two output buffers; the last output of each is
 * checked; in place only where a call on its own output changes nothing).
 * Buffers live in an fc_engine_bufs_t that a stage keeps for all its
 * points; they grow when a point needs more, and each new buffer is
 * written whole when it is allocated, so no timed call pays for
 * allocation or first touch. What rank 0 makes of the ranks' reports (the
 * summary) is fc_engine_summary.c.
 */
#include "fc_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_engine_int.h"
#include "fc_log.h"
#include "fc_profile.h"
#include "fc_watchdog.h"

#define FC_SENTINEL_BYTE 0x5A

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

/* All ranks agree on a status (the worst one), so that no rank enters a
 * collective that another rank has given up on. */
static fc_status_t fc_engine_agree(fc_backend_t *be, fc_status_t status)
{
    int local = (int)status, worst;

    MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, be->comm);
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

static int fc_engine_root(const fc_point_run_t *run, int it)
{
    return run->desc->rooted ? it % run->be->size : 0;
}

/* This rank's output region of recv, in elements. */
static void fc_engine_span(const fc_point_run_t *run, int root, size_t *lo_p, size_t *hi_p)
{
    size_t lo = (size_t)-1, hi = 0;
    int n = run->desc->block_count_func(run->be->size);

    for (int k = 0; k < n; ++k) {
        fc_coll_block_t b;

        run->desc->block_func(&run->counts, run->be->rank, run->be->size, root, k, &b);
        lo = b.pos < lo ? b.pos : lo;
        hi = b.pos + b.len > hi ? b.pos + b.len : hi;
    }
    *lo_p = lo;
    *hi_p = hi;
}

static int fc_engine_is_output(const fc_point_run_t *run, int root)
{
    return !run->desc->root_output_only || run->be->rank == root;
}

/* The recv a call with this root gets on this rank: recv[0], or off the
 * root of a root-only collective the sentinel buffer recv[1]. */
static void *fc_engine_recv(const fc_point_run_t *run, int root)
{
    return fc_engine_is_output(run, root) ? run->recv[0] : run->recv[1];
}

/* Element by element against input set `set` (or, off the root of a
 * root-only collective, against the untouched sentinel). */
static fc_status_t fc_engine_verify(fc_point_run_t *run, const void *recv, int set, int root,
                                    fc_mismatch_t *m)
{
    fc_backend_t *be = run->be;
    int nblocks = run->desc->block_count_func(be->size);

    if (!fc_engine_is_output(run, root))
        /* rare: only when its digest changed; through the backend, on its
         * memory (the nccl backend's is the GPU's), element by element */
        return be->ops->verify_untouched_func(be, recv, run->counts.recv_elems, run->esize,
                                              FC_SENTINEL_BYTE, 0, m);
    for (int k = 0; k < nblocks; ++k) {
        fc_coll_block_t b;

        run->desc->block_func(&run->counts, be->rank, be->size, root, k, &b);
        FC_CHECK(be->ops->verify_func(be, &run->pat[set], b.src, b.index_base,
                                      (const uint8_t *)recv + b.pos * run->esize,
                                      b.len, b.pos, m));
    }
    return FC_OK;
}

/* Check one output: its digest against the verified one of (set, root),
 * element by element when there is none yet or it differs. */
static fc_status_t fc_engine_check(fc_point_run_t *run, const void *recv, int set, int root,
                                   uint64_t *digest_p, fc_mismatch_t *m)
{
    fc_backend_t *be = run->be;
    fc_digests_t *d = &run->digests;
    size_t lo, hi;
    uint64_t digest;
    int have = -1;

    if (!fc_engine_is_output(run, root)) {
        FC_CHECK(be->ops->digest_func(be, recv, run->counts.recv_elems * run->esize, &digest));
        *digest_p = digest;
        return digest == run->sentinel ? FC_OK : fc_engine_verify(run, recv, set, root, m);
    }
    fc_engine_span(run, root, &lo, &hi);
    FC_CHECK(be->ops->digest_func(be, (const uint8_t *)recv + lo * run->esize,
                                  (hi - lo) * run->esize, &digest));
    *digest_p = digest;
    for (int i = 0; i < d->n; ++i)
        if (d->e[i].set == set && d->e[i].root == root)
            have = i;
    if (have >= 0 && d->e[have].digest == digest)
        return FC_OK;
    FC_CHECK(fc_engine_verify(run, recv, set, root, m));
    if (m->wrong == 0 && have < 0 && d->n < FC_ENGINE_DIGESTS)
        d->e[d->n++] = (fc_verified_t){ set, root, digest };
    return FC_OK;
}

static int fc_selftest_hits(const fc_selftest_t *st, const fc_test_point_t *pt,
                            int world_rank, int iter)
{
    return st != NULL && st->enabled && st->rank == world_rank &&
           st->iter == iter && (st->coll == FC_ANY || st->coll == (int)pt->coll);
}

/* An in-place call consumes its input: stage this iteration's into recv. */
static fc_status_t fc_engine_stage(fc_point_run_t *run, void *recv, int set, int root)
{
    size_t pos = 0, len = 0;

    if (!run->desc->in_place)
        return FC_OK;
    run->desc->stage_func(&run->counts, run->be->rank, run->be->size, root, &pos, &len);
    if (len == 0)
        return FC_OK;
    return run->be->ops->copy_func(run->be, (uint8_t *)recv + pos * run->esize,
                                   run->send[set], len * run->esize);
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

/* The checked iterations of one point on this rank. */
static fc_status_t fc_engine_iterate(fc_point_run_t *run, const fc_selftest_t *st,
                                     const fc_engine_ident_t *ident, double *times,
                                     double *waits, fc_rank_report_t *rep)
{
    fc_backend_t *be = run->be;
    const fc_test_point_t *pt = run->pt;
    int total = pt->warmup + pt->iters;

    rep->first_iter = -1;
    rep->reps_agree = 1;
    for (int it = 0; it < total; ++it) {
        int set = it & 1, root = fc_engine_root(run, it);
        fc_coll_call_t call = { pt->coll, pt->dtype, pt->op, run->send[set],
                                fc_engine_recv(run, root), run->counts.count, root };
        fc_mismatch_t m = { 0, 0, 0, 0 };
        uint64_t digest;
        double seconds = 0.0;

        FC_CHECK(fc_engine_stage(run, call.recv, set, root));
        fc_watchdog_call_enter();
        FC_CHECK(be->ops->run_func(be, &call, &seconds));
        fc_watchdog_call_done();
        if (fc_selftest_hits(st, pt, ident->world_rank, it)) {
            size_t lo, hi;
            uint64_t idx;

            /* by default the middle of this rank's own output (an in-place
             * reduce_scatter's is one block of the buffer) */
            fc_engine_span(run, root, &lo, &hi);
            idx = st->index >= 0 ? (uint64_t)st->index : lo + (hi - lo) / 2;

            if (idx >= run->counts.recv_elems)
                idx = run->counts.recv_elems - 1;
            FC_CHECK(be->ops->flip_bit_func(be, call.recv, idx * run->esize + st->bit / 8,
                                            st->bit % 8));
            fc_log_info("self-test: flipped bit %d of element %llu of the %s "
                        "output at iteration %d", st->bit, (unsigned long long)idx,
                        run->desc->name, it);
        }
        FC_CHECK(fc_engine_check(run, call.recv, set, root, &digest, &m));
        if (it == 0)
            rep->digest0 = digest;
        fc_engine_note_wrong(rep, it, &m);
        if (it >= pt->warmup) {
            times[it - pt->warmup] = seconds;
            waits[it - pt->warmup] = be->last_wait_s;
        }
    }
    /* the same (set, root) must give the same bits every time: a digest
     * that differed was checked element-wise above, so a disagreement
     * with right elements cannot happen; a wrong one is already counted */
    return FC_OK;
}

const char *fc_engine_batch_none(const fc_backend_t *be, const fc_test_point_t *pt)
{
    const fc_coll_desc_t *d = fc_coll_desc(pt->coll);

    if (!pt->batched)
        return "this stage times per iteration only";
    if (be->ops->run_batch_func == NULL)
        return "the backend has no batched mode";
    if (pt->iters < 2)
        return "fewer than 2 iterations";
    if (d->in_place && d->reduces && (pt->op == FC_OP_SUM || pt->op == FC_OP_PROD))
        return "in place, each call of a batch would reduce the previous call's output "
               "again (nccl-tests times it so, unchecked), which no pattern predicts, so "
               "no output of the batch could be checked";
    if (pt->coll == FC_COLL_REDUCE_SCATTER_INPLACE)
        return "in place, MPI leaves each result at the buffer's start (the mpi backend "
               "moves it after the call), where the next call of a batch reads an input, "
               "so no output of the batch could be checked";
    return NULL;
}

/* The batched timing: iters calls under one timer; the last output of
 * each input set is checked. rep->batch_s is this rank's time per call,
 * -1 when fc_engine_batch_none says why not. An in-place batch is staged
 * once per buffer, before the timer, and each call works on the previous
 * call's output of that buffer, as nccl-tests' in-place timing does: only
 * where that changes nothing (the moves, a min or max all_reduce), so that
 * the last outputs are still the input sets' and are checked. */
static fc_status_t fc_engine_batch(fc_point_run_t *run, fc_rank_report_t *rep)
{
    fc_backend_t *be = run->be;
    const fc_test_point_t *pt = run->pt;
    fc_coll_call_t calls[2];
    double seconds = 0;

    rep->batch_s = -1;
    if (fc_engine_batch_none(be, pt) != NULL)
        return FC_OK;
    /* root 0: off it, a reduce's calls both get the sentinel buffer, still
     * untouched (the root writes recv[1], which the next point sets again) */
    for (int k = 0; k < 2; ++k) {
        calls[k] = (fc_coll_call_t){ pt->coll, pt->dtype, pt->op, run->send[k],
                                     fc_engine_is_output(run, 0) ? run->recv[k] : run->recv[1],
                                     run->counts.count, 0 };
        FC_CHECK(fc_engine_stage(run, calls[k].recv, k, 0));
    }
    fc_watchdog_call_enter();
    FC_CHECK(be->ops->run_batch_func(be, calls, pt->iters, &seconds));
    fc_watchdog_call_done();
    for (int k = 0; k < 2; ++k) {
        fc_mismatch_t m = { 0, 0, 0, 0 };
        uint64_t digest;

        FC_CHECK(fc_engine_check(run, calls[k].recv, k, 0, &digest, &m));
        fc_engine_note_wrong(rep, pt->warmup + pt->iters, &m);
    }
    rep->batch_s = seconds / pt->iters;
    return FC_OK;
}

/* The point's inputs: two sets, filled once; a reduce's non-root recv
 * (recv[1]) set to the sentinel, once, before the warm-up. */
static fc_status_t fc_engine_prepare(fc_point_run_t *run, fc_engine_bufs_t *bufs)
{
    fc_backend_t *be = run->be;
    const fc_test_point_t *pt = run->pt;
    size_t send_bytes = run->counts.send_elems * run->esize;
    size_t recv_bytes = run->counts.recv_elems * run->esize;

    FC_CHECK(fc_engine_bufs_reserve(be, bufs, send_bytes, recv_bytes));
    for (int k = 0; k < 2; ++k) {
        /* two seeds: every output of one set is wrong for the other */
        fc_pattern_make(pt->dtype, pt->op, be->size, fc_pattern_set_seed(pt->seed, k),
                        &run->pat[k]);
        run->send[k] = bufs->send[k];
        run->recv[k] = bufs->recv[k];
        FC_CHECK(be->ops->fill_func(be, &run->pat[k], be->rank, 0, run->send[k],
                                    run->counts.send_elems));
    }
    if (run->desc->root_output_only) {
        FC_CHECK(be->ops->poison_func(be, run->recv[1], recv_bytes, FC_SENTINEL_BYTE));
        FC_CHECK(be->ops->digest_func(be, run->recv[1], recv_bytes, &run->sentinel));
    }
    return FC_OK;
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
    if (bufs == NULL) {
        fc_engine_bufs_init(&own);
        bufs = &own;
    }
    run.be = be;
    run.pt = pt;
    run.desc = fc_coll_desc(pt->coll);
    run.esize = fc_dtype_info(pt->dtype)->size;
    run.desc->counts_func(pt->bytes, run.esize, be->size, &run.counts);
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
        status = fc_engine_agree(be, fc_engine_batch(&run, &rep));
    if (status != FC_OK)
        goto out;

    /* the slowest rank's time of each iteration, and every rank's report */
    MPI_Reduce(times, slowest, pt->iters, MPI_DOUBLE, MPI_MAX, 0, be->comm);
    MPI_Gather(&rep, sizeof(rep), MPI_BYTE, reps, sizeof(rep), MPI_BYTE, 0, be->comm);
    MPI_Gather(waits, pt->iters, MPI_DOUBLE, all_waits, pt->iters, MPI_DOUBLE, 0, be->comm);
    if (be->rank == 0)
        fc_engine_summarise(&run, reps, slowest, all_waits, summary_p);

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
