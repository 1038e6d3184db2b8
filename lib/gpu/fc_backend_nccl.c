/*
 * fc_backend_nccl.c - the nccl backend, built into the GPU plugin
 * (build/libfabcert_gpu.so) with the CUDA kernels; see fc_plugin.h.
 *
 * One rank per GPU: the rank's local index picks the device (more ranks
 * than GPUs share one, and say so). The NCCL communicator is bootstrapped
 * over MPI (rank 0's unique id broadcast). Buffers are device memory;
 * fill, verify, digest and the self-test's bit flip run as kernels
 * (kernels/fc_kernels_cuda.cu) whose results travel through a workspace
 * made once.
 *
 * Timing: the stream is held by a gate (fc_cuda_gate_t) before the start
 * event, the collective is enqueued behind it and the stop event after it;
 * then the ranks agree that every one enqueued (this allreduce is the
 * common start) and release their gates, so the events bracket the
 * collective alone, not the host's launch. run_batch times n calls back to
 * back between one pair of events (time / n), as nccl-tests does: the
 * engine's, each call with an output of its own that the engine checks
 * after the batch, by the verify and digest kernels (fc_backend.h); the
 * plugin table's (the single-process node check), one call n times.
 *
 * Failure: every wait is bounded and polls the event, the communicator's
 * asynchronous error and a clock (lib/gpu/fc_gpu_wait.h); after each call
 * the ranks agree on its status and on any failure all abort the
 * communicator together (lib/gpu/fc_gpu_agree.h), so a wedged NVLink or
 * NIC becomes a named failure on every rank, not a hang. A failed init is
 * aborted, never destroyed.
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_backend.h"
#include "fc_burn.h"
#include "fc_ctl.h"
#include "fc_gpu_agree.h"
#include "fc_gpu_fabric.h"
#include "fc_gpu_gemm.h"
#include "fc_kernels_cuda.h"
#include "fc_log.h"
#include "fc_nccl_call.h"
#include "fc_plugin.h"

/* a gate gives up after this long (then the call's time includes the wait
 * for the slowest peer or the enqueue, and the backend says so) */
#define FC_GATE_MAX_S 10.0
/* the burn's inputs: the same on every GPU (fabcert-node-gpu uses it too) */
#define FC_BURN_SEED 0xFC0B0125u

typedef struct fc_nccl {
    ncclComm_t comm;
    cudaStream_t stream;
    cudaEvent_t start, stop, mark;
    cudaEvent_t waiting;            /* the event the current wait polls */
    fc_cuda_ws_t *ws;
    fc_cuda_gate_t *gate;
    int device, ndev, local_rank;
    double timeout_s;
    fc_gpu_peer_t peer;
    unsigned long calls, gates_expired;
    char devname[96];               /* "GPU 3 (local rank 3)" */
    /* the burn (burn_func): each kind opened at its first use on a stream
     * of its own and kept, so that its chunks allocate nothing */
    fc_burn_t *burns[FC_BURN_KINDS];
    cudaStream_t burn_stream;
} fc_nccl_t;

/* ---- the wait and the communicator, for fc_gpu_wait / fc_gpu_agree ---- */

static fc_gpu_poll_t fc_nccl_poll(void *ctx, char *why, size_t len)
{
    fc_nccl_t *nb = ctx;
    cudaError_t q = cudaEventQuery(nb->waiting);

    if (q == cudaSuccess)
        return FC_GPU_DONE;
    if (q == cudaErrorNotReady) {
        /* pending, not an error: the runtime keeps it as this thread's last
         * error, so clear it before a launch check finds it */
        (void)cudaGetLastError();
        return FC_GPU_PENDING;
    }
    snprintf(why, len, "cudaEventQuery: %s", cudaGetErrorString(q));
    return FC_GPU_ERROR;
}

static int fc_nccl_async_error(void *ctx, char *why, size_t len)
{
    fc_nccl_t *nb = ctx;
    ncclResult_t async = ncclSuccess, r;

    if (nb->comm == NULL)
        return 0;
    r = ncclCommGetAsyncError(nb->comm, &async);
    if (r == ncclSuccess && (async == ncclSuccess || async == ncclInProgress))
        return 0;
    snprintf(why, len, "NCCL reported %s (%s)",
             ncclGetErrorString(r != ncclSuccess ? r : async), ncclGetLastError(nb->comm));
    return 1;
}

static void fc_nccl_abort(void *ctx)
{
    fc_nccl_t *nb = ctx;
    ncclResult_t r;

    if (nb->comm == NULL)
        return;
    if ((r = ncclCommAbort(nb->comm)) != ncclSuccess)
        fc_error("ncclCommAbort on %s: %s", nb->devname, ncclGetErrorString(r));
}

static void fc_nccl_destroy(void *ctx)
{
    fc_nccl_t *nb = ctx;
    ncclResult_t r;

    if (nb->comm != NULL && (r = ncclCommDestroy(nb->comm)) != ncclSuccess)
        fc_error("ncclCommDestroy on %s: %s", nb->devname, ncclGetErrorString(r));
}

static void fc_nccl_release(void *ctx)
{
    fc_nccl_t *nb = ctx;

    if (nb->gate)
        fc_cuda_gate_release(nb->gate);
}

static const fc_gpu_wait_ops_t fc_nccl_wait_ops = { fc_nccl_poll, fc_nccl_async_error };
static const fc_gpu_comm_ops_t fc_nccl_comm_ops = { fc_nccl_abort, fc_nccl_destroy,
                                                    fc_nccl_release };

/* A CUDA call that failed, named with the device; FC_ERR_FAIL. It is this
 * rank's alone: remembered, so that the next call fails in agreement with
 * the peers (fc_gpu_call) and the end aborts everywhere. */
static fc_status_t fc_nccl_cuda_failed(fc_nccl_t *nb, const char *file, int line,
                                       const char *what, int err)
{
    fc_log_error_at(file, line, "%s on %s: %s", what, nb->devname, fc_cuda_error_string(err));
    nb->peer.failed = 1;
    return FC_ERR_FAIL;
}

#define FC_NCCL_CUDA(nb, what, expr)                                              \
    do {                                                                          \
        int e_ = (int)(expr);                                                     \
        if (e_ != 0)                                                              \
            return fc_nccl_cuda_failed((nb), __FILE__, __LINE__, (what), e_);     \
    } while (0)

/* Wait (bounded) for this rank's stream to reach this point: a local step
 * (fill, poison, verify...). A failure is this rank's alone: it is logged,
 * remembered (the next call fails in agreement with the peers, and the
 * end aborts the communicator everywhere) and returned. */
static fc_status_t fc_nccl_local_wait(fc_nccl_t *nb, const char *what)
{
    char why[256];
    cudaError_t e = cudaEventRecord(nb->mark, nb->stream);
    fc_status_t st;

    if (e != cudaSuccess) {
        snprintf(why, sizeof(why), "cudaEventRecord: %s", cudaGetErrorString(e));
        st = FC_ERR_FAIL;
    } else {
        nb->waiting = nb->mark;
        st = fc_gpu_wait(&fc_nccl_wait_ops, nb, nb->timeout_s, why, sizeof(why));
    }
    if (st != FC_OK) {
        fc_error("%s on %s: %s", what, nb->devname, why);
        nb->peer.failed = 1;
    }
    return st;
}

/* ---- the backend's operations ----------------------------------------- */

static fc_status_t fc_nccl_alloc(fc_backend_t *be, size_t bytes, void **buf_p)
{
    fc_nccl_t *nb = be->priv;
    void *p = NULL;

    FC_NCCL_CUDA(nb, "cudaMalloc", cudaMalloc(&p, bytes ? bytes : 1));
    *buf_p = p;
    return FC_OK;
}

static void fc_nccl_free(fc_backend_t *be, void *buf)
{
    (void)be;
    cudaFree(buf);
}

static fc_status_t fc_nccl_fill(fc_backend_t *be, const fc_pattern_t *p, int32_t rank,
                                uint64_t index_base, void *buf, size_t count)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "fill kernel", fc_cuda_fill(nb->ws, p, rank, index_base, buf, count,
                                                 nb->stream));
    return fc_nccl_local_wait(nb, "fill");
}

static fc_status_t fc_nccl_poison(fc_backend_t *be, void *buf, size_t bytes, int byte)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "cudaMemsetAsync", fc_cuda_poison(buf, bytes, byte, nb->stream));
    return fc_nccl_local_wait(nb, "poison");
}

static fc_status_t fc_nccl_copy(fc_backend_t *be, void *dst, const void *src, size_t bytes)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "cudaMemcpyAsync",
                 cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nb->stream));
    return fc_nccl_local_wait(nb, "copy");
}

/* Enqueue gate, start, n calls (calls[i % ncalls]), stop on this rank's
 * stream. */
static fc_status_t fc_nccl_enqueue(fc_backend_t *be, const fc_coll_call_t *calls, int ncalls,
                                   int n)
{
    fc_nccl_t *nb = be->priv;
    ncclResult_t r;

    fc_cuda_gate_arm(nb->gate);
    FC_NCCL_CUDA(nb, "gate kernel", fc_cuda_gate_hold(nb->gate, nb->stream));
    FC_NCCL_CUDA(nb, "cudaEventRecord", cudaEventRecord(nb->start, nb->stream));
    for (int i = 0; i < n; ++i) {
        const fc_coll_call_t *c = &calls[i % ncalls];

        if ((r = fc_nccl_issue(c->coll, c->dtype, c->op, c->send, c->recv, c->count, c->root,
                               be->rank, be->size, nb->comm, nb->stream)) != ncclSuccess) {
            fc_error("%s on %s (call %d of %d): %s (%s)", fc_coll_desc(c->coll)->name,
                     nb->devname, i + 1, n, ncclGetErrorString(r), ncclGetLastError(nb->comm));
            return FC_ERR_FAIL;
        }
    }
    FC_NCCL_CUDA(nb, "cudaEventRecord", cudaEventRecord(nb->stop, nb->stream));
    return FC_OK;
}

/* n calls (calls[i % ncalls]) between one pair of events, every rank
 * together; this rank's time per call. */
static fc_status_t fc_nccl_run_n(fc_backend_t *be, const fc_coll_call_t *calls, int ncalls,
                                 int n, double *seconds_p)
{
    fc_nccl_t *nb = be->priv;
    const char *name = fc_coll_desc(calls[0].coll)->name;
    fc_status_t st;
    float ms = 0;

    if (nb->peer.aborted)
        return FC_ERR_FAIL;    /* aborted by every rank together */
    /* after a local failure nothing is enqueued on this rank: the call's
     * agreement fails on every rank, which abort together */
    st = nb->peer.failed ? FC_ERR_FAIL : fc_nccl_enqueue(be, calls, ncalls, n);
    nb->waiting = nb->stop;
    FC_CHECK(fc_gpu_call(&nb->peer, st, &fc_nccl_comm_ops, &fc_nccl_wait_ops, nb,
                         nb->timeout_s, name));
    ++nb->calls;
    if (fc_cuda_gate_expired(nb->gate) && nb->gates_expired++ == 0)
        fc_log_info("%s on %s: the stream's gate gave up after %.0f s (a peer or the "
                    "enqueue was slower): that call's time includes the wait",
                    name, nb->devname, FC_GATE_MAX_S);
    FC_NCCL_CUDA(nb, "cudaEventElapsedTime", cudaEventElapsedTime(&ms, nb->start, nb->stop));
    *seconds_p = (double)ms * 1e-3 / n;
    return FC_OK;
}

static fc_status_t fc_nccl_run(fc_backend_t *be, const fc_coll_call_t *call, double *seconds_p)
{
    return fc_nccl_run_n(be, call, 1, 1, seconds_p);
}

/* The plugin table's batch (the MPI-free node check): one call n times;
 * time per call. */
static fc_status_t fc_nccl_run_batch(fc_backend_t *be, const fc_coll_call_t *call, int n,
                                     double *seconds_p)
{
    return fc_nccl_run_n(be, call, 1, n < 1 ? 1 : n, seconds_p);
}

/* The backend table's batch (the engine's): calls[0..n-1], each into an
 * output of its own; this rank's total time. */
static fc_status_t fc_nccl_run_calls(fc_backend_t *be, const fc_coll_call_t *calls, int n,
                                     double *seconds_p)
{
    double per = 0;

    FC_CHECK(fc_nccl_run_n(be, calls, n < 1 ? 1 : n, n < 1 ? 1 : n, &per));
    *seconds_p = per * (n < 1 ? 1 : n);
    return FC_OK;
}

static fc_status_t fc_nccl_verify(fc_backend_t *be, const fc_pattern_t *p, int32_t src,
                                  uint64_t index_base, const void *buf, size_t count,
                                  uint64_t pos_base, fc_mismatch_t *m)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "verify kernel", fc_cuda_verify_enqueue(nb->ws, p, src, index_base, buf,
                                                             count, nb->stream));
    /* a verify that did not finish must not read as "no wrong element" */
    FC_CHECK(fc_nccl_local_wait(nb, "verify"));
    fc_cuda_verify_take(nb->ws, pos_base, m);
    return FC_OK;
}

/* A buffer the call must leave alone (device memory: checked by a kernel,
 * never read on the host) */
static fc_status_t fc_nccl_verify_untouched(fc_backend_t *be, const void *buf, size_t count,
                                            size_t esize, int byte, uint64_t pos_base,
                                            fc_mismatch_t *m)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "untouched-buffer kernel",
                 fc_cuda_verify_untouched_enqueue(nb->ws, buf, count, (int)esize, byte,
                                                  nb->stream));
    FC_CHECK(fc_nccl_local_wait(nb, "untouched-buffer check"));
    fc_cuda_verify_take(nb->ws, pos_base, m);
    return FC_OK;
}

static fc_status_t fc_nccl_digest(fc_backend_t *be, const void *buf, size_t bytes,
                                  uint64_t *digest_p)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "digest kernel", fc_cuda_digest_enqueue(nb->ws, buf, bytes, nb->stream));
    FC_CHECK(fc_nccl_local_wait(nb, "digest"));
    *digest_p = fc_cuda_digest_take(nb->ws);
    return FC_OK;
}

static fc_status_t fc_nccl_flip_bit(fc_backend_t *be, void *buf, size_t byte, int bit)
{
    fc_nccl_t *nb = be->priv;

    FC_NCCL_CUDA(nb, "flip kernel", fc_cuda_flip_bit(buf, byte, bit, nb->stream));
    return fc_nccl_local_wait(nb, "flip");
}

/* Local resources (not the communicator). */
static void fc_nccl_free_local(fc_nccl_t *nb)
{
    fc_gpu_peer_close(&nb->peer);
    for (int k = 0; k < FC_BURN_KINDS; ++k)
        fc_burn_close(nb->burns[k]);
    if (nb->burn_stream)
        cudaStreamDestroy(nb->burn_stream);
    if (nb->start)
        cudaEventDestroy(nb->start);
    if (nb->stop)
        cudaEventDestroy(nb->stop);
    if (nb->mark)
        cudaEventDestroy(nb->mark);
    if (nb->stream)
        cudaStreamDestroy(nb->stream);
    fc_cuda_ws_destroy(nb->ws);
    fc_cuda_gate_destroy(nb->gate);
    free(nb);
}

static void fc_nccl_fini(fc_backend_t *be)
{
    fc_nccl_t *nb = be->priv;

    if (nb == NULL)
        return;
    /* collective: all abort if any rank failed, else all destroy */
    fc_gpu_fini(&nb->peer, &fc_nccl_comm_ops, nb);
    if (nb->gates_expired)
        fc_log_info("%s: %lu of %lu calls waited past their gate (%.0f s); their times "
                    "include that wait", nb->devname, nb->gates_expired, nb->calls,
                    FC_GATE_MAX_S);
    fc_nccl_free_local(nb);
    be->priv = NULL;
}

static const fc_backend_ops_t fc_nccl_ops = {
    .name = "nccl",
    .alloc_func = fc_nccl_alloc,
    .free_func = fc_nccl_free,
    .fill_func = fc_nccl_fill,
    .poison_func = fc_nccl_poison,
    .copy_func = fc_nccl_copy,
    .run_func = fc_nccl_run,
    .run_batch_func = fc_nccl_run_calls,
    .verify_func = fc_nccl_verify,
    .verify_untouched_func = fc_nccl_verify_untouched,
    .digest_func = fc_nccl_digest,
    .flip_bit_func = fc_nccl_flip_bit,
    .fini_func = fc_nccl_fini,
};

/* ---- initialisation ----------------------------------------------------- */

/* This rank's device, stream, events, workspace and gate. */
static fc_status_t fc_nccl_local_init(fc_nccl_t *nb, int local_rank)
{
    char why[512];

    if ((nb->ndev = fc_cuda_device_count(why, sizeof(why))) == 0) {
        fc_error("local rank %d: %s", local_rank, why);
        return FC_ERR_FAIL;
    }
    nb->device = local_rank % nb->ndev;
    nb->local_rank = local_rank;
    snprintf(nb->devname, sizeof(nb->devname), "GPU %d (local rank %d)", nb->device,
             local_rank);
    nb->peer.device = nb->devname;
    if (local_rank >= nb->ndev)
        fc_log_info("warning: local rank %d shares GPU %d with local rank %d: this host "
                    "runs more ranks than its %d visible GPU(s), so both measure a shared "
                    "GPU", local_rank, nb->device, nb->device, nb->ndev);
    FC_NCCL_CUDA(nb, "cudaSetDevice", cudaSetDevice(nb->device));
    FC_NCCL_CUDA(nb, "cudaStreamCreate",
                 cudaStreamCreateWithFlags(&nb->stream, cudaStreamNonBlocking));
    FC_NCCL_CUDA(nb, "cudaEventCreate", cudaEventCreate(&nb->start));
    FC_NCCL_CUDA(nb, "cudaEventCreate", cudaEventCreate(&nb->stop));
    FC_NCCL_CUDA(nb, "cudaEventCreate",
                 cudaEventCreateWithFlags(&nb->mark, cudaEventDisableTiming));
    FC_NCCL_CUDA(nb, "workspace", fc_cuda_ws_create(&nb->ws));
    FC_NCCL_CUDA(nb, "gate", fc_cuda_gate_create(FC_GATE_MAX_S, &nb->gate));
    return FC_OK;
}

static fc_status_t fc_nccl_init(MPI_Comm comm, int local_rank, double timeout_s,
                                fc_backend_t *be)
{
    fc_nccl_t *nb = calloc(1, sizeof(*nb));
    ncclUniqueId id;
    ncclResult_t r = ncclSuccess;
    fc_status_t st;
    int local, all;

    memset(be, 0, sizeof(*be));
    if (nb == NULL)
        return FC_ERR_INTERNAL;
    be->ops = &fc_nccl_ops;
    be->comm = comm;
    be->last_wait_s = -1;           /* the device's wait is not the host's */
    MPI_Comm_rank(comm, &be->rank);
    MPI_Comm_size(comm, &be->size);
    nb->timeout_s = timeout_s > 0 ? timeout_s : 600;
    snprintf(nb->devname, sizeof(nb->devname), "no GPU (local rank %d)", local_rank);
    fc_gpu_peer_open(&nb->peer, comm, nb->devname);
    st = fc_nccl_local_init(nb, local_rank);
    if (st == FC_OK && be->rank == 0 && (r = ncclGetUniqueId(&id)) != ncclSuccess) {
        fc_error("ncclGetUniqueId on %s: %s", nb->devname, ncclGetErrorString(r));
        st = FC_ERR_FAIL;
    }
    /* no communicator yet: a plain agreement, nothing to abort */
    local = (int)st;
    fc_ctl_allreduce(comm, "the GPUs set up", FC_CTL_INT, FC_CTL_MAX, &local, &all, 1);
    if (all != FC_OK) {
        if (st == FC_OK)
            fc_error("%s is ready, but a peer could not set up its GPU", nb->devname);
        fc_nccl_free_local(nb);
        return FC_ERR_FAIL;
    }
    fc_ctl_bcast(comm, 0, "the NCCL communicator's id", &id, sizeof(id));
    nb->comm = NULL;
    if ((r = ncclCommInitRank(&nb->comm, be->size, id, be->rank)) != ncclSuccess) {
        fc_error("ncclCommInitRank on %s: %s (%s)", nb->devname, ncclGetErrorString(r),
                 ncclGetLastError(nb->comm));
        st = FC_ERR_FAIL;
    }
    /* a failed init is agreed and aborted everywhere, never destroyed:
     * destroying finalises, which waits for peers whose communicator never
     * came up */
    if (fc_gpu_agree(&nb->peer, st, &fc_nccl_comm_ops, nb, "ncclCommInitRank") != FC_OK) {
        fc_nccl_free_local(nb);
        return FC_ERR_FAIL;
    }
    be->priv = nb;
    return FC_OK;
}

static fc_status_t fc_nccl_describe(const fc_backend_t *be, char *json, size_t len)
{
    const fc_nccl_t *nb = be->priv;
    struct cudaDeviceProp prop;
    int driver = 0, runtime = 0, nccl = 0;
    char pci[32] = "", uuid[40] = "", warning[256] = "";

    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    ncclGetVersion(&nccl);
    if (cudaGetDeviceProperties(&prop, nb->device) != cudaSuccess)
        return FC_ERR_FAIL;
    cudaDeviceGetPCIBusId(pci, sizeof(pci), nb->device);
    for (int i = 0; i < 16; ++i)
        snprintf(uuid + strlen(uuid), sizeof(uuid) - strlen(uuid), "%s%02x",
                 i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
                 (unsigned char)prop.uuid.bytes[i]);
    if (nb->local_rank >= nb->ndev)
        snprintf(warning, sizeof(warning), ",\"warning\":\"local rank %d shares GPU %d with "
                 "local rank %d: more ranks on this host than its %d visible GPU(s)\"",
                 nb->local_rank, nb->device, nb->device, nb->ndev);
    snprintf(json, len, "{\"device\":%d,\"gpu\":\"%s\",\"uuid\":\"GPU-%s\","
             "\"pci_bus_id\":\"%s\",\"sm_count\":%d,\"visible_gpus\":%d,\"cuda_driver\":%d,"
             "\"cuda_runtime\":%d,\"nccl\":%d%s}", nb->device, prop.name, uuid, pci,
             prop.multiProcessorCount, nb->ndev, driver, runtime, nccl, warning);
    return FC_OK;
}

/* The GEMM burn on this rank's GPU, on a stream of its own, so that it
 * runs beside the collectives when a thread of the soak calls it while
 * the stage's thread runs them: one object per kind. Each kind is opened
 * once (its buffers, inputs and algorithm) and stepped at every call, so
 * no chunk allocates or frees (cudaFree may wait for the whole device);
 * the backend's end frees them. The seed is fixed, so every GPU of a model
 * computes the same C and the ranks' digests can be compared
 * (lib/gpu/fc_burn.h). Called from one thread at a time. */
static json_t *fc_nccl_burn(const fc_backend_t *be, double seconds, const char *kinds,
                            char *why, size_t len)
{
    fc_nccl_t *nb = be->priv;
    char list[64], *save = NULL, *w;
    json_t *out;
    cudaError_t e;

    if ((e = cudaSetDevice(nb->device)) != cudaSuccess ||
        (nb->burn_stream == NULL &&
         (e = cudaStreamCreateWithFlags(&nb->burn_stream, cudaStreamNonBlocking)) != cudaSuccess)) {
        snprintf(why, len, "a burn stream on %s: %s", nb->devname, cudaGetErrorString(e));
        return NULL;
    }
    snprintf(list, sizeof(list), "%s", kinds ? kinds : "bf16,fp16,fp64");
    out = json_object();
    for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int kind = fc_burn_kind_from_name(w);
        fc_burn_result_t r;

        if (kind < 0) {
            snprintf(why, len, "no burn kind '%s' (bf16, fp16, fp64)", w);
            json_decref(out);
            return NULL;
        }
        if ((nb->burns[kind] == NULL && fc_burn_open(kind, 0, FC_BURN_SEED, nb->burn_stream,
                                                     &nb->burns[kind], &r) != 0) ||
            fc_burn_step(nb->burns[kind], seconds, &r) != 0) {
            snprintf(why, len, "burn %s on %s: %s", w, nb->devname, r.why);
            fc_burn_close(nb->burns[kind]);
            nb->burns[kind] = NULL;
            json_decref(out);
            return NULL;
        }
        json_object_set_new(out, w, fc_burn_json(&r));
    }
    return out;
}

/* The overlap stage's burn (ABI 4, lib/gpu/fc_gpu_gemm.h) on this rank's
 * GPU, with burn_func's seed. */
static fc_gpu_gemm_t *fc_nccl_gemm_open(const fc_backend_t *be, const char *kind, char *why,
                                        size_t len)
{
    const fc_nccl_t *nb = be->priv;

    return fc_gpu_gemm_open_on(nb->device, nb->devname, kind, FC_BURN_SEED, why, len);
}

static int fc_nccl_device_count(char *why, size_t len)
{
    return fc_cuda_device_count(why, len);
}

const fc_gpu_plugin_t FC_GPU_PLUGIN_TABLE = {
    .abi = FC_GPU_PLUGIN_ABI,
    .device_count_func = fc_nccl_device_count,
    .backend_init_func = fc_nccl_init,
    .describe_func = fc_nccl_describe,
    .run_batch_func = fc_nccl_run_batch,
    .health_snapshot_func = fc_gpu_health_snapshot,
    .health_judge_func = fc_gpu_health_judge,
    .health_limits_default_func = fc_gpu_health_limits_default,
    .burn_func = fc_nccl_burn,
    .gemm_open_func = fc_nccl_gemm_open,
    .gemm_start_func = fc_gpu_gemm_start,
    .gemm_wait_func = fc_gpu_gemm_wait,
    .gemm_close_func = fc_gpu_gemm_close,
    .fabric_func = fc_gpu_fabric_of_rank,
};
