/*
 * node_single.c - build/fabcert-node-gpu: the node stage in one process,
 * without MPI (like nccl-tests' -g): one process drives every GPU of the
 * node through one NCCL communicator per GPU (ncclCommInitAll), so a node
 * can be checked where no MPI is installed. TAP on stdout.
 *
 * It runs, in order:
 *  1. the kernel checks on GPU 0 (suites/gpu/node_checks.c): GPU fill ==
 *     CPU fill for every type and op, verification of a correct output
 *     and of one with a planted flip, the digest, the stale-error and gate
 *     checks; then the GEMM burn on every GPU (--burn S seconds per kind);
 *  2. the profile's node-stage sweep over all GPUs, every output of every
 *     iteration verified on its GPU (--selftest-corrupt gpu=G,iter=I
 *     plants a flip that must be caught and attributed to GPU G), each
 *     call timed between gated events, and each point once more batched
 *     (--batch N calls between one pair of events, as nccl-tests); the
 *     profile's absolute limits are applied with the MPI stages' rule: a
 *     busbw limit is not applied where busbw means nothing (one GPU: bus
 *     factor 0), which TAP says;
 *  3. with --bench (suites/gpu/node_bench.c): copy bandwidth, the
 *     verification kernel's throughput, busbw per call and batched;
 *  4. GPU health (NVML) read at the start and judged at the end.
 * --count prints the number of GPUs CUDA lets this process use (it
 * honours CUDA_VISIBLE_DEVICES; MIG instances are not GPUs here) and
 * exits. Exit status: 0 all passed, 1 a check failed or no GPU, 2 bad
 * input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_kernels.h"
#include "fc_node_gpu.h"
#include "fc_results.h"
#include "fc_stats.h"
#include "gpu/fc_gpu_health.h"

/* Which figures of a point the profile's absolute limit judged. */
static int fc_point_limits(fc_gpu_ctx_t *g, const fc_stage_profile_t *sp, int coll, int dtype,
                           int op, uint64_t bytes, double median_s, double busbw)
{
    const fc_limit_rule_t *rule = fc_profile_find_limit(sp, coll, dtype, op, bytes);
    int ok = 1;

    if (rule == NULL)
        return 1;
    if (rule->min_busbw_gbps >= 0) {
        if (fc_judge_busbw_void((fc_coll_id_t)coll, g->ngpus))
            fc_tap_diag(&g->tap, "min_busbw_gbps (profile line %d) not applied: %s on %d "
                        "GPU(s) has a bus factor of 0 (or moves nothing between GPUs), so "
                        "busbw says nothing; judged on bits and time only", rule->line,
                        fc_coll_desc((fc_coll_id_t)coll)->name, g->ngpus);
        else if (busbw < rule->min_busbw_gbps) {
            fc_tap_diag(&g->tap, "busbw %.3f GB/s is below the limit %.3f GB/s (profile "
                        "line %d)", busbw, rule->min_busbw_gbps, rule->line);
            ok = 0;
        }
    }
    if (rule->max_latency_us >= 0 && median_s * 1e6 > rule->max_latency_us) {
        fc_tap_diag(&g->tap, "median time %.1f us is above the limit %.1f us (profile line "
                    "%d)", median_s * 1e6, rule->max_latency_us, rule->line);
        ok = 0;
    }
    return ok;
}

/* Poison every output (and seed the broadcast root's), bounded wait. */
static void fc_poison(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc, void **send, void **recv,
                      size_t bytes, int it)
{
    for (int d = 0; d < g->ngpus; ++d) {
        FC_CK(g, d, cudaSetDevice(d));
        FC_CK(g, d, cudaMemsetAsync(recv[d], 0xA5 ^ (it & 0xFF), bytes, g->streams[d]));
        if (desc->id == FC_COLL_BROADCAST && d == 0)
            FC_CK(g, d, cudaMemcpyAsync(recv[d], send[d], bytes, cudaMemcpyDeviceToDevice,
                                        g->streams[d]));
    }
    fc_node_wait(g, -1, "poison");
}

/* Verify every GPU's output of iteration it; the first wrong one kept. */
static uint64_t fc_check_outputs(fc_gpu_ctx_t *g, const fc_coll_desc_t *desc,
                                 const fc_pattern_t *p, const fc_coll_counts_t *counts,
                                 void **recv, int it, fc_mismatch_t *first, int *bad_gpu,
                                 int *bad_iter, uint64_t wrong_so_far)
{
    size_t esize = (size_t)fc_dtype_size(p->dtype);
    uint64_t wrong = 0;

    for (int d = 0; d < g->ngpus; ++d) {
        fc_mismatch_t m = { 0, 0, 0, 0 };

        if (d == g->corrupt_gpu && it == g->corrupt_iter) {
            FC_CK(g, d, cudaSetDevice(d));
            FC_CK(g, d, fc_cuda_flip_bit(recv[d], counts->recv_elems / 2 * esize, 0,
                                         g->streams[d]));
        }
        for (int k = 0; k < desc->block_count_func(g->ngpus); ++k) {
            fc_coll_block_t b;

            desc->block_func(counts, d, g->ngpus, 0, k, &b);
            fc_node_verify(g, d, p, b.src, b.index_base, (char *)recv[d] + b.pos * esize, b.len,
                           b.pos, &m);
        }
        if (m.wrong && !wrong_so_far && !wrong) {
            *first = m;
            *bad_gpu = d;
            *bad_iter = it;
        }
        wrong += m.wrong;
    }
    return wrong;
}

static int fc_run_point(fc_gpu_ctx_t *g, const fc_stage_profile_t *sp, int coll, int dtype,
                        int op, uint64_t bytes, uint32_t seed)
{
    const fc_coll_desc_t *desc = fc_coll_desc((fc_coll_id_t)coll);
    size_t esize = (size_t)fc_dtype_size(dtype);
    int n = g->ngpus, total = sp->warmup + sp->iters, bad_gpu = -1, bad_iter = -1, ok;
    fc_coll_counts_t counts;
    fc_pattern_t p;
    void *send[FC_MAX_GPUS], *recv[FC_MAX_GPUS];
    double *times = calloc((size_t)total, sizeof(double)), batched = 0, busbw, busbw_b;
    fc_mismatch_t first = { 0, 0, 0, 0 };
    uint64_t wrong = 0;
    fc_time_stats_t ts;
    char label[160], size[32];

    desc->counts_func(bytes, esize, n, &counts);
    fc_pattern_make((fc_dtype_t)dtype, (fc_op_t)op, n, seed, &p);
    for (int d = 0; d < n; ++d) {
        FC_CK(g, d, cudaSetDevice(d));
        FC_CK(g, d, cudaMalloc(&send[d], counts.send_elems * esize + 1));
        FC_CK(g, d, cudaMalloc(&recv[d], counts.recv_elems * esize + 1));
        FC_CK(g, d, fc_cuda_fill(g->ws[d], &p, d, 0, send[d], counts.send_elems, g->streams[d]));
    }
    for (int it = 0; it < total; ++it) {
        fc_poison(g, desc, send, recv, counts.recv_elems * esize, it);
        times[it] = fc_node_timed(g, desc, dtype, op, send, recv, counts.count, 1);
        wrong += fc_check_outputs(g, desc, &p, &counts, recv, it, &first, &bad_gpu, &bad_iter,
                                  wrong);
    }
    if (g->batch > 0) {
        /* the batch's output (its last call's) is checked like the others */
        fc_poison(g, desc, send, recv, counts.recv_elems * esize, total);
        batched = fc_node_timed(g, desc, dtype, op, send, recv, counts.count, g->batch);
        wrong += fc_check_outputs(g, desc, &p, &counts, recv, total, &first, &bad_gpu,
                                  &bad_iter, wrong);
    }
    fc_stats_compute(times + sp->warmup, (size_t)sp->iters, &ts);
    busbw = fc_stats_algbw(counts.bytes, ts.median) * desc->bus_factor_func(n);
    busbw_b = batched > 0 ? fc_stats_algbw(counts.bytes, batched) * desc->bus_factor_func(n) : 0;

    fc_format_size(bytes, size, sizeof(size));
    snprintf(label, sizeof(label), "%s %s%s%s %s on %d GPU(s)", desc->name,
             fc_dtype_info((fc_dtype_t)dtype)->name, desc->reduces ? " " : "",
             desc->reduces ? fc_op_name((fc_op_t)op) : "", size, n);
    if (wrong) {
        fc_tap_ok(&g->tap, 0, "%s: %llu wrong elements; first on GPU %d at iteration %d, "
                  "element %llu: expected 0x%llx, got 0x%llx", label,
                  (unsigned long long)wrong, bad_gpu, bad_iter,
                  (unsigned long long)first.first_pos, (unsigned long long)first.expected_bits,
                  (unsigned long long)first.actual_bits);
        ok = 0;
    } else {
        /* the limit's diagnostics come before the point they judge */
        ok = fc_point_limits(g, sp, coll, dtype, op, bytes, ts.median, busbw);
        fc_tap_ok(&g->tap, ok, "%s", label);
    }
    fc_tap_yaml_begin(&g->tap);
    fc_tap_yaml_line(&g->tap, "time_us: {min: %.2f, median: %.2f, max: %.2f}",
                     ts.min * 1e6, ts.median * 1e6, ts.max * 1e6);
    fc_tap_yaml_line(&g->tap, "algbw_gbps: %.3f", fc_stats_algbw(counts.bytes, ts.median));
    if (fc_judge_busbw_void((fc_coll_id_t)coll, n))
        fc_tap_yaml_line(&g->tap, "busbw_gbps: null  # bus factor 0 on %d GPU(s)", n);
    else
        fc_tap_yaml_line(&g->tap, "busbw_gbps: %.3f", busbw);
    if (g->batch > 0 && !fc_judge_busbw_void((fc_coll_id_t)coll, n))
        fc_tap_yaml_line(&g->tap, "busbw_batched_gbps: %.3f  # %d calls between two events",
                         busbw_b, g->batch);
    if (g->batch > 0)
        fc_tap_yaml_line(&g->tap, "time_batched_us: %.2f", batched * 1e6);
    fc_tap_yaml_end(&g->tap);
    for (int d = 0; d < n; ++d) {
        cudaSetDevice(d);
        cudaFree(send[d]);
        cudaFree(recv[d]);
    }
    free(times);
    return ok;
}

/* Streams, events, workspaces and the gate of every GPU. */
static void fc_ctx_init(fc_gpu_ctx_t *g)
{
    FC_CK(g, -1, fc_cuda_gate_create(FC_NODE_GATE_S, &g->gate));
    for (int d = 0; d < g->ngpus; ++d) {
        FC_CK(g, d, cudaSetDevice(d));
        FC_CK(g, d, cudaGetDeviceProperties(&g->prop[d], d));
        FC_CK(g, d, cudaStreamCreateWithFlags(&g->streams[d], cudaStreamNonBlocking));
        FC_CK(g, d, cudaEventCreate(&g->start[d]));
        FC_CK(g, d, cudaEventCreate(&g->stop[d]));
        FC_CK(g, d, fc_cuda_ws_create(&g->ws[d]));
    }
}

static void fc_sweep(fc_gpu_ctx_t *g, const fc_stage_profile_t *sp, uint32_t seed, int *all_ok)
{
    int index = 0;

    for (int ci = 0; ci < sp->ncolls; ++ci) {
        const fc_coll_desc_t *desc = fc_coll_desc((fc_coll_id_t)sp->colls[ci]);
        int nops = desc->reduces ? sp->nops : 1;

        for (int t = 0; t < sp->ndtypes; ++t)
            for (int o = 0; o < nops; ++o)
                for (int z = 0; z < sp->nsizes; ++z) {
                    int op = desc->reduces ? sp->ops[o] : FC_OP_NONE;

                    *all_ok &= fc_run_point(g, sp, desc->id, sp->dtypes[t], op, sp->sizes[z],
                                            seed + 7919u * (uint32_t)index++);
                }
    }
}

int main(int argc, char **argv)
{
    enum { O_PROFILE = 1, O_SIZES, O_ITERS, O_COLLS, O_GPUS, O_CORRUPT, O_BENCH, O_BATCH,
           O_BURN, O_COUNT, O_HELP };
    static const struct option longopts[] = {
        { "profile", required_argument, NULL, O_PROFILE },
        { "sizes", required_argument, NULL, O_SIZES },
        { "iters", required_argument, NULL, O_ITERS },
        { "collectives", required_argument, NULL, O_COLLS },
        { "gpus", required_argument, NULL, O_GPUS },
        { "selftest-corrupt", required_argument, NULL, O_CORRUPT },
        { "bench", no_argument, NULL, O_BENCH },
        { "batch", required_argument, NULL, O_BATCH },
        { "burn", required_argument, NULL, O_BURN },
        { "count", no_argument, NULL, O_COUNT },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    fc_gpu_ctx_t g;
    fc_profile_t profile;
    fc_stage_profile_t sp;
    char profile_path[4096], why[512];
    const char *sizes = NULL, *colls = NULL;
    json_t *health = NULL;
    int c, ngpus, want_gpus = 0, bench = 0, all_ok = 1, iters = 0, count_only = 0;

    memset(&g, 0, sizeof(g));
    g.corrupt_gpu = -1;
    g.batch = 20;
    g.burn_s = 2;
    fc_path_beside_exe("../thresholds/local.yaml", profile_path, sizeof(profile_path));
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_PROFILE: snprintf(profile_path, sizeof(profile_path), "%s", optarg); break;
        case O_SIZES: sizes = optarg; break;
        case O_ITERS: iters = atoi(optarg); break;
        case O_COLLS: colls = optarg; break;
        case O_GPUS: want_gpus = atoi(optarg); break;
        case O_BENCH: bench = 1; break;
        case O_BATCH: g.batch = atoi(optarg); break;
        case O_BURN: g.burn_s = atof(optarg); break;
        case O_COUNT: count_only = 1; break;
        case O_CORRUPT:
            if (sscanf(optarg, "gpu=%d,iter=%d", &g.corrupt_gpu, &g.corrupt_iter) != 2) {
                fprintf(stderr, "fabcert-node-gpu: --selftest-corrupt gpu=G,iter=I\n");
                return 2;
            }
            break;
        case O_HELP:
            printf("usage: fabcert-node-gpu [--profile FILE] [--sizes LIST] [--iters N]\n"
                   "       [--collectives LIST] [--gpus N] [--selftest-corrupt gpu=G,iter=I]\n"
                   "       [--batch N] [--burn SECONDS] [--bench] [--count]\n");
            return 0;
        default:
            return 2;
        }
    }
    if (g.batch < 0 || g.burn_s < 0) {
        fprintf(stderr, "fabcert-node-gpu: --batch and --burn take a number >= 0\n");
        return 2;
    }
    ngpus = fc_cuda_device_count(why, sizeof(why));
    if (count_only) {
        printf("%d\n", ngpus);
        if (ngpus == 0)
            fprintf(stderr, "fabcert-node-gpu: %s\n", why);
        return ngpus > 0 ? 0 : 1;
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
    if (iters > 0)
        sp.iters = iters;

    fc_tap_init(&g.tap, stdout, 1);
    if (ngpus == 0) {
        printf("TAP version 13\n1..0 # SKIP %s\n", why);
        return 1;
    }
    if (want_gpus > 0 && want_gpus < ngpus)
        ngpus = want_gpus;
    fc_tap_plan(&g.tap, -1);
    if (ngpus > FC_MAX_GPUS) {
        fc_tap_diag(&g.tap, "%d GPUs visible: this check drives the first %d", ngpus,
                    FC_MAX_GPUS);
        ngpus = FC_MAX_GPUS;
    }
    g.ngpus = ngpus;
    fc_ctx_init(&g);
    if ((health = fc_gpu_health_snapshot(NULL, why, sizeof(why))) == NULL)
        fc_tap_diag(&g.tap, "no GPU health readings: %s", why);
    {
        int nccl = 0, drv = 0, rt = 0;

        ncclGetVersion(&nccl);
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        fc_tap_diag(&g.tap, "%d GPU(s), %s (%d SMs); NCCL %d, CUDA driver %d, runtime %d; "
                    "profile %s", ngpus, g.prop[0].name, g.prop[0].multiProcessorCount, nccl,
                    drv, rt, profile.name);
    }
    fc_node_kernel_checks(&g);
    if (g.burn_s > 0)
        fc_node_burn(&g);
    if (ncclCommInitAll(g.comms, ngpus, NULL) != ncclSuccess) {
        memset(g.comms, 0, sizeof(g.comms));
        fc_tap_bail(&g.tap, "ncclCommInitAll over %d GPU(s) failed", ngpus);
        return 1;
    }
    fc_sweep(&g, &sp, profile.seed, &all_ok);
    if (bench)
        fc_node_bench(&g);
    if (g.gates_expired)
        fc_tap_diag(&g.tap, "%lu of %lu timed runs waited past their gate (%.0f s): their "
                    "times include the enqueue", g.gates_expired, g.calls, FC_NODE_GATE_S);
    fc_node_health(&g, health);
    json_decref(health);
    for (int d = 0; d < ngpus; ++d) {
        ncclResult_t r = ncclCommDestroy(g.comms[d]);

        if (r != ncclSuccess)
            fc_tap_diag(&g.tap, "ncclCommDestroy on GPU %d: %s", d, ncclGetErrorString(r));
    }
    return fc_tap_done(&g.tap) == 0 && all_ok ? 0 : 1;
}
