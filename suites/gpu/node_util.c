/*
 * node_util.c - the steps of fc_node_gpu.h that every part of
 * fabcert-node-gpu takes on all GPUs at once. The wait is lib/gpu/
 * fc_gpu_wait.c (the nccl backend's): it polls the stop events and every
 * communicator's asynchronous error, bounded, and clears the
 * cudaErrorNotReady a pending query leaves. One process owns every
 * communicator, so "abort together" is this process aborting them all.
 * Last, one GPU's memory as the engine's check contract sees it
 * (fc_node_mem_ops for lib/engine/fc_point_rank.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fc_node_gpu.h"
#include "gpu/fc_gpu_wait.h"
#include "gpu/fc_nccl_call.h"

void fc_node_fatal(fc_gpu_ctx_t *g, const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "fabcert-node-gpu: %s (%s:%d)\n", msg, file, line);
    for (int d = 0; d < g->ngpus; ++d)
        if (g->comms[d])
            ncclCommAbort(g->comms[d]);
    fc_tap_bail(&g->tap, "%s (%s:%d)", msg, file, line);
    exit(1);
}

static fc_gpu_poll_t fc_node_poll(void *ctx, char *why, size_t len)
{
    fc_gpu_ctx_t *g = ctx;

    for (int d = 0; d < g->ngpus; ++d) {
        cudaError_t q;

        if (g->waiting >= 0 && d != g->waiting)
            continue;
        q = cudaEventQuery(g->stop[d]);
        if (q == cudaErrorNotReady) {
            (void)cudaGetLastError();   /* pending, not an error: clear it */
            return FC_GPU_PENDING;
        }
        if (q != cudaSuccess) {
            snprintf(why, len, "GPU %d: %s", d, cudaGetErrorString(q));
            return FC_GPU_ERROR;
        }
    }
    return FC_GPU_DONE;
}

static int fc_node_async(void *ctx, char *why, size_t len)
{
    fc_gpu_ctx_t *g = ctx;

    for (int d = 0; d < g->ngpus; ++d) {
        ncclResult_t a = ncclSuccess;

        if (g->comms[d] && ncclCommGetAsyncError(g->comms[d], &a) == ncclSuccess &&
            a != ncclSuccess && a != ncclInProgress) {
            snprintf(why, len, "GPU %d: NCCL reported %s", d, ncclGetErrorString(a));
            return 1;
        }
    }
    return 0;
}

static const fc_gpu_wait_ops_t fc_node_wait_ops = { fc_node_poll, fc_node_async };

void fc_node_wait(fc_gpu_ctx_t *g, int dev, const char *what)
{
    char why[256];

    for (int d = 0; d < g->ngpus; ++d)
        if (dev < 0 || d == dev) {
            FC_CK(g, d, cudaSetDevice(d));
            FC_CK(g, d, cudaEventRecord(g->stop[d], g->streams[d]));
        }
    g->waiting = dev;
    if (fc_gpu_wait(&fc_node_wait_ops, g, FC_NODE_WAIT_S, why, sizeof(why)) != FC_OK)
        fc_node_fatal(g, __FILE__, __LINE__, "%s: %s; aborting every communicator", what, why);
}

void fc_node_issue(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc, int dtype, int op,
                   const fc_node_calls_t *calls, int n)
{
    for (int i = 0; i < n; ++i) {
        ncclResult_t r = ncclGroupStart(), end;
        int bad = -1;

        for (int d = 0; d < g->ngpus && r == ncclSuccess; ++d) {
            r = fc_nccl_issue(desc->id, dtype, op, calls->send[d][i & 1], calls->recv[d][i & 1],
                              calls->count, calls->root, d, g->ngpus, g->comms[d],
                              g->streams[d]);
            bad = d;
        }
        /* the group is closed whatever happened inside it */
        end = ncclGroupEnd();
        if (r == ncclSuccess)
            r = end;
        if (r != ncclSuccess)
            fc_node_fatal(g, __FILE__, __LINE__, "%s on GPU %d (of %d), call %d of %d: %s",
                          desc->name, bad, g->ngpus, i + 1, n, ncclGetErrorString(r));
    }
}

double fc_node_timed(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc, int dtype, int op,
                     const fc_node_calls_t *calls, int n)
{
    double slowest = 0;
    char why[256];

    fc_cuda_gate_arm(g->gate);
    for (int d = 0; d < g->ngpus; ++d) {
        FC_CK(g, d, cudaSetDevice(d));
        FC_CK(g, d, fc_cuda_gate_hold(g->gate, g->streams[d]));
        FC_CK(g, d, cudaEventRecord(g->start[d], g->streams[d]));
    }
    fc_node_issue(g, desc, dtype, op, calls, n);
    for (int d = 0; d < g->ngpus; ++d) {
        FC_CK(g, d, cudaSetDevice(d));
        FC_CK(g, d, cudaEventRecord(g->stop[d], g->streams[d]));
    }
    /* every call is enqueued behind the gates: let them all start */
    fc_cuda_gate_release(g->gate);
    g->waiting = -1;
    if (fc_gpu_wait(&fc_node_wait_ops, g, FC_NODE_WAIT_S, why, sizeof(why)) != FC_OK)
        fc_node_fatal(g, __FILE__, __LINE__, "%s: %s; aborting every communicator",
                      desc->name, why);
    ++g->calls;
    if (fc_cuda_gate_expired(g->gate) && g->gates_expired++ == 0)
        fc_tap_diag(&g->tap, "a gate gave up after %.0f s: that %s's time includes its "
                    "enqueue", FC_NODE_GATE_S, desc->name);
    for (int d = 0; d < g->ngpus; ++d) {
        float ms = 0;

        FC_CK(g, d, cudaEventElapsedTime(&ms, g->start[d], g->stop[d]));
        if (ms * 1e-3 > slowest)
            slowest = ms * 1e-3;
    }
    return slowest / n;
}

void fc_node_verify(fc_gpu_ctx_t *g, int d, const fc_pattern_t *p, int32_t src,
                    uint64_t index_base, const void *buf, size_t count, uint64_t pos_base,
                    fc_mismatch_t *m)
{
    FC_CK(g, d, cudaSetDevice(d));
    FC_CK(g, d, fc_cuda_verify_enqueue(g->ws[d], p, src, index_base, buf, count, g->streams[d]));
    fc_node_wait(g, d, "verify");
    fc_cuda_verify_take(g->ws[d], pos_base, m);
}

/* ---- one GPU's memory for lib/engine/fc_point_rank.h ---------------------------- */

static fc_status_t fc_node_mem_fill(void *ctx, const fc_pattern_t *p, int32_t rank,
                                    uint64_t index_base, void *buf, size_t count)
{
    fc_node_mem_t *x = ctx;

    FC_CK(x->g, x->d, cudaSetDevice(x->d));
    FC_CK(x->g, x->d, fc_cuda_fill(x->g->ws[x->d], p, rank, index_base, buf, count,
                                   x->g->streams[x->d]));
    fc_node_wait(x->g, x->d, "fill");
    return FC_OK;
}

static fc_status_t fc_node_mem_poison(void *ctx, void *buf, size_t bytes, int byte)
{
    fc_node_mem_t *x = ctx;

    FC_CK(x->g, x->d, cudaSetDevice(x->d));
    FC_CK(x->g, x->d, fc_cuda_poison(buf, bytes, byte, x->g->streams[x->d]));
    fc_node_wait(x->g, x->d, "poison");
    return FC_OK;
}

static fc_status_t fc_node_mem_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    fc_node_mem_t *x = ctx;

    FC_CK(x->g, x->d, cudaSetDevice(x->d));
    FC_CK(x->g, x->d, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                      x->g->streams[x->d]));
    fc_node_wait(x->g, x->d, "in-place staging copy");
    return FC_OK;
}

static fc_status_t fc_node_mem_verify(void *ctx, const fc_pattern_t *p, int32_t src,
                                      uint64_t index_base, const void *buf, size_t count,
                                      uint64_t pos_base, fc_mismatch_t *m)
{
    fc_node_mem_t *x = ctx;

    fc_node_verify(x->g, x->d, p, src, index_base, buf, count, pos_base, m);
    return FC_OK;
}

static fc_status_t fc_node_mem_untouched(void *ctx, const void *buf, size_t count, size_t esize,
                                         int byte, uint64_t pos_base, fc_mismatch_t *m)
{
    fc_node_mem_t *x = ctx;

    FC_CK(x->g, x->d, cudaSetDevice(x->d));
    FC_CK(x->g, x->d, fc_cuda_verify_untouched_enqueue(x->g->ws[x->d], buf, count, (int)esize,
                                                       byte, x->g->streams[x->d]));
    fc_node_wait(x->g, x->d, "untouched-buffer check");
    fc_cuda_verify_take(x->g->ws[x->d], pos_base, m);
    return FC_OK;
}

static fc_status_t fc_node_mem_digest(void *ctx, const void *buf, size_t bytes,
                                      uint64_t *digest_p)
{
    fc_node_mem_t *x = ctx;

    FC_CK(x->g, x->d, cudaSetDevice(x->d));
    FC_CK(x->g, x->d, fc_cuda_digest_enqueue(x->g->ws[x->d], buf, bytes, x->g->streams[x->d]));
    fc_node_wait(x->g, x->d, "digest");
    *digest_p = fc_cuda_digest_take(x->g->ws[x->d]);
    return FC_OK;
}

const fc_point_mem_ops_t fc_node_mem_ops = {
    fc_node_mem_fill, fc_node_mem_poison, fc_node_mem_copy, fc_node_mem_verify,
    fc_node_mem_untouched, fc_node_mem_digest,
};
