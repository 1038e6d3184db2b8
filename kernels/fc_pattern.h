/*
 * fc_pattern.h - the one definition of fabcert's test data, shared verbatim
 * by the CPU code (C) and the GPU kernels (CUDA), so the two cannot drift.
 *
 * Every input element is a pure function of (seed, rank, index); every
 * expected output element is a pure function of (pattern, source rank,
 * index) computed in O(1) with no communication. Reductions are exact for
 * every reduction order and grouping: values are small integers chosen per
 * (type, op, rank count) so that no partial result can round or overflow.
 *
 *  - sum:  rank r, element i takes slot j = (r + i) mod n. Slots j < K are
 *          "active" and hold g(i) + w(j) - bias; the others hold 0. The sum
 *          is K*(g(i) - bias) + W with W = sum of w(j) over j < K, and every
 *          partial sum is bounded by K * max|v| <= 2^budget (exact in the
 *          type). K < n only when even values of 1 would overflow the budget
 *          (e.g. bfloat16 with more than 128 ranks).
 *  - prod: slot 0 holds g(i) (odd), every slot j < E_CAP may hold a factor 2
 *          (e(j)) and, for signed types, a factor -1 (neg(j)) when sbit(i).
 *          The product is g(i) * 2^E * (+-1): a few significant bits, exact.
 *  - min/max: every slot holds g(i) + w(j) - bias; the result is
 *          g(i) + min_j w(j) - bias (or max). Rotation makes the winning
 *          rank differ from element to element.
 *  - move (all_gather, broadcast, all_to_all, sendrecv): full-entropy bits
 *          from a hash of (seed, source rank, index); float exponents are
 *          kept off all-ones so no NaN or Inf is ever produced.
 *
 * g(i), sbit(i) and the move bits come from one 32-bit hash per group of
 * 4 uint8, 2 float16/bfloat16 or 1 wider element (see "the element hash"
 * below), so that a check hashes once per 32-bit word of output.
 *
 * Values become type bits through fc_value_to_bits(), which is exact for
 * the small integers used here (float16/bfloat16 conversions are exact
 * float32 arithmetic and bit moves, so no half-precision hardware is
 * needed).
 */
#ifndef FC_PATTERN_H
#define FC_PATTERN_H

#include <stdint.h>

#ifdef __CUDACC__
#define FC_HD __host__ __device__ __forceinline__
#else
#define FC_HD static inline
#endif

typedef enum fc_dtype {
    FC_INT32 = 0,
    FC_INT64,
    FC_UINT8,
    FC_FLOAT32,
    FC_FLOAT64,
    FC_FLOAT16,
    FC_BFLOAT16,
    FC_DTYPE_COUNT
} fc_dtype_t;

typedef enum fc_op {
    FC_OP_SUM = 0,
    FC_OP_PROD,
    FC_OP_MIN,
    FC_OP_MAX,
    FC_OP_NONE,         /* data movement: no reduction */
    FC_OP_COUNT
} fc_op_t;

/* Largest number of ranks that may contribute a factor 2 to a product. */
#define FC_PATTERN_PROD_E_CAP_MAX 20

/* Everything a fill or check needs; plain data, passed to GPU kernels by
 * value. Built once per test by fc_pattern_make() (fc_pattern.c). */
typedef struct fc_pattern {
    uint32_t seed;
    int32_t dtype;      /* fc_dtype_t */
    int32_t op;         /* fc_op_t; FC_OP_NONE selects the move pattern */
    int32_t nranks;     /* n: ranks in the communicator */
    int32_t active;     /* K: slots that contribute to a sum */
    int32_t prod_ecap;  /* slots j < prod_ecap may contribute a factor 2 */
    int32_t is_signed;  /* type has negative values */
    uint32_t g_mask;    /* g(i) = hash(i) & g_mask */
    uint32_t w_mask;    /* w(j) = hash(j) & w_mask */
    int64_t bias;       /* subtracted from sum/min/max values (signed types) */
    int64_t w_term;     /* sum: W; min: min w; max: max w */
    int32_t prod_exp;   /* prod: E, the number of factors 2 */
    int32_t prod_neg;   /* prod: parity of the slots with a factor -1 */
} fc_pattern_t;

/* Bytes per element, on either side. */
FC_HD int fc_dtype_size(int32_t dtype)
{
    switch (dtype) {
    case FC_UINT8: return 1;
    case FC_FLOAT16: case FC_BFLOAT16: return 2;
    case FC_INT64: case FC_FLOAT64: return 8;
    default: return 4;
    }
}

/* ---- hashing: 32-bit so that the check loops vectorise ---------------- */

FC_HD uint32_t fc_hash32(uint32_t x, uint32_t key)
{
    x ^= key;
    x *= 0x9E3779B1u;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

/* Fold a 64-bit index into 32 bits; the identity below 2^32. */
FC_HD uint32_t fc_index_fold(uint64_t i)
{
    return (uint32_t)i ^ ((uint32_t)(i >> 32) * 0x27D4EB2Fu);
}

/* ---- the element hash: one 32-bit hash per group of elements ----------- */
/* A 32-bit hash has bits enough for 4 uint8 or 2 float16/bfloat16
 * elements: element i belongs to group q = i >> s (s = fc_dtype_pack_shift)
 * and takes lane i mod 2^s of the hash of the folded group index, an 8- or
 * 16-bit slice. Every value below needs at most 10 bits of a slice plus its
 * top bit as a sign (fc_pattern_make keeps g_mask below 2^10 for 2-byte
 * types and below 2^7 for uint8), and a slice of a bijective hash is
 * uniform, so moves keep full entropy. Check loops then hash once per
 * 32-bit word of output whatever the type. */

/* log2 of the number of elements that share one hash. */
FC_HD int fc_dtype_pack_shift(int32_t dtype)
{
    switch (fc_dtype_size(dtype)) {
    case 1: return 2;
    case 2: return 1;
    default: return 0;
    }
}

/* Folded index of the group of element i. */
FC_HD uint32_t fc_elem_group(int32_t dtype, uint64_t i)
{
    return fc_index_fold(i >> fc_dtype_pack_shift(dtype));
}

/* Lane of element i in its group. */
FC_HD uint32_t fc_elem_lane(int32_t dtype, uint64_t i)
{
    return (uint32_t)i & ((1u << fc_dtype_pack_shift(dtype)) - 1u);
}

/* The slice of a group's hash that belongs to lane. */
FC_HD uint32_t fc_hash_lane(int32_t dtype, uint32_t word, uint32_t lane)
{
    switch (fc_dtype_pack_shift(dtype)) {
    case 2: return (word >> (8u * lane)) & 0xFFu;
    case 1: return (word >> (16u * lane)) & 0xFFFFu;
    default: return word;
    }
}

/* The top bit of an element hash (a prod's sign). */
FC_HD uint32_t fc_hash_sign(int32_t dtype, uint32_t h)
{
    switch (fc_dtype_pack_shift(dtype)) {
    case 2: return h >> 7;
    case 1: return h >> 15;
    default: return h >> 31;
    }
}

/* Element hash of the group with folded index x, lane lane. */
FC_HD uint32_t fc_pattern_g_hash(const fc_pattern_t *p, int32_t dtype,
                                 uint32_t x, uint32_t lane)
{
    return fc_hash_lane(dtype, fc_hash32(x, p->seed), lane);
}

FC_HD uint32_t fc_pattern_slot_hash(const fc_pattern_t *p, int32_t j)
{
    return fc_hash32((uint32_t)j, p->seed ^ 0x5BD1E995u);
}

FC_HD int64_t fc_pattern_w(const fc_pattern_t *p, int32_t j)
{
    return (int64_t)(fc_pattern_slot_hash(p, j) & p->w_mask);
}

FC_HD int fc_pattern_e(const fc_pattern_t *p, int32_t j)
{
    return j < p->prod_ecap && ((fc_pattern_slot_hash(p, j) >> 20) & 1u);
}

FC_HD int fc_pattern_neg(const fc_pattern_t *p, int32_t j)
{
    return p->is_signed && ((fc_pattern_slot_hash(p, j) >> 21) & 1u);
}

/* ---- values to bits ---------------------------------------------------- */

FC_HD uint32_t fc_f32_bits(float f)
{
    union { float f; uint32_t u; } c;
    c.f = f;
    return c.u;
}

FC_HD uint64_t fc_f64_bits(double d)
{
    union { double d; uint64_t u; } c;
    c.d = d;
    return c.u;
}

/* float32 -> float16 bits for values that are exact in float16 and
 * normal or zero (small integers here): scaling by 2^-112 moves the
 * exponent from float32's bias (127) to float16's (15) exactly, after which
 * float16's exponent and top 10 mantissa bits are bits 13..27 of the
 * float32 (the 13 below are zero) and its sign is bit 31. */
FC_HD uint32_t fc_f16_bits_exact(float f)
{
    uint32_t u = fc_f32_bits(f * 0x1p-112f);

    return ((u >> 13) & 0x7FFFu) | ((u >> 16) & 0x8000u);
}

/* Bits of the small integer v in type dtype (v exact in that type). */
FC_HD uint64_t fc_value_to_bits(int32_t dtype, int64_t v)
{
    switch (dtype) {
    case FC_INT32:    return (uint32_t)(int32_t)v;
    case FC_INT64:    return (uint64_t)v;
    case FC_UINT8:    return (uint8_t)v;
    /* values of every type but int64 fit in int32 (fc_pattern_make keeps
     * them below 2^30), which lets the conversions vectorise */
    case FC_FLOAT32:  return fc_f32_bits((float)(int32_t)v);
    case FC_FLOAT64:  return fc_f64_bits((double)(int32_t)v);
    case FC_FLOAT16:  return fc_f16_bits_exact((float)(int32_t)v);
    case FC_BFLOAT16: return fc_f32_bits((float)(int32_t)v) >> 16;
    }
    return 0;
}

/* ---- moves: full-entropy bits that are never NaN or Inf ---------------- */

FC_HD uint32_t fc_move_key(uint32_t seed, int32_t src)
{
    return seed ^ ((uint32_t)src * 0x9E3779B9u + 0x7F4A7C15u);
}

/* Bits of a move element whose group has folded index x. */
FC_HD uint64_t fc_move_elem_bits(int32_t dtype, uint32_t key, uint32_t x,
                                 uint32_t lane)
{
    uint32_t lo = fc_hash_lane(dtype, fc_hash32(x, key), lane);
    uint64_t hi;

    switch (dtype) {
    case FC_UINT8:    return lo;
    case FC_INT32:    return lo;
    case FC_FLOAT32:
        return ((lo & 0x7F800000u) == 0x7F800000u) ? lo ^ 0x40000000u : lo;
    case FC_FLOAT16:
        return ((lo & 0x7C00u) == 0x7C00u) ? lo ^ 0x4000u : lo;
    case FC_BFLOAT16:
        return ((lo & 0x7F80u) == 0x7F80u) ? lo ^ 0x4000u : lo;
    case FC_INT64:
    case FC_FLOAT64:
        hi = fc_hash32(x, key ^ 0xA5A5A5A5u);
        hi = (hi << 32) | lo;
        if (dtype == FC_FLOAT64 &&
            (hi & 0x7FF0000000000000ull) == 0x7FF0000000000000ull)
            hi ^= 0x4000000000000000ull;
        return hi;
    }
    return 0;
}

FC_HD uint64_t fc_move_bits(int32_t dtype, uint32_t seed, int32_t src,
                            uint64_t i)
{
    return fc_move_elem_bits(dtype, fc_move_key(seed, src),
                             fc_elem_group(dtype, i), fc_elem_lane(dtype, i));
}

/* ---- the generator: input element i of rank r ------------------------- */

/* Value of an input element in slot j = (r + i) mod n with element hash
 * h; op is passed in (as in fc_pattern_reduced_value) so that a caller
 * with a constant op, like the GPU fill template, gets a specialised loop. */
FC_HD int64_t fc_pattern_input_value_op(const fc_pattern_t *p, int32_t op,
                                        int32_t j, uint32_t h)
{
    int64_t g = (int64_t)(h & p->g_mask);
    int64_t v;

    switch (op) {
    case FC_OP_SUM:
        return j < p->active ? g + fc_pattern_w(p, j) - p->bias : 0;
    case FC_OP_PROD:
        v = j == 0 ? (g | 1) : 1;
        if (fc_pattern_e(p, j))
            v *= 2;
        if (fc_pattern_neg(p, j) && fc_hash_sign(p->dtype, h))
            v = -v;
        return v;
    default: /* min, max */
        return g + fc_pattern_w(p, j) - p->bias;
    }
}

FC_HD int64_t fc_pattern_input_value_at(const fc_pattern_t *p, int32_t j, uint32_t h)
{
    return fc_pattern_input_value_op(p, p->op, j, h);
}

FC_HD uint64_t fc_pattern_input_bits(const fc_pattern_t *p, int32_t r,
                                     uint64_t i)
{
    int32_t j = (int32_t)(((uint64_t)r + i) % (uint64_t)p->nranks);
    uint32_t h;

    if (p->op == FC_OP_NONE)
        return fc_move_bits(p->dtype, p->seed, r, i);
    h = fc_pattern_g_hash(p, p->dtype, fc_elem_group(p->dtype, i),
                          fc_elem_lane(p->dtype, i));
    return fc_value_to_bits(p->dtype, fc_pattern_input_value_at(p, j, h));
}

/* ---- the expectation: output element for reduction index i ------------ */

/* The reduced value for every type but int64, in 32-bit arithmetic (its
 * values and partial results stay below 2^30, fc_pattern_make), so that
 * check loops keep 32-bit lanes. */
FC_HD int32_t fc_pattern_reduced_value32(const fc_pattern_t *p, int32_t dtype,
                                         int32_t op, uint32_t h)
{
    int32_t g = (int32_t)(h & p->g_mask);
    int32_t v;

    /* the constant terms are summed first (in 64 bits, once per loop) */
    switch (op) {
    case FC_OP_SUM:
        return p->active * g + (int32_t)(p->w_term - p->active * p->bias);
    case FC_OP_PROD:
        v = (g | 1) << p->prod_exp;
        /* & rather than &&: no branch, so that check loops vectorise */
        return ((uint32_t)p->prod_neg & fc_hash_sign(dtype, h)) ? -v : v;
    default: /* min, max: w_term holds min or max of w */
        return g + (int32_t)(p->w_term - p->bias);
    }
}

/* The reduced value of an element with element hash h; dtype and op are
 * passed in so that a caller with constant arguments gets a specialised,
 * vectorisable loop. */
FC_HD int64_t fc_pattern_reduced_value(const fc_pattern_t *p, int32_t dtype,
                                       int32_t op, uint32_t h)
{
    int64_t g = (int64_t)(h & p->g_mask);
    int64_t v;

    if (dtype != FC_INT64)
        return fc_pattern_reduced_value32(p, dtype, op, h);
    switch (op) {
    case FC_OP_SUM:
        return (int64_t)p->active * (g - p->bias) + p->w_term;
    case FC_OP_PROD:
        v = (g | 1) << p->prod_exp;
        return ((uint32_t)p->prod_neg & fc_hash_sign(dtype, h)) ? -v : v;
    default: /* min, max: w_term holds min or max of w */
        return g + p->w_term - p->bias;
    }
}

/* Expected bits of the output element in lane lane of the group with
 * folded index x: for a reduction, the group in the reduction space; for a
 * move, the group in the input of src, the rank that sent it. */
FC_HD uint64_t fc_pattern_expected_lane(const fc_pattern_t *p, int32_t dtype,
                                        int32_t op, int32_t src, uint32_t x,
                                        uint32_t lane)
{
    if (op == FC_OP_NONE)
        return fc_move_elem_bits(dtype, fc_move_key(p->seed, src), x, lane);
    return fc_value_to_bits(dtype, fc_pattern_reduced_value(
                                       p, dtype, op, fc_pattern_g_hash(p, dtype, x, lane)));
}

FC_HD uint64_t fc_pattern_expected_bits(const fc_pattern_t *p, int32_t src,
                                        uint64_t i)
{
    return fc_pattern_expected_lane(p, p->dtype, p->op, src,
                                    fc_elem_group(p->dtype, i),
                                    fc_elem_lane(p->dtype, i));
}

#endif
