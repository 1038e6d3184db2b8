/*
 * node_bench.c - fabcert-node-gpu --bench: the figures that say whether
 * the checking and the timing cost what they should, each beside the
 * device copy bandwidth measured in the same run on the same GPU:
 *  - copy: cudaMemcpyAsync device to device, read + write counted;
 *  - verification: the verify kernel alone (events around the kernel
 *    launches only) on a valid output it must pass, per type, as a
 *    fraction of the copy bandwidth (the target is 0.8);
 *  - all_reduce busbw over every GPU, per call (each call gated and timed
 *    by its own events, median) and batched (FC_BENCH_BATCH calls between
 *    one pair of events, time / n, as nccl-tests reports it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_node_gpu.h"
#include "fc_stats.h"

#define FC_BENCH_BATCH 20
#define FC_BENCH_ITERS 20

static double fc_copy_gbps(fc_gpu_ctx_t *g, size_t bytes)
{
    void *a, *b;
    float ms = 0;
    const int reps = 10;
    cudaStream_t s = g->streams[0];

    FC_CK(g, 0, cudaSetDevice(0));
    FC_CK(g, 0, cudaMalloc(&a, bytes));
    FC_CK(g, 0, cudaMalloc(&b, bytes));
    FC_CK(g, 0, cudaMemsetAsync(a, 1, bytes, s));
    FC_CK(g, 0, cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
    FC_CK(g, 0, cudaEventRecord(g->start[0], s));
    for (int i = 0; i < reps; ++i)
        FC_CK(g, 0, cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
    fc_node_wait(g, 0, "copy bandwidth");
    FC_CK(g, 0, cudaEventElapsedTime(&ms, g->start[0], g->stop[0]));
    cudaFree(a);
    cudaFree(b);
    /* a copy reads and writes: count both, like the verify kernel's read */
    return 2.0 * (double)bytes * reps / (ms * 1e-3) / 1e9;
}

/* The verify kernel on a valid output of type t (a move of rank 0's data:
 * every element right), timed alone. */
static void fc_verify_gbps(fc_gpu_ctx_t *g, int t, int op, size_t bytes, double copy)
{
    size_t count = bytes / (size_t)fc_dtype_size(t);
    cudaStream_t s = g->streams[0];
    fc_mismatch_t m = { 0, 0, 0, 0 };
    fc_pattern_t p;
    const int reps = 5;
    float ms = 0;
    void *buf;
    double v;

    FC_CK(g, 0, cudaMalloc(&buf, bytes));
    fc_pattern_make((fc_dtype_t)t, (fc_op_t)op, 8, 1, &p);
    if (op == FC_OP_NONE) {
        FC_CK(g, 0, fc_cuda_fill(g->ws[0], &p, 0, 0, buf, count, s));
    } else {
        /* a reduction's expected output, written by the host once */
        size_t esize = (size_t)fc_dtype_size(t);
        char *h = malloc(bytes);

        for (size_t k = 0; k < count; ++k) {
            uint64_t bits = fc_pattern_expected_bits(&p, 0, k);

            memcpy(h + k * esize, &bits, esize);
        }
        FC_CK(g, 0, cudaMemcpy(buf, h, bytes, cudaMemcpyHostToDevice));
        free(h);
    }
    /* once in full: it must pass, or the figure means nothing */
    fc_node_verify(g, 0, &p, 0, 0, buf, count, 0, &m);
    FC_CK(g, 0, cudaEventRecord(g->start[0], s));
    for (int i = 0; i < reps; ++i)
        FC_CK(g, 0, fc_cuda_verify_launch(g->ws[0], &p, 0, 0, buf, count, s));
    fc_node_wait(g, 0, "verification throughput");
    FC_CK(g, 0, cudaEventElapsedTime(&ms, g->start[0], g->stop[0]));
    v = (double)bytes * reps / (ms * 1e-3) / 1e9;
    fc_tap_diag(&g->tap, "verification kernel %s %s: %.1f GB/s read, %.2f of the copy "
                "bandwidth (target 0.8)%s", fc_dtype_info((fc_dtype_t)t)->name,
                fc_op_name((fc_op_t)op), v, v / copy,
                m.wrong ? " (WRONG ELEMENTS in a valid buffer: figure invalid)" : "");
    cudaFree(buf);
}

static int fc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void fc_busbw(fc_gpu_ctx_t *g, size_t sz)
{
    const fc_coll_desc_t *desc = fc_coll_desc(FC_COLL_ALL_REDUCE);
    void *send[FC_MAX_GPUS], *recv[FC_MAX_GPUS];
    double t[FC_BENCH_ITERS], each, batched, f = desc->bus_factor_func(g->ngpus);
    fc_node_calls_t calls = { .count = sz / 4, .root = 0 };

    for (int d = 0; d < g->ngpus; ++d) {
        FC_CK(g, d, cudaSetDevice(d));
        FC_CK(g, d, cudaMalloc(&send[d], sz));
        FC_CK(g, d, cudaMalloc(&recv[d], sz));
        FC_CK(g, d, cudaMemsetAsync(send[d], 0, sz, g->streams[d]));
        calls.send[d][0] = calls.send[d][1] = send[d];
        calls.recv[d][0] = calls.recv[d][1] = recv[d];
    }
    fc_node_timed(g, desc, FC_FLOAT32, FC_OP_SUM, &calls, 2);      /* warm-up */
    for (int i = 0; i < FC_BENCH_ITERS; ++i)
        t[i] = fc_node_timed(g, desc, FC_FLOAT32, FC_OP_SUM, &calls, 1);
    qsort(t, FC_BENCH_ITERS, sizeof(t[0]), fc_cmp_double);
    each = t[FC_BENCH_ITERS / 2];
    batched = fc_node_timed(g, desc, FC_FLOAT32, FC_OP_SUM, &calls, FC_BENCH_BATCH);
    if (fc_judge_busbw_void(desc->id, g->ngpus))
        fc_tap_diag(&g->tap, "all_reduce %zu MiB on 1 GPU: algbw %.1f GB/s per call, %.1f "
                    "batched (busbw means nothing: the bus factor of all_reduce on 1 rank "
                    "is 0)", sz >> 20, fc_stats_algbw(sz, each), fc_stats_algbw(sz, batched));
    else
        /* busbw batched over busbw per call: the per-call time over the
         * batched one (above 1 when batching hides per-call overhead) */
        fc_tap_diag(&g->tap, "all_reduce %zu MiB on %d GPU(s): busbw %.1f GB/s per call "
                    "(gated events, median of %d), %.1f GB/s batched (%d calls between two "
                    "events, as nccl-tests): busbw batched/per-call %.3f", sz >> 20, g->ngpus,
                    fc_stats_algbw(sz, each) * f, FC_BENCH_ITERS,
                    fc_stats_algbw(sz, batched) * f, FC_BENCH_BATCH, each / batched);
    for (int d = 0; d < g->ngpus; ++d) {
        cudaSetDevice(d);
        cudaFree(send[d]);
        cudaFree(recv[d]);
    }
}

void fc_node_bench(fc_gpu_ctx_t *g)
{
    const size_t bytes = (size_t)1 << 30;
    static const int types[][2] = { { FC_UINT8, FC_OP_SUM }, { FC_FLOAT16, FC_OP_NONE },
                                    { FC_FLOAT32, FC_OP_NONE }, { FC_FLOAT32, FC_OP_SUM },
                                    { FC_INT64, FC_OP_MAX }, { FC_FLOAT64, FC_OP_NONE } };
    double copy = fc_copy_gbps(g, bytes);

    fc_tap_diag(&g->tap, "device copy bandwidth (read + write) on GPU 0: %.1f GB/s", copy);
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); ++k)
        fc_verify_gbps(g, types[k][0], types[k][1], bytes / 2, copy);
    static const size_t sizes[] = { (size_t)1 << 20, (size_t)32 << 20, (size_t)256 << 20,
                                    (size_t)1 << 30 };

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k)
        fc_busbw(g, sizes[k]);
}
