/*
 * node_single.c - build/fabcert-node-gpu: the node stage in one process,
 * without MPI (like nccl-tests' -g): one process drives every GPU of the
 * node through one NCCL communicator per GPU (ncclCommInitAll), so a node
 * can be checked where no MPI is installed. TAP on stdout.
 *
 * It runs, in order:
 *  1. the kernel checks, on GPU 0: the GPU fill equals the CPU fill bit for
 *     bit for every type and op (the shared generator, compiled both ways);
 *     the GPU verification of a correct output finds nothing, and of an
 *     output with one planted bit flip finds exactly that element with its
 *     expected and actual bits; the GPU digest changes with the flip; the
 *     compute burn matches the host's answer;
 *  2. the profile's node-stage sweep over all GPUs, every output of every
 *     iteration verified on its GPU (--selftest-corrupt gpu=G,iter=I plants
 *     a flip that must be caught and attributed to GPU G);
 *  3. with --bench: the verification kernel's throughput and all_reduce's
 *     busbw with and without per-iteration timing, each beside the device
 *     copy bandwidth measured in the same run.
 * Exit status: 0 all passed, 1 a check failed or no GPU, 2 bad input.
 */
#include <cuda_runtime.h>
#include <getopt.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_coll.h"
#include "fc_kernels.h"
#include "fc_kernels_cuda.h"
#include "fc_profile.h"
#include "fc_results.h"
#include "fc_stats.h"
#include "fc_tap.h"
#include "gpu/fc_nccl_call.h"

#define FC_MAX_GPUS 16
#define FC_WAIT_S 120.0

typedef struct fc_gpu_ctx {
    int ngpus;
    ncclComm_t comms[FC_MAX_GPUS];
    cudaStream_t streams[FC_MAX_GPUS];
    cudaEvent_t start[FC_MAX_GPUS], stop[FC_MAX_GPUS];
    fc_tap_t tap;
    int corrupt_gpu, corrupt_iter;
} fc_gpu_ctx_t;

static double fc_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "fabcert-node-gpu: %s: %s (%s:%d)\n", #call,       \
                    cudaGetErrorString(e_), __FILE__, __LINE__);              \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* Wait for every GPU's stop event: bounded, and NCCL errors abort. */
static int fc_wait_all(fc_gpu_ctx_t *g, const char *what)
{
    double deadline = fc_wall() + FC_WAIT_S;

    for (int d = 0; d < g->ngpus; ++d) {
        for (;;) {
            cudaError_t q = cudaEventQuery(g->stop[d]);
            ncclResult_t async = ncclSuccess;

            if (q == cudaSuccess)
                break;
            if (q == cudaErrorNotReady)
                (void)cudaGetLastError();   /* pending, not an error: clear it */
            if (q != cudaErrorNotReady ||
                (g->comms[d] && ncclCommGetAsyncError(g->comms[d], &async) == ncclSuccess &&
                 async != ncclSuccess) || fc_wall() > deadline) {
                fprintf(stderr, "fabcert-node-gpu: %s on GPU %d: %s; aborting\n", what, d,
                        q != cudaErrorNotReady ? cudaGetErrorString(q) :
                        async != ncclSuccess ? ncclGetErrorString(async) :
                        "no progress within the time limit");
                for (int k = 0; k < g->ngpus; ++k)
                    if (g->comms[k])
                        ncclCommAbort(g->comms[k]);
                exit(1);
            }
            usleep(50);
        }
    }
    return 0;
}

/* ---- 1. kernel checks --------------------------------------------------- */

static void fc_kernel_checks(fc_gpu_ctx_t *g)
{
    const size_t count = (1 << 20) + 3;
    void *dbuf, *hbuf = malloc(count * 8), *hcpu = malloc(count * 8);
    int fill_ok = 1, verify_ok = 1, flip_ok = 1, digest_ok = 1;
    static const int ranks[] = { 2, 8, 64 };

    CK(cudaSetDevice(0));
    CK(cudaMalloc(&dbuf, count * 8));
    for (int t = 0; t < FC_DTYPE_COUNT; ++t)
        for (int op = 0; op <= FC_OP_NONE; ++op)
            for (int rk = 0; rk < 3; ++rk) {
                fc_pattern_t p;
                fc_mismatch_t m = { 0, 0, 0, 0 };
                size_t esize = (size_t)fc_dtype_size(t);
                size_t pos = count / 3;
                uint64_t d1, d2;
                int r = ranks[rk] - 1;

                fc_pattern_make((fc_dtype_t)t, (fc_op_t)op, ranks[rk], 977u + (unsigned)t, &p);
                /* fill: GPU bits == CPU bits */
                CK((cudaError_t)fc_cuda_fill(&p, r, 5, dbuf, count, NULL));
                CK(cudaMemcpy(hbuf, dbuf, count * esize, cudaMemcpyDeviceToHost));
                fc_cpu_fill(&p, r, 5, hcpu, count);
                if (memcmp(hbuf, hcpu, count * esize) != 0) {
                    fc_tap_diag(&g->tap, "fill differs: %s %s ranks %d",
                                fc_dtype_info((fc_dtype_t)t)->name, fc_op_name((fc_op_t)op), ranks[rk]);
                    fill_ok = 0;
                }
                /* verify: an output of expected values passes ... */
                for (size_t k = 0; k < count; ++k) {
                    uint64_t bits = fc_pattern_expected_bits(&p, r, k);

                    memcpy((char *)hcpu + k * esize, &bits, esize);   /* little endian */
                }
                CK(cudaMemcpy(dbuf, hcpu, count * esize, cudaMemcpyHostToDevice));
                CK((cudaError_t)fc_cuda_verify(&p, r, 0, dbuf, count, 0, &m, NULL));
                CK((cudaError_t)fc_cuda_digest(dbuf, count * esize, &d1, NULL));
                if (m.wrong != 0) {
                    fc_tap_diag(&g->tap, "verify found %llu wrong in a correct %s %s buffer",
                                (unsigned long long)m.wrong, fc_dtype_info((fc_dtype_t)t)->name,
                                fc_op_name((fc_op_t)op));
                    verify_ok = 0;
                }
                /* ... and one flipped bit is found, at its place */
                CK((cudaError_t)fc_cuda_flip_bit(dbuf, pos * esize + esize - 1, 6, NULL));
                memset(&m, 0, sizeof(m));
                CK((cudaError_t)fc_cuda_verify(&p, r, 0, dbuf, count, 1000, &m, NULL));
                CK((cudaError_t)fc_cuda_digest(dbuf, count * esize, &d2, NULL));
                {
                    uint64_t want = 0;

                    memcpy(&want, (char *)hcpu + pos * esize, esize);
                    if (m.wrong != 1 || m.first_pos != 1000 + pos || m.expected_bits != want ||
                        (m.actual_bits ^ m.expected_bits) != (1ull << (8 * (esize - 1) + 6))) {
                        fc_tap_diag(&g->tap, "planted flip in %s %s: found %llu at %llu",
                                    fc_dtype_info((fc_dtype_t)t)->name, fc_op_name((fc_op_t)op),
                                    (unsigned long long)m.wrong, (unsigned long long)m.first_pos);
                        flip_ok = 0;
                    }
                }
                if (d1 == d2)
                    digest_ok = 0;
            }
    fc_tap_ok(&g->tap, fill_ok, "GPU fill equals CPU fill, bit for bit, every type and op, 2/8/64 ranks");
    fc_tap_ok(&g->tap, verify_ok, "GPU verification passes correct outputs of every type and op");
    fc_tap_ok(&g->tap, flip_ok, "a planted bit flip is found as exactly 1 wrong element, at its "
              "position, with its expected and actual bits");
    fc_tap_ok(&g->tap, digest_ok, "the GPU digest changes with one flipped bit");
    {
        uint64_t wrong = 1;

        CK((cudaError_t)fc_cuda_burn(1024, 20000, &wrong, NULL));
        fc_tap_ok(&g->tap, wrong == 0, "compute burn: 262144 threads x 20000 FMAs match "
                  "the host's answer (%llu wrong)", (unsigned long long)wrong);
    }
    cudaFree(dbuf);
    free(hbuf);
    free(hcpu);
}

/* ---- 2. the node sweep -------------------------------------------------- */

/* One call on every GPU, in one NCCL group. A call NCCL refuses is fatal
 * here, as a CUDA error is (CK): the program has no partial result to keep. */
static void fc_issue(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc, int dtype, int op,
                     void **send, void **recv, size_t count)
{
    ncclResult_t r = ncclGroupStart();
    int bad = -1;

    for (int d = 0; d < g->ngpus && r == ncclSuccess; ++d) {
        r = fc_nccl_issue(desc->id, dtype, op, send[d], recv[d], count, 0, d, g->ngpus,
                          g->comms[d], g->streams[d]);
        bad = d;
    }
    if (r == ncclSuccess)
        r = ncclGroupEnd();
    else
        (void)ncclGroupEnd();
    if (r != ncclSuccess) {
        fprintf(stderr, "fabcert-node-gpu: %s on GPU %d (of %d): %s (%s:%d)\n", desc->name,
                bad, g->ngpus, ncclGetErrorString(r), __FILE__, __LINE__);
        for (int k = 0; k < g->ngpus; ++k)
            if (g->comms[k])
                ncclCommAbort(g->comms[k]);
        exit(1);
    }
}

static int fc_run_point(fc_gpu_ctx_t *g, const fc_stage_profile_t *sp, int coll, int dtype,
                        int op, uint64_t bytes, uint32_t seed)
{
    const fc_coll_desc_t *desc = fc_coll_desc((fc_coll_id_t)coll);
    size_t esize = (size_t)fc_dtype_size(dtype);
    int n = g->ngpus, total = sp->warmup + sp->iters, bad_gpu = -1, bad_iter = -1;
    fc_coll_counts_t counts;
    fc_pattern_t p;
    void *send[FC_MAX_GPUS], *recv[FC_MAX_GPUS];
    double *times = calloc((size_t)total, sizeof(double));
    fc_mismatch_t first = { 0, 0, 0, 0 };
    uint64_t wrong = 0;
    fc_time_stats_t ts;
    char label[128], size[32];

    desc->counts_func(bytes, esize, n, &counts);
    fc_pattern_make((fc_dtype_t)dtype, (fc_op_t)op, n, seed, &p);
    for (int d = 0; d < n; ++d) {
        CK(cudaSetDevice(d));
        CK(cudaMalloc(&send[d], counts.send_elems * esize + 1));
        CK(cudaMalloc(&recv[d], counts.recv_elems * esize + 1));
        CK((cudaError_t)fc_cuda_fill(&p, d, 0, send[d], counts.send_elems, g->streams[d]));
    }
    for (int it = 0; it < total; ++it) {
        double slowest = 0;

        for (int d = 0; d < n; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaMemsetAsync(recv[d], 0xA5 ^ (it & 0xFF), counts.recv_elems * esize, g->streams[d]));
            if (desc->id == FC_COLL_BROADCAST && d == 0)
                CK(cudaMemcpyAsync(recv[d], send[d], counts.recv_elems * esize,
                                   cudaMemcpyDeviceToDevice, g->streams[d]));
            CK(cudaEventRecord(g->stop[d], g->streams[d]));
        }
        fc_wait_all(g, "poison");
        for (int d = 0; d < n; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaEventRecord(g->start[d], g->streams[d]));
        }
        fc_issue(g, desc, dtype, op, send, recv, counts.count);
        for (int d = 0; d < n; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaEventRecord(g->stop[d], g->streams[d]));
        }
        fc_wait_all(g, desc->name);
        for (int d = 0; d < n; ++d) {
            float ms = 0;
            int nblocks = desc->block_count_func(n);
            fc_mismatch_t m = { 0, 0, 0, 0 };

            CK(cudaSetDevice(d));
            CK(cudaEventElapsedTime(&ms, g->start[d], g->stop[d]));
            if (ms * 1e-3 > slowest)
                slowest = ms * 1e-3;
            if (d == g->corrupt_gpu && it == g->corrupt_iter)
                CK((cudaError_t)fc_cuda_flip_bit(recv[d], counts.recv_elems / 2 * esize, 0,
                                                 g->streams[d]));
            for (int k = 0; k < nblocks; ++k) {
                fc_coll_block_t b;

                desc->block_func(&counts, d, n, 0, k, &b);
                CK((cudaError_t)fc_cuda_verify(&p, b.src, b.index_base,
                                               (char *)recv[d] + b.pos * esize, b.len,
                                               b.pos, &m, g->streams[d]));
            }
            if (m.wrong && !wrong) {
                first = m;
                bad_gpu = d;
                bad_iter = it;
            }
            wrong += m.wrong;
        }
        times[it] = slowest;
    }
    fc_stats_compute(times + sp->warmup, (size_t)sp->iters, &ts);
    double busbw = fc_stats_algbw(counts.bytes, ts.median) * desc->bus_factor_func(n);

    fc_format_size(bytes, size, sizeof(size));
    snprintf(label, sizeof(label), "%s %s%s%s %s on %d GPU(s)", desc->name,
             fc_dtype_info((fc_dtype_t)dtype)->name, desc->reduces ? " " : "",
             desc->reduces ? fc_op_name((fc_op_t)op) : "", size, n);
    if (wrong)
        fc_tap_ok(&g->tap, 0, "%s: %llu wrong elements; first on GPU %d at iteration %d, "
                  "element %llu: expected 0x%llx, got 0x%llx", label,
                  (unsigned long long)wrong, bad_gpu, bad_iter,
                  (unsigned long long)first.first_pos, (unsigned long long)first.expected_bits,
                  (unsigned long long)first.actual_bits);
    else
        fc_tap_ok(&g->tap, 1, "%s", label);
    fc_tap_yaml_begin(&g->tap);
    fc_tap_yaml_line(&g->tap, "time_us: {min: %.2f, median: %.2f, max: %.2f}",
                     ts.min * 1e6, ts.median * 1e6, ts.max * 1e6);
    fc_tap_yaml_line(&g->tap, "busbw_gbps: %.3f", busbw);
    fc_tap_yaml_end(&g->tap);
    for (int d = 0; d < n; ++d) {
        cudaSetDevice(d);
        cudaFree(send[d]);
        cudaFree(recv[d]);
    }
    free(times);
    return wrong == 0;
}

/* ---- 3. benchmarks ------------------------------------------------------ */

static double fc_copy_gbps(size_t bytes)
{
    void *a, *b;
    cudaEvent_t e0, e1;
    float ms = 0;
    const int reps = 10;

    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e0, NULL);
    for (int i = 0; i < reps; ++i)
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, NULL);
    cudaEventRecord(e1, NULL);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    cudaFree(a);
    cudaFree(b);
    /* a copy reads and writes: count both, like the verify kernel's read */
    return 2.0 * (double)bytes * reps / (ms * 1e-3) / 1e9;
}

static void fc_bench(fc_gpu_ctx_t *g)
{
    const size_t bytes = (size_t)1 << 30;
    size_t count = bytes / 4;
    double copy = fc_copy_gbps(bytes);
    void *buf;
    fc_pattern_t p;
    fc_mismatch_t m = { 0, 0, 0, 0 };
    cudaEvent_t e0, e1;
    float ms = 0;

    fc_tap_diag(&g->tap, "device copy bandwidth (read + write): %.1f GB/s", copy);
    CK(cudaMalloc(&buf, bytes));
    /* a valid output to verify (a move of rank 0's data: every element
     * right), so the kernel does the work of a passing check */
    fc_pattern_make(FC_FLOAT32, FC_OP_NONE, 8, 1, &p);
    CK((cudaError_t)fc_cuda_fill(&p, 0, 0, buf, count, NULL));
    CK(cudaDeviceSynchronize());
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, NULL);
    for (int i = 0; i < 5; ++i)
        CK((cudaError_t)fc_cuda_verify(&p, 0, 0, buf, count, 0, &m, NULL));
    cudaEventRecord(e1, NULL);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    {
        double v = (double)bytes * 5 / (ms * 1e-3) / 1e9;

        fc_tap_diag(&g->tap, "verification kernel: %.1f GB/s read, %.2f of the copy "
                    "bandwidth (target 0.8)%s", v, v / copy,
                    m.wrong ? " (WRONG ELEMENTS in a valid buffer: figure invalid)" : "");
    }
    cudaFree(buf);
    /* all_reduce busbw, per-iteration timing on and off */
    for (size_t sz = (size_t)256 << 20; sz <= bytes; sz *= 2) {
        void *send[FC_MAX_GPUS], *recv[FC_MAX_GPUS];
        size_t n = sz / 4;
        const int iters = 20;
        double t_each = 0, t_off;
        double f = fc_coll_desc(FC_COLL_ALL_REDUCE)->bus_factor_func(g->ngpus);

        for (int d = 0; d < g->ngpus; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaMalloc(&send[d], sz));
            CK(cudaMalloc(&recv[d], sz));
        }
        fc_issue(g, fc_coll_desc(FC_COLL_ALL_REDUCE), FC_FLOAT32, FC_OP_SUM, send, recv, n);
        for (int d = 0; d < g->ngpus; ++d) {
            cudaSetDevice(d);
            cudaEventRecord(g->stop[d], g->streams[d]);
        }
        fc_wait_all(g, "warm-up");
        for (int i = 0; i < iters; ++i) {
            double slowest = 0;

            for (int d = 0; d < g->ngpus; ++d) {
                cudaSetDevice(d);
                cudaEventRecord(g->start[d], g->streams[d]);
            }
            fc_issue(g, fc_coll_desc(FC_COLL_ALL_REDUCE), FC_FLOAT32, FC_OP_SUM, send, recv, n);
            for (int d = 0; d < g->ngpus; ++d) {
                cudaSetDevice(d);
                cudaEventRecord(g->stop[d], g->streams[d]);
            }
            fc_wait_all(g, "all_reduce");
            for (int d = 0; d < g->ngpus; ++d) {
                float t = 0;

                cudaEventElapsedTime(&t, g->start[d], g->stop[d]);
                if (t > slowest)
                    slowest = t;
            }
            t_each += slowest * 1e-3;
        }
        double w0 = fc_wall();

        for (int i = 0; i < iters; ++i)
            fc_issue(g, fc_coll_desc(FC_COLL_ALL_REDUCE), FC_FLOAT32, FC_OP_SUM, send, recv, n);
        for (int d = 0; d < g->ngpus; ++d) {
            cudaSetDevice(d);
            cudaEventRecord(g->stop[d], g->streams[d]);
        }
        fc_wait_all(g, "all_reduce");
        t_off = fc_wall() - w0;
        {
            double each = fc_stats_algbw(sz, t_each / iters) * f;
            double off = fc_stats_algbw(sz, t_off / iters) * f;

            fc_tap_diag(&g->tap, "all_reduce %zu MiB on %d GPU(s): busbw %.1f GB/s with "
                        "per-iteration timing, %.1f GB/s without: ratio %.3f (target "
                        ">= 0.98)", sz >> 20, g->ngpus, each, off, each / off);
        }
        for (int d = 0; d < g->ngpus; ++d) {
            cudaSetDevice(d);
            cudaFree(send[d]);
            cudaFree(recv[d]);
        }
    }
}

int main(int argc, char **argv)
{
    enum { O_PROFILE = 1, O_SIZES, O_ITERS, O_COLLS, O_GPUS, O_CORRUPT, O_BENCH, O_HELP };
    static const struct option longopts[] = {
        { "profile", required_argument, NULL, O_PROFILE },
        { "sizes", required_argument, NULL, O_SIZES },
        { "iters", required_argument, NULL, O_ITERS },
        { "collectives", required_argument, NULL, O_COLLS },
        { "gpus", required_argument, NULL, O_GPUS },
        { "selftest-corrupt", required_argument, NULL, O_CORRUPT },
        { "bench", no_argument, NULL, O_BENCH },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    fc_gpu_ctx_t g;
    fc_profile_t profile;
    fc_stage_profile_t sp;
    char profile_path[4096];
    const char *sizes = NULL, *colls = NULL;
    int c, ngpus = 0, want_gpus = 0, bench = 0, all_ok = 1, index = 0;

    memset(&g, 0, sizeof(g));
    g.corrupt_gpu = -1;
    fc_path_beside_exe("../thresholds/local.yaml", profile_path, sizeof(profile_path));
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_PROFILE: snprintf(profile_path, sizeof(profile_path), "%s", optarg); break;
        case O_SIZES: sizes = optarg; break;
        case O_ITERS: index = atoi(optarg); break;
        case O_COLLS: colls = optarg; break;
        case O_GPUS: want_gpus = atoi(optarg); break;
        case O_BENCH: bench = 1; break;
        case O_CORRUPT:
            if (sscanf(optarg, "gpu=%d,iter=%d", &g.corrupt_gpu, &g.corrupt_iter) != 2) {
                fprintf(stderr, "fabcert-node-gpu: --selftest-corrupt gpu=G,iter=I\n");
                return 2;
            }
            break;
        case O_HELP:
            printf("usage: fabcert-node-gpu [--profile FILE] [--sizes LIST] [--iters N]\n"
                   "       [--collectives LIST] [--gpus N] [--selftest-corrupt gpu=G,iter=I]\n"
                   "       [--bench]\n");
            return 0;
        default:
            return 2;
        }
    }
    if (fc_profile_load(profile_path, &profile) != FC_OK)
        return 2;
    sp = profile.stages[FC_STAGE_NODE];
    if (sizes && fc_parse_size_list("sizes", sizes, FC_PROFILE_MAX_SIZES, sp.sizes,
                                    &sp.nsizes) != FC_OK)
        return 2;
    if (colls && fc_parse_name_list("collectives", colls, fc_coll_from_name, FC_COLL_COUNT,
                                    sp.colls, &sp.ncolls) != FC_OK)
        return 2;
    if (index > 0)
        sp.iters = index;

    fc_tap_init(&g.tap, stdout, 1);
    if (cudaGetDeviceCount(&ngpus) != cudaSuccess || ngpus == 0) {
        cudaError_t e = cudaGetDeviceCount(&ngpus);

        printf("TAP version 13\n1..0 # SKIP no usable GPU: %s\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
        return 1;
    }
    if (want_gpus > 0 && want_gpus < ngpus)
        ngpus = want_gpus;
    if (ngpus > FC_MAX_GPUS)
        ngpus = FC_MAX_GPUS;
    g.ngpus = ngpus;
    fc_tap_plan(&g.tap, -1);
    {
        int nccl = 0, drv = 0, rt = 0;
        struct cudaDeviceProp prop;

        ncclGetVersion(&nccl);
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        cudaGetDeviceProperties(&prop, 0);
        fc_tap_diag(&g.tap, "%d GPU(s), %s; NCCL %d, CUDA driver %d, runtime %d; profile %s",
                    ngpus, prop.name, nccl, drv, rt, profile.name);
    }
    fc_kernel_checks(&g);
    if (ncclCommInitAll(g.comms, ngpus, NULL) != ncclSuccess) {
        fc_tap_bail(&g.tap, "ncclCommInitAll over %d GPU(s) failed", ngpus);
        return 1;
    }
    for (int d = 0; d < ngpus; ++d) {
        CK(cudaSetDevice(d));
        CK(cudaStreamCreateWithFlags(&g.streams[d], cudaStreamNonBlocking));
        CK(cudaEventCreate(&g.start[d]));
        CK(cudaEventCreate(&g.stop[d]));
    }
    index = 0;
    for (int ci = 0; ci < sp.ncolls; ++ci) {
        const fc_coll_desc_t *desc = fc_coll_desc((fc_coll_id_t)sp.colls[ci]);
        int nops = desc->reduces ? sp.nops : 1;

        for (int t = 0; t < sp.ndtypes; ++t)
            for (int o = 0; o < nops; ++o)
                for (int z = 0; z < sp.nsizes; ++z) {
                    int op = desc->reduces ? sp.ops[o] : FC_OP_NONE;

                    all_ok &= fc_run_point(&g, &sp, desc->id, sp.dtypes[t], op, sp.sizes[z],
                                           profile.seed + 7919u * (uint32_t)index++);
                }
    }
    if (bench)
        fc_bench(&g);
    for (int d = 0; d < ngpus; ++d)
        ncclCommDestroy(g.comms[d]);
    return fc_tap_done(&g.tap) == 0 && all_ok ? 0 : 1;
}
