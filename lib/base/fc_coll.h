/*
 * fc_coll.h - one small descriptor per collective.
 *
 * A descriptor says how a message size maps to element counts, how to fill
 * a rank's input and which pattern indices each block of the output must
 * hold, and the bus-bandwidth factor; the engine (fc_engine.c) owns warm-up,
 * timing, checking and output, and a backend (fc_backend.h) owns the call.
 * Sizes follow nccl-tests: "bytes" is the all_reduce/broadcast/sendrecv
 * buffer, the all_gather output, the reduce_scatter input and the
 * all_to_all buffer of each rank.
 */
#ifndef FC_COLL_H
#define FC_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "fc_kernels.h"

typedef enum fc_coll_id {
    FC_COLL_ALL_REDUCE = 0,
    FC_COLL_ALL_GATHER,
    FC_COLL_REDUCE_SCATTER,
    FC_COLL_BROADCAST,
    FC_COLL_ALL_TO_ALL,
    FC_COLL_SENDRECV,
    FC_COLL_REDUCE,                 /* to a root, rotated over the ranks */
    FC_COLL_ALL_REDUCE_INPLACE,     /* in place: the input is in recv */
    FC_COLL_ALL_GATHER_INPLACE,
    FC_COLL_REDUCE_SCATTER_INPLACE,
    FC_COLL_BROADCAST_INPLACE,
    FC_COLL_COUNT
} fc_coll_id_t;

/* Element counts of one call, for a communicator of n ranks. */
typedef struct fc_coll_counts {
    size_t count;       /* the count argument of the call */
    size_t send_elems;  /* elements in the send buffer */
    size_t recv_elems;  /* elements in the receive buffer */
    uint64_t bytes;     /* the size as nccl-tests reports it */
} fc_coll_counts_t;

/* Where one block of a rank's output comes from: verify recv[pos..pos+len)
 * against the pattern at indices index_base.. as sent by rank src. */
typedef struct fc_coll_block {
    size_t pos;
    size_t len;
    int32_t src;
    uint64_t index_base;
} fc_coll_block_t;

typedef struct fc_coll_desc {
    fc_coll_id_t id;
    const char *name;           /* as in profiles and results */
    fc_coll_id_t base;          /* the operation: for an in-place variant, the
                                 * collective it is in place of; else id */
    int reduces;                /* takes a reduction op */
    int same_output;            /* every rank must hold the same bits */
    int rooted;                 /* has a root: rotated over the ranks, one
                                 * iteration after another */
    int root_output_only;       /* only the root's recv is output: the other
                                 * ranks' recv must come back untouched */
    int in_place;               /* this rank's input is staged in recv before
                                 * each call (stage_func says where) */
    int one_rank_copies;        /* on one rank the call must still copy its
                                 * input to its output (out of place), so
                                 * its time is a memory copy; 0: it need
                                 * move nothing (in place, or a broadcast,
                                 * whose root already holds its data), so
                                 * its time is the call's overhead */
    /* busbw = algbw * factor (nccl-tests' definitions) */
    double (*bus_factor_func)(int nranks);
    /* counts for a requested size in bytes; count is at least 1 */
    void (*counts_func)(uint64_t bytes, size_t elem_size, int nranks,
                        fc_coll_counts_t *counts_p);
    /* number of output blocks of rank, and block k of them */
    int (*block_count_func)(int nranks);
    void (*block_func)(const fc_coll_counts_t *counts, int rank, int nranks,
                       int root, int k, fc_coll_block_t *block_p);
    /* in place: where this rank's input goes in recv (*len_p 0: nowhere,
     * e.g. a broadcast's non-root), in elements */
    void (*stage_func)(const fc_coll_counts_t *counts, int rank, int nranks, int root,
                       size_t *pos_p, size_t *len_p);
} fc_coll_desc_t;

const fc_coll_desc_t *fc_coll_desc(fc_coll_id_t id);
int fc_coll_from_name(const char *name);     /* -1 if unknown */
/* The rank whose data a sendrecv ring delivers to rank. */
int fc_coll_ring_prev(int rank, int nranks);
int fc_coll_ring_next(int rank, int nranks);

#endif
