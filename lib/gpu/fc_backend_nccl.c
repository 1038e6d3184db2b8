/*
 * fc_backend_nccl.c - the nccl backend, built into the GPU plugin
 * (build/libfabcert_gpu.so) with the CUDA kernels; see fc_plugin.h.
 *
 * One rank per GPU: the rank's local index picks the device. The NCCL
 * communicator is bootstrapped over MPI (rank 0's unique id broadcast on
 * the group communicator). Buffers are device memory; fill, verify, digest
 * and the self-test's bit flip run as kernels (kernels/fc_kernels_cuda.cu).
 * Each call is timed with CUDA events around the NCCL call alone, from a
 * common start (MPI barrier, then a stream sync). Every wait polls the
 * event, ncclCommGetAsyncError and a wall clock: an asynchronous NCCL
 * error fails the call with NCCL's message, and a call that does not
 * finish within the timeout is aborted with ncclCommAbort, so a wedged
 * NVLink or NIC becomes a named failure, not a hang.
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_backend.h"
#include "fc_kernels_cuda.h"
#include "fc_log.h"
#include "fc_nccl_call.h"
#include "fc_plugin.h"

typedef struct fc_nccl {
    ncclComm_t comm;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    int device;
    double timeout_s;
    int aborted;
} fc_nccl_t;

#define FC_CUDA_CHECK(call)                                                   \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fc_error("%s: %s (device %d)", #call, cudaGetErrorString(e_),      \
                     fc_nccl_device(be));                                     \
            return FC_ERR_FAIL;                                               \
        }                                                                     \
    } while (0)

static int fc_nccl_device(const fc_backend_t *be)
{
    const fc_nccl_t *nb = be ? be->priv : NULL;

    return nb ? nb->device : -1;
}

static double fc_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait for the stream's work up to `ev`, polling NCCL's asynchronous error
 * and the clock; never sleeps without a bound. */
static fc_status_t fc_nccl_wait(fc_backend_t *be, cudaEvent_t ev, const char *what)
{
    fc_nccl_t *nb = be->priv;
    double deadline = fc_wall() + nb->timeout_s;

    for (;;) {
        cudaError_t q = cudaEventQuery(ev);
        ncclResult_t async = ncclSuccess;

        if (q == cudaSuccess)
            return FC_OK;
        if (q == cudaErrorNotReady)
            (void)cudaGetLastError();   /* not an error: do not leave it for
                                         * the next launch check to find */
        else {
            fc_error("%s on device %d: %s", what, nb->device, cudaGetErrorString(q));
            return FC_ERR_FAIL;
        }
        if (ncclCommGetAsyncError(nb->comm, &async) != ncclSuccess || async != ncclSuccess) {
            fc_error("%s on device %d: NCCL reported %s; aborting the communicator",
                     what, nb->device, ncclGetErrorString(async));
            ncclCommAbort(nb->comm);
            nb->aborted = 1;
            return FC_ERR_FAIL;
        }
        if (fc_wall() > deadline) {
            fc_error("%s on device %d made no progress for %.0f s; aborting the "
                     "NCCL communicator", what, nb->device, nb->timeout_s);
            ncclCommAbort(nb->comm);
            nb->aborted = 1;
            return FC_ERR_TIMEOUT;
        }
        usleep(50);
    }
}

static fc_status_t fc_nccl_sync(fc_backend_t *be, const char *what)
{
    fc_nccl_t *nb = be->priv;

    FC_CUDA_CHECK(cudaEventRecord(nb->stop, nb->stream));
    return fc_nccl_wait(be, nb->stop, what);
}

static fc_status_t fc_nccl_alloc(fc_backend_t *be, size_t bytes, void **buf_p)
{
    void *p = NULL;

    FC_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
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
    int e = fc_cuda_fill(p, rank, index_base, buf, count, nb->stream);

    if (e != 0) {
        fc_error("fill kernel on device %d: %s", nb->device, fc_cuda_error_string(e));
        return FC_ERR_FAIL;
    }
    return fc_nccl_sync(be, "fill");
}

static fc_status_t fc_nccl_poison(fc_backend_t *be, void *buf, size_t bytes, int byte)
{
    fc_nccl_t *nb = be->priv;

    FC_CUDA_CHECK(cudaMemsetAsync(buf, byte, bytes, nb->stream));
    return fc_nccl_sync(be, "poison");
}

static fc_status_t fc_nccl_copy(fc_backend_t *be, void *dst, const void *src, size_t bytes)
{
    fc_nccl_t *nb = be->priv;

    FC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nb->stream));
    return fc_nccl_sync(be, "copy");
}

static ncclResult_t fc_nccl_call(fc_backend_t *be, const fc_coll_call_t *c)
{
    fc_nccl_t *nb = be->priv;

    return fc_nccl_issue(c->coll, c->dtype, c->op, c->send, c->recv, c->count, c->root,
                         be->rank, be->size, nb->comm, nb->stream);
}

static fc_status_t fc_nccl_run(fc_backend_t *be, const fc_coll_call_t *call,
                               double *seconds_p)
{
    fc_nccl_t *nb = be->priv;
    ncclResult_t r;
    float ms = 0;
    fc_status_t st;

    int ok, all_ok;
    cudaError_t e = cudaSuccess;

    if (nb->aborted)
        return FC_ERR_FAIL;
    /* common start: this rank's device idle, then every rank together */
    FC_CHECK(fc_nccl_sync(be, "pre-call sync"));
    MPI_Barrier(be->comm);
    st = (e = cudaEventRecord(nb->start, nb->stream)) == cudaSuccess ? FC_OK : FC_ERR_FAIL;
    if (st == FC_OK && (r = fc_nccl_call(be, call)) != ncclSuccess) {
        fc_error("%s on device %d: %s", fc_coll_desc(call->coll)->name, nb->device,
                 ncclGetErrorString(r));
        st = FC_ERR_FAIL;
    }
    if (st == FC_OK && (e = cudaEventRecord(nb->stop, nb->stream)) != cudaSuccess)
        st = FC_ERR_FAIL;
    if (e != cudaSuccess)
        fc_error("cudaEventRecord on device %d: %s", nb->device, cudaGetErrorString(e));
    if (st == FC_OK)
        st = fc_nccl_wait(be, nb->stop, fc_coll_desc(call->coll)->name);
    /* every rank learns whether any rank's call failed (each wait is
     * bounded, so each rank gets here), and they abort together: a rank
     * that aborted alone would leave its peers waiting in a collective */
    ok = st == FC_OK;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, be->comm);
    if (!all_ok) {
        if (!nb->aborted) {
            if (ok)
                fc_error("%s on device %d: a peer's call failed; aborting the NCCL "
                         "communicator with it", fc_coll_desc(call->coll)->name, nb->device);
            ncclCommAbort(nb->comm);
            nb->aborted = 1;
        }
        return st != FC_OK ? st : FC_ERR_FAIL;
    }
    FC_CUDA_CHECK(cudaEventElapsedTime(&ms, nb->start, nb->stop));
    *seconds_p = (double)ms * 1e-3;
    return FC_OK;
}

static fc_status_t fc_nccl_verify(fc_backend_t *be, const fc_pattern_t *p, int32_t src,
                                  uint64_t index_base, const void *buf, size_t count,
                                  uint64_t pos_base, fc_mismatch_t *m)
{
    fc_nccl_t *nb = be->priv;
    int e = fc_cuda_verify(p, src, index_base, buf, count, pos_base, m, nb->stream);

    if (e != 0) {
        fc_error("verify kernel on device %d: %s", nb->device, fc_cuda_error_string(e));
        return FC_ERR_FAIL;
    }
    return FC_OK;
}

static fc_status_t fc_nccl_digest(fc_backend_t *be, const void *buf, size_t bytes,
                                  uint64_t *digest_p)
{
    fc_nccl_t *nb = be->priv;
    int e = fc_cuda_digest(buf, bytes, digest_p, nb->stream);

    if (e != 0) {
        fc_error("digest kernel on device %d: %s", nb->device, fc_cuda_error_string(e));
        return FC_ERR_FAIL;
    }
    return FC_OK;
}

static fc_status_t fc_nccl_flip_bit(fc_backend_t *be, void *buf, size_t byte, int bit)
{
    fc_nccl_t *nb = be->priv;

    if (fc_cuda_flip_bit(buf, byte, bit, nb->stream) != 0)
        return FC_ERR_FAIL;
    return fc_nccl_sync(be, "flip");
}

static void fc_nccl_fini(fc_backend_t *be)
{
    fc_nccl_t *nb = be->priv;

    if (nb == NULL)
        return;
    if (!nb->aborted)
        ncclCommDestroy(nb->comm);
    cudaEventDestroy(nb->start);
    cudaEventDestroy(nb->stop);
    cudaStreamDestroy(nb->stream);
    free(nb);
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
    .run_batch_func = NULL,         /* batched timing: not yet on nccl */
    .verify_func = fc_nccl_verify,
    .digest_func = fc_nccl_digest,
    .flip_bit_func = fc_nccl_flip_bit,
    .fini_func = fc_nccl_fini,
};

static int fc_nccl_device_count(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e == cudaErrorInsufficientDriver) {
        int driver = 0, runtime = 0;

        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        snprintf(why, len, "the GPU driver (CUDA %d.%d) is older than the CUDA runtime "
                 "the plugin was built with (%d.%d): rebuild with CUDA_HOME set to the "
                 "node's own CUDA toolkit (README, GPUs)", driver / 1000, driver % 1000 / 10,
                 runtime / 1000, runtime % 1000 / 10);
        return 0;
    }
    if (e != cudaSuccess) {
        snprintf(why, len, "no usable GPU: %s", cudaGetErrorString(e));
        return 0;
    }
    if (n == 0)
        snprintf(why, len, "no GPU is visible to this process");
    return n;
}

static fc_status_t fc_nccl_init(MPI_Comm comm, int local_rank, double timeout_s,
                                fc_backend_t *be)
{
    fc_nccl_t *nb = calloc(1, sizeof(*nb));
    ncclUniqueId id;
    int ndev = 0, ok = 1, all_ok;
    ncclResult_t r = ncclSuccess;

    memset(be, 0, sizeof(*be));
    if (nb == NULL)
        return FC_ERR_INTERNAL;
    be->ops = &fc_nccl_ops;
    be->comm = comm;
    be->priv = nb;
    be->last_wait_s = -1;           /* the device's wait is not the host's */
    MPI_Comm_rank(comm, &be->rank);
    MPI_Comm_size(comm, &be->size);
    nb->timeout_s = timeout_s > 0 ? timeout_s : 600;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
        ok = 0;
    else {
        nb->device = local_rank % ndev;
        ok = cudaSetDevice(nb->device) == cudaSuccess &&
             cudaStreamCreateWithFlags(&nb->stream, cudaStreamNonBlocking) == cudaSuccess &&
             cudaEventCreate(&nb->start) == cudaSuccess &&
             cudaEventCreate(&nb->stop) == cudaSuccess;
    }
    if (be->rank == 0 && ok)
        ok = ncclGetUniqueId(&id) == ncclSuccess;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        fc_error("cannot set up device %d for NCCL (or a peer could not)", nb->device);
        free(nb);
        be->priv = NULL;
        return FC_ERR_FAIL;
    }
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
    r = ncclCommInitRank(&nb->comm, be->size, id, be->rank);
    ok = r == ncclSuccess;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        fc_error("ncclCommInitRank on device %d: %s", nb->device,
                 r == ncclSuccess ? "a peer failed" : ncclGetErrorString(r));
        /* abort, not destroy: destroying finalizes, which waits for peers
         * whose communicator never came up */
        if (ok)
            ncclCommAbort(nb->comm);
        free(nb);
        be->priv = NULL;
        return FC_ERR_FAIL;
    }
    return FC_OK;
}

static fc_status_t fc_nccl_describe(const fc_backend_t *be, char *json, size_t len)
{
    const fc_nccl_t *nb = be->priv;
    struct cudaDeviceProp prop;
    int driver = 0, runtime = 0, nccl = 0;
    char pci[32] = "", uuid[40] = "";

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
    snprintf(json, len, "{\"device\":%d,\"gpu\":\"%s\",\"uuid\":\"GPU-%s\","
             "\"pci_bus_id\":\"%s\",\"cuda_driver\":%d,\"cuda_runtime\":%d,"
             "\"nccl\":%d}", nb->device, prop.name, uuid, pci, driver, runtime, nccl);
    return FC_OK;
}

const fc_gpu_plugin_t fc_gpu_plugin_v1 = {
    FC_GPU_PLUGIN_ABI, fc_nccl_device_count, fc_nccl_init, fc_nccl_describe,
};
