/*
 * node_checks.c - the checks of fabcert-node-gpu that need no
 * communicator: the kernels on GPU 0 (the GPU fill equals the CPU fill,
 * the verification passes a correct output and finds a planted flip with
 * its bits, the digest changes with the flip, a buffer a call must leave
 * alone is checked on the GPU as on the CPU, a stale cudaErrorNotReady is
 * not taken for a launch error, the gate holds a stream and lets it go at
 * its bound); the GEMM burn on every GPU at once (lib/gpu/fc_burn.h:
 * TFLOPS, C bitwise equal across iterations and across GPUs of one model
 * and algorithm); and the GPU health over the run (NVML, lib/gpu/
 * fc_gpu_health.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_kernels.h"
#include "fc_node_gpu.h"
#include "gpu/fc_burn.h"
#include "gpu/fc_gpu_health.h"

#define FC_BURN_SEED 0xFC0B0125u

/* One (type, op, ranks) of the kernel checks; flags cleared on failure. */
static void fc_check_one(fc_gpu_ctx_t *g, int t, int op, int nranks, void *dbuf, void *hbuf,
                         void *hcpu, size_t count, int *ok)
{
    cudaStream_t s = g->streams[0];
    size_t esize = (size_t)fc_dtype_size(t), pos = count / 3;
    fc_pattern_t p;
    fc_mismatch_t m = { 0, 0, 0, 0 };
    uint64_t d1 = 0, d2 = 0, want = 0;
    int r = nranks - 1;
    const char *tn = fc_dtype_info((fc_dtype_t)t)->name, *on = fc_op_name((fc_op_t)op);

    fc_pattern_make((fc_dtype_t)t, (fc_op_t)op, nranks, 977u + (unsigned)t, &p);
    /* fill: GPU bits == CPU bits (an odd offset: a misaligned head) */
    FC_CK(g, 0, fc_cuda_fill(g->ws[0], &p, r, 5, (char *)dbuf + esize, count, s));
    FC_CK(g, 0, cudaMemcpyAsync(hbuf, (char *)dbuf + esize, count * esize,
                                cudaMemcpyDeviceToHost, s));
    fc_node_wait(g, 0, "fill check");
    fc_cpu_fill(&p, r, 5, hcpu, count);
    if (memcmp(hbuf, hcpu, count * esize) != 0) {
        fc_tap_diag(&g->tap, "fill differs: %s %s ranks %d", tn, on, nranks);
        ok[0] = 0;
    }
    /* verify: an output of expected values passes ... */
    for (size_t k = 0; k < count; ++k) {
        uint64_t bits = fc_pattern_expected_bits(&p, r, k);

        memcpy((char *)hcpu + k * esize, &bits, esize);     /* little endian */
    }
    FC_CK(g, 0, cudaMemcpyAsync(dbuf, hcpu, count * esize, cudaMemcpyHostToDevice, s));
    fc_node_verify(g, 0, &p, r, 0, dbuf, count, 0, &m);
    FC_CK(g, 0, fc_cuda_digest(g->ws[0], dbuf, count * esize, &d1, s));
    if (m.wrong != 0) {
        fc_tap_diag(&g->tap, "verify found %llu wrong in a correct %s %s buffer",
                    (unsigned long long)m.wrong, tn, on);
        ok[1] = 0;
    }
    /* ... and one flipped bit is found, at its place, with its bits */
    FC_CK(g, 0, fc_cuda_flip_bit(dbuf, pos * esize + esize - 1, 6, s));
    memset(&m, 0, sizeof(m));
    fc_node_verify(g, 0, &p, r, 0, dbuf, count, 1000, &m);
    FC_CK(g, 0, fc_cuda_digest(g->ws[0], dbuf, count * esize, &d2, s));
    memcpy(&want, (char *)hcpu + pos * esize, esize);
    if (m.wrong != 1 || m.first_pos != 1000 + pos || m.expected_bits != want ||
        (m.actual_bits ^ m.expected_bits) != (1ull << (8 * (esize - 1) + 6))) {
        fc_tap_diag(&g->tap, "planted flip in %s %s: found %llu at %llu", tn, on,
                    (unsigned long long)m.wrong, (unsigned long long)m.first_pos);
        ok[2] = 0;
    }
    if (d1 == d2)
        ok[3] = 0;
}

/* The check of a buffer a call must leave alone (a reduce's non-root
 * recv, on the GPU): its known byte everywhere passes; one changed bit in
 * each element size is named, at its place, with the same bits as the CPU
 * twin names from a host copy. */
static void fc_check_untouched(fc_gpu_ctx_t *g, void *dbuf, void *hbuf, size_t count)
{
    cudaStream_t s = g->streams[0];
    static const int sizes[] = { 1, 2, 4, 8 };
    int ok = 1;

    for (int z = 0; z < 4; ++z) {
        size_t esize = (size_t)sizes[z], pos = count / 3 + 1;
        fc_mismatch_t m = { 0, 0, 0, 0 }, c = { 0, 0, 0, 0 };

        FC_CK(g, 0, cudaMemsetAsync(dbuf, 0x5A, count * esize, s));
        FC_CK(g, 0, fc_cuda_verify_untouched_enqueue(g->ws[0], dbuf, count, (int)esize, 0x5A, s));
        fc_node_wait(g, 0, "untouched-buffer check");
        fc_cuda_verify_take(g->ws[0], 0, &m);
        ok &= m.wrong == 0;
        FC_CK(g, 0, fc_cuda_flip_bit(dbuf, pos * esize + esize - 1, 3, s));
        FC_CK(g, 0, fc_cuda_verify_untouched_enqueue(g->ws[0], dbuf, count, (int)esize, 0x5A, s));
        fc_node_wait(g, 0, "untouched-buffer check");
        memset(&m, 0, sizeof(m));
        fc_cuda_verify_take(g->ws[0], 7, &m);
        FC_CK(g, 0, cudaMemcpyAsync(hbuf, dbuf, count * esize, cudaMemcpyDeviceToHost, s));
        fc_node_wait(g, 0, "untouched-buffer copy");
        fc_cpu_verify_untouched(hbuf, count, esize, 0x5A, 7, &c);
        if (m.wrong != 1 || m.first_pos != 7 + pos || m.wrong != c.wrong ||
            m.first_pos != c.first_pos || m.expected_bits != c.expected_bits ||
            m.actual_bits != c.actual_bits) {
            fc_tap_diag(&g->tap, "untouched %zu-byte buffer, bit changed at %zu: GPU %llu at "
                        "%llu (0x%llx), CPU %llu at %llu (0x%llx)", esize, pos,
                        (unsigned long long)m.wrong, (unsigned long long)m.first_pos,
                        (unsigned long long)m.actual_bits, (unsigned long long)c.wrong,
                        (unsigned long long)c.first_pos, (unsigned long long)c.actual_bits);
            ok = 0;
        }
    }
    fc_tap_ok(&g->tap, ok, "a buffer the call must leave alone passes with its known byte, and "
              "one changed bit is named at its element with the CPU twin's bits (1, 2, 4 "
              "and 8-byte elements)");
}

/* A pending event query leaves cudaErrorNotReady behind; the next
 * kernel wrapper must report its own launch, not that. */
static int fc_check_stale_error(fc_gpu_ctx_t *g, void *dbuf)
{
    fc_cuda_gate_t *gate;
    cudaEvent_t ev;
    cudaError_t q;
    fc_pattern_t p;
    int rc;

    FC_CK(g, 0, fc_cuda_gate_create(5.0, &gate));
    FC_CK(g, 0, cudaEventCreate(&ev));
    fc_cuda_gate_arm(gate);
    FC_CK(g, 0, fc_cuda_gate_hold(gate, g->streams[0]));
    FC_CK(g, 0, cudaEventRecord(ev, g->streams[0]));
    q = cudaEventQuery(ev);                 /* pending: the gate holds it */
    fc_pattern_make(FC_INT32, FC_OP_SUM, 2, 1, &p);
    rc = fc_cuda_fill(g->ws[0], &p, 0, 0, dbuf, 1024, g->streams[0]);
    fc_cuda_gate_release(gate);
    fc_node_wait(g, 0, "stale-error check");
    cudaEventDestroy(ev);
    fc_cuda_gate_destroy(gate);
    fc_tap_ok(&g->tap, q == cudaErrorNotReady && rc == 0, "a fill launched after a pending "
              "event query reports its own launch (%s), not the query's %s",
              cudaGetErrorString((cudaError_t)rc), cudaGetErrorString(q));
    return q == cudaErrorNotReady && rc == 0;
}

/* The gate holds a stream without its hold being timed, and a gate that is
 * never released lets the stream go at its bound and says so. */
static void fc_check_gate(fc_gpu_ctx_t *g, void *dbuf)
{
    fc_cuda_gate_t *gate;
    float ms = -1;
    int ran_early;

    FC_CK(g, 0, fc_cuda_gate_create(5.0, &gate));
    fc_cuda_gate_arm(gate);
    FC_CK(g, 0, fc_cuda_gate_hold(gate, g->streams[0]));
    FC_CK(g, 0, cudaEventRecord(g->start[0], g->streams[0]));
    FC_CK(g, 0, cudaMemsetAsync(dbuf, 0, 1 << 20, g->streams[0]));
    FC_CK(g, 0, cudaEventRecord(g->stop[0], g->streams[0]));
    usleep(50000);                          /* the host dawdles: not timed */
    ran_early = cudaEventQuery(g->stop[0]) == cudaSuccess;
    (void)cudaGetLastError();
    fc_cuda_gate_release(gate);
    fc_node_wait(g, 0, "gate check");
    FC_CK(g, 0, cudaEventElapsedTime(&ms, g->start[0], g->stop[0]));
    fc_tap_ok(&g->tap, !ran_early && ms >= 0 && ms < 10 && !fc_cuda_gate_expired(gate),
              "the gate held the stream through a 50 ms host delay, which the events do "
              "not include (%.3f ms timed)", ms);
    fc_cuda_gate_destroy(gate);
    FC_CK(g, 0, fc_cuda_gate_create(0.05, &gate));
    fc_cuda_gate_arm(gate);
    FC_CK(g, 0, fc_cuda_gate_hold(gate, g->streams[0]));
    fc_node_wait(g, 0, "gate bound check");  /* never released: the bound ends it */
    fc_tap_ok(&g->tap, fc_cuda_gate_expired(gate), "a gate never released lets its stream "
              "go at its bound (50 ms) and says so");
    fc_cuda_gate_destroy(gate);
}

void fc_node_kernel_checks(fc_gpu_ctx_t *g)
{
    const size_t count = (1 << 20) + 3;
    static const int ranks[] = { 2, 8, 64 };
    void *dbuf, *hbuf = malloc(count * 8), *hcpu = malloc(count * 8);
    int ok[4] = { 1, 1, 1, 1 };

    FC_CK(g, 0, cudaSetDevice(0));
    FC_CK(g, 0, cudaMalloc(&dbuf, (count + 2) * 8));
    for (int t = 0; t < FC_DTYPE_COUNT; ++t)
        for (int op = 0; op <= FC_OP_NONE; ++op)
            for (int rk = 0; rk < 3; ++rk)
                fc_check_one(g, t, op, ranks[rk], dbuf, hbuf, hcpu, count, ok);
    fc_tap_ok(&g->tap, ok[0], "GPU fill equals CPU fill, bit for bit, every type and op, "
              "2/8/64 ranks");
    fc_tap_ok(&g->tap, ok[1], "GPU verification passes correct outputs of every type and op");
    fc_tap_ok(&g->tap, ok[2], "a planted bit flip is found as exactly 1 wrong element, at its "
              "position, with its expected and actual bits");
    fc_tap_ok(&g->tap, ok[3], "the GPU digest changes with one flipped bit");
    fc_check_untouched(g, dbuf, hbuf, count);
    fc_check_stale_error(g, dbuf);
    fc_check_gate(g, dbuf);
    cudaFree(dbuf);
    free(hbuf);
    free(hcpu);
}

/* ---- the burn ----------------------------------------------------------- */

typedef struct fc_burn_job {
    fc_gpu_ctx_t *g;
    int device, kind, rc;
    fc_burn_result_t r;
} fc_burn_job_t;

static void *fc_burn_thread(void *arg)
{
    fc_burn_job_t *j = arg;

    if ((j->rc = (int)cudaSetDevice(j->device)) == 0)
        j->rc = fc_burn_gemm(j->kind, 0, j->g->burn_s, FC_BURN_SEED, j->g->streams[j->device],
                             &j->r);
    else
        snprintf(j->r.why, sizeof(j->r.why), "cudaSetDevice: %s",
                 cudaGetErrorString((cudaError_t)j->rc));
    return NULL;
}

/* Every GPU burns kind at once; one TAP point per kind. */
static void fc_node_burn_kind(fc_gpu_ctx_t *g, int kind)
{
    fc_burn_job_t jobs[FC_MAX_GPUS];
    pthread_t th[FC_MAX_GPUS];
    double lo = 1e30, hi = 0;
    int ok = 1, agree = 1;
    const char *name = fc_burn_kind_name(kind);

    for (int d = 0; d < g->ngpus; ++d) {
        memset(&jobs[d], 0, sizeof(jobs[d]));
        jobs[d].g = g;
        jobs[d].device = d;
        jobs[d].kind = kind;
        if (pthread_create(&th[d], NULL, fc_burn_thread, &jobs[d]) != 0)
            fc_node_fatal(g, __FILE__, __LINE__, "cannot start the burn thread of GPU %d", d);
    }
    for (int d = 0; d < g->ngpus; ++d)
        pthread_join(th[d], NULL);
    for (int d = 0; d < g->ngpus; ++d) {
        const fc_burn_result_t *r = &jobs[d].r;

        if (jobs[d].rc != 0) {
            fc_tap_diag(&g->tap, "burn %s on GPU %d: %s", name, d, r->why);
            ok = 0;
            continue;
        }
        fc_tap_diag(&g->tap, "burn %s on GPU %d: %.1f TFLOPS, %ld GEMMs of %d^3 in %.1f s, "
                    "digest %016llx, %ld iteration(s) differ; %s", name, d, r->tflops,
                    r->iters, r->n, r->gemm_s, (unsigned long long)r->digest, r->mismatched,
                    r->algo);
        if (r->mismatched || r->iters < 2) {
            fc_tap_diag(&g->tap, "burn %s on GPU %d: iteration %ld gave C digest %016llx, "
                        "not %016llx: a wrong result", name, d, r->first_bad,
                        (unsigned long long)r->bad_digest, (unsigned long long)r->digest);
            ok = 0;
        }
        lo = r->tflops < lo ? r->tflops : lo;
        hi = r->tflops > hi ? r->tflops : hi;
        /* the same model, SM count and algorithm must give the same bits */
        for (int e = 0; e < d; ++e)
            if (jobs[e].rc == 0 && strcmp(g->prop[e].name, g->prop[d].name) == 0 &&
                strcmp(jobs[e].r.algo, r->algo) == 0 && jobs[e].r.n == r->n &&
                jobs[e].r.digest != r->digest) {
                fc_tap_diag(&g->tap, "burn %s: GPU %d and GPU %d (%s, same algorithm) "
                            "computed different C (%016llx, %016llx)", name, e, d,
                            g->prop[d].name, (unsigned long long)jobs[e].r.digest,
                            (unsigned long long)r->digest);
                agree = 0;
                break;
            }
    }
    fc_tap_ok(&g->tap, ok && agree, "burn %s on %d GPU(s) for %.0f s: %.1f to %.1f TFLOPS, "
              "C bitwise equal across iterations and across GPUs of one model", name,
              g->ngpus, g->burn_s, ok ? lo : 0, ok ? hi : 0);
    fc_tap_yaml_begin(&g->tap);
    for (int d = 0; d < g->ngpus; ++d)
        fc_tap_yaml_line(&g->tap, "gpu%d: {tflops: %.2f, iterations: %ld, n: %d, "
                         "mismatched: %ld, digest: '%016llx'}", d, jobs[d].r.tflops,
                         jobs[d].r.iters, jobs[d].r.n, jobs[d].r.mismatched,
                         (unsigned long long)jobs[d].r.digest);
    fc_tap_yaml_end(&g->tap);
}

void fc_node_burn(fc_gpu_ctx_t *g)
{
    for (int k = 0; k < FC_BURN_KINDS; ++k)
        fc_node_burn_kind(g, k);
}

/* ---- health ------------------------------------------------------------- */

void fc_node_health(fc_gpu_ctx_t *g, json_t *before)
{
    char why[512], host[256] = "this node";
    json_t *after, *j, *gpu;
    size_t i;

    gethostname(host, sizeof(host));
    if (before == NULL) {
        fc_tap_skip(&g->tap, "no GPU health readings", "GPU health over the run (NVML)");
        return;
    }
    if ((after = fc_gpu_health_snapshot(NULL, why, sizeof(why))) == NULL) {
        fc_tap_ok(&g->tap, 0, "GPU health over the run: NVML read at the start, not at the "
                  "end: %s", why);
        return;
    }
    json_array_foreach(json_object_get(after, "gpus"), i, gpu) {
        const json_t *c = json_object_get(gpu, "counters"), *mhz = json_object_get(gpu, "clocks_mhz");

        fc_tap_diag(&g->tap, "NVML GPU %zu %s: SM %lld MHz, mem %lld MHz, %lld C, %.1f W, "
                    "ECC uncorrected %lld (aggregate %lld), corrected %lld, retired pages "
                    "%lld, remapped rows %lld, thermal-throttled %.1f ms, %zu NVLink(s), "
                    "clocks-event reasons 0x%llx", i,
                    json_string_value(json_object_get(gpu, "uuid")) ?: "?",
                    (long long)json_integer_value(json_object_get(mhz, "sm")),
                    (long long)json_integer_value(json_object_get(mhz, "mem")),
                    (long long)json_integer_value(json_object_get(gpu, "temperature_c")),
                    json_integer_value(json_object_get(gpu, "power_mw")) / 1000.0,
                    (long long)json_integer_value(json_object_get(c, "ecc_volatile_uncorrected")),
                    (long long)json_integer_value(json_object_get(c, "ecc_aggregate_uncorrected")),
                    (long long)json_integer_value(json_object_get(c, "ecc_volatile_corrected")),
                    (long long)(json_integer_value(json_object_get(c, "retired_pages_sbe")) +
                                json_integer_value(json_object_get(c, "retired_pages_dbe"))),
                    (long long)json_integer_value(json_object_get(c, "remapped_rows_uncorrected")),
                    json_integer_value(json_object_get(c, "violation_thermal_ns")) / 1e6,
                    json_object_size(json_object_get(gpu, "nvlink")),
                    (unsigned long long)json_integer_value(
                        json_object_get(json_object_get(gpu, "clocks_event_reasons"), "mask")));
    }
    j = fc_gpu_health_judge(before, after, NULL, host);
    json_array_foreach(json_object_get(j, "reasons"), i, gpu)
        fc_tap_diag(&g->tap, "%s", json_string_value(gpu));
    fc_tap_ok(&g->tap, strcmp(json_string_value(json_object_get(j, "verdict")), "PASS") == 0,
              "GPU health over the run (NVML, %zu GPU(s)): %s",
              json_array_size(json_object_get(after, "gpus")),
              json_string_value(json_object_get(j, "verdict")));
    json_decref(j);
    json_decref(after);
}
