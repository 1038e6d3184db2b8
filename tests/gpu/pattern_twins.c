/*
 * pattern_twins.c - proof that the CPU and the GPU code cannot drift: the
 * one generator definition (kernels/fc_pattern.h) is compiled twice, as C
 * here and as CUDA by nvcc (pattern_twins_cuda.cu, which also compiles it
 * for the device), and the two compilations must give the same bits for
 * every type, op, rank count, rank and a spread of indices (including
 * indices past 2^32, and past 2^34, where the group index of uint8
 * crosses 2^32). Where a GPU exists, the device compilation runs too: a
 * kernel computes input ^ expectation for every type and op and the
 * host's bits must match; elsewhere that point is skipped with the
 * reason. Built by `make` where the CUDA toolkit is present, and run by
 * `make check`.
 */
#include <stdint.h>
#include <stdio.h>

#include "fc_pattern.h"
#include "fc_pattern_host.h"
#include "fc_tap.h"

uint64_t fc_twins_input_cuda(const fc_pattern_t *p, int32_t r, uint64_t i);
uint64_t fc_twins_expected_cuda(const fc_pattern_t *p, int32_t src, uint64_t i);
int fc_twins_dtype_size_cuda(int32_t t);
int fc_twins_device_run(const fc_pattern_t *p, int32_t r, uint64_t *out, size_t n, char *why,
                        size_t len);

/* The device compilation (a kernel) against the host's bits; 1 if run
 * and equal, 0 if different, -1 (why) if it could not run. */
static int fc_twins_device(fc_tap_t *tap, char *why, size_t len)
{
    enum { N = 1 << 16 };
    static uint64_t out[N];
    int same = 1;

    for (int t = 0; t < FC_DTYPE_COUNT; ++t)
        for (int op = 0; op <= FC_OP_NONE; ++op) {
            fc_pattern_t p;

            fc_pattern_make((fc_dtype_t)t, (fc_op_t)op, 8, 777u + (unsigned)t, &p);
            if (fc_twins_device_run(&p, 3, out, N, why, len) != 0)
                return -1;
            for (size_t k = 0; k < N; ++k)
                if (out[k] != (fc_pattern_input_bits(&p, 3, k) ^ fc_pattern_expected_bits(&p, 3, k))) {
                    if (same)
                        fc_tap_diag(tap, "device differs: %s op %d index %zu",
                                    fc_dtype_info((fc_dtype_t)t)->name, op, k);
                    same = 0;
                    break;
                }
        }
    return same;
}

/* The indices to compare: 0..4095, then a geometric spread to 4e10, with
 * the 32 indices around each of 2^32, 2^33 and 2^34 (where the group index
 * of 4-, 2- and 1-byte types crosses 2^32) taken in passing. */
static uint64_t fc_twins_next_index(uint64_t i)
{
    static const int edges[] = { 32, 33, 34 };
    uint64_t next = i < 4096 ? i + 1 : i * 3 / 2 + 7;

    for (int e = 0; e < 3; ++e) {
        uint64_t lo = (1ull << edges[e]) - 16, hi = (1ull << edges[e]) + 16;

        if (i >= lo && i + 1 < hi)
            return i + 1;
        if (i < lo && next > lo)
            return lo;
    }
    return next;
}

int main(void)
{
    static const int nranks[] = { 1, 2, 3, 8, 300 };
    fc_tap_t tap;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 2 * FC_DTYPE_COUNT + 1);
    for (int t = 0; t < FC_DTYPE_COUNT; ++t) {
        uint64_t checked = 0, differ = 0;

        /* element sizes: the shared header's, both ways, and the host table's */
        if (fc_twins_dtype_size_cuda(t) != fc_dtype_size(t) ||
            (size_t)fc_dtype_size(t) != fc_dtype_info((fc_dtype_t)t)->size)
            ++differ;
        for (int op = 0; op <= FC_OP_NONE; ++op)
            for (int n = 0; n < 5; ++n) {
                fc_pattern_t p;

                fc_pattern_make((fc_dtype_t)t, (fc_op_t)op, nranks[n], 20261202u + (unsigned)op, &p);
                for (int r = 0; r < nranks[n]; r += nranks[n] > 8 ? 37 : 1)
                    for (uint64_t i = 0; i < 40000000000ull;
                         i = fc_twins_next_index(i)) {
                        ++checked;
                        if (fc_pattern_input_bits(&p, r, i) != fc_twins_input_cuda(&p, r, i) ||
                            fc_pattern_expected_bits(&p, r, i) != fc_twins_expected_cuda(&p, r, i)) {
                            if (differ++ < 3)
                                fc_tap_diag(&tap, "%s op %d n %d rank %d index %llu differs",
                                            fc_dtype_info((fc_dtype_t)t)->name, op, nranks[n],
                                            r, (unsigned long long)i);
                        }
                    }
            }
        fc_tap_is_int(&tap, differ, 0, "%s: C and CUDA compilations of the "
                      "generator agree on %llu inputs and expectations",
                      fc_dtype_info((fc_dtype_t)t)->name, (unsigned long long)checked);
        fc_tap_ok(&tap, checked > 0, "%s: C and CUDA compilations of the "
                  "generator agree on %llu inputs and expectations"
                  " [checked > 0]", fc_dtype_info((fc_dtype_t)t)->name,
                  (unsigned long long)checked);
    }
    {
        char why[256];
        int dev = fc_twins_device(&tap, why, sizeof(why));

        if (dev < 0)
            fc_tap_skip(&tap, why, "the device compilation (a kernel on the GPU) agrees with "
                        "the host for every type and op");
        else
            fc_tap_ok(&tap, dev, "the device compilation (a kernel on the GPU) agrees with the "
                      "host for every type and op, 65536 indices each");
    }
    return fc_tap_done(&tap);
}
