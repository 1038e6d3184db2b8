/*
 * check_throughput.c - benchmark: the cost of checking a 256 MiB output
 * against memcpy of the same buffer on the same machine, for every type
 * and op, as ratios of throughput (higher is better). Two checks:
 *  - digest: what every iteration after the first pays (XXH3 of the
 *    output compared with the verified digest; see fc_engine.c);
 *  - element-wise verify: what the first iteration, and any iteration
 *    whose digest differs, pays to find and name the wrong element.
 * The machine is shared and noisy, so memcpy, digest and verify are
 * interleaved in each of several rounds (default 5), each round gives one
 * ratio per check (memcpy time / check time, same round), and a row
 * prints the median ratio and its spread (lowest and highest round), not
 * the best run. Each row says whether its medians meet the targets below;
 * the exit status is 0 unless the benchmark itself failed (a wrong element
 * in the clean buffer, a digest that changed between rounds), since on a
 * shared machine a slow figure is not a failure of the code.
 *
 * Usage: check_throughput [ROUNDS [ISA]]  (ISA: base, avx2, avx512; the
 * default is the best the CPU supports, as in the engine). The header line
 * gives the load average: the compute-bound checks lose more than memcpy
 * to other work on the machine, so the ratios fall as the load rises.
 */
#define _DEFAULT_SOURCE     /* getloadavg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fc_alloc.h"
#include "fc_kernels.h"
#include "fc_pattern_host.h"

#define FC_BENCH_BYTES (256ull << 20)
#define FC_BENCH_MAX_ROUNDS 31

/* The targets for checking at memory speed, per check. */
static const struct {
    const char *check;
    double min_ratio;       /* median check GB/s over memcpy GB/s */
} fc_bench_targets[] = {
    { "digest", 1.0 },
    { "element-wise", 0.5 },
};

typedef struct fc_bench_row {
    double copy_gbs, ratio[2], lo[2], hi[2];
    int invalid;            /* wrong elements found, or a digest changed */
} fc_bench_row_t;

static double fc_bench_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fc_bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Median, lowest and highest of n values (sorts v). */
static double fc_bench_median(double *v, int n, double *lo_p, double *hi_p)
{
    qsort(v, (size_t)n, sizeof(*v), fc_bench_cmp);
    *lo_p = v[0];
    *hi_p = v[n - 1];
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void fc_bench_one(int dt, int op, int rounds, uint8_t *src, uint8_t *dst,
                         fc_bench_row_t *row_p)
{
    size_t es = fc_dtype_info(dt)->size, n = FC_BENCH_BYTES / es;
    double copy[FC_BENCH_MAX_ROUNDS], ratio[2][FC_BENCH_MAX_ROUNDS];
    fc_mismatch_t m = { 0, 0, 0, 0 };
    uint64_t digest0 = 0;
    fc_bench_row_t row;
    fc_pattern_t p;
    double lo, hi;

    memset(&row, 0, sizeof(row));
    fc_pattern_make(dt, op, 8, 5, &p);
    for (size_t k = 0; k < n; ++k) {
        uint64_t e = fc_pattern_expected_bits(&p, 3, k);
        memcpy(src + k * es, &e, es);
    }
    memcpy(dst, src, FC_BENCH_BYTES);   /* warm-up, not timed */
    for (int r = 0; r < rounds; ++r) {
        double t0, t1, t2, t3;
        uint64_t digest;

        t0 = fc_bench_now();
        memcpy(dst, src, FC_BENCH_BYTES);
        t1 = fc_bench_now();
        digest = fc_cpu_digest(dst, FC_BENCH_BYTES);
        t2 = fc_bench_now();
        fc_cpu_verify(&p, 3, 0, dst, n, 0, &m);
        t3 = fc_bench_now();
        if (r == 0)
            digest0 = digest;
        row.invalid |= digest != digest0;
        copy[r] = FC_BENCH_BYTES / (t1 - t0) / 1e9;
        ratio[0][r] = (t1 - t0) / (t2 - t1);
        ratio[1][r] = (t1 - t0) / (t3 - t2);
    }
    row.invalid |= m.wrong != 0;
    row.copy_gbs = fc_bench_median(copy, rounds, &lo, &hi);
    for (int c = 0; c < 2; ++c)
        row.ratio[c] = fc_bench_median(ratio[c], rounds, &row.lo[c], &row.hi[c]);
    *row_p = row;
}

static int fc_bench_isa_from_name(const char *name)
{
    for (int isa = 0; isa < FC_CPU_ISA_COUNT; ++isa)
        if (strcmp(name, fc_cpu_isa_name((fc_cpu_isa_t)isa)) == 0)
            return isa;
    return -1;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5, rows = 0, meet = 0, invalid = 0;
    uint8_t *src, *dst;
    double load[1];

    if (rounds < 1 || rounds > FC_BENCH_MAX_ROUNDS) {
        fprintf(stderr, "check_throughput: ROUNDS must be 1..%d, not '%s'\n",
                FC_BENCH_MAX_ROUNDS, argv[1]);
        return 2;
    }
    if (argc > 2) {
        int isa = fc_bench_isa_from_name(argv[2]);

        if (isa < 0 || fc_cpu_isa_set((fc_cpu_isa_t)isa) != 0) {
            fprintf(stderr, "check_throughput: ISA '%s' is unknown or not supported "
                    "by this CPU (base, avx2, avx512)\n", argv[2]);
            return 2;
        }
    }
    src = fc_xmalloc(FC_BENCH_BYTES, "the benchmark's source buffer");
    dst = fc_xmalloc(FC_BENCH_BYTES, "the benchmark's output buffer");
    memset(dst, 0, FC_BENCH_BYTES);
    if (getloadavg(load, 1) != 1)
        load[0] = -1;
    printf("# check throughput on a 256 MiB buffer, CPU kernels: %s, load average "
           "%.2f at the start\n", fc_cpu_isa_name(fc_cpu_isa_get()), load[0]);
    printf("# ratio = check GB/s / memcpy GB/s in the same round; median [lowest-highest]"
           " of %d interleaved rounds\n", rounds);
    printf("# targets: %s >= %.2f x memcpy, %s >= %.2f x memcpy (median)\n",
           fc_bench_targets[0].check, fc_bench_targets[0].min_ratio,
           fc_bench_targets[1].check, fc_bench_targets[1].min_ratio);
    printf("%-9s %-5s %11s  %-18s %-4s  %-18s %-4s\n", "dtype", "op", "memcpy",
           "digest ratio", "meet", "element-wise ratio", "meet");
    for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
        for (int op = 0; op < FC_OP_COUNT; ++op) {
            fc_bench_row_t row;
            int ok[2];

            fc_bench_one(dt, op, rounds, src, dst, &row);
            for (int c = 0; c < 2; ++c)
                ok[c] = row.ratio[c] >= fc_bench_targets[c].min_ratio;
            printf("%-9s %-5s %6.2f GB/s  %5.2f [%4.2f-%4.2f]  %-4s  %5.2f [%4.2f-%4.2f]  %-4s%s\n",
                   fc_dtype_info(dt)->name, fc_op_name(op), row.copy_gbs,
                   row.ratio[0], row.lo[0], row.hi[0], ok[0] ? "yes" : "NO",
                   row.ratio[1], row.lo[1], row.hi[1], ok[1] ? "yes" : "NO",
                   row.invalid ? "  (WRONG ELEMENTS OR DIGEST CHANGED: row invalid)" : "");
            fflush(stdout);
            ++rows;
            meet += ok[0] && ok[1] && !row.invalid;
            invalid += row.invalid;
        }
    }
    printf("# %d of %d rows meet both targets\n", meet, rows);
    free(src);
    free(dst);
    return invalid ? 1 : 0;
}
