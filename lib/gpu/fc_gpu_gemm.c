/*
 * fc_gpu_gemm.c - the overlap stage's GEMM burn in the GPU plugin (ABI 4
 * of lib/base/fc_plugin.h: gemm_open_func and the three after it): one kind of
 * lib/gpu/fc_burn.h opened once on a stream of its own (not the nccl
 * backend's, nor burn_func's), its batches enqueued (fc_burn_start) and
 * waited for (fc_burn_finish) apart, so that a collective on the backend's
 * stream runs beside them. Every C is digested and compared bit for bit
 * with the burn's first.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_burn.h"
#include "fc_gpu_gemm.h"

struct fc_gpu_gemm {
    fc_burn_t *burn;
    cudaStream_t stream;
    int device;
    char devname[96];
};

#define FC_GEMM_N 4096      /* about 0.1 to 1 ms a GEMM: a 20 ms phase is many */

void fc_gpu_gemm_close(fc_gpu_gemm_t *g)
{
    if (g == NULL)
        return;
    cudaSetDevice(g->device);
    fc_burn_close(g->burn);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g);
}

fc_gpu_gemm_t *fc_gpu_gemm_open_on(int device, const char *devname, const char *kind,
                                   uint32_t seed, char *why, size_t len)
{
    fc_gpu_gemm_t *g = calloc(1, sizeof(*g));
    int k = fc_burn_kind_from_name(kind);
    fc_burn_result_t r;
    cudaError_t e;

    if (g == NULL || k < 0) {
        if (g == NULL)
            snprintf(why, len, "out of memory for a GEMM burn");
        else
            snprintf(why, len, "no burn kind '%s' (bf16, fp16, fp64)", kind);
        free(g);
        return NULL;
    }
    g->device = device;
    snprintf(g->devname, sizeof(g->devname), "%s", devname);
    if ((e = cudaSetDevice(device)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        snprintf(why, len, "a burn stream on %s: %s", devname, cudaGetErrorString(e));
        fc_gpu_gemm_close(g);
        return NULL;
    }
    if (fc_burn_open(k, FC_GEMM_N, seed, g->stream, &g->burn, &r) != 0) {
        snprintf(why, len, "the %s GEMM burn on %s: %s", kind, devname, r.why);
        fc_gpu_gemm_close(g);
        return NULL;
    }
    return g;
}

fc_status_t fc_gpu_gemm_start(fc_gpu_gemm_t *g, long gemms, char *why, size_t len)
{
    fc_burn_result_t r;

    if (cudaSetDevice(g->device) != cudaSuccess || fc_burn_start(g->burn, gemms, &r) != 0) {
        snprintf(why, len, "enqueueing %ld GEMMs on %s: %s", gemms, g->devname, r.why);
        return FC_ERR_FAIL;
    }
    return FC_OK;
}

fc_status_t fc_gpu_gemm_wait(fc_gpu_gemm_t *g, double timeout_s,
                                     fc_gpu_gemm_result_t *out, char *why, size_t len)
{
    fc_burn_result_t r;
    int e;

    memset(out, 0, sizeof(*out));
    out->first_bad = -1;
    if ((e = fc_burn_finish(g->burn, timeout_s, &r)) != 0) {
        snprintf(why, len, "GEMMs on %s: %s", g->devname, r.why);
        return e == (int)cudaErrorLaunchTimeout ? FC_ERR_TIMEOUT : FC_ERR_FAIL;
    }
    out->gemms = r.iters;
    out->gpu_s = r.gemm_s;
    out->mismatched = r.mismatched;
    out->first_bad = r.first_bad;
    out->digest = r.digest;
    out->bad_digest = r.bad_digest;
    out->n = r.n;
    snprintf(out->kind, sizeof(out->kind), "%s", fc_burn_kind_name(r.kind));
    snprintf(out->algo, sizeof(out->algo), "%s", r.algo);
    return FC_OK;
}
