/*
 * fc_engine.h - runs one test point (collective, type, op, size) on a
 * backend: two input sets, warm-up, timed iterations (per call, and
 * batched), bitwise check of every call's output (the warm-up's and the
 * batch's included, and counted: fc_calls.h), digests across ranks, and
 * the statistics. The
 * result is gathered to rank 0 of the backend's communicator as a fixed
 * size summary (fc_point_summary_t) that a stage can send on over MPI.
 */
#ifndef FC_ENGINE_H
#define FC_ENGINE_H

#include <stdint.h>

#include "fc_backend.h"
#include "fc_calls.h"
#include "fc_point_rank.h"
#include "fc_samples.h"
#include "fc_stats.h"

#define FC_HOST_MAX 64
/* The batched timing's outputs, one per call: at most this many bytes of
 * them beyond two (a batch makes fewer calls than iters where its outputs
 * would take more), and at most this many calls */
#define FC_ENGINE_BATCH_BYTES (1ull << 30)
#define FC_ENGINE_BATCH_MAX 1024

typedef struct fc_test_point {
    fc_coll_id_t coll;
    fc_dtype_t dtype;
    fc_op_t op;             /* FC_OP_NONE for moves */
    uint64_t bytes;         /* requested size */
    int warmup;
    int iters;
    uint32_t seed;
    int batched;            /* 1: also time it batched (nccl-tests' way) */
} fc_test_point_t;

/* The documented self-test: corrupt one element so an operator can prove
 * that the checker catches it. */
typedef struct fc_selftest {
    int enabled;
    int rank;               /* world rank that corrupts */
    int iter;               /* iteration (0 = first warm-up) */
    int64_t index;          /* element of its output; -1: the middle one */
    int bit;                /* bit of that element to flip */
    int coll;               /* only this collective, or FC_ANY */
} fc_selftest_t;

/* Summary of a test point on one communicator (one node, rack, ...). */
typedef struct fc_point_summary {
    int32_t valid;          /* 0 for a placeholder from a non-root rank */
    int32_t status;         /* fc_status_t of running it (not the verdict) */
    char host[FC_HOST_MAX]; /* host of rank 0 of the communicator */
    int32_t nranks;
    int32_t nhosts;
    int32_t first_world_rank;
    uint64_t bytes;         /* actual size, nccl-tests' convention */
    uint64_t count;
    int32_t iters;
    int32_t warmup;
    fc_time_stats_t time;   /* per iteration, slowest rank's time */
    double algbw;           /* GB/s, from the median time */
    double busbw;
    double batch_time_s;    /* batched (nccl-tests' way): the slowest rank's
                             * time per call over batch_calls calls back to
                             * back; -1 when not measured */
    double batch_busbw;     /* busbw from it, -1 when not measured */
    int32_t batch_calls;    /* calls in the batch: iters, or fewer where
                             * their outputs would pass FC_ENGINE_BATCH_BYTES
                             * (0 when not measured) */
    fc_calls_t calls;       /* calls made and checked, by kind (fc_calls.h):
                             * a rank's made, the fewest any rank checked */
    /* Arrival at each call's starting barrier (evidence, not blame): the
     * rank that most often arrived last, in how many timed iterations, and
     * by how much after the first (median over those iterations). Its
     * lateness is outside the timed call; a slow call is the group's time
     * until a retest places it. last_rank -1: the backend cannot tell. */
    int32_t arrival_last_rank;
    char arrival_last_host[FC_HOST_MAX];
    int32_t arrival_last_iters;
    double arrival_late_s;
    uint64_t wrong;         /* wrong elements, all ranks and iterations */
    int32_t bad_ranks;      /* ranks that saw a wrong element */
    int32_t first_bad_rank; /* world rank of the first, -1 if none */
    char first_bad_host[FC_HOST_MAX];
    int32_t first_bad_iter;
    uint64_t first_bad_pos;
    uint64_t first_expected;
    uint64_t first_actual;
    uint64_t first_rank_wrong;  /* wrong elements on that rank */
    int32_t bad_one_host;   /* every rank that saw one is on first_bad_host
                             * (a bit flipped on its way into that node,
                             * not in a contribution every rank sums) */
    int32_t digest_ranks_agree; /* same bits on every rank (where due) */
    int32_t digest_reps_agree;  /* same bits in every repetition */
    int32_t disagree_rank;      /* a rank whose digest differed, or -1 */
    uint64_t digest;            /* rank 0's digest of the output */
    fc_samples_t samples;       /* the timed iterations' slowest-rank times
                                 * (fc_samples.h): what a comparison of two
                                 * runs tests */
    /* a run alone in a sweep's confirmation (lib/stage/fc_stage_confirm.c):
     * the largest share of its time a rank of the group waited for a CPU
     * (lib/base/fc_runq.h; -1 not known) and that rank (-1 none); not set
     * outside it */
    double cpu_wait;
    int32_t cpu_wait_rank;
} fc_point_summary_t;

/* The buffers a stage keeps for all its points (grown, never shrunk):
 * two input sets and two outputs, on the backend's memory, and the
 * batched timing's further outputs (its call k writes recv[k] for k < 2,
 * outs[k - 2] after). */
typedef struct fc_engine_bufs {
    void *send[2], *recv[2];
    size_t send_cap, recv_cap;      /* bytes of each */
    void **outs;                    /* nouts of them, out_cap[i] bytes each */
    size_t *out_cap;
    int nouts;
} fc_engine_bufs_t;

void fc_engine_bufs_init(fc_engine_bufs_t *bufs);
void fc_engine_bufs_free(fc_backend_t *be, fc_engine_bufs_t *bufs);

typedef struct fc_engine_ident {
    int world_rank;
    const char *host;
    int group_hosts;        /* hosts in the backend's communicator (a point
                             * that could not run still has its shape) */
} fc_engine_ident_t;

/* Run pt on be (all ranks of be->comm call this), in bufs (NULL: buffers
 * of its own, allocated and freed here). The summary is written on rank 0
 * of be->comm. The return is the status of running the point; a wrong
 * result is not an error here (the summary says so). */
fc_status_t fc_engine_run_point(fc_backend_t *be, const fc_test_point_t *pt,
                                const fc_selftest_t *selftest,
                                const fc_engine_ident_t *ident, fc_engine_bufs_t *bufs,
                                fc_point_summary_t *summary_p);

/* Why pt has no batched figure on be (the stage times per iteration only,
 * the backend has no batched mode, fewer than 2 iterations), or NULL when
 * it has one. Every call of a batch has an output of its own, checked
 * after the batch: no form of a batch goes unchecked. */
const char *fc_engine_batch_none(const fc_backend_t *be, const fc_test_point_t *pt);

/* One rank's part of pt on be (lib/engine/fc_point_rank.h): its counts and this
 * backend's broadcast buffers (be->bcast_one_buffer); no buffer yet
 * (fc_point_rank_prepare fills and binds them). */
void fc_engine_point_rank_init(fc_backend_t *be, const fc_test_point_t *pt,
                               fc_point_rank_t *pr);
/* The call of iteration it (from 0, the warm-up's first) as the engine
 * makes it on pr's buffers: input set it % 2, send[set]; the root
 * fc_point_rank_root's; recv fc_point_rank_recv's (recv[0], off a
 * reduce's root too; a broadcast root's send[set] where its buffer is its
 * input set).
 * bench/collective_overhead.c's bare loop makes the same calls. */
void fc_engine_call(const fc_test_point_t *pt, const fc_point_rank_t *pr, int it,
                    fc_coll_call_t *call_p);

/* Merging summaries of one point's runs (the soak's, an alone
 * confirmation's): to takes from's first wrong element (rank, host,
 * iteration, place, bits, that rank's count) where it had none. */
void fc_point_summary_take_first_bad(fc_point_summary_t *to, const fc_point_summary_t *from);

/* "all_reduce float32 sum 4 KiB" */
void fc_point_label(const fc_test_point_t *pt, char *buf, size_t len);

#endif
