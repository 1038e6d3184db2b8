/*
 * fc_point_rank.c - see fc_point_rank.h: one rank's inputs, roots, staging
 * and output check for a test point, on memory behind a table and without
 * MPI, so that the engine's stages and the single-process GPU check apply
 * one contract (moved here from lib/engine/fc_engine.c).
 */
#include "fc_point_rank.h"

#include <string.h>

void fc_point_rank_init(fc_point_rank_t *pr, const fc_point_mem_ops_t *ops, void *ctx,
                        int rank, int nranks, fc_coll_id_t coll, fc_dtype_t dtype,
                        uint64_t bytes)
{
    memset(pr, 0, sizeof(*pr));
    pr->ops = ops;
    pr->ctx = ctx;
    pr->rank = rank;
    pr->nranks = nranks;
    pr->desc = fc_coll_desc(coll);
    pr->dtype = dtype;
    pr->esize = fc_dtype_info(dtype)->size;
    pr->desc->counts_func(bytes, pr->esize, nranks, &pr->counts);
}

size_t fc_point_rank_send_bytes(const fc_point_rank_t *pr)
{
    return pr->counts.send_elems * pr->esize;
}

size_t fc_point_rank_recv_bytes(const fc_point_rank_t *pr)
{
    return pr->counts.recv_elems * pr->esize;
}

/* A reduce's recv[0] off the root: set to the known byte (before the
 * warm-up, and after a check found it changed or the rank's own output
 * wrong), so that it holds something known again. */
static fc_status_t fc_point_rank_hold_sentinel(fc_point_rank_t *pr)
{
    size_t recv_bytes = fc_point_rank_recv_bytes(pr);

    FC_CHECK(pr->ops->poison_func(pr->ctx, pr->recv[0], recv_bytes, FC_POINT_SENTINEL_BYTE));
    FC_CHECK(pr->ops->digest_func(pr->ctx, pr->recv[0], recv_bytes, &pr->held));
    pr->held_set = pr->held_root = -1;
    return FC_OK;
}

fc_status_t fc_point_rank_prepare(fc_point_rank_t *pr, fc_op_t op, uint32_t seed,
                                  void *const send[2], void *const recv[2])
{
    for (int k = 0; k < 2; ++k) {
        pr->send[k] = send[k];
        pr->recv[k] = recv[k];
        /* two seeds: every output of one set is wrong for the other */
        fc_pattern_make(pr->dtype, op, pr->nranks, fc_pattern_set_seed(seed, k), &pr->pat[k]);
        FC_CHECK(pr->ops->fill_func(pr->ctx, &pr->pat[k], pr->rank, 0, pr->send[k],
                                    pr->counts.send_elems));
    }
    if (pr->desc->root_output_only) {
        FC_CHECK(fc_point_rank_hold_sentinel(pr));
        pr->sentinel = pr->held;
    }
    return FC_OK;
}

int fc_point_rank_root(const fc_point_rank_t *pr, int it)
{
    int n = pr->nranks;

    if (!pr->desc->rooted)
        return 0;
    /* each round of n iterations has every rank as root once. The sets
     * alternate every iteration, so on an even n a plain it % n gives each
     * root the same set at every turn, and a root-only output (a reduce's
     * recv[0]) that a call left as it was at its root's previous turn
     * would be right again; shifting the order by one each round flips
     * the set of every root from one turn to the next */
    return n % 2 == 0 ? (it + it / n) % n : it % n;
}

int fc_point_rank_is_output(const fc_point_rank_t *pr, int root)
{
    return !pr->desc->root_output_only || pr->rank == root;
}

/* The root of a broadcast whose one buffer is its input set: an in-place
 * broadcast's on every backend (its send and recv are one buffer, which a
 * correct call only reads), an out-of-place one's on a one-buffer backend
 * (MPI_Bcast). A copy into recv before each call had the receivers read
 * lines the root had just written, which made the call slower by up to
 * three times on some launches and the checked call slower than the bare
 * one (docs/DECISIONS.md, "What made a checked call slower than a bare
 * one"); an application's broadcast sends its
 * data where it is. */
static int fc_point_rank_sends_output(const fc_point_rank_t *pr, int root)
{
    if (pr->rank != root)
        return 0;
    return pr->desc->id == FC_COLL_BROADCAST_INPLACE ||
           (pr->bcast_one_buffer && pr->desc->id == FC_COLL_BROADCAST);
}

void *fc_point_rank_recv(const fc_point_rank_t *pr, int set, int root)
{
    return fc_point_rank_sends_output(pr, root) ? pr->send[set] : pr->recv[0];
}

int fc_point_rank_is_input(const fc_point_rank_t *pr, const void *buf)
{
    return buf == pr->send[0] || buf == pr->send[1];
}

void *fc_point_rank_batch_recv(const fc_point_rank_t *pr, int k)
{
    /* root 0: off it, a reduce's calls both get recv[0], which holds what
     * the rank's checked iterations left there (fc_point_rank_check) */
    if (!fc_point_rank_is_output(pr, 0))
        return pr->recv[0];
    return fc_point_rank_sends_output(pr, 0) ? pr->send[k] : pr->recv[k];
}

void *fc_point_rank_batch_out(const fc_point_rank_t *pr, int k, void *out)
{
    return fc_point_rank_sends_output(pr, 0) ? pr->send[k & 1] : out;
}

fc_status_t fc_point_rank_batch_stage(fc_point_rank_t *pr, void *recv, int k)
{
    size_t bytes = fc_point_rank_recv_bytes(pr);

    if (fc_point_rank_is_input(pr, recv))
        return FC_OK;
    if (!fc_point_rank_is_output(pr, 0))
        return pr->ops->poison_func(pr->ctx, recv, bytes, FC_POINT_SENTINEL_BYTE);
    FC_CHECK(pr->ops->poison_func(pr->ctx, recv, bytes, FC_POINT_BATCH_BYTE));
    return fc_point_rank_stage(pr, recv, k & 1, 0);
}

fc_status_t fc_point_rank_batch_check(fc_point_rank_t *pr, const void *recv, int k,
                                      fc_mismatch_t *m)
{
    uint64_t digest;

    if (!fc_point_rank_is_output(pr, 0)) {
        FC_CHECK(pr->ops->digest_func(pr->ctx, recv, fc_point_rank_recv_bytes(pr), &digest));
        if (digest == pr->sentinel)
            return FC_OK;
        return pr->ops->verify_untouched_func(pr->ctx, recv, pr->counts.recv_elems, pr->esize,
                                              FC_POINT_SENTINEL_BYTE, 0, m);
    }
    return fc_point_rank_check(pr, recv, k & 1, 0, &digest, m);
}

void fc_point_rank_span(const fc_point_rank_t *pr, int root, size_t *lo_p, size_t *hi_p)
{
    size_t lo = (size_t)-1, hi = 0;
    int n = pr->desc->block_count_func(pr->nranks);

    for (int k = 0; k < n; ++k) {
        fc_coll_block_t b;

        pr->desc->block_func(&pr->counts, pr->rank, pr->nranks, root, k, &b);
        lo = b.pos < lo ? b.pos : lo;
        hi = b.pos + b.len > hi ? b.pos + b.len : hi;
    }
    *lo_p = lo;
    *hi_p = hi;
}

uint64_t fc_point_rank_flip_index(const fc_point_rank_t *pr, int root, int64_t index)
{
    size_t lo, hi;
    uint64_t idx;

    /* by default the middle of this rank's own output (an in-place
     * reduce_scatter's is one block of the buffer) */
    fc_point_rank_span(pr, root, &lo, &hi);
    idx = index >= 0 ? (uint64_t)index : lo + (hi - lo) / 2;
    if (idx >= pr->counts.recv_elems)
        idx = pr->counts.recv_elems - 1;
    return idx;
}

/* Element by element against input set `set` (or, off the root of a
 * root-only collective, against the untouched sentinel). */
static fc_status_t fc_point_rank_verify(fc_point_rank_t *pr, const void *recv, int set,
                                        int root, fc_mismatch_t *m)
{
    int nblocks = pr->desc->block_count_func(pr->nranks);

    if (!fc_point_rank_is_output(pr, root)) {
        /* rare: only when its digest changed; against what it held, the
         * known byte (through the memory's own check: the nccl backend's
         * is the GPU's) or the rank's own last output as root */
        if (pr->held_set < 0)
            return pr->ops->verify_untouched_func(pr->ctx, recv, pr->counts.recv_elems,
                                                  pr->esize, FC_POINT_SENTINEL_BYTE, 0, m);
        set = pr->held_set;
        root = pr->held_root;
    }
    for (int k = 0; k < nblocks; ++k) {
        fc_coll_block_t b;

        pr->desc->block_func(&pr->counts, pr->rank, pr->nranks, root, k, &b);
        FC_CHECK(pr->ops->verify_func(pr->ctx, &pr->pat[set], b.src, b.index_base,
                                      (const uint8_t *)recv + b.pos * pr->esize, b.len, b.pos,
                                      m));
    }
    return FC_OK;
}

fc_status_t fc_point_rank_check(fc_point_rank_t *pr, const void *recv, int set, int root,
                                uint64_t *digest_p, fc_mismatch_t *m)
{
    size_t lo, hi;
    uint64_t digest;
    int have = -1;

    if (!fc_point_rank_is_output(pr, root)) {
        uint64_t before = m->wrong;

        FC_CHECK(pr->ops->digest_func(pr->ctx, recv, fc_point_rank_recv_bytes(pr), &digest));
        *digest_p = digest;
        if (digest == pr->held)
            return FC_OK;
        FC_CHECK(fc_point_rank_verify(pr, recv, set, root, m));
        /* changed (a write where none belongs): known again, so that the
         * next call off the root is judged on its own */
        return m->wrong != before ? fc_point_rank_hold_sentinel(pr) : FC_OK;
    }
    fc_point_rank_span(pr, root, &lo, &hi);
    FC_CHECK(pr->ops->digest_func(pr->ctx, (const uint8_t *)recv + lo * pr->esize,
                                  (hi - lo) * pr->esize, &digest));
    *digest_p = digest;
    for (int i = 0; i < pr->ndigests; ++i)
        if (pr->digests[i].set == set && pr->digests[i].root == root)
            have = i;
    if (have < 0 || pr->digests[have].digest != digest) {
        uint64_t before = m->wrong;

        FC_CHECK(fc_point_rank_verify(pr, recv, set, root, m));
        if (m->wrong == before && have < 0 && pr->ndigests < FC_POINT_DIGESTS)
            pr->digests[pr->ndigests++] = (fc_point_verified_t){ set, root, digest };
        if (m->wrong != before)
            return pr->desc->root_output_only ? fc_point_rank_hold_sentinel(pr) : FC_OK;
    }
    /* a reduce's root: its output, right, is what recv[0] must still
     * hold at the rank's calls off the root until its next turn */
    if (pr->desc->root_output_only && recv == pr->recv[0]) {
        if (lo == 0 && hi == pr->counts.recv_elems)
            pr->held = digest;
        else
            FC_CHECK(pr->ops->digest_func(pr->ctx, recv, fc_point_rank_recv_bytes(pr),
                                          &pr->held));
        pr->held_set = set;
        pr->held_root = root;
    }
    return FC_OK;
}

fc_status_t fc_point_rank_stage(fc_point_rank_t *pr, void *recv, int set, int root)
{
    size_t pos = 0, len = 0;

    if (!pr->desc->in_place)
        return FC_OK;
    pr->desc->stage_func(&pr->counts, pr->rank, pr->nranks, root, &pos, &len);
    if (len == 0)
        return FC_OK;
    return pr->ops->copy_func(pr->ctx, (uint8_t *)recv + pos * pr->esize, pr->send[set],
                              len * pr->esize);
}

const char *fc_point_batch_none(fc_coll_id_t coll, fc_op_t op, int iters)
{
    const fc_coll_desc_t *d = fc_coll_desc(coll);

    if (iters < 2)
        return "fewer than 2 iterations";
    if (d->in_place && d->reduces && (op == FC_OP_SUM || op == FC_OP_PROD))
        return "in place, each call of a batch would reduce the previous call's output "
               "again (nccl-tests times it so, unchecked), which no pattern predicts, so "
               "no output of the batch could be checked";
    if (coll == FC_COLL_REDUCE_SCATTER_INPLACE)
        return "in place, MPI leaves each result at the buffer's start (the mpi backend "
               "moves it after the call), where the next call of a batch reads an input, "
               "so no output of the batch could be checked";
    return NULL;
}
