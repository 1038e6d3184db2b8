/*
 * fc_burn.cu - see fc_burn.h. A burn of one kind is opened once: allocate
 * A, B, C, a workspace and the digest slots, fill A and B from the hash,
 * set up one cuBLASLt matmul and keep the heuristic's first algorithm.
 * Each step then runs GEMMs in windows of FC_BURN_WINDOW: each GEMM between
 * its own pair of events, each C digested into its own slot. The next
 * window is enqueued before the previous one is waited for (a bounded poll
 * of its last event), so the GPU never idles between windows; the digests
 * come back once, at the end of the step, and are compared with its
 * first. Steps allocate and free nothing (cudaFree can wait for the whole
 * device, which the soak's collectives beside the burn must not), so a
 * soak opens each kind once and steps it chunk after chunk.
 */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_burn.h"
#include "fc_kernels_dev.h"

#define FC_BURN_WINDOW 8
#define FC_BURN_MAX_ITERS (1 << 20)
#define FC_BURN_WORKSPACE (32u << 20)
#define FC_BURN_THREADS 256

static const char *const fc_burn_names[FC_BURN_KINDS] = { "bf16", "fp16", "fp64" };

/* value of element i of matrix m: 24 random bits in [-0.5, 0.5) */
__device__ static float fc_burn_value(uint32_t seed, uint32_t m, uint64_t i)
{
    uint32_t h = fc_hash32(fc_index_fold(i), seed ^ (0x9E3779B9u * (m + 1)));

    return (float)(h >> 8) * (1.0f / 16777216.0f) - 0.5f;
}

__global__ void fc_burn_fill_kernel(int kind, uint32_t seed, uint32_t m, void *buf, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = fc_burn_value(seed, m, i);

        if (kind == FC_BURN_BF16)
            ((__nv_bfloat16 *)buf)[i] = __float2bfloat16_rn(v);
        else if (kind == FC_BURN_FP16)
            ((__half *)buf)[i] = __float2half_rn(v);
        else
            ((double *)buf)[i] = (double)v;
    }
}

__global__ void __launch_bounds__(FC_BURN_THREADS)
fc_burn_digest_kernel(const uint8_t *buf, size_t bytes, unsigned long long *slot)
{
    unsigned long long acc = fc_digest_thread(buf, bytes,
                                              blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                                              (size_t)gridDim.x * blockDim.x);
    unsigned long long none = ~0ull;

    fc_block_reduce<FC_BURN_THREADS>(&acc, &none);
    if (threadIdx.x == 0)
        atomicAdd(slot, acc);
}

struct fc_burn {
    int kind, n, sms;
    size_t esize;
    void *a, *b, *c, *work;
    unsigned long long *slots;
    cudaEvent_t ev[2 * 2 * FC_BURN_WINDOW];
    int nev;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulAlgo_t algo;
    cudaStream_t s;
    int broken;             /* a step failed: the GPU may still use the buffers */
    /* fc_burn_start's batch: its size, the digests' pinned copy, the
     * reference digest (the first C of the first batch) */
    long pending;
    unsigned long long *host;
    int have_ref;
    unsigned long long ref;
    char algo_text[192];    /* r->algo of the open */
};
typedef struct fc_burn fc_burn_ctx_t;

static double fc_burn_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define FC_BURN_CUDA(r, call)                                                          \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            snprintf((r)->why, sizeof((r)->why), "%s: %s (%s:%d)", #call,             \
                     cudaGetErrorString(e_), __FILE__, __LINE__);                      \
            return (int)e_;                                                            \
        }                                                                              \
    } while (0)

#define FC_BURN_BLAS(r, call)                                                          \
    do {                                                                               \
        cublasStatus_t s_ = (call);                                                    \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                             \
            snprintf((r)->why, sizeof((r)->why), "%s: %s (%s:%d)", #call,             \
                     cublasLtGetStatusString(s_), __FILE__, __LINE__);                 \
            return (int)s_;                                                            \
        }                                                                              \
    } while (0)

static void fc_burn_free(fc_burn_ctx_t *x)
{
    for (int i = 0; i < x->nev; ++i)
        cudaEventDestroy(x->ev[i]);
    if (x->pref) cublasLtMatmulPreferenceDestroy(x->pref);
    if (x->la) cublasLtMatrixLayoutDestroy(x->la);
    if (x->lb) cublasLtMatrixLayoutDestroy(x->lb);
    if (x->lc) cublasLtMatrixLayoutDestroy(x->lc);
    if (x->op) cublasLtMatmulDescDestroy(x->op);
    if (x->lt) cublasLtDestroy(x->lt);
    cudaFree(x->a);
    cudaFree(x->b);
    cudaFree(x->c);
    cudaFree(x->work);
    cudaFree(x->slots);
    cudaFreeHost(x->host);
}

/* Buffers for n x n, halving n while the GPU lacks the memory. */
static int fc_burn_alloc(fc_burn_ctx_t *x, int n, fc_burn_result_t *r)
{
    for (; n >= 1024; n /= 2) {
        size_t bytes = (size_t)n * n * x->esize;

        if (cudaMalloc(&x->a, bytes) == cudaSuccess && cudaMalloc(&x->b, bytes) == cudaSuccess &&
            cudaMalloc(&x->c, bytes) == cudaSuccess)
            break;
        cudaFree(x->a);
        cudaFree(x->b);
        cudaFree(x->c);
        x->a = x->b = x->c = NULL;
        (void)cudaGetLastError();
    }
    if (x->a == NULL) {
        snprintf(r->why, sizeof(r->why), "no memory for three 1024 x 1024 %s matrices",
                 fc_burn_names[x->kind]);
        return (int)cudaErrorMemoryAllocation;
    }
    x->n = n;
    FC_BURN_CUDA(r, cudaMalloc(&x->work, FC_BURN_WORKSPACE));
    FC_BURN_CUDA(r, cudaMalloc((void **)&x->slots, FC_BURN_MAX_ITERS * sizeof(*x->slots)));
    FC_BURN_CUDA(r, cudaMemsetAsync(x->slots, 0, FC_BURN_MAX_ITERS * sizeof(*x->slots), x->s));
    for (; x->nev < (int)(sizeof(x->ev) / sizeof(x->ev[0])); ++x->nev)
        FC_BURN_CUDA(r, cudaEventCreate(&x->ev[x->nev]));
    return 0;
}

/* The matmul and its one algorithm. */
static int fc_burn_setup(fc_burn_ctx_t *x, fc_burn_result_t *r)
{
    cudaDataType_t t = x->kind == FC_BURN_BF16 ? CUDA_R_16BF :
                       x->kind == FC_BURN_FP16 ? CUDA_R_16F : CUDA_R_64F;
    cublasComputeType_t ct = x->kind == FC_BURN_FP64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    cudaDataType_t st = x->kind == FC_BURN_FP64 ? CUDA_R_64F : CUDA_R_32F;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    uint64_t ws = FC_BURN_WORKSPACE;
    uint32_t mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    cublasLtMatmulHeuristicResult_t h;
    int found = 0, id = -1, splitk = 1;
    uint32_t tile = 0, stages = 0, scheme = 0;

    memset(&h, 0, sizeof(h));
    FC_BURN_BLAS(r, cublasLtCreate(&x->lt));
    FC_BURN_BLAS(r, cublasLtMatmulDescCreate(&x->op, ct, st));
    FC_BURN_BLAS(r, cublasLtMatmulDescSetAttribute(x->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    FC_BURN_BLAS(r, cublasLtMatmulDescSetAttribute(x->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    FC_BURN_BLAS(r, cublasLtMatrixLayoutCreate(&x->la, t, x->n, x->n, x->n));
    FC_BURN_BLAS(r, cublasLtMatrixLayoutCreate(&x->lb, t, x->n, x->n, x->n));
    FC_BURN_BLAS(r, cublasLtMatrixLayoutCreate(&x->lc, t, x->n, x->n, x->n));
    FC_BURN_BLAS(r, cublasLtMatmulPreferenceCreate(&x->pref));
    FC_BURN_BLAS(r, cublasLtMatmulPreferenceSetAttribute(x->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    FC_BURN_BLAS(r, cublasLtMatmulPreferenceSetAttribute(x->pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof(mask)));
    FC_BURN_BLAS(r, cublasLtMatmulAlgoGetHeuristic(x->lt, x->op, x->la, x->lb, x->lc, x->lc,
                                                   x->pref, 1, &h, &found));
    if (found < 1 || h.state != CUBLAS_STATUS_SUCCESS) {
        snprintf(r->why, sizeof(r->why), "cuBLASLt has no algorithm for a %d x %d %s GEMM",
                 x->n, x->n, fc_burn_names[x->kind]);
        return (int)CUBLAS_STATUS_NOT_SUPPORTED;
    }
    x->algo = h.algo;
    cublasLtMatmulAlgoConfigGetAttribute(&x->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), NULL);
    cublasLtMatmulAlgoConfigGetAttribute(&x->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile), NULL);
    cublasLtMatmulAlgoConfigGetAttribute(&x->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages), NULL);
    cublasLtMatmulAlgoConfigGetAttribute(&x->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk), NULL);
    cublasLtMatmulAlgoConfigGetAttribute(&x->algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof(scheme), NULL);
    snprintf(r->algo, sizeof(r->algo), "cublasLt %zu algo %d tile %u stages %u splitk %d "
             "reduction %u, %d SMs", cublasLtGetVersion(), id, tile, stages, splitk, scheme,
             x->sms);
    return 0;
}

/* One iteration: GEMM between events e0, e1; then C's digest into slot. */
static int fc_burn_iter(fc_burn_ctx_t *x, long it, cudaEvent_t e0, cudaEvent_t e1,
                        fc_burn_result_t *r)
{
    float af = 1.0f, bf = 0.0f;
    double ad = 1.0, bd = 0.0;
    const void *alpha = x->kind == FC_BURN_FP64 ? (const void *)&ad : (const void *)&af;
    const void *beta = x->kind == FC_BURN_FP64 ? (const void *)&bd : (const void *)&bf;
    size_t bytes = (size_t)x->n * x->n * x->esize;
    unsigned grid = (unsigned)(x->sms * 4);

    FC_BURN_CUDA(r, cudaEventRecord(e0, x->s));
    FC_BURN_BLAS(r, cublasLtMatmul(x->lt, x->op, alpha, x->a, x->la, x->b, x->lb, beta, x->c,
                                   x->lc, x->c, x->lc, &x->algo, x->work, FC_BURN_WORKSPACE, x->s));
    FC_BURN_CUDA(r, cudaEventRecord(e1, x->s));
    (void)cudaGetLastError();
    fc_burn_digest_kernel<<<grid, FC_BURN_THREADS, 0, x->s>>>((const uint8_t *)x->c, bytes,
                                                              x->slots + it);
    FC_BURN_CUDA(r, cudaGetLastError());
    return 0;
}

/* Wait for an event, polling (bounded: a GEMM window never takes this long). */
static int fc_burn_wait(cudaEvent_t e, double limit_s, fc_burn_result_t *r)
{
    double t0 = fc_burn_wall();
    cudaError_t q;

    while ((q = cudaEventQuery(e)) == cudaErrorNotReady) {
        (void)cudaGetLastError();       /* pending is not an error */
        if (fc_burn_wall() - t0 > limit_s) {
            snprintf(r->why, sizeof(r->why), "GEMMs (a window of at most %d, or a batch of "
                     "at most %d) made no progress for %.0f s", FC_BURN_WINDOW,
                     FC_BURN_BATCH_MAX, limit_s);
            return (int)cudaErrorLaunchTimeout;
        }
        usleep(200);
    }
    FC_BURN_CUDA(r, q);
    return 0;
}

static int fc_burn_run(fc_burn_ctx_t *x, double seconds, fc_burn_result_t *r)
{
    long issued = 0, done = 0;
    int size[2] = { 0, 0 }, e;
    double t0;

    t0 = fc_burn_wall();
    /* two windows in flight: window w is enqueued into one half of the
     * events, then window w - 1 (the other half) is waited for and read */
    for (int w = 0;; ++w) {
        int half = w % 2;
        int stop = (fc_burn_wall() - t0 >= seconds && w >= 2) ||
                   issued + FC_BURN_WINDOW > FC_BURN_MAX_ITERS;

        size[half] = stop ? 0 : FC_BURN_WINDOW;
        for (int k = 0; k < size[half]; ++k, ++issued)
            if ((e = fc_burn_iter(x, issued, x->ev[(half * FC_BURN_WINDOW + k) * 2],
                                  x->ev[(half * FC_BURN_WINDOW + k) * 2 + 1], r)) != 0)
                return e;
        for (int k = 0; w > 0 && k < size[1 - half]; ++k, ++done) {
            int i = ((1 - half) * FC_BURN_WINDOW + k) * 2;
            float ms = 0;

            if ((e = fc_burn_wait(x->ev[i + 1], 60 + seconds, r)) != 0)
                return e;
            FC_BURN_CUDA(r, cudaEventElapsedTime(&ms, x->ev[i], x->ev[i + 1]));
            r->gemm_s += ms * 1e-3;
        }
        if (stop)
            break;
    }
    r->iters = done;
    return 0;
}

extern "C" {

const char *fc_burn_kind_name(int kind)
{
    return kind >= 0 && kind < FC_BURN_KINDS ? fc_burn_names[kind] : "?";
}

int fc_burn_kind_from_name(const char *name)
{
    for (int k = 0; k < FC_BURN_KINDS; ++k)
        if (strcmp(name, fc_burn_names[k]) == 0)
            return k;
    return -1;
}

/* After an error the GPU may still be using the buffers: free them only
 * once the stream is idle (a bounded wait), else leave them. */
static void fc_burn_release(fc_burn_ctx_t *x)
{
    if (x->broken) {
        cudaEvent_t idle;
        fc_burn_result_t scratch;

        if (cudaEventCreateWithFlags(&idle, cudaEventDisableTiming) != cudaSuccess ||
            cudaEventRecord(idle, x->s) != cudaSuccess || fc_burn_wait(idle, 60, &scratch) != 0) {
            (void)cudaGetLastError();
            return;                     /* the buffers stay: the GPU is stuck or gone */
        }
        cudaEventDestroy(idle);
    }
    fc_burn_free(x);
}

int fc_burn_open(int kind, int n, uint32_t seed, void *stream, fc_burn_t **burn_p,
                 fc_burn_result_t *r)
{
    fc_burn_ctx_t *x;
    int device = 0, e;
    size_t count;

    memset(r, 0, sizeof(*r));
    r->kind = kind;
    r->first_bad = -1;
    *burn_p = NULL;
    if (kind < 0 || kind >= FC_BURN_KINDS) {
        snprintf(r->why, sizeof(r->why), "no burn kind %d", kind);
        return (int)cudaErrorInvalidValue;
    }
    if ((x = (fc_burn_ctx_t *)calloc(1, sizeof(*x))) == NULL) {
        snprintf(r->why, sizeof(r->why), "out of memory for a burn");
        return (int)cudaErrorMemoryAllocation;
    }
    x->kind = kind;
    x->esize = kind == FC_BURN_FP64 ? 8 : 2;
    x->s = (cudaStream_t)stream;
    e = (int)cudaGetDevice(&device);
    if (e == 0)
        e = (int)cudaDeviceGetAttribute(&x->sms, cudaDevAttrMultiProcessorCount, device);
    if (e != 0)
        snprintf(r->why, sizeof(r->why), "the device: %s", cudaGetErrorString((cudaError_t)e));
    if (e == 0)
        e = fc_burn_alloc(x, n > 0 ? n : 8192, r);
    r->n = x->n;
    count = (size_t)x->n * x->n;
    if (e == 0) {
        fc_burn_fill_kernel<<<x->sms * 4, 256, 0, x->s>>>(x->kind, seed, 0, x->a, count);
        fc_burn_fill_kernel<<<x->sms * 4, 256, 0, x->s>>>(x->kind, seed, 1, x->b, count);
        if ((e = (int)cudaGetLastError()) != 0)
            snprintf(r->why, sizeof(r->why), "the fill kernels: %s",
                     cudaGetErrorString((cudaError_t)e));
    }
    if (e == 0)
        e = fc_burn_setup(x, r);
    if (e != 0) {
        x->broken = 1;
        fc_burn_release(x);
        free(x);
        return e;
    }
    snprintf(x->algo_text, sizeof(x->algo_text), "%s", r->algo);
    *burn_p = x;
    return 0;
}

/* The result of a step or a batch of the open burn x: zeroed, with its
 * kind, size and GEMM algorithm, no iteration bad yet. */
static void fc_burn_result_begin(const fc_burn_ctx_t *x, fc_burn_result_t *r)
{
    memset(r, 0, sizeof(*r));
    r->kind = x->kind;
    r->first_bad = -1;
    r->n = x->n;
    snprintf(r->algo, sizeof(r->algo), "%s", x->algo_text);
}

int fc_burn_step(fc_burn_t *x, double seconds, fc_burn_result_t *r)
{
    unsigned long long *host = NULL;
    int e;

    fc_burn_result_begin(x, r);
    if (x->broken) {
        snprintf(r->why, sizeof(r->why), "an earlier step of this burn failed");
        return (int)cudaErrorInvalidValue;
    }
    e = (int)cudaMemsetAsync(x->slots, 0, FC_BURN_MAX_ITERS * sizeof(*x->slots), x->s);
    if (e != 0)
        snprintf(r->why, sizeof(r->why), "cudaMemsetAsync: %s",
                 cudaGetErrorString((cudaError_t)e));
    if (e == 0)
        e = fc_burn_run(x, seconds, r);
    if (e == 0 && r->iters > 0 && (host = (unsigned long long *)malloc(r->iters * sizeof(*host))) == NULL) {
        snprintf(r->why, sizeof(r->why), "out of memory for %ld digests", r->iters);
        e = (int)cudaErrorMemoryAllocation;
    }
    if (e == 0 && r->iters > 0) {
        cudaError_t ce = cudaMemcpyAsync(host, x->slots, r->iters * sizeof(*host),
                                         cudaMemcpyDeviceToHost, x->s);

        if (ce == cudaSuccess)
            ce = cudaStreamSynchronize(x->s);
        if (ce != cudaSuccess) {
            snprintf(r->why, sizeof(r->why), "copying the digests: %s", cudaGetErrorString(ce));
            e = (int)ce;
        }
    }
    if (e == 0 && r->iters > 0) {
        r->digest = host[0];
        for (long i = 1; i < r->iters; ++i)
            if (host[i] != host[0] && r->mismatched++ == 0) {
                r->first_bad = i;
                r->bad_digest = host[i];
            }
        r->tflops = r->gemm_s > 0 ? 2.0 * x->n * (double)x->n * x->n * r->iters / r->gemm_s / 1e12 : 0;
    }
    free(host);
    x->broken |= e != 0;
    return e;
}

int fc_burn_start(fc_burn_t *x, long gemms, fc_burn_result_t *r)
{
    int e;

    fc_burn_result_begin(x, r);
    if (x->broken || x->pending || gemms < 1 || gemms > FC_BURN_BATCH_MAX) {
        if (x->broken)
            snprintf(r->why, sizeof(r->why), "an earlier batch of this burn failed");
        else if (x->pending)
            snprintf(r->why, sizeof(r->why), "a batch of this burn is still pending");
        else
            snprintf(r->why, sizeof(r->why), "a batch is 1 to %d GEMMs, not %ld",
                     FC_BURN_BATCH_MAX, gemms);
        return (int)cudaErrorInvalidValue;
    }
    if (x->host == NULL)
        FC_BURN_CUDA(r, cudaMallocHost((void **)&x->host, FC_BURN_BATCH_MAX * sizeof(*x->host)));
    x->broken = 1;      /* until the whole batch is enqueued */
    FC_BURN_CUDA(r, cudaMemsetAsync(x->slots, 0, gemms * sizeof(*x->slots), x->s));
    FC_BURN_CUDA(r, cudaEventRecord(x->ev[0], x->s));
    for (long i = 0; i < gemms; ++i)
        if ((e = fc_burn_iter(x, i, x->ev[2], x->ev[3], r)) != 0)
            return e;
    FC_BURN_CUDA(r, cudaEventRecord(x->ev[1], x->s));
    FC_BURN_CUDA(r, cudaMemcpyAsync(x->host, x->slots, gemms * sizeof(*x->host),
                                    cudaMemcpyDeviceToHost, x->s));
    FC_BURN_CUDA(r, cudaEventRecord(x->ev[4], x->s));
    x->broken = 0;
    x->pending = gemms;
    return 0;
}

int fc_burn_finish(fc_burn_t *x, double timeout_s, fc_burn_result_t *r)
{
    long gemms = x->pending;
    float ms = 0;
    int e;

    fc_burn_result_begin(x, r);
    if (gemms == 0) {
        snprintf(r->why, sizeof(r->why), "no batch of this burn is pending");
        return (int)cudaErrorInvalidValue;
    }
    x->pending = 0;
    x->broken = 1;      /* until the batch is seen through */
    if ((e = fc_burn_wait(x->ev[4], timeout_s, r)) != 0)
        return e;
    FC_BURN_CUDA(r, cudaEventElapsedTime(&ms, x->ev[0], x->ev[1]));
    x->broken = 0;
    r->iters = gemms;
    r->gemm_s = ms * 1e-3;
    if (!x->have_ref) {
        x->ref = x->host[0];
        x->have_ref = 1;
    }
    r->digest = x->ref;
    for (long i = 0; i < gemms; ++i)
        if (x->host[i] != x->ref && r->mismatched++ == 0) {
            r->first_bad = i;
            r->bad_digest = x->host[i];
        }
    r->tflops = r->gemm_s > 0 ? 2.0 * x->n * (double)x->n * x->n * gemms / r->gemm_s / 1e12 : 0;
    return 0;
}

void fc_burn_close(fc_burn_t *x)
{
    if (x == NULL)
        return;
    fc_burn_release(x);
    free(x);
}

int fc_burn_gemm(int kind, int n, double seconds, uint32_t seed, void *stream,
                 fc_burn_result_t *r)
{
    fc_burn_t *x = NULL;
    int e = fc_burn_open(kind, n, seed, stream, &x, r);

    if (e == 0) {
        e = fc_burn_step(x, seconds, r);
        fc_burn_close(x);
    }
    return e;
}

json_t *fc_burn_json(const fc_burn_result_t *r)
{
    char digest[24];

    snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)r->digest);
    return json_pack("{s:s, s:i, s:I, s:f, s:f, s:s, s:I, s:I, s:s, s:s}",
                     "kind", fc_burn_kind_name(r->kind), "n", r->n,
                     "iterations", (json_int_t)r->iters, "seconds", r->gemm_s,
                     "tflops", r->tflops, "digest", digest,
                     "mismatched_iterations", (json_int_t)r->mismatched,
                     "first_bad_iteration", (json_int_t)r->first_bad, "algo", r->algo,
                     "verdict", r->mismatched == 0 && r->iters >= 2 ? "PASS" : "FAIL");
}

}
