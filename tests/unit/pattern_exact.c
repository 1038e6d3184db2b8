/*
 * pattern_exact.c - for every type, op and a range of rank counts, the
 * closed-form expectation of fc_pattern.h equals, bit for bit, the result
 * of reducing the generated inputs in many random orders and groupings with
 * the type's own arithmetic, at indices from 0 and across the 2^32
 * boundaries of the element index and of the group index (fc_pattern.h's
 * element groups: 2^33 elements for 16-bit types, 2^34 for uint8). Also
 * checks that the data is not trivial (the expected values take many
 * different values), that move data never holds a NaN or Inf, and that
 * the values' bits (g_mask) stay below the sign bit of the hash slice an
 * element gets.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fc_pattern_host.h"
#include "fc_tap.h"
#include "fc_test_reduce.h"

#define ELEMS 256
#define TRIALS 16

static const int rank_counts[] = { 1, 2, 3, 4, 5, 8, 16, 64, 300 };
#define NCOUNTS ((int)(sizeof(rank_counts) / sizeof(rank_counts[0])))

static int is_nan_or_inf(int dtype, uint64_t bits)
{
    switch (dtype) {
    case FC_FLOAT32: return (bits & 0x7F800000u) == 0x7F800000u;
    case FC_FLOAT64: return (bits & 0x7FF0000000000000ull) == 0x7FF0000000000000ull;
    case FC_FLOAT16: return (bits & 0x7C00u) == 0x7C00u;
    case FC_BFLOAT16: return (bits & 0x7F80u) == 0x7F80u;
    default: return 0;
    }
}

int main(void)
{
    static const uint64_t bases[] = { 0, (1ull << 32) - ELEMS / 2, (1ull << 33) - ELEMS / 2,
                                      (1ull << 34) - ELEMS / 2 };
    uint64_t *vals = malloc(300 * sizeof(*vals));
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    fc_tap_t tap;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 2 * FC_DTYPE_COUNT * 4 * NCOUNTS + 2 * FC_DTYPE_COUNT);
    for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
        for (int op = 0; op < 4; ++op) {
            for (int c = 0; c < NCOUNTS; ++c) {
                int n = rank_counts[c];
                uint64_t wrong = 0, first_i = 0, distinct = 0, prev = ~0ull;
                fc_pattern_t p;

                fc_pattern_make(dt, op, n, 1234u + (uint32_t)c, &p);
                for (int b = 0; b < 4; ++b) {
                    for (uint64_t i = bases[b]; i < bases[b] + ELEMS; ++i) {
                        uint64_t expected = fc_pattern_expected_bits(&p, -1, i);

                        distinct += expected != prev;
                        prev = expected;
                        for (int t = 0; t < TRIALS; ++t) {
                            for (int r = 0; r < n; ++r)
                                vals[r] = fc_pattern_input_bits(&p, r, i);
                            if (fc_test_reduce_random(dt, op, vals, n, &rng) != expected &&
                                wrong++ == 0)
                                first_i = i;
                        }
                    }
                }
                fc_tap_is_int(&tap, wrong, 0, "%s %s over %d ranks: exact in %d random trees per "
                              "element (%llu wrong, first at %llu; %llu distinct)",
                              fc_dtype_info(dt)->name, fc_op_name(op), n, TRIALS,
                              (unsigned long long)wrong, (unsigned long long)first_i,
                              (unsigned long long)distinct);
                fc_tap_ok(&tap, distinct > ELEMS / 4,
                          "%s %s over %d ranks: exact in %d random trees per "
                          "element (%llu wrong, first at %llu; %llu distinct)"
                          " [distinct > ELEMS / 4]", fc_dtype_info(dt)->name, fc_op_name(op), n,
                          TRIALS, (unsigned long long)wrong, (unsigned long long)first_i,
                          (unsigned long long)distinct);
            }
        }
    }
    for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
        fc_pattern_t p;
        int bad = 0;

        fc_pattern_make(dt, FC_OP_NONE, 4, 99, &p);
        for (int r = 0; r < 4; ++r)
            for (uint64_t i = 0; i < 100000; ++i)
                bad += is_nan_or_inf(dt, fc_pattern_input_bits(&p, r, i));
        fc_tap_is_int(&tap, bad, 0, "%s move data holds no NaN or Inf (%d found)",
                      fc_dtype_info(dt)->name, bad);
    }
    for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
        uint32_t sign_bit = 1u << (8 * (fc_dtype_size(dt) < 4 ? fc_dtype_size(dt) : 4) - 1);
        uint32_t widest = 0;

        for (int op = 0; op < 4; ++op)
            for (int c = 0; c < NCOUNTS; ++c) {
                fc_pattern_t p;

                fc_pattern_make(dt, op, rank_counts[c], 5, &p);
                if (p.g_mask > widest)
                    widest = p.g_mask;
            }
        fc_tap_ok(&tap, widest < sign_bit, "%s: g_mask (at most 0x%x) stays below the "
                  "sign bit of an element's hash slice (0x%x)", fc_dtype_info(dt)->name,
                  widest, sign_bit);
    }
    free(vals);
    return fc_tap_done(&tap);
}
