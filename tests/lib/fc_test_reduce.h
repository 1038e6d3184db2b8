/*
 * fc_test_reduce.h - reference arithmetic for the tests: combine two
 * elements' bits with a type's own arithmetic (wrapping integers, IEEE
 * float32/float64, float16/bfloat16 rounded after every step as a
 * half-precision accumulator would). Independent of fc_pattern.h's closed
 * forms, which is the point: the tests compare the two.
 */
#ifndef FC_TEST_REDUCE_H
#define FC_TEST_REDUCE_H

#include <stdint.h>
#include <string.h>

#include "fc_half.h"
#include "fc_pattern.h"

static inline uint64_t fc_test_combine(int dtype, int op, uint64_t a, uint64_t b)
{
    switch (dtype) {
    case FC_INT32: {
        int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
        uint32_t r = op == FC_OP_SUM ? (uint32_t)x + (uint32_t)y
                   : op == FC_OP_PROD ? (uint32_t)x * (uint32_t)y
                   : (uint32_t)(op == FC_OP_MIN ? (x < y ? x : y) : (x > y ? x : y));
        return r;
    }
    case FC_INT64: {
        int64_t x = (int64_t)a, y = (int64_t)b;
        return op == FC_OP_SUM ? a + b : op == FC_OP_PROD ? a * b
             : (uint64_t)(op == FC_OP_MIN ? (x < y ? x : y) : (x > y ? x : y));
    }
    case FC_UINT8: {
        uint8_t x = (uint8_t)a, y = (uint8_t)b;
        return (uint8_t)(op == FC_OP_SUM ? x + y : op == FC_OP_PROD ? x * y
                         : op == FC_OP_MIN ? (x < y ? x : y) : (x > y ? x : y));
    }
    case FC_FLOAT32: {
        float x, y, r;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, ur;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        r = op == FC_OP_SUM ? x + y : op == FC_OP_PROD ? x * y
          : op == FC_OP_MIN ? (x < y ? x : y) : (x > y ? x : y);
        memcpy(&ur, &r, 4);
        return ur;
    }
    case FC_FLOAT64: {
        double x, y, r;
        uint64_t ur;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        r = op == FC_OP_SUM ? x + y : op == FC_OP_PROD ? x * y
          : op == FC_OP_MIN ? (x < y ? x : y) : (x > y ? x : y);
        memcpy(&ur, &r, 8);
        return ur;
    }
    default: {
        int bf = dtype == FC_BFLOAT16;
        float x = bf ? fc_bf16_to_float((uint16_t)a) : fc_f16_to_float((uint16_t)a);
        float y = bf ? fc_bf16_to_float((uint16_t)b) : fc_f16_to_float((uint16_t)b);
        float r = op == FC_OP_SUM ? x + y : op == FC_OP_PROD ? x * y
                : op == FC_OP_MIN ? (x < y ? x : y) : (x > y ? x : y);
        return bf ? fc_float_to_bf16(r) : fc_float_to_f16(r);
    }
    }
}

/* xorshift64*: the tests' own reproducible random numbers */
static inline uint64_t fc_test_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Reduce n values in a random tree: repeatedly combine two random
 * entries. vals is clobbered. */
static inline uint64_t fc_test_reduce_random(int dtype, int op, uint64_t *vals,
                                             int n, uint64_t *rng)
{
    while (n > 1) {
        int a = (int)(fc_test_rand(rng) % (uint64_t)n);
        int b = (int)(fc_test_rand(rng) % (uint64_t)(n - 1));

        if (b >= a)
            ++b;
        vals[a] = fc_test_combine(dtype, op, vals[a], vals[b]);
        vals[b] = vals[n - 1];
        --n;
    }
    return vals[0];
}

#endif
