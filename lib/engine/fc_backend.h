/*
 * fc_backend.h - the interface every backend implements: mpi (host
 * buffers, MPI collectives; fc_backend_mpi.c) and, behind a plugin
 * boundary, nccl (device buffers). The engine never touches a buffer
 * directly: it allocates, fills, poisons, runs, verifies and digests through
 * this table, so host and device memory look the same to it.
 */
#ifndef FC_BACKEND_H
#define FC_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "fc_coll.h"
#include "fc_kernels.h"
#include "fc_pattern_host.h"
#include "fc_status.h"

typedef struct fc_backend fc_backend_t;

/* One collective call. */
typedef struct fc_coll_call {
    fc_coll_id_t coll;
    fc_dtype_t dtype;
    fc_op_t op;             /* FC_OP_NONE for moves */
    const void *send;
    void *recv;
    size_t count;           /* fc_coll_counts_t.count */
    int root;               /* broadcast, reduce */
} fc_coll_call_t;

typedef struct fc_backend_ops {
    const char *name;
    fc_status_t (*alloc_func)(fc_backend_t *be, size_t bytes, void **buf_p);
    void (*free_func)(fc_backend_t *be, void *buf);
    fc_status_t (*fill_func)(fc_backend_t *be, const fc_pattern_t *p,
                             int32_t rank, uint64_t index_base, void *buf,
                             size_t count);
    /* set a buffer to a byte value (a buffer the call must leave alone) */
    fc_status_t (*poison_func)(fc_backend_t *be, void *buf, size_t bytes,
                               int byte);
    fc_status_t (*copy_func)(fc_backend_t *be, void *dst, const void *src,
                             size_t bytes);
    /* run one call, all ranks together; *seconds_p is this rank's time for
     * the call alone, from a common start (barrier); the backend sets
     * be->last_wait_s to the time this rank waited in that barrier (-1
     * when it cannot tell). A rank whose local step (fill, copy, verify,
     * digest...) failed still makes the calls its peers make (the engine
     * does), and a backend whose local steps can fail must then fail that
     * call on every rank together (the nccl backend: lib/gpu/
     * fc_gpu_agree.h); the mpi backend's cannot fail after allocation */
    fc_status_t (*run_func)(fc_backend_t *be, const fc_coll_call_t *call,
                            double *seconds_p);
    /* batched timing, like nccl-tests: the n calls calls[0..n-1] back to
     * back, after one common start, under one timer; *seconds_p is this
     * rank's total. Each call has an output of its own (the engine's), so
     * every call's output is still there to be checked after the batch; a
     * backend's work after a call that only the check needs (the mpi
     * backend's move of an in-place reduce_scatter's result) is done for
     * every call, after the timer. NULL: the backend has no batched mode
     * (said in the records) */
    fc_status_t (*run_batch_func)(fc_backend_t *be, const fc_coll_call_t *calls, int n,
                                  double *seconds_p);
    fc_status_t (*verify_func)(fc_backend_t *be, const fc_pattern_t *p,
                               int32_t src, uint64_t index_base,
                               const void *buf, size_t count,
                               uint64_t pos_base, fc_mismatch_t *m);
    /* count elements of esize bytes that the call must leave alone (a
     * reduce's non-root recv), each the byte `byte` repeated: the changed
     * ones are added to *m as verify_func adds wrong ones (pos_base: the
     * position of element 0), on the backend's memory (kernels/fc_kernels.h,
     * fc_cpu_verify_untouched and its GPU twin) */
    fc_status_t (*verify_untouched_func)(fc_backend_t *be, const void *buf, size_t count,
                                         size_t esize, int byte, uint64_t pos_base,
                                         fc_mismatch_t *m);
    fc_status_t (*digest_func)(fc_backend_t *be, const void *buf,
                               size_t bytes, uint64_t *digest_p);
    /* self-test: flip one bit of one byte of a buffer */
    fc_status_t (*flip_bit_func)(fc_backend_t *be, void *buf, size_t byte,
                                 int bit);
    void (*fini_func)(fc_backend_t *be);
} fc_backend_ops_t;

struct fc_backend {
    const fc_backend_ops_t *ops;
    MPI_Comm comm;          /* the communicator collectives run on */
    int rank;               /* rank in comm */
    int size;               /* ranks in comm */
    void *priv;             /* backend state */
    double last_wait_s;     /* the last run's wait at its starting barrier:
                             * the last rank to arrive waits least; -1 unknown */
    int bcast_one_buffer;   /* 1: the backend's broadcast has one buffer (MPI):
                             * an out-of-place broadcast's root is given its
                             * input set as recv, which it sends from where
                             * it is and a correct call leaves as it was
                             * (fc_point_rank_recv); 0: the root's recv
                             * receives a copy in the call (NCCL). Last, and
                             * 0 in a zeroed struct: the caller zeroes the
                             * struct before a plugin's init, so a plugin
                             * built before the member existed means 0 */
};

/* The mpi backend on comm (not duplicated; the caller owns comm). */
fc_status_t fc_backend_mpi_init(MPI_Comm comm, fc_backend_t *be);
/* The mpi backend's run_func as an application's loop makes the call:
 * without the backend's work after it that only the check needs (the
 * move of an in-place reduce_scatter's result to NCCL's place): the bare
 * loop of bench/collective_overhead.c. */
fc_status_t fc_backend_mpi_run_bare(fc_backend_t *be, const fc_coll_call_t *call,
                                    double *seconds_p);

#endif
