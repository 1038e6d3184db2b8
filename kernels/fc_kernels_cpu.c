/*
 * fc_kernels_cpu.c - CPU twins of the GPU kernels (see fc_kernels.h).
 *
 * Verification must run near memory bandwidth, so the hot loop only counts
 * wrong elements; it is specialised for each (type, op) at compile time
 * (FC_VERIFY_SPECIALISE) so that the compiler sees constants and
 * vectorises, and built for AVX-512 (x86-64-v4), AVX2 and a baseline
 * (target_clones: 16 lanes of 32-bit hashing roughly double the small
 * types, whose check is bound by one hash per element). Only when
 * the count is non-zero does a second, scalar pass find the first wrong
 * element and its bits. The index is folded to 32 bits (fc_index_fold); the
 * loop is split where the high half of the index changes.
 */
#include "fc_kernels.h"

#include <string.h>
#include <xxhash.h>

#include "fc_pattern_host.h"

void fc_cpu_fill(const fc_pattern_t *p, int32_t rank, uint64_t index_base,
                 void *buf, size_t count)
{
    size_t size = fc_dtype_info(p->dtype)->size;
    int32_t j = (int32_t)(((uint64_t)rank + index_base) % (uint64_t)p->nranks);

    for (size_t k = 0; k < count; ++k) {
        uint64_t i = index_base + k;
        uint32_t x = fc_index_fold(i);
        uint64_t bits = p->op == FC_OP_NONE
            ? fc_move_bits(p->dtype, p->seed, rank, x)
            : fc_value_to_bits(p->dtype, fc_pattern_input_value_at(p, j, x));

        switch (size) {
        case 1: ((uint8_t *)buf)[k] = (uint8_t)bits; break;
        case 2: ((uint16_t *)buf)[k] = (uint16_t)bits; break;
        case 4: ((uint32_t *)buf)[k] = (uint32_t)bits; break;
        default: ((uint64_t *)buf)[k] = bits; break;
        }
        if (++j == p->nranks)
            j = 0;
    }
}

/* Count the wrong elements among n (n < 2^32, no wrap of lo within). */
#define FC_VERIFY_SPECIALISE(NAME, T, DTYPE, OP)                            \
    __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))                      \
    static uint64_t NAME(const fc_pattern_t *p, int32_t src, uint32_t lo,  \
                         uint32_t hi_fold, const T *buf, size_t n)         \
    {                                                                       \
        uint64_t wrong = 0;                                                 \
        for (size_t k = 0; k < n; ++k) {                                    \
            uint32_t x = (lo + (uint32_t)k) ^ hi_fold;                      \
            T e = (T)fc_pattern_expected_folded(p, DTYPE, OP, src, x);      \
            wrong += buf[k] != e;                                           \
        }                                                                   \
        return wrong;                                                       \
    }

#define FC_VERIFY_TYPE(T, DTYPE, SUFFIX)                                    \
    FC_VERIFY_SPECIALISE(fc_count_##SUFFIX##_sum, T, DTYPE, FC_OP_SUM)      \
    FC_VERIFY_SPECIALISE(fc_count_##SUFFIX##_prod, T, DTYPE, FC_OP_PROD)    \
    FC_VERIFY_SPECIALISE(fc_count_##SUFFIX##_min, T, DTYPE, FC_OP_MIN)      \
    FC_VERIFY_SPECIALISE(fc_count_##SUFFIX##_max, T, DTYPE, FC_OP_MAX)      \
    FC_VERIFY_SPECIALISE(fc_count_##SUFFIX##_none, T, DTYPE, FC_OP_NONE)    \
    static uint64_t fc_count_##SUFFIX(const fc_pattern_t *p, int32_t src,   \
                                      uint32_t lo, uint32_t hi_fold,        \
                                      const void *buf, size_t n)            \
    {                                                                       \
        const T *b = (const T *)buf;                                        \
        switch (p->op) {                                                    \
        case FC_OP_SUM:  return fc_count_##SUFFIX##_sum(p, src, lo, hi_fold, b, n);  \
        case FC_OP_PROD: return fc_count_##SUFFIX##_prod(p, src, lo, hi_fold, b, n); \
        case FC_OP_MIN:  return fc_count_##SUFFIX##_min(p, src, lo, hi_fold, b, n);  \
        case FC_OP_MAX:  return fc_count_##SUFFIX##_max(p, src, lo, hi_fold, b, n);  \
        default:         return fc_count_##SUFFIX##_none(p, src, lo, hi_fold, b, n); \
        }                                                                   \
    }

FC_VERIFY_TYPE(uint32_t, FC_INT32, int32)
FC_VERIFY_TYPE(uint64_t, FC_INT64, int64)
FC_VERIFY_TYPE(uint8_t, FC_UINT8, uint8)
FC_VERIFY_TYPE(uint32_t, FC_FLOAT32, float32)
FC_VERIFY_TYPE(uint64_t, FC_FLOAT64, float64)
FC_VERIFY_TYPE(uint16_t, FC_FLOAT16, float16)
FC_VERIFY_TYPE(uint16_t, FC_BFLOAT16, bfloat16)

typedef uint64_t (*fc_count_func_t)(const fc_pattern_t *p, int32_t src,
                                    uint32_t lo, uint32_t hi_fold,
                                    const void *buf, size_t n);

static const fc_count_func_t fc_count_funcs[FC_DTYPE_COUNT] = {
    [FC_INT32] = fc_count_int32,     [FC_INT64] = fc_count_int64,
    [FC_UINT8] = fc_count_uint8,     [FC_FLOAT32] = fc_count_float32,
    [FC_FLOAT64] = fc_count_float64, [FC_FLOAT16] = fc_count_float16,
    [FC_BFLOAT16] = fc_count_bfloat16,
};

static uint64_t fc_load_bits(const void *buf, size_t size, size_t k)
{
    switch (size) {
    case 1: return ((const uint8_t *)buf)[k];
    case 2: return ((const uint16_t *)buf)[k];
    case 4: return ((const uint32_t *)buf)[k];
    default: return ((const uint64_t *)buf)[k];
    }
}

/* Scalar pass over a range known to hold a wrong element: find the first. */
static void fc_cpu_find_first(const fc_pattern_t *p, int32_t src,
                              uint64_t index_base, const void *buf,
                              size_t count, uint64_t pos_base,
                              fc_mismatch_t *m)
{
    size_t size = fc_dtype_info(p->dtype)->size;
    uint64_t mask = size == 8 ? ~0ull : ((1ull << (8 * size)) - 1);

    for (size_t k = 0; k < count; ++k) {
        uint64_t expected = fc_pattern_expected_bits(p, src, index_base + k) & mask;
        uint64_t actual = fc_load_bits(buf, size, k);
        if (actual != expected) {
            m->first_pos = pos_base + k;
            m->expected_bits = expected;
            m->actual_bits = actual;
            return;
        }
    }
}

void fc_cpu_verify(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                   const void *buf, size_t count, uint64_t pos_base,
                   fc_mismatch_t *m)
{
    size_t size = fc_dtype_info(p->dtype)->size;
    fc_count_func_t count_func = fc_count_funcs[p->dtype];
    uint64_t wrong = 0;
    size_t done = 0;

    while (done < count) {
        uint64_t i = index_base + done;
        /* stop where the low 32 bits of the index would wrap */
        uint64_t room = (1ull << 32) - (uint32_t)i;
        size_t n = count - done < room ? count - done : (size_t)room;

        wrong += count_func(p, src, (uint32_t)i, (uint32_t)(i >> 32) * 0x27D4EB2Fu,
                            (const uint8_t *)buf + done * size, n);
        done += n;
    }
    if (wrong > 0 && m->wrong == 0)
        fc_cpu_find_first(p, src, index_base, buf, count, pos_base, m);
    m->wrong += wrong;
}

uint64_t fc_cpu_digest(const void *buf, size_t bytes)
{
    return XXH3_64bits(buf, bytes);
}
