/*
 * fc_check_body.h - the template of the CPU checker's hot loops, included
 * by fc_check_base.c, fc_check_avx2.c and fc_check_avx512.c after each
 * defines FC_CHECK_ISA (its name) and is compiled with its own -march, so
 * that one source gives one vectorised copy per instruction set (see
 * fc_check_isa.h). The loops are specialised for each (type, op) at
 * compile time so that the compiler sees constants; they hash once per
 * 32-bit word (fc_pattern.h's element groups), keep 32-bit lanes (a 32-bit
 * group index, a 32-bit wrong count, 32-bit arithmetic for values) and
 * only count: fc_kernels_cpu.c finds the first wrong element in a second,
 * scalar pass. The digest is XXH3-64 compiled in the same unit with
 * XXH_INLINE_ALL, which makes xxhash.h choose its AVX-512, AVX2 or SSE2
 * loop from the compiler's target macros (xxhash.h 0.8.1, "Vectorization
 * detection", XXH_VECTOR); the result does not depend on that choice
 * (xxhash.h: "all implementations generage [sic] exactly the same hash
 * value on all platforms", and it is "stable" since v0.8.0, so it is also
 * what libxxhash's XXH3_64bits returns).
 */
#ifndef FC_CHECK_ISA
#error "define FC_CHECK_ISA before including fc_check_body.h"
#endif

#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fc_check_isa.h"

#define FC_CHECK_CAT2(a, b) a##_##b
#define FC_CHECK_CAT(a, b) FC_CHECK_CAT2(a, b)
#define FC_CHECK_NAME(name) FC_CHECK_CAT(name, FC_CHECK_ISA)

/* uint8: the 4 expected bytes of a word at once (SWAR). uint8 is unsigned
 * (bias 0, no factor -1) and fc_pattern_make keeps every value of a lane
 * below 256, so adding or multiplying the whole word moves no carry from
 * one byte into the next: the word equals the 4 lanes of
 * fc_pattern_expected_lane packed (tests/unit/check_isa.c compares). */
static inline uint32_t fc_uint8_word(const fc_pattern_t *p, int32_t op,
                                     uint32_t key, uint32_t x)
{
    const uint32_t ones = 0x01010101u;
    uint32_t g = fc_hash32(x, key) & (p->g_mask * ones);

    switch (op) {
    case FC_OP_SUM:
        return g * (uint32_t)p->active + (uint32_t)p->w_term * ones;
    case FC_OP_PROD:
        return (g | ones) << p->prod_exp;
    case FC_OP_MIN:
    case FC_OP_MAX:
        return g + (uint32_t)p->w_term * ones;
    default:
        return fc_hash32(x, key);
    }
}

/* float16 and bfloat16 reductions: the 2 expected elements of a word at
 * once, lane 1 kept in the high half throughout instead of shifted down and
 * back, and the arithmetic done in float (fewer instructions, none on the
 * integer multiplier). With h the group's hash, g0 = h & g_mask and
 * G1 = h & (g_mask << 16) = g1 * 2^16; a value is a * g + c
 * (fc_pattern_reduced_value32: sum a = K, c = W - K * bias; min/max a = 1,
 * c = w - bias; prod a = 2^E with g | 1 for g, c = 0), computed as
 * g * A + C with A and C scaled so that the result is the value times the
 * power of two that puts float16's fields in place (fc_f16_bits_exact:
 * 2^-112; lane 1 also undoes its 2^16, in two steps so that no constant is
 * subnormal, which denormals-are-zero would read as 0). Every product and
 * sum is a value of the type (or a partial one, a * g) times a power of
 * two, exact in float, so nothing rounds, fused or not. A prod's sign, the
 * top bit of each
 * 16-bit slice of h when prod_neg, is the sign bit of each element's
 * bits. The result equals the two lanes of fc_pattern_expected_lane packed
 * (tests/unit/check_isa.c compares). */
typedef struct fc_half_consts {
    uint32_t g_lo, g_hi;        /* g_mask, g_mask << 16 */
    uint32_t odd_lo, odd_hi;    /* prod: the | 1 of each lane */
    uint32_t sign;              /* prod with prod_neg: 0x80008000 */
    float a0, c0, a1, c1;       /* lane 0: g0 * a0 + c0; 1: G1 * a1 + c1 */
    float s1;                   /* float16: lane 1's second step, 2^-64 */
} fc_half_consts_t;

static inline fc_half_consts_t fc_half_consts_make(const fc_pattern_t *p,
                                                   int32_t dtype, int32_t op)
{
    fc_half_consts_t k = { p->g_mask, p->g_mask << 16, 0, 0, 0, 0, 0, 0, 0, 0 };
    int f16 = dtype == FC_FLOAT16;
    float a, c;

    switch (op) {
    case FC_OP_SUM:
        a = (float)p->active;
        c = (float)(p->w_term - p->active * p->bias);
        break;
    case FC_OP_PROD:
        a = (float)(1u << p->prod_exp);     /* E <= 20: exact */
        c = 0.0f;
        k.odd_lo = 1u;
        k.odd_hi = 0x10000u;
        k.sign = p->prod_neg ? 0x80008000u : 0;
        break;
    default:
        a = 1.0f;
        c = (float)(p->w_term - p->bias);
        break;
    }
    k.a0 = a * (f16 ? 0x1p-112f : 1.0f);
    k.c0 = c * (f16 ? 0x1p-112f : 1.0f);
    k.a1 = a * (f16 ? 0x1p-64f : 0x1p-16f);
    k.c1 = c * (f16 ? 0x1p-48f : 1.0f);
    k.s1 = f16 ? 0x1p-64f : 1.0f;
    return k;
}

static inline uint32_t fc_half_word(const fc_half_consts_t *k, int32_t dtype,
                                    uint32_t h)
{
    float f0 = (float)(int32_t)((h & k->g_lo) | k->odd_lo) * k->a0 + k->c0;
    float f1 = (float)(int32_t)((h & k->g_hi) | k->odd_hi) * k->a1 + k->c1;
    uint32_t u0, u1;

    if (dtype == FC_FLOAT16)
        f1 *= k->s1;
    u0 = fc_f32_bits(f0);
    u1 = fc_f32_bits(f1);

    /* float16: lane 0 as fc_f16_bits_exact; lane 1 the same 15 bits moved
     * to bits 16..30 (u1 << 3: the bits that land below 16 and on 31 are
     * zero for an exact value, its low mantissa bits and the top exponent
     * bit) and its sign left on bit 31 */
    if (dtype == FC_FLOAT16)
        return ((u0 >> 13) & 0x7FFFu) | ((u0 >> 16) & 0x8000u) |
               ((u1 << 3) & 0x7FFFFFFFu) | (u1 & 0x80000000u) | (h & k->sign);
    return (u0 >> 16) | (u1 & 0xFFFF0000u) | (h & k->sign);
}

/* The expected 32-bit word of the group with folded index x: 4 uint8, 2
 * 16-bit or 1 32-bit element, element e in bits 8 * size * e and up (the
 * 16-bit reductions take fc_half_word instead). */
static inline uint32_t fc_word_expected(const fc_pattern_t *p, int32_t dtype,
                                        int32_t op, int32_t src, uint32_t x)
{
    switch (fc_dtype_size(dtype)) {
    case 1:
        return fc_uint8_word(p, op, op == FC_OP_NONE ? fc_move_key(p->seed, src)
                                                     : p->seed, x);
    case 2:
        return (uint32_t)fc_pattern_expected_lane(p, dtype, op, src, x, 0) |
               (uint32_t)fc_pattern_expected_lane(p, dtype, op, src, x, 1) << 16;
    default:
        return (uint32_t)fc_pattern_expected_lane(p, dtype, op, src, x, 0);
    }
}

/* Wrong elements of a word whose bits differ from the expected ones by d
 * (1- and 4-byte types), as fields: for uint8, bit 0 of each byte is set
 * where that byte differs (SWAR: its low 7 bits plus 0x7F carry into bit 7
 * when any is set). Fields are summed over at most fc_word_block words, so
 * that none wraps, then added up by fc_word_fields_sum. */
static inline uint32_t fc_word_wrong(int32_t dtype, uint32_t d)
{
    switch (fc_dtype_size(dtype)) {
    case 1: return ((((d & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | d) >> 7) & 0x01010101u;
    default: return d != 0;
    }
}

static inline size_t fc_word_block(int32_t dtype)
{
    switch (fc_dtype_size(dtype)) {
    case 1: return 240;         /* 8-bit fields: at most 255 */
    default: return 256;        /* 1 KiB (fc_prefetch_block) */
    }
}

static inline uint32_t fc_word_fields_sum(int32_t dtype, uint32_t fields)
{
    switch (fc_dtype_size(dtype)) {
    case 1:
        fields = (fields & 0x00FF00FFu) + ((fields >> 8) & 0x00FF00FFu);
        return (fields & 0xFFFFu) + (fields >> 16);
    default: return fields;
    }
}

/* Every loop below walks its buffer in blocks of about 1 KiB or less and,
 * as it starts a block, asks for the lines FC_PREFETCH_AHEAD bytes ahead
 * (within the buffer). The hardware prefetchers alone left the loads
 * exposed: on the benchmark Xeon the uint8 check went from 0.6 to 1.1
 * times memcpy with 512 bytes ahead, and 512 did better than 0, 1, 2, 4 and
 * 16 KiB (bench/check_throughput). */
#define FC_PREFETCH_AHEAD 512

static inline void fc_prefetch_block(const uint8_t *b, size_t from,
                                     size_t bytes, size_t total)
{
    size_t end = from + FC_PREFETCH_AHEAD + bytes;

    for (size_t l = from + FC_PREFETCH_AHEAD; l < end && l < total; l += 64)
        __builtin_prefetch(b + l);
}

/* Types of 1 and 4 bytes: one 32-bit word per group. The pattern is
 * copied so that the compiler knows its fields do not change. */
#define FC_COUNT_WORDS32(NAME, DTYPE, OP)                                   \
    static uint64_t NAME(const fc_pattern_t *pp, int32_t src, uint32_t q0,  \
                         uint32_t hi_fold, const void *buf, size_t nwords)  \
    {                                                                       \
        const fc_pattern_t pat = *pp;                                       \
        const size_t block = fc_word_block(DTYPE);                          \
        const uint8_t *b = (const uint8_t *)buf;                            \
        uint64_t wrong = 0;                                                 \
                                                                            \
        for (size_t k0 = 0; k0 < nwords; k0 += block) {                     \
            size_t kn = nwords - k0 < block ? nwords - k0 : block;          \
            uint32_t q = q0 + (uint32_t)k0, fields = 0;                     \
                                                                            \
            fc_prefetch_block(b, 4 * k0, 4 * kn, 4 * nwords);               \
            for (size_t k = 0; k < kn; ++k, ++q) {                          \
                uint32_t w;                                                 \
                                                                            \
                memcpy(&w, b + 4 * (k0 + k), 4);                            \
                fields += fc_word_wrong(DTYPE, w ^ fc_word_expected(        \
                                                   &pat, DTYPE, OP, src,    \
                                                   q ^ hi_fold));           \
            }                                                               \
            wrong += fc_word_fields_sum(DTYPE, fields);                     \
        }                                                                   \
        return wrong;                                                       \
    }

/* Types of 8 bytes: one element per group. */
#define FC_WORDS64_BLOCK 128

#define FC_COUNT_WORDS64(NAME, DTYPE, OP)                                   \
    static uint64_t NAME(const fc_pattern_t *pp, int32_t src, uint32_t q0,  \
                         uint32_t hi_fold, const void *buf, size_t nwords)  \
    {                                                                       \
        const fc_pattern_t pat = *pp, *p = &pat;                            \
        const uint8_t *b = (const uint8_t *)buf;                            \
        uint64_t wrong = 0;                                                 \
                                                                            \
        for (size_t k0 = 0; k0 < nwords; k0 += FC_WORDS64_BLOCK) {          \
            size_t kn = nwords - k0 < FC_WORDS64_BLOCK ? nwords - k0        \
                                                       : FC_WORDS64_BLOCK;  \
            uint32_t q = q0 + (uint32_t)k0, block_wrong = 0;                \
                                                                            \
            fc_prefetch_block(b, 8 * k0, 8 * kn, 8 * nwords);               \
            for (size_t k = 0; k < kn; ++k, ++q) {                          \
                uint64_t w;                                                 \
                                                                            \
                memcpy(&w, b + 8 * (k0 + k), 8);                            \
                block_wrong += w != fc_pattern_expected_lane(               \
                                        p, DTYPE, OP, src, q ^ hi_fold, 0); \
            }                                                               \
            wrong += block_wrong;                                           \
        }                                                                   \
        return wrong;                                                       \
    }

/* Types of 2 bytes, in two passes over blocks of FC_HALF_BLOCK words: the
 * expected words into a buffer in L1, then a comparison of 16-bit
 * elements, which the compiler keeps in 16-bit lanes (twice the elements
 * per vector of the word loop, and a 16-bit count that cannot wrap in a
 * block). Blocks of 128 words (512 bytes) did better than 64, 256 and 1024
 * (bench/check_throughput): the comparison pass then reads only a few lines
 * at a time. */
#define FC_HALF_BLOCK 128

#define FC_COUNT_HALVES(NAME, DTYPE, OP)                                    \
    static uint64_t NAME(const fc_pattern_t *pp, int32_t src, uint32_t q0,  \
                         uint32_t hi_fold, const void *buf, size_t nwords)  \
    {                                                                       \
        const fc_pattern_t pat = *pp;                                       \
        const fc_half_consts_t hk = fc_half_consts_make(&pat, DTYPE, OP);   \
        const uint16_t *b = (const uint16_t *)buf;                          \
        uint16_t expected[2 * FC_HALF_BLOCK];                               \
        uint64_t wrong = 0;                                                 \
                                                                            \
        for (size_t k0 = 0; k0 < nwords; k0 += FC_HALF_BLOCK) {             \
            size_t kn = nwords - k0 < FC_HALF_BLOCK ? nwords - k0           \
                                                    : FC_HALF_BLOCK;        \
            uint32_t q = q0 + (uint32_t)k0;                                 \
            uint16_t block_wrong = 0;                                       \
                                                                            \
            fc_prefetch_block((const uint8_t *)buf, 4 * k0, 4 * kn,         \
                              4 * nwords);                                  \
            for (size_t k = 0; k < kn; ++k, ++q) {                          \
                uint32_t e = OP == FC_OP_NONE                               \
                    ? fc_word_expected(&pat, DTYPE, OP, src, q ^ hi_fold)   \
                    : fc_half_word(&hk, DTYPE, fc_hash32(q ^ hi_fold,       \
                                                         pat.seed));        \
                memcpy(&expected[2 * k], &e, 4);                            \
            }                                                               \
            for (size_t k = 0; k < 2 * kn; ++k)                             \
                block_wrong += b[2 * k0 + k] != expected[k];                \
            wrong += block_wrong;                                           \
        }                                                                   \
        return wrong;                                                       \
    }

#define FC_COUNT_TYPE(WORDS, DTYPE, SUFFIX)                                 \
    WORDS(fc_count_##SUFFIX##_sum, DTYPE, FC_OP_SUM)                        \
    WORDS(fc_count_##SUFFIX##_prod, DTYPE, FC_OP_PROD)                      \
    WORDS(fc_count_##SUFFIX##_min, DTYPE, FC_OP_MIN)                        \
    WORDS(fc_count_##SUFFIX##_max, DTYPE, FC_OP_MAX)                        \
    WORDS(fc_count_##SUFFIX##_none, DTYPE, FC_OP_NONE)

FC_COUNT_TYPE(FC_COUNT_WORDS32, FC_INT32, int32)
FC_COUNT_TYPE(FC_COUNT_WORDS64, FC_INT64, int64)
FC_COUNT_TYPE(FC_COUNT_WORDS32, FC_UINT8, uint8)
FC_COUNT_TYPE(FC_COUNT_WORDS32, FC_FLOAT32, float32)
FC_COUNT_TYPE(FC_COUNT_WORDS64, FC_FLOAT64, float64)
FC_COUNT_TYPE(FC_COUNT_HALVES, FC_FLOAT16, float16)
FC_COUNT_TYPE(FC_COUNT_HALVES, FC_BFLOAT16, bfloat16)

static uint64_t FC_CHECK_NAME(fc_check_digest)(const void *buf, size_t bytes)
{
    return XXH3_64bits(buf, bytes);
}

#define FC_COUNT_ROW(SUFFIX)                                                \
    { [FC_OP_SUM] = fc_count_##SUFFIX##_sum,                                \
      [FC_OP_PROD] = fc_count_##SUFFIX##_prod,                              \
      [FC_OP_MIN] = fc_count_##SUFFIX##_min,                                \
      [FC_OP_MAX] = fc_count_##SUFFIX##_max,                                \
      [FC_OP_NONE] = fc_count_##SUFFIX##_none }

const fc_check_ops_t FC_CHECK_NAME(fc_check_ops) = {
    .name = FC_CHECK_ISA_STRING,
    .digest = FC_CHECK_NAME(fc_check_digest),
    .count = {
        [FC_INT32] = FC_COUNT_ROW(int32),
        [FC_INT64] = FC_COUNT_ROW(int64),
        [FC_UINT8] = FC_COUNT_ROW(uint8),
        [FC_FLOAT32] = FC_COUNT_ROW(float32),
        [FC_FLOAT64] = FC_COUNT_ROW(float64),
        [FC_FLOAT16] = FC_COUNT_ROW(float16),
        [FC_BFLOAT16] = FC_COUNT_ROW(bfloat16),
    },
};
