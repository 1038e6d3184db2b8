/*
 * fc_gpu_wait.h - the one bounded wait of the GPU code, for work that a
 * stream or a communicator will finish (or not): poll the work's state and
 * the communicator's asynchronous error, sleeping a few microseconds
 * between looks, until it is done, fails, or timeout_s passes. It never
 * blocks in the driver (no cudaStreamSynchronize), so a wedged GPU or
 * NVLink becomes a named timeout, and it aborts nothing itself: whether to
 * abort is agreed by every rank (fc_gpu_agree.h), because a rank that
 * aborted alone would leave its peers in a collective it never reaches.
 * The work is described by two functions, so the wait is the same for the
 * nccl backend, the MPI-free node check and the host-side stand-in test
 * (tests/standin/fc_comm_standin.c). No CUDA, NCCL or MPI here.
 */
#ifndef FC_GPU_WAIT_H
#define FC_GPU_WAIT_H

#include <stddef.h>

#include "fc_status.h"

typedef enum fc_gpu_poll {
    FC_GPU_DONE = 0,
    FC_GPU_PENDING,
    FC_GPU_ERROR,
} fc_gpu_poll_t;

typedef struct fc_gpu_wait_ops {
    /* the work's state now; on FC_GPU_ERROR the cause in why. A CUDA poll
     * clears the cudaErrorNotReady a pending event query leaves behind. */
    fc_gpu_poll_t (*poll_func)(void *ctx, char *why, size_t len);
    /* 1 with the cause in why when the communicator reports an
     * asynchronous error (ncclCommGetAsyncError); NULL: none to ask */
    int (*async_error_func)(void *ctx, char *why, size_t len);
} fc_gpu_wait_ops_t;

/* FC_OK when done; FC_ERR_FAIL with the cause in why on an error or an
 * asynchronous error; FC_ERR_TIMEOUT ("no progress for N s") after
 * timeout_s. why is "" on FC_OK. */
fc_status_t fc_gpu_wait(const fc_gpu_wait_ops_t *ops, void *ctx, double timeout_s,
                        char *why, size_t len);

/* The monotonic clock in seconds. */
double fc_gpu_wall(void);

#endif
