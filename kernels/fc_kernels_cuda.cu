/*
 * fc_kernels_cuda.cu - see fc_kernels_cuda.h. The kernels are templates per
 * (type, op), instantiated for every pair and picked from a table once per
 * call, so no switch runs per element; each thread's work is the shared
 * code of fc_kernels_dev.h (16-byte loads issued FC_UNROLL at a time, then
 * checked). Grids are grid-stride loops of at most FC_BLOCKS_PER_SM blocks
 * per SM; a block reduces its threads' counts in registers and shared
 * memory and makes one atomic per block. The device and pinned host words
 * the results travel through belong to a workspace (fc_cuda_ws_t) made
 * once per GPU, so no call allocates.
 *
 * Launch errors: cudaGetLastError returns the last error of any runtime
 * call of this thread, including a cudaErrorNotReady left by a polling
 * cudaEventQuery (the runtime records it; PyTorch clears it for the same
 * reason, pytorch/pytorch#61554). Every launch here is checked by
 * fc_launched(), which clears that state before the launch and reads it
 * after, so what a wrapper returns is its own launch's error.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_kernels_cuda.h"
#include "fc_kernels_dev.h"

#define FC_THREADS 256
#define FC_BLOCKS_PER_SM 4

typedef struct fc_dev_result {
    unsigned long long wrong;
    unsigned long long first;       /* position, ~0 if none */
    unsigned long long expected, actual;
    unsigned long long digest;
} fc_dev_result_t;

struct fc_cuda_ws {
    int device;
    int sms;
    fc_dev_result_t *dres;          /* device */
    fc_dev_result_t *hres;          /* pinned host copy */
};

struct fc_cuda_gate {
    volatile uint32_t *flag;        /* host-mapped: the ticket released */
    volatile uint32_t *expired;     /* host-mapped: a gate gave up */
    uint32_t armed;                 /* the ticket of the gates enqueued */
    unsigned long long max_ns;
};

/* ---- kernels ------------------------------------------------------------ */

template <int DT, int OP>
__global__ void __launch_bounds__(FC_THREADS)
fc_verify_kernel(fc_pattern_t p, int32_t src, uint64_t index_base, const uint8_t *buf,
                 size_t count, fc_dev_result_t *res)
{
    unsigned long long wrong = 0, first = ~0ull;

    fc_verify_thread<DT, OP>(&p, src, index_base, buf, count,
                             blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                             (size_t)gridDim.x * blockDim.x, &wrong, &first);
    fc_block_reduce<FC_THREADS>(&wrong, &first);
    if (threadIdx.x == 0 && wrong) {
        atomicAdd(&res->wrong, wrong);
        atomicMin(&res->first, first);
    }
}

template <typename T>
__global__ void __launch_bounds__(FC_THREADS)
fc_untouched_kernel(const uint8_t *buf, size_t count, T expected, fc_dev_result_t *res)
{
    unsigned long long wrong = 0, first = ~0ull;

    fc_untouched_thread<T>(buf, count, expected, blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                           (size_t)gridDim.x * blockDim.x, &wrong, &first);
    fc_block_reduce<FC_THREADS>(&wrong, &first);
    if (threadIdx.x == 0 && wrong) {
        atomicAdd(&res->wrong, wrong);
        atomicMin(&res->first, first);
    }
}

template <int DT, int OP>
__global__ void __launch_bounds__(FC_THREADS)
fc_fill_kernel(fc_pattern_t p, int32_t rank, uint64_t index_base, uint8_t *buf, size_t count)
{
    fc_fill_thread<DT, OP>(&p, rank, index_base, buf, count,
                           blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                           (size_t)gridDim.x * blockDim.x);
}

__global__ void __launch_bounds__(FC_THREADS)
fc_digest_kernel(const uint8_t *buf, size_t bytes, fc_dev_result_t *res)
{
    unsigned long long acc = fc_digest_thread(buf, bytes,
                                              blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                                              (size_t)gridDim.x * blockDim.x);
    unsigned long long none = ~0ull;

    fc_block_reduce<FC_THREADS>(&acc, &none);
    if (threadIdx.x == 0)
        atomicAdd(&res->digest, acc);
}

__global__ void fc_reset_kernel(fc_dev_result_t *res)
{
    res->wrong = 0;
    res->first = ~0ull;
    res->expected = res->actual = 0;
    res->digest = 0;
}

/* the expected and actual bits at the first wrong position (one thread) */
__global__ void fc_first_kernel(fc_pattern_t p, int32_t src, uint64_t index_base,
                                const uint8_t *buf, int size, fc_dev_result_t *res)
{
    uint64_t mask = size == 8 ? ~0ull : ((1ull << (8 * size)) - 1), k = res->first;

    if (k == ~0ull)
        return;
    res->expected = fc_pattern_expected_bits(&p, src, index_base + k) & mask;
    switch (size) {
    case 1: res->actual = buf[k]; break;
    case 2: res->actual = ((const uint16_t *)buf)[k]; break;
    case 4: res->actual = ((const uint32_t *)buf)[k]; break;
    default: res->actual = ((const uint64_t *)buf)[k]; break;
    }
}

/* an untouched buffer's first changed element: its bits and the known
 * byte repeated (one thread) */
__global__ void fc_untouched_first_kernel(const uint8_t *buf, int size, uint64_t expected,
                                          fc_dev_result_t *res)
{
    uint64_t k = res->first;

    if (k == ~0ull)
        return;
    res->expected = expected;
    switch (size) {
    case 1: res->actual = buf[k]; break;
    case 2: res->actual = ((const uint16_t *)buf)[k]; break;
    case 4: res->actual = ((const uint32_t *)buf)[k]; break;
    default: res->actual = ((const uint64_t *)buf)[k]; break;
    }
}

__global__ void fc_flip_kernel(uint8_t *buf, size_t byte, int bit)
{
    buf[byte] ^= (uint8_t)(1u << bit);
}

/* %globaltimer: the 64-bit global nanosecond timer (PTX ISA, "Special
 * Registers: %globaltimer") */
__device__ static unsigned long long fc_globaltimer(void)
{
    unsigned long long t;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Hold the stream until the host releases ticket (or max_ns passes: then
 * say so, so that no wait depends on the host alone). */
__global__ void fc_gate_kernel(const volatile uint32_t *flag, uint32_t ticket,
                               unsigned long long max_ns, volatile uint32_t *expired)
{
    unsigned long long t0 = fc_globaltimer();

    while ((int32_t)(*flag - ticket) < 0) {
        if (fc_globaltimer() - t0 > max_ns) {
            *expired = 1;
            return;
        }
        __nanosleep(500);
    }
}

/* ---- dispatch ----------------------------------------------------------- */

typedef void (*fc_verify_fn_t)(fc_pattern_t, int32_t, uint64_t, const uint8_t *, size_t,
                               fc_dev_result_t *);
typedef void (*fc_fill_fn_t)(fc_pattern_t, int32_t, uint64_t, uint8_t *, size_t);

#define FC_BY_OP(K, DT) { K<DT, FC_OP_SUM>, K<DT, FC_OP_PROD>, K<DT, FC_OP_MIN>, \
                          K<DT, FC_OP_MAX>, K<DT, FC_OP_NONE> }
#define FC_BY_TYPE(K) { FC_BY_OP(K, FC_INT32), FC_BY_OP(K, FC_INT64), FC_BY_OP(K, FC_UINT8), \
                        FC_BY_OP(K, FC_FLOAT32), FC_BY_OP(K, FC_FLOAT64),                    \
                        FC_BY_OP(K, FC_FLOAT16), FC_BY_OP(K, FC_BFLOAT16) }

static const fc_verify_fn_t fc_verify_table[FC_DTYPE_COUNT][FC_OP_COUNT] =
    FC_BY_TYPE(fc_verify_kernel);
static const fc_fill_fn_t fc_fill_table[FC_DTYPE_COUNT][FC_OP_COUNT] =
    FC_BY_TYPE(fc_fill_kernel);

static int fc_valid(const fc_pattern_t *p)
{
    return p->dtype >= 0 && p->dtype < FC_DTYPE_COUNT && p->op >= 0 && p->op < FC_OP_COUNT;
}

/* Blocks for `units` of per-thread work: enough to cover it, at most
 * FC_BLOCKS_PER_SM per SM (the grid-stride loop does the rest). */
static unsigned fc_grid(const fc_cuda_ws_t *ws, size_t units)
{
    size_t blocks = (units + FC_THREADS - 1) / FC_THREADS;
    size_t cap = (size_t)ws->sms * FC_BLOCKS_PER_SM;

    return blocks == 0 ? 1 : (unsigned)(blocks < cap ? blocks : cap);
}

static void fc_clear_stale_error(void)
{
    (void)cudaGetLastError();
}

/* after a launch: its own error (the state was cleared before it) */
static int fc_launched(void)
{
    return (int)cudaGetLastError();
}

extern "C" {

const char *fc_cuda_error_string(int err)
{
    return cudaGetErrorString((cudaError_t)err);
}

int fc_cuda_device_count(char *why, size_t len)
{
    int n = 0, driver = 0, runtime = 0;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e == cudaErrorInsufficientDriver) {
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        /* "If no driver is installed, then 0 is returned as the driver
         * version" (CUDA Runtime API, cudaDriverGetVersion): no GPU here,
         * not an old driver */
        if (driver == 0) {
            snprintf(why, len, "no usable GPU: no NVIDIA driver is installed (libcuda.so.1 "
                     "not found)");
            fc_clear_stale_error();
            return 0;
        }
        snprintf(why, len, "the GPU driver (CUDA %d.%d) is older than the CUDA runtime "
                 "the plugin was built with (%d.%d; CUDA 13 needs an R580 or newer "
                 "driver): rebuild with CUDA_HOME set to the node's own CUDA toolkit "
                 "(docs/gpus.md)", driver / 1000, driver % 1000 / 10, runtime / 1000,
                 runtime % 1000 / 10);
        fc_clear_stale_error();
        return 0;
    }
    if (e != cudaSuccess) {
        snprintf(why, len, "no usable GPU: %s", cudaGetErrorString(e));
        fc_clear_stale_error();
        return 0;
    }
    if (n == 0)
        snprintf(why, len, "no GPU is visible to this process (CUDA_VISIBLE_DEVICES=%s)",
                 getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
    return n;
}

int fc_cuda_ws_create(fc_cuda_ws_t **ws_p)
{
    fc_cuda_ws_t *ws = (fc_cuda_ws_t *)calloc(1, sizeof(*ws));
    cudaError_t e;

    if (ws == NULL)
        return (int)cudaErrorMemoryAllocation;
    if ((e = cudaGetDevice(&ws->device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&ws->sms, cudaDevAttrMultiProcessorCount,
                                    ws->device)) != cudaSuccess)
        goto fail_ws;
    if ((e = cudaMalloc((void **)&ws->dres, sizeof(*ws->dres))) != cudaSuccess)
        goto fail_ws;
    if ((e = cudaMallocHost((void **)&ws->hres, sizeof(*ws->hres))) != cudaSuccess)
        goto fail_dres;
    *ws_p = ws;
    return 0;
fail_dres:
    cudaFree(ws->dres);
fail_ws:
    free(ws);
    return (int)e;
}

void fc_cuda_ws_destroy(fc_cuda_ws_t *ws)
{
    if (ws == NULL)
        return;
    cudaFree(ws->dres);
    cudaFreeHost(ws->hres);
    free(ws);
}

int fc_cuda_fill(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t rank, uint64_t index_base,
                 void *dbuf, size_t count, void *stream)
{
    size_t esize = (size_t)fc_dtype_size(p->dtype);

    if (!fc_valid(p))
        return (int)cudaErrorInvalidValue;
    if (count == 0)
        return 0;
    fc_clear_stale_error();
    fc_fill_table[p->dtype][p->op]<<<fc_grid(ws, count * esize / FC_VEC_BYTES + 1), FC_THREADS,
                                     0, (cudaStream_t)stream>>>(*p, rank, index_base,
                                                                (uint8_t *)dbuf, count);
    return fc_launched();
}

int fc_cuda_verify_enqueue(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t src,
                           uint64_t index_base, const void *dbuf, size_t count, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t esize = (size_t)fc_dtype_size(p->dtype);
    int e;

    if (!fc_valid(p))
        return (int)cudaErrorInvalidValue;
    fc_clear_stale_error();
    fc_reset_kernel<<<1, 1, 0, s>>>(ws->dres);
    if ((e = fc_launched()) != 0)
        return e;
    if ((e = fc_cuda_verify_launch(ws, p, src, index_base, dbuf, count, stream)) != 0)
        return e;
    fc_first_kernel<<<1, 1, 0, s>>>(*p, src, index_base, (const uint8_t *)dbuf, (int)esize,
                                    ws->dres);
    if ((e = fc_launched()) != 0)
        return e;
    return (int)cudaMemcpyAsync(ws->hres, ws->dres, sizeof(*ws->hres),
                                cudaMemcpyDeviceToHost, s);
}

int fc_cuda_verify_launch(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t src,
                          uint64_t index_base, const void *dbuf, size_t count, void *stream)
{
    size_t esize = (size_t)fc_dtype_size(p->dtype);

    if (!fc_valid(p))
        return (int)cudaErrorInvalidValue;
    if (count == 0)
        return 0;
    fc_clear_stale_error();
    fc_verify_table[p->dtype][p->op]<<<fc_grid(ws, count * esize / (FC_VEC_BYTES * FC_UNROLL) + 1),
                                       FC_THREADS, 0, (cudaStream_t)stream>>>(
        *p, src, index_base, (const uint8_t *)dbuf, count, ws->dres);
    return fc_launched();
}

void fc_cuda_verify_take(const fc_cuda_ws_t *ws, uint64_t pos_base, fc_mismatch_t *m)
{
    const fc_dev_result_t *h = ws->hres;

    if (h->wrong > 0 && m->wrong == 0) {
        m->first_pos = pos_base + h->first;
        m->expected_bits = h->expected;
        m->actual_bits = h->actual;
    }
    m->wrong += h->wrong;
}

int fc_cuda_verify(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t src, uint64_t index_base,
                   const void *dbuf, size_t count, uint64_t pos_base, fc_mismatch_t *m,
                   void *stream)
{
    int e = fc_cuda_verify_enqueue(ws, p, src, index_base, dbuf, count, stream);

    /* a verify that did not run must not read as "no wrong element" */
    if (e == 0)
        e = (int)cudaStreamSynchronize((cudaStream_t)stream);
    if (e == 0)
        fc_cuda_verify_take(ws, pos_base, m);
    return e;
}

int fc_cuda_verify_untouched_enqueue(fc_cuda_ws_t *ws, const void *dbuf, size_t count,
                                     int esize, int byte, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    uint64_t rep = 0x0101010101010101ull * (uint8_t)byte;
    unsigned grid = fc_grid(ws, count / FC_UNROLL + 1);
    const uint8_t *b = (const uint8_t *)dbuf;
    int e;

    if (esize != 1 && esize != 2 && esize != 4 && esize != 8)
        return (int)cudaErrorInvalidValue;
    if (esize < 8)
        rep &= (1ull << (8 * esize)) - 1;
    fc_clear_stale_error();
    fc_reset_kernel<<<1, 1, 0, s>>>(ws->dres);
    if ((e = fc_launched()) != 0)
        return e;
    if (count > 0) {
        switch (esize) {
        case 1:
            fc_untouched_kernel<uint8_t><<<grid, FC_THREADS, 0, s>>>(b, count, (uint8_t)rep,
                                                                     ws->dres);
            break;
        case 2:
            fc_untouched_kernel<uint16_t><<<grid, FC_THREADS, 0, s>>>(b, count, (uint16_t)rep,
                                                                      ws->dres);
            break;
        case 4:
            fc_untouched_kernel<uint32_t><<<grid, FC_THREADS, 0, s>>>(b, count, (uint32_t)rep,
                                                                      ws->dres);
            break;
        default:
            fc_untouched_kernel<uint64_t><<<grid, FC_THREADS, 0, s>>>(b, count, rep, ws->dres);
            break;
        }
        if ((e = fc_launched()) != 0)
            return e;
    }
    fc_untouched_first_kernel<<<1, 1, 0, s>>>(b, esize, rep, ws->dres);
    if ((e = fc_launched()) != 0)
        return e;
    return (int)cudaMemcpyAsync(ws->hres, ws->dres, sizeof(*ws->hres),
                                cudaMemcpyDeviceToHost, s);
}

int fc_cuda_digest_enqueue(fc_cuda_ws_t *ws, const void *dbuf, size_t bytes, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    int e;

    fc_clear_stale_error();
    fc_reset_kernel<<<1, 1, 0, s>>>(ws->dres);
    if ((e = fc_launched()) != 0)
        return e;
    fc_digest_kernel<<<fc_grid(ws, bytes / (FC_VEC_BYTES * FC_UNROLL) + 1), FC_THREADS, 0, s>>>(
        (const uint8_t *)dbuf, bytes, ws->dres);
    if ((e = fc_launched()) != 0)
        return e;
    return (int)cudaMemcpyAsync(ws->hres, ws->dres, sizeof(*ws->hres),
                                cudaMemcpyDeviceToHost, s);
}

uint64_t fc_cuda_digest_take(const fc_cuda_ws_t *ws)
{
    return ws->hres->digest;
}

int fc_cuda_digest(fc_cuda_ws_t *ws, const void *dbuf, size_t bytes, uint64_t *digest_p,
                   void *stream)
{
    int e = fc_cuda_digest_enqueue(ws, dbuf, bytes, stream);

    if (e == 0)
        e = (int)cudaStreamSynchronize((cudaStream_t)stream);
    if (e == 0)
        *digest_p = fc_cuda_digest_take(ws);
    return e;
}

int fc_cuda_poison(void *dbuf, size_t bytes, int byte, void *stream)
{
    return (int)cudaMemsetAsync(dbuf, byte, bytes, (cudaStream_t)stream);
}

int fc_cuda_flip_bit(void *dbuf, size_t byte, int bit, void *stream)
{
    fc_clear_stale_error();
    fc_flip_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((uint8_t *)dbuf, byte, bit);
    return fc_launched();
}

/* ---- the gate ----------------------------------------------------------- */

int fc_cuda_gate_create(double max_s, fc_cuda_gate_t **gate_p)
{
    fc_cuda_gate_t *g = (fc_cuda_gate_t *)calloc(1, sizeof(*g));
    uint32_t *words = NULL;
    cudaError_t e;

    if (g == NULL)
        return (int)cudaErrorMemoryAllocation;
    /* mapped and portable: every GPU of the process reads the same words */
    e = cudaHostAlloc((void **)&words, 2 * sizeof(uint32_t),
                      cudaHostAllocMapped | cudaHostAllocPortable);
    if (e != cudaSuccess) {
        free(g);
        return (int)e;
    }
    words[0] = words[1] = 0;
    g->flag = words;
    g->expired = words + 1;
    g->max_ns = (unsigned long long)(max_s * 1e9);
    *gate_p = g;
    return 0;
}

void fc_cuda_gate_destroy(fc_cuda_gate_t *g)
{
    if (g == NULL)
        return;
    cudaFreeHost((void *)g->flag);
    free(g);
}

uint32_t fc_cuda_gate_arm(fc_cuda_gate_t *g)
{
    return ++g->armed;
}

int fc_cuda_gate_hold(fc_cuda_gate_t *g, void *stream)
{
    uint32_t *dflag = NULL, *dexp = NULL;
    cudaError_t e;

    /* the device's address of each mapped word (the same address under
     * unified addressing, but asked for, per the runtime's contract) */
    if ((e = cudaHostGetDevicePointer((void **)&dflag, (void *)g->flag, 0)) != cudaSuccess ||
        (e = cudaHostGetDevicePointer((void **)&dexp, (void *)g->expired, 0)) != cudaSuccess)
        return (int)e;
    fc_clear_stale_error();
    fc_gate_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(dflag, g->armed, g->max_ns, dexp);
    return fc_launched();
}

void fc_cuda_gate_release(fc_cuda_gate_t *g)
{
    __atomic_store_n((uint32_t *)g->flag, g->armed, __ATOMIC_SEQ_CST);
}

int fc_cuda_gate_expired(fc_cuda_gate_t *g)
{
    int was = (int)__atomic_exchange_n((uint32_t *)g->expired, 0u, __ATOMIC_SEQ_CST);

    return was != 0;
}

}
