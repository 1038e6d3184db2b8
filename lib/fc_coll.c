/*
 * fc_coll.c - the six collective descriptors. Each is a handful of lines:
 * counts, output blocks and the bus-bandwidth factor of nccl-tests
 * (doc/PERFORMANCE.md there: all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter and all_to_all (n-1)/n; broadcast and sendrecv 1).
 */
#include "fc_coll.h"

#include <string.h>

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

static const fc_coll_desc_t fc_coll_descs[FC_COLL_COUNT] = {
    { FC_COLL_ALL_REDUCE, "all_reduce", 1, 1, fc_factor_all_reduce,
      fc_counts_flat, fc_one_block, fc_blocks_all_reduce },
    { FC_COLL_ALL_GATHER, "all_gather", 0, 1, fc_factor_n_minus_1,
      fc_counts_gather, fc_n_blocks, fc_blocks_all_gather },
    { FC_COLL_REDUCE_SCATTER, "reduce_scatter", 1, 0, fc_factor_n_minus_1,
      fc_counts_scatter, fc_one_block, fc_blocks_reduce_scatter },
    { FC_COLL_BROADCAST, "broadcast", 0, 1, fc_factor_one,
      fc_counts_flat, fc_one_block, fc_blocks_broadcast },
    { FC_COLL_ALL_TO_ALL, "all_to_all", 0, 0, fc_factor_n_minus_1,
      fc_counts_all_to_all, fc_n_blocks, fc_blocks_all_to_all },
    { FC_COLL_SENDRECV, "sendrecv", 0, 0, fc_factor_one,
      fc_counts_flat, fc_one_block, fc_blocks_sendrecv },
};

const fc_coll_desc_t *fc_coll_desc(fc_coll_id_t id)
{
    return &fc_coll_descs[id];
}

int fc_coll_from_name(const char *name)
{
    for (int c = 0; c < FC_COLL_COUNT; ++c)
        if (strcmp(name, fc_coll_descs[c].name) == 0)
            return c;
    return -1;
}
