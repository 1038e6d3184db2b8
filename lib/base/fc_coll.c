/*
 * fc_coll.c - the collective descriptors, one designated initialiser each:
 * counts, output blocks, where an in-place input goes, and the
 * bus-bandwidth factor of nccl-tests (doc/PERFORMANCE.md there:
 * all_reduce 2(n-1)/n; all_gather, reduce_scatter and all_to_all
 * (n-1)/n; broadcast, reduce and sendrecv 1). An in-place variant shares
 * its base's counts and factor; only where its input lives differs.
 *
 * one_rank_copies says what a call on a one-rank communicator is bound to
 * do: an out-of-place call must copy its send buffer into its receive
 * buffer (all_reduce, all_gather, reduce_scatter, reduce, all_to_all;
 * sendrecv sends to itself); an in-place one and a broadcast need move
 * nothing (the mpi backend's broadcast is MPI_Bcast of the root's input
 * set where it is, which is then its output; nccl's out-of-place one
 * copies, but one descriptor serves both backends, so the smaller promise
 * holds). What a library does beyond that (Open MPI 4.1's in-place
 * reduce_scatter_block on one rank copies through a scratch buffer) is
 * not relied on.
 */
#include "fc_coll.h"

#include <string.h>

#include "fc_alloc.h"

static size_t fc_at_least_one(size_t v)
{
    return v ? v : 1;
}

static double fc_factor_one(int n)
{
    (void)n;
    return 1.0;
}

static double fc_factor_all_reduce(int n)
{
    return 2.0 * (n - 1) / n;
}

static double fc_factor_n_minus_1(int n)
{
    return (double)(n - 1) / n;
}

static int fc_one_block(int n)
{
    (void)n;
    return 1;
}

static int fc_n_blocks(int n)
{
    return n;
}

int fc_coll_ring_prev(int rank, int nranks)
{
    return (rank - 1 + nranks) % nranks;
}

int fc_coll_ring_next(int rank, int nranks)
{
    return (rank + 1) % nranks;
}

/* all_reduce, broadcast, sendrecv: one buffer of bytes on every rank */
static void fc_counts_flat(uint64_t bytes, size_t esize, int n,
                           fc_coll_counts_t *c)
{
    (void)n;
    c->count = fc_at_least_one(bytes / esize);
    c->send_elems = c->recv_elems = c->count;
    c->bytes = c->count * esize;
}

/* all_gather: bytes is the output, each rank sends bytes / n */
static void fc_counts_gather(uint64_t bytes, size_t esize, int n,
                             fc_coll_counts_t *c)
{
    c->count = fc_at_least_one(bytes / esize / n);
    c->send_elems = c->count;
    c->recv_elems = c->count * n;
    c->bytes = c->recv_elems * esize;
}

/* reduce_scatter: bytes is the input, each rank receives bytes / n */
static void fc_counts_scatter(uint64_t bytes, size_t esize, int n,
                              fc_coll_counts_t *c)
{
    c->count = fc_at_least_one(bytes / esize / n);
    c->send_elems = c->count * n;
    c->recv_elems = c->count;
    c->bytes = c->send_elems * esize;
}

/* all_to_all: bytes in and out, count elements to each peer */
static void fc_counts_all_to_all(uint64_t bytes, size_t esize, int n,
                                 fc_coll_counts_t *c)
{
    c->count = fc_at_least_one(bytes / esize / n);
    c->send_elems = c->recv_elems = c->count * n;
    c->bytes = c->send_elems * esize;
}

static void fc_block_set(fc_coll_block_t *b, size_t pos, size_t len,
                         int32_t src, uint64_t index_base)
{
    b->pos = pos;
    b->len = len;
    b->src = src;
    b->index_base = index_base;
}

static void fc_blocks_all_reduce(const fc_coll_counts_t *c, int rank, int n,
                                 int root, int k, fc_coll_block_t *b)
{
    (void)rank, (void)n, (void)root, (void)k;
    fc_block_set(b, 0, c->count, -1, 0);
}

static void fc_blocks_all_gather(const fc_coll_counts_t *c, int rank, int n,
                                 int root, int k, fc_coll_block_t *b)
{
    (void)rank, (void)n, (void)root;
    fc_block_set(b, (size_t)k * c->count, c->count, k, 0);
}

static void fc_blocks_reduce_scatter(const fc_coll_counts_t *c, int rank,
                                     int n, int root, int k,
                                     fc_coll_block_t *b)
{
    (void)n, (void)root, (void)k;
    fc_block_set(b, 0, c->count, -1, (uint64_t)rank * c->count);
}

static void fc_blocks_broadcast(const fc_coll_counts_t *c, int rank, int n,
                                int root, int k, fc_coll_block_t *b)
{
    (void)rank, (void)n, (void)k;
    fc_block_set(b, 0, c->count, root, 0);
}

static void fc_blocks_all_to_all(const fc_coll_counts_t *c, int rank, int n,
                                 int root, int k, fc_coll_block_t *b)
{
    (void)n, (void)root;
    fc_block_set(b, (size_t)k * c->count, c->count, k,
                 (uint64_t)rank * c->count);
}

static void fc_blocks_sendrecv(const fc_coll_counts_t *c, int rank, int n,
                               int root, int k, fc_coll_block_t *b)
{
    (void)root, (void)k;
    fc_block_set(b, 0, c->count, fc_coll_ring_prev(rank, n), 0);
}

/* reduce_scatter in place: recv holds the whole input (n blocks); each
 * rank's result lands in its own block, as NCCL defines it (recvbuff =
 * sendbuff + rank * recvcount); the mpi backend moves MPI's result there */
static void fc_counts_scatter_inplace(uint64_t bytes, size_t esize, int n,
                                      fc_coll_counts_t *c)
{
    fc_counts_scatter(bytes, esize, n, c);
    c->recv_elems = c->send_elems;
}

static void fc_blocks_reduce_scatter_inplace(const fc_coll_counts_t *c, int rank, int n,
                                             int root, int k, fc_coll_block_t *b)
{
    (void)n, (void)root, (void)k;
    fc_block_set(b, (size_t)rank * c->count, c->count, -1, (uint64_t)rank * c->count);
}

/* reduce: the root's output; another rank's recv is not output */
static void fc_blocks_reduce(const fc_coll_counts_t *c, int rank, int n, int root,
                             int k, fc_coll_block_t *b)
{
    (void)rank, (void)n, (void)root, (void)k;
    fc_block_set(b, 0, c->count, -1, 0);
}

/* where an in-place rank's input goes: the whole buffer, its own block,
 * or nowhere (a broadcast: the root's one buffer is its input set where
 * it is, which a correct call only reads, fc_point_rank_recv; the others'
 * is their output) */
static void fc_stage_all(const fc_coll_counts_t *c, int rank, int n, int root,
                         size_t *pos, size_t *len)
{
    (void)rank, (void)n, (void)root;
    *pos = 0;
    *len = c->send_elems;
}

static void fc_stage_own_block(const fc_coll_counts_t *c, int rank, int n, int root,
                               size_t *pos, size_t *len)
{
    (void)n, (void)root;
    *pos = (size_t)rank * c->count;
    *len = c->count;
}

static void fc_stage_nothing(const fc_coll_counts_t *c, int rank, int n, int root,
                             size_t *pos, size_t *len)
{
    (void)c, (void)rank, (void)n, (void)root;
    *pos = 0;
    *len = 0;
}

static const fc_coll_desc_t fc_coll_descs[FC_COLL_COUNT] = {
    [FC_COLL_ALL_REDUCE] = {
        .id = FC_COLL_ALL_REDUCE, .name = "all_reduce", .base = FC_COLL_ALL_REDUCE,
        .reduces = 1, .same_output = 1, .bus_factor_func = fc_factor_all_reduce,
        .counts_func = fc_counts_flat, .block_count_func = fc_one_block,
        .block_func = fc_blocks_all_reduce, .one_rank_copies = 1 },
    [FC_COLL_ALL_GATHER] = {
        .id = FC_COLL_ALL_GATHER, .name = "all_gather", .base = FC_COLL_ALL_GATHER,
        .same_output = 1, .bus_factor_func = fc_factor_n_minus_1,
        .counts_func = fc_counts_gather, .block_count_func = fc_n_blocks,
        .block_func = fc_blocks_all_gather, .one_rank_copies = 1 },
    [FC_COLL_REDUCE_SCATTER] = {
        .id = FC_COLL_REDUCE_SCATTER, .name = "reduce_scatter",
        .base = FC_COLL_REDUCE_SCATTER, .reduces = 1,
        .bus_factor_func = fc_factor_n_minus_1, .counts_func = fc_counts_scatter,
        .block_count_func = fc_one_block, .block_func = fc_blocks_reduce_scatter,
        .one_rank_copies = 1 },
    [FC_COLL_BROADCAST] = {
        .id = FC_COLL_BROADCAST, .name = "broadcast", .base = FC_COLL_BROADCAST,
        .same_output = 1, .rooted = 1, .bus_factor_func = fc_factor_one,
        .counts_func = fc_counts_flat, .block_count_func = fc_one_block,
        .block_func = fc_blocks_broadcast },
    [FC_COLL_ALL_TO_ALL] = {
        .id = FC_COLL_ALL_TO_ALL, .name = "all_to_all", .base = FC_COLL_ALL_TO_ALL,
        .bus_factor_func = fc_factor_n_minus_1, .counts_func = fc_counts_all_to_all,
        .block_count_func = fc_n_blocks, .block_func = fc_blocks_all_to_all,
        .one_rank_copies = 1 },
    [FC_COLL_SENDRECV] = {
        .id = FC_COLL_SENDRECV, .name = "sendrecv", .base = FC_COLL_SENDRECV,
        .bus_factor_func = fc_factor_one, .counts_func = fc_counts_flat,
        .block_count_func = fc_one_block, .block_func = fc_blocks_sendrecv,
        .one_rank_copies = 1 },
    /* nccl-tests' reduce: busbw = algbw */
    [FC_COLL_REDUCE] = {
        .id = FC_COLL_REDUCE, .name = "reduce", .base = FC_COLL_REDUCE, .reduces = 1,
        .rooted = 1, .root_output_only = 1, .bus_factor_func = fc_factor_one,
        .counts_func = fc_counts_flat, .block_count_func = fc_one_block,
        .block_func = fc_blocks_reduce, .one_rank_copies = 1 },
    [FC_COLL_ALL_REDUCE_INPLACE] = {
        .id = FC_COLL_ALL_REDUCE_INPLACE, .name = "all_reduce_inplace",
        .base = FC_COLL_ALL_REDUCE, .reduces = 1, .same_output = 1, .in_place = 1,
        .bus_factor_func = fc_factor_all_reduce, .counts_func = fc_counts_flat,
        .block_count_func = fc_one_block, .block_func = fc_blocks_all_reduce,
        .stage_func = fc_stage_all },
    [FC_COLL_ALL_GATHER_INPLACE] = {
        .id = FC_COLL_ALL_GATHER_INPLACE, .name = "all_gather_inplace",
        .base = FC_COLL_ALL_GATHER, .same_output = 1, .in_place = 1,
        .bus_factor_func = fc_factor_n_minus_1, .counts_func = fc_counts_gather,
        .block_count_func = fc_n_blocks, .block_func = fc_blocks_all_gather,
        .stage_func = fc_stage_own_block },
    [FC_COLL_REDUCE_SCATTER_INPLACE] = {
        .id = FC_COLL_REDUCE_SCATTER_INPLACE, .name = "reduce_scatter_inplace",
        .base = FC_COLL_REDUCE_SCATTER, .reduces = 1, .in_place = 1,
        .bus_factor_func = fc_factor_n_minus_1, .counts_func = fc_counts_scatter_inplace,
        .block_count_func = fc_one_block, .block_func = fc_blocks_reduce_scatter_inplace,
        .stage_func = fc_stage_all },
    [FC_COLL_BROADCAST_INPLACE] = {
        .id = FC_COLL_BROADCAST_INPLACE, .name = "broadcast_inplace",
        .base = FC_COLL_BROADCAST, .same_output = 1, .rooted = 1, .in_place = 1,
        .bus_factor_func = fc_factor_one, .counts_func = fc_counts_flat,
        .block_count_func = fc_one_block, .block_func = fc_blocks_broadcast,
        .stage_func = fc_stage_nothing },
};

const fc_coll_desc_t *fc_coll_desc(fc_coll_id_t id)
{
    FC_ASSERT((unsigned)id < FC_COLL_COUNT);
    return &fc_coll_descs[id];
}

int fc_coll_from_name(const char *name)
{
    for (int c = 0; c < FC_COLL_COUNT; ++c)
        if (strcmp(name, fc_coll_descs[c].name) == 0)
            return c;
    return -1;
}
