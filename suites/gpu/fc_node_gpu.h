/*
 * fc_node_gpu.h - what the parts of build/fabcert-node-gpu share (the
 * node check in one process, without MPI; suites/gpu/node_single.c has
 * the program's description): the context of every GPU of the node and
 * the few steps every part takes on all of them at once: a bounded wait,
 * one NCCL call per GPU in one group, a gated and timed run of n calls,
 * and a fatal error that aborts the communicators and bails out of TAP
 * with the GPU, the call and the file:line.
 */
#ifndef FC_NODE_GPU_H
#define FC_NODE_GPU_H

#include <cuda_runtime.h>
#include <jansson.h>
#include <nccl.h>

#include "fc_coll.h"
#include "fc_kernels_cuda.h"
#include "fc_point_rank.h"
#include "fc_profile.h"
#include "fc_tap.h"

#define FC_MAX_GPUS 16
/* a call or a local step that makes no progress for this long is fatal */
#define FC_NODE_WAIT_S 120.0
/* a gate gives up after this long (then the time includes the enqueue) */
#define FC_NODE_GATE_S 10.0

typedef struct fc_gpu_ctx {
    int ngpus;
    ncclComm_t comms[FC_MAX_GPUS];      /* NULL before ncclCommInitAll */
    cudaStream_t streams[FC_MAX_GPUS];
    cudaEvent_t start[FC_MAX_GPUS], stop[FC_MAX_GPUS];
    fc_cuda_ws_t *ws[FC_MAX_GPUS];      /* one result workspace per GPU */
    fc_cuda_gate_t *gate;               /* one gate holds every GPU's stream */
    int waiting;                        /* -1: wait for every GPU, else this one */
    fc_tap_t tap;
    int corrupt_gpu, corrupt_iter;      /* --selftest-corrupt */
    int batch;                          /* calls per batched timing, 0: none */
    double burn_s;                      /* per kind and GPU */
    unsigned long calls, gates_expired;
    struct cudaDeviceProp prop[FC_MAX_GPUS];
} fc_gpu_ctx_t;

/* lib/engine/fc_judge.h's rule, linked from lib/engine/fc_judge.o (its header needs
 * mpi.h, which this program does without): 1 when busbw means nothing
 * for coll on nranks ranks (bus factor 0, or nothing moves between ranks) */
int fc_judge_busbw_void(fc_coll_id_t coll, int nranks);

/* Print the cause to stderr and "Bail out!" to TAP, abort every NCCL
 * communicator, exit 1. */
void fc_node_fatal(fc_gpu_ctx_t *g, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

#define FC_CK(g, dev, call)                                                       \
    do {                                                                          \
        int e_ = (int)(call);                                                     \
        if (e_ != 0)                                                              \
            fc_node_fatal((g), __FILE__, __LINE__, "%s on GPU %d: %s", #call,     \
                          (dev), cudaGetErrorString((cudaError_t)e_));            \
    } while (0)

/* The buffers of a run of calls: call i on GPU d gets send[d][i % 2] and
 * recv[d][i % 2]; every call has this count and root. */
typedef struct fc_node_calls {
    const void *send[FC_MAX_GPUS][2];
    void *recv[FC_MAX_GPUS][2];
    size_t count;
    int root;
} fc_node_calls_t;

/* One GPU's memory for the check contract the engine applies
 * (lib/engine/fc_point_rank.h): every step on GPU d, waited for (bounded); a
 * failure is fatal, like every other step of this program. */
typedef struct fc_node_mem {
    fc_gpu_ctx_t *g;
    int d;
} fc_node_mem_t;
extern const fc_point_mem_ops_t fc_node_mem_ops;

/* Record stop on GPU dev (-1: on every GPU) and wait for it, bounded. */
void fc_node_wait(fc_gpu_ctx_t *g, int dev, const char *what);
/* n calls of desc on every GPU, each call one NCCL group. */
void fc_node_issue(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc, int dtype, int op,
                   const fc_node_calls_t *calls, int n);
/* Gate every stream, start, n calls, stop, release the gate after the
 * group: the slowest GPU's time per call (seconds). */
double fc_node_timed(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc, int dtype, int op,
                     const fc_node_calls_t *calls, int n);
/* Verify count elements on GPU d (bounded wait); adds to *m. */
void fc_node_verify(fc_gpu_ctx_t *g, int d, const fc_pattern_t *p, int32_t src,
                    uint64_t index_base, const void *buf, size_t count, uint64_t pos_base,
                    fc_mismatch_t *m);

/* node_checks.c: the kernel checks on GPU 0 (fill, verify, flip, digest,
 * the stale-error and gate checks); the burn on every GPU; GPU health. */
void fc_node_kernel_checks(fc_gpu_ctx_t *g);
void fc_node_burn(fc_gpu_ctx_t *g);
void fc_node_health(fc_gpu_ctx_t *g, json_t *before);
/* node_bench.c: copy bandwidth, verification throughput, busbw. */
void fc_node_bench(fc_gpu_ctx_t *g);

#endif
