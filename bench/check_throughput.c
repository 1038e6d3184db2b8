/*
 * check_throughput.c - benchmark (prints figures, asserts nothing): the
 * cost of checking a 256 MiB output against memcpy of the same buffer on
 * the same machine, as ratios of throughput (higher is better; the target
 * for the per-iteration check is 0.7). Two figures per type:
 *  - digest check: what every iteration after the first pays (XXH3 of the
 *    output compared with the verified digest; see fc_engine.c);
 *  - element-wise verify: what the first iteration, and any iteration whose
 *    digest differs, pays to find and name the wrong element.
 * Each figure is the best of 3 runs, memcpy measured in the same loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fc_kernels.h"
#include "fc_pattern_host.h"

#define BYTES (256ull << 20)

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    uint8_t *src = malloc(BYTES), *dst = malloc(BYTES);
    volatile uint64_t sink = 0;

    if (src == NULL || dst == NULL)
        return 1;
    memset(dst, 0, BYTES);
    printf("# check throughput on a 256 MiB buffer, ratio = check GB/s / memcpy GB/s\n");
    printf("%-9s %-5s %10s %12s %7s %12s %7s\n", "dtype", "op", "memcpy", "digest", "ratio",
           "elementwise", "ratio");
    for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
        for (int op = 0; op < FC_OP_COUNT; op += (op == FC_OP_SUM ? 4 : 1)) {
            size_t es = fc_dtype_info(dt)->size, n = BYTES / es;
            double best_copy = 1e9, best_digest = 1e9, best_verify = 1e9;
            fc_pattern_t p;
            fc_mismatch_t m = { 0, 0, 0, 0 };

            if (op != FC_OP_SUM && op != FC_OP_NONE)
                continue;
            fc_pattern_make(dt, op, 8, 5, &p);
            for (size_t k = 0; k < n; ++k) {
                uint64_t e = fc_pattern_expected_bits(&p, 3, k);
                memcpy(src + k * es, &e, es);
            }
            for (int rep = 0; rep < 3; ++rep) {
                double t0 = now(), t1, t2, t3;

                memcpy(dst, src, BYTES);
                t1 = now();
                sink += fc_cpu_digest(dst, BYTES);
                t2 = now();
                fc_cpu_verify(&p, 3, 0, dst, n, 0, &m);
                t3 = now();
                if (t1 - t0 < best_copy) best_copy = t1 - t0;
                if (t2 - t1 < best_digest) best_digest = t2 - t1;
                if (t3 - t2 < best_verify) best_verify = t3 - t2;
            }
            printf("%-9s %-5s %7.2f GB/s %7.2f GB/s %7.2f %7.2f GB/s %7.2f%s\n",
                   fc_dtype_info(dt)->name, fc_op_name(op), BYTES / best_copy / 1e9,
                   BYTES / best_digest / 1e9, best_copy / best_digest,
                   BYTES / best_verify / 1e9, best_copy / best_verify,
                   m.wrong ? "  (WRONG ELEMENTS: benchmark invalid)" : "");
        }
    }
    free(src);
    free(dst);
    return (int)(sink & 0);
}
