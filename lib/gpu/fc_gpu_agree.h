/*
 * fc_gpu_agree.h - how the ranks of a GPU communicator fail together. NCCL
 * cannot tell a rank that its peer gave up: a rank that aborts its
 * communicator alone and returns to MPI leaves its peers inside a
 * collective that never completes, or in an MPI call it never makes. So
 * every outcome is agreed over MPI first (one MPI_Allreduce of the status:
 * every wait before it is bounded, and the stage's watchdog bounds the
 * rest), and on any failure every rank aborts its communicator
 * (ncclCommAbort), together.
 *
 * One call (fc_gpu_call): the ranks agree that every rank enqueued its
 * work (the same allreduce is the common start), each releases its
 * stream's gate, waits (bounded, fc_gpu_wait.h) and they agree on the
 * result. The end (fc_gpu_fini): they agree whether any rank failed or
 * aborted, and then all abort or all destroy; never destroy after a
 * failure (ncclCommDestroy finalises, which waits for peers). A failed
 * initialisation is agreed the same way and aborted (fc_gpu_agree).
 * The communicator is behind three functions so that the host-side test
 * (tests/gpu/gpu_agree.c with tests/standin/fc_comm_standin.c) runs the
 * very same protocol with a stand-in for NCCL.
 */
#ifndef FC_GPU_AGREE_H
#define FC_GPU_AGREE_H

#include <mpi.h>

#include "fc_gpu_wait.h"

typedef struct fc_gpu_comm_ops {
    void (*abort_func)(void *ctx);      /* ncclCommAbort */
    void (*destroy_func)(void *ctx);    /* ncclCommDestroy */
    void (*release_func)(void *ctx);    /* let the enqueued work start (the gate) */
} fc_gpu_comm_ops_t;

/* This rank's side of one communicator. */
typedef struct fc_gpu_peer {
    MPI_Comm comm;
    int aborted;        /* this rank's communicator is aborted */
    int failed;         /* a local operation failed (e.g. a fill's wait):
                         * the next fc_gpu_call fails in agreement */
    int told;           /* that failure was logged at a call */
    const char *device; /* "GPU 3" etc., for messages */
    /* a duplicate of comm for failure notices (fc_gpu_peer_open), or
     * MPI_COMM_NULL: then a rank waits out its own timeout */
    MPI_Comm notice;
} fc_gpu_peer_t;

/* Early notice: a rank whose wait fails tells every peer at once (a small
 * message on peer->notice), and a rank still waiting stops when one
 * arrives, so the peers of a failed rank reach the agreement in
 * milliseconds instead of at their own timeout. The agreement decides
 * either way. Open is collective (MPI_Comm_dup); close drains and frees. */
void fc_gpu_peer_open(fc_gpu_peer_t *peer, MPI_Comm comm, const char *device);
void fc_gpu_peer_close(fc_gpu_peer_t *peer);

/* Every rank's worst status (collective over peer->comm); when it is not
 * FC_OK every rank aborts its communicator once. what names the step. */
fc_status_t fc_gpu_agree(fc_gpu_peer_t *peer, fc_status_t mine, const fc_gpu_comm_ops_t *cops,
                         void *ctx, const char *what);

/* One collective call whose work this rank enqueued with status enqueued
 * (collective over peer->comm). On an aborted communicator every rank
 * returns FC_ERR_FAIL at once (they aborted together). A rank whose local
 * step failed (peer->failed) enters the agreement failed, whatever it
 * enqueued: a local failure is learnt by every rank at the next call, and
 * all abort there together. So a rank that failed locally must still make
 * the calls its peers make, up to the first one that fails (lib/
 * fc_engine.c does), rather than leave for an agreement of its own. */
fc_status_t fc_gpu_call(fc_gpu_peer_t *peer, fc_status_t enqueued,
                        const fc_gpu_comm_ops_t *cops, const fc_gpu_wait_ops_t *wops,
                        void *ctx, double timeout_s, const char *what);

/* The end of the communicator (collective): abort everywhere if any rank
 * failed or aborted, else destroy everywhere. */
void fc_gpu_fini(fc_gpu_peer_t *peer, const fc_gpu_comm_ops_t *cops, void *ctx);

#endif
