/*
 * fc_point_rank.h - one rank's side of a test point, without MPI: the
 * check contract the engine (fc_engine.c) applies to every call, shared
 * with the single-process GPU check (suites/gpu/node_single.c), which
 * drives every GPU of a node as one "rank" each, so that both programs
 * judge a collective the same way and neither can drift from the other.
 *
 * The contract: two input sets from two seeds, filled once into two send
 * buffers, the iterations alternating between them (the previous output is
 * wrong for the current call, so a call that writes nothing or re-sends
 * stale data fails); a rooted collective's root rotated over the ranks,
 * one iteration after another (each root's turns alternating the input
 * sets); an in-place call's input staged into recv
 * before each call; a reduce's non-root recv the same recv[0], which
 * holds a known byte (set once per point) until the rank's first turn as
 * root and then its last output as root: a correct call off the root
 * never writes it, so its digest must stay that of what it held (checked
 * element by element, against the byte through verify_untouched_func or
 * against that output, when it changed; a buffer of its own was more to
 * read per call than the cache held, docs/DECISIONS.md); where the
 * broadcast has one buffer (MPI_Bcast), an out-of-place broadcast's root sending its input set where it is, which
 * is then its output (NCCL's root gets a copy in its recv, checked
 * there); every other output checked by its digest against
 * the verified one of its (input set, root), element by element the first
 * time and whenever the digest differs.
 *
 * The memory the buffers live on is behind a small table (host memory for
 * the mpi backend, a GPU for the nccl backend and the node check); its
 * functions return an fc_status_t and log their own failures.
 */
#ifndef FC_POINT_RANK_H
#define FC_POINT_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "fc_coll.h"
#include "fc_kernels.h"
#include "fc_pattern_host.h"
#include "fc_status.h"

#define FC_POINT_DIGESTS 64         /* (input set, root) pairs remembered */
#define FC_POINT_SENTINEL_BYTE 0x5A /* a reduce's non-root recv */
#define FC_POINT_BATCH_BYTE 0xA5    /* a batch's output before its call: a
                                     * right element of any type only by chance
                                     * (fc_pattern.h), so a call that writes
                                     * nothing there leaves it wrong */

/* The memory of one rank's buffers (ctx: the backend, or one GPU). */
typedef struct fc_point_mem_ops {
    fc_status_t (*fill_func)(void *ctx, const fc_pattern_t *p, int32_t rank,
                             uint64_t index_base, void *buf, size_t count);
    fc_status_t (*poison_func)(void *ctx, void *buf, size_t bytes, int byte);
    fc_status_t (*copy_func)(void *ctx, void *dst, const void *src, size_t bytes);
    fc_status_t (*verify_func)(void *ctx, const fc_pattern_t *p, int32_t src,
                               uint64_t index_base, const void *buf, size_t count,
                               uint64_t pos_base, fc_mismatch_t *m);
    fc_status_t (*verify_untouched_func)(void *ctx, const void *buf, size_t count,
                                         size_t esize, int byte, uint64_t pos_base,
                                         fc_mismatch_t *m);
    fc_status_t (*digest_func)(void *ctx, const void *buf, size_t bytes,
                               uint64_t *digest_p);
} fc_point_mem_ops_t;

typedef struct fc_point_verified {
    int set, root;
    uint64_t digest;
} fc_point_verified_t;

/* One rank's state for one point. */
typedef struct fc_point_rank {
    const fc_point_mem_ops_t *ops;
    void *ctx;
    int rank, nranks;
    const fc_coll_desc_t *desc;
    fc_dtype_t dtype;
    fc_coll_counts_t counts;
    size_t esize;
    fc_pattern_t pat[2];            /* the two input sets */
    void *send[2], *recv[2];        /* recv[1]: the batch's second output */
    uint64_t held;                  /* a reduce off the root: the digest of
                                     * what recv[0] holds (and a correct call
                                     * leaves there) */
    int held_set, held_root;        /* which output it is (the rank's last as
                                     * root), or -1: the known byte */
    uint64_t sentinel;              /* a reduce: the digest of a recv that holds
                                     * the known byte (set at prepare) */
    int bcast_one_buffer;           /* 1: the backend's broadcast has one buffer
                                     * (MPI_Bcast; the engine sets it from the
                                     * backend's): the root of an out-of-place
                                     * broadcast sends its input set where it is,
                                     * and that buffer is its output; 0 (the
                                     * default; NCCL): the root's recv[0] gets a
                                     * copy in the call and is checked there */
    int ndigests;
    fc_point_verified_t digests[FC_POINT_DIGESTS];
} fc_point_rank_t;

/* Counts and sizes of (coll, dtype, bytes) on nranks; touches no buffer. */
void fc_point_rank_init(fc_point_rank_t *pr, const fc_point_mem_ops_t *ops, void *ctx,
                        int rank, int nranks, fc_coll_id_t coll, fc_dtype_t dtype,
                        uint64_t bytes);
size_t fc_point_rank_send_bytes(const fc_point_rank_t *pr);
size_t fc_point_rank_recv_bytes(const fc_point_rank_t *pr);

/* The point's inputs in send[2] (two sets from seed), and recv[2] kept;
 * a root-only collective's recv[0] set to the known byte, once. */
fc_status_t fc_point_rank_prepare(fc_point_rank_t *pr, fc_op_t op, uint32_t seed,
                                  void *const send[2], void *const recv[2]);

/* The root of iteration it, 0 when not rooted: rotated, every rank once
 * in each round of nranks iterations, and on an even nranks the order
 * shifted by one each round, so that each root's turns alternate the
 * input sets as the iterations do. */
int fc_point_rank_root(const fc_point_rank_t *pr, int it);
/* Whether this rank's recv is an output with this root. */
int fc_point_rank_is_output(const fc_point_rank_t *pr, int root);
/* The recv a call of input set `set` with this root gets: recv[0]; off
 * the root of a root-only collective recv[0] too (left as it was by a
 * correct call); on the root of an in-place broadcast, and of an
 * out-of-place one with bcast_one_buffer, send[set] itself (a correct call
 * leaves it as it was). */
void *fc_point_rank_recv(const fc_point_rank_t *pr, int set, int root);
/* Whether buf is an input set (a one-buffer broadcast root's output): a
 * bit a self-test flips there must be flipped back after the check, or
 * every later call of that set would send it. */
int fc_point_rank_is_input(const fc_point_rank_t *pr, const void *buf);
/* An in-place call consumes its input: stage set's into recv. */
fc_status_t fc_point_rank_stage(fc_point_rank_t *pr, void *recv, int set, int root);
/* Check one output of input set `set` with this root: digest, and element
 * by element when unverified or changed; wrong elements added to *m. */
fc_status_t fc_point_rank_check(fc_point_rank_t *pr, const void *recv, int set, int root,
                                uint64_t *digest_p, fc_mismatch_t *m);
/* This rank's output region of recv with this root, in elements. */
void fc_point_rank_span(const fc_point_rank_t *pr, int root, size_t *lo_p, size_t *hi_p);
/* The element a self-test flips: index (>= 0), or the middle of this
 * rank's output; never past recv. */
uint64_t fc_point_rank_flip_index(const fc_point_rank_t *pr, int root, int64_t index);

/* The batched timing with an output per call (the engine's): call k of
 * the batch has input set k % 2 and root 0, and out, a buffer of
 * fc_point_rank_recv_bytes of its own, which no other call of the batch
 * writes, so that every call's output is still there after the batch and
 * is checked then, outside the timer. The recv of call k: out, or on a
 * broadcast root whose buffer is its input set, send[k % 2] (as
 * fc_point_rank_recv). */
void *fc_point_rank_batch_out(const fc_point_rank_t *pr, int k, void *out);
/* Before the batch (outside its timer), recv of call k made to hold what
 * no correct call leaves there: off the root of a root-only collective
 * the known byte (the call must leave it alone); elsewhere
 * FC_POINT_BATCH_BYTE, then an in-place call's input staged; nothing on a
 * broadcast root whose recv is its input set. */
fc_status_t fc_point_rank_batch_stage(fc_point_rank_t *pr, void *recv, int k);
/* After the batch: check call k's output (recv) as fc_point_rank_check
 * checks an iteration's; off the root of a root-only collective, that it
 * still holds the known byte. Wrong elements added to *m. */
fc_status_t fc_point_rank_batch_check(fc_point_rank_t *pr, const void *recv, int k,
                                      fc_mismatch_t *m);

/* The two-buffer batch of the single-process GPU check (suites/gpu/
 * node_single.c), which alternates two outputs and checks the last output
 * of each set only: recv[k] (off the root of a root-only collective
 * recv[0], as it was; on a broadcast root whose buffer is its input set
 * send[k]), and why a batch of iters calls of (coll, op) cannot be
 * checked so (in place, a call works on the previous call's output), or
 * NULL. */
void *fc_point_rank_batch_recv(const fc_point_rank_t *pr, int k);
const char *fc_point_batch_none(fc_coll_id_t coll, fc_op_t op, int iters);

#endif
