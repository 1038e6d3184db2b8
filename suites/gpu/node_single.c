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
 *  2. the profile's node-stage sweep over all GPUs, each GPU one rank of
 *     the engine's check contract (lib/engine/fc_point_rank.h, shared with the
 *     MPI stages: two input sets, roots rotated, in-place inputs staged, a
 *     reduce's non-root recv checked untouched), every output of every
 *     iteration verified on its GPU (--selftest-corrupt gpu=G,iter=I
 *     plants a flip that must be caught and attributed to GPU G), each
 *     call timed between gated events, and each point once more batched
 *     (--batch N calls between one pair of events, as nccl-tests, the two
 *     input sets alternating and the last output of each checked); the
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

/* What the point found on the GPUs: the first wrong element (GPU,
 * iteration, place and bits) and the count, and whether the GPUs that
 * must hold the same bits do. */
typedef struct fc_node_found {
    uint64_t wrong;
    int bad_gpu, bad_iter, disagree_gpu;
    fc_mismatch_t first;
    uint64_t digest0[FC_MAX_GPUS];
} fc_node_found_t;

static void fc_node_note(fc_node_found_t *f, int d, int it, const fc_mismatch_t *m)
{
    if (m->wrong && f->wrong == 0) {
        f->first = *m;
        f->bad_gpu = d;
        f->bad_iter = it;
    }
    f->wrong += m->wrong;
}

/* Every GPU's output of one call of input set `set` with this root,
 * through the engine's check (lib/engine/fc_point_rank.h); --selftest-corrupt
 * flips a bit of the chosen GPU's output first. */
static void fc_node_check(fc_gpu_ctx_t *g, fc_point_rank_t *pr, const fc_node_calls_t *calls,
                          int k, int set, int it, fc_node_found_t *f)
{
    for (int d = 0; d < g->ngpus; ++d) {
        fc_mismatch_t m = { 0, 0, 0, 0 };
        uint64_t digest = 0;

        if (d == g->corrupt_gpu && it == g->corrupt_iter) {
            uint64_t idx = fc_point_rank_flip_index(&pr[d], calls->root, -1);

            FC_CK(g, d, cudaSetDevice(d));
            FC_CK(g, d, fc_cuda_flip_bit(calls->recv[d][k], idx * pr[d].esize, 0,
                                         g->streams[d]));
        }
        FC_CK(g, d, fc_point_rank_check(&pr[d], calls->recv[d][k], set, calls->root, &digest,
                                        &m));
        fc_node_note(f, d, it, &m);
        if (it == 0) {
            f->digest0[d] = digest;
            if (pr[d].desc->same_output && digest != f->digest0[0] && f->disagree_gpu < 0)
                f->disagree_gpu = d;
        }
    }
}

/* The checked iterations (the engine's contract: two input sets, roots
 * rotated, in-place inputs staged, a reduce's non-root recv left alone),
 * each call gated and timed; the slowest GPU's time of each in times. */
static void fc_node_iterate(fc_gpu_ctx_t *g, fc_point_rank_t *pr, int dtype, int op, int total,
                            double *times, fc_node_found_t *f)
{
    const fc_coll_desc_t *desc = pr[0].desc;

    for (int it = 0; it < total; ++it) {
        int set = it & 1;
        fc_node_calls_t calls = { .count = pr[0].counts.count,
                                  .root = fc_point_rank_root(&pr[0], it) };

        for (int d = 0; d < g->ngpus; ++d) {
            void *recv = fc_point_rank_recv(&pr[d], set, calls.root);

            calls.send[d][0] = calls.send[d][1] = pr[d].send[set];
            calls.recv[d][0] = calls.recv[d][1] = recv;
            FC_CK(g, d, fc_point_rank_stage(&pr[d], recv, set, calls.root));
        }
        times[it] = fc_node_timed(g, desc, dtype, op, &calls, 1);
        fc_node_check(g, pr, &calls, 0, set, it, f);
    }
}

/* The batched timing, as the engine's: g->batch calls alternating the two
 * input sets and two outputs between one pair of events (root 0), the
 * last output of each set checked; 0 when fc_point_batch_none says why
 * not (in why). */
static double fc_node_batch(fc_gpu_ctx_t *g, fc_point_rank_t *pr, int dtype, int op, int it,
                            fc_node_found_t *f, const char **why)
{
    fc_node_calls_t calls = { .count = pr[0].counts.count, .root = 0 };
    double t;

    *why = g->batch > 0 ? fc_point_batch_none(pr[0].desc->id, (fc_op_t)op, g->batch) : NULL;
    if (g->batch <= 0 || *why)
        return 0;
    for (int d = 0; d < g->ngpus; ++d)
        for (int k = 0; k < 2; ++k) {
            calls.send[d][k] = pr[d].send[k];
            calls.recv[d][k] = fc_point_rank_batch_recv(&pr[d], k);
            FC_CK(g, d, fc_point_rank_stage(&pr[d], calls.recv[d][k], k, 0));
        }
    t = fc_node_timed(g, pr[0].desc, dtype, op, &calls, g->batch);
    for (int k = 0; k < 2; ++k)
        fc_node_check(g, pr, &calls, k, k, it, f);
    return t;
}

/* Two sends and two recvs per GPU (recv[1]: the batch's second output),
 * each written whole once, and the inputs. */
static void fc_node_prepare(fc_gpu_ctx_t *g, fc_point_rank_t *pr, fc_node_mem_t *mem, int coll,
                            int dtype, int op, uint64_t bytes, uint32_t seed,
                            void *send[][2], void *recv[][2])
{
    for (int d = 0; d < g->ngpus; ++d) {
        size_t sb, rb;

        mem[d] = (fc_node_mem_t){ g, d };
        fc_point_rank_init(&pr[d], &fc_node_mem_ops, &mem[d], d, g->ngpus,
                           (fc_coll_id_t)coll, (fc_dtype_t)dtype, bytes);
        sb = fc_point_rank_send_bytes(&pr[d]);
        rb = fc_point_rank_recv_bytes(&pr[d]);
        FC_CK(g, d, cudaSetDevice(d));
        for (int k = 0; k < 2; ++k) {
            FC_CK(g, d, cudaMalloc(&send[d][k], sb ? sb : 1));
            FC_CK(g, d, cudaMalloc(&recv[d][k], rb ? rb : 1));
            FC_CK(g, d, cudaMemsetAsync(recv[d][k], 0, rb, g->streams[d]));
        }
        FC_CK(g, d, fc_point_rank_prepare(&pr[d], (fc_op_t)op, seed, send[d], recv[d]));
    }
}

static int fc_run_point(fc_gpu_ctx_t *g, const fc_stage_profile_t *sp, int coll, int dtype,
                        int op, uint64_t bytes, uint32_t seed)
{
    const fc_coll_desc_t *desc = fc_coll_desc((fc_coll_id_t)coll);
    int n = g->ngpus, total = sp->warmup + sp->iters, ok;
    fc_point_rank_t *pr = calloc((size_t)n, sizeof(*pr));
    fc_node_mem_t mem[FC_MAX_GPUS];
    void *send[FC_MAX_GPUS][2], *recv[FC_MAX_GPUS][2];
    double *times = calloc((size_t)total, sizeof(double)), batched, busbw, busbw_b;
    fc_node_found_t f = { .bad_gpu = -1, .bad_iter = -1, .disagree_gpu = -1 };
    const char *no_batch = NULL;
    fc_time_stats_t ts;
    fc_coll_counts_t counts;
    char label[160], size[32];

    if (pr == NULL || times == NULL)
        fc_node_fatal(g, __FILE__, __LINE__, "out of memory for %d iterations", total);
    fc_node_prepare(g, pr, mem, coll, dtype, op, bytes, seed, send, recv);
    counts = pr[0].counts;
    fc_node_iterate(g, pr, dtype, op, total, times, &f);
    batched = fc_node_batch(g, pr, dtype, op, total, &f, &no_batch);
    fc_stats_compute(times + sp->warmup, (size_t)sp->iters, &ts);
    busbw = fc_stats_algbw(counts.bytes, ts.median) * desc->bus_factor_func(n);
    busbw_b = batched > 0 ? fc_stats_algbw(counts.bytes, batched) * desc->bus_factor_func(n) : 0;

    fc_format_size(bytes, size, sizeof(size));
    snprintf(label, sizeof(label), "%s %s%s%s %s on %d GPU(s)", desc->name,
             fc_dtype_info((fc_dtype_t)dtype)->name, desc->reduces ? " " : "",
             desc->reduces ? fc_op_name((fc_op_t)op) : "", size, n);
    if (f.wrong) {
        fc_tap_ok(&g->tap, 0, "%s: %llu wrong elements; first on GPU %d at iteration %d, "
                  "element %llu: expected 0x%llx, got 0x%llx", label,
                  (unsigned long long)f.wrong, f.bad_gpu, f.bad_iter,
                  (unsigned long long)f.first.first_pos,
                  (unsigned long long)f.first.expected_bits,
                  (unsigned long long)f.first.actual_bits);
        ok = 0;
    } else if (f.disagree_gpu >= 0) {
        fc_tap_ok(&g->tap, 0, "%s: GPU %d holds other bits than GPU 0 (digest 0x%llx, not "
                  "0x%llx) where every GPU must hold the same", label, f.disagree_gpu,
                  (unsigned long long)f.digest0[f.disagree_gpu],
                  (unsigned long long)f.digest0[0]);
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
    if (batched > 0 && !fc_judge_busbw_void((fc_coll_id_t)coll, n))
        fc_tap_yaml_line(&g->tap, "busbw_batched_gbps: %.3f  # %d calls between two events",
                         busbw_b, g->batch);
    if (batched > 0)
        fc_tap_yaml_line(&g->tap, "time_batched_us: %.2f", batched * 1e6);
    else if (no_batch)
        fc_tap_yaml_line(&g->tap, "batched: null  # %s", no_batch);
    fc_tap_yaml_end(&g->tap);
    for (int d = 0; d < n; ++d) {
        cudaSetDevice(d);
        for (int k = 0; k < 2; ++k) {
            cudaFree(send[d][k]);
            cudaFree(recv[d][k]);
        }
    }
    free(pr);
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
