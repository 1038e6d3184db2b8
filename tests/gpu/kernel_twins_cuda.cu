/*
 * kernel_twins_cuda.cu - the host half of tests/gpu/kernel_twins.c: the
 * per-thread code of the GPU kernels (kernels/fc_kernels_dev.h) compiled by
 * nvcc for the host and run for every thread of a simulated grid of
 * `stride` threads, in thread order (the kernels' atomics become plain
 * sums and minimums, which is what they compute). Exported to C.
 */
#include "fc_kernels_dev.h"

template <int DT, int OP>
static void fc_twins_verify_t(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                              const uint8_t *buf, size_t count, size_t stride,
                              unsigned long long *wrong_p, unsigned long long *first_p)
{
    for (size_t tid = 0; tid < stride; ++tid)
        fc_verify_thread<DT, OP>(p, src, index_base, buf, count, tid, stride, wrong_p, first_p);
}

template <int DT, int OP>
static void fc_twins_fill_t(const fc_pattern_t *p, int32_t r, uint64_t index_base,
                            uint8_t *buf, size_t count, size_t stride)
{
    for (size_t tid = 0; tid < stride; ++tid)
        fc_fill_thread<DT, OP>(p, r, index_base, buf, count, tid, stride);
}

typedef void (*fc_twins_verify_fn)(const fc_pattern_t *, int32_t, uint64_t, const uint8_t *,
                                   size_t, size_t, unsigned long long *, unsigned long long *);
typedef void (*fc_twins_fill_fn)(const fc_pattern_t *, int32_t, uint64_t, uint8_t *, size_t,
                                 size_t);

#define FC_BY_OP(K, DT) { K<DT, FC_OP_SUM>, K<DT, FC_OP_PROD>, K<DT, FC_OP_MIN>, \
                          K<DT, FC_OP_MAX>, K<DT, FC_OP_NONE> }
#define FC_BY_TYPE(K) { FC_BY_OP(K, FC_INT32), FC_BY_OP(K, FC_INT64), FC_BY_OP(K, FC_UINT8), \
                        FC_BY_OP(K, FC_FLOAT32), FC_BY_OP(K, FC_FLOAT64),                    \
                        FC_BY_OP(K, FC_FLOAT16), FC_BY_OP(K, FC_BFLOAT16) }

static const fc_twins_verify_fn fc_twins_verify_table[FC_DTYPE_COUNT][FC_OP_COUNT] =
    FC_BY_TYPE(fc_twins_verify_t);
static const fc_twins_fill_fn fc_twins_fill_table[FC_DTYPE_COUNT][FC_OP_COUNT] =
    FC_BY_TYPE(fc_twins_fill_t);

extern "C" void fc_twins_verify_grid(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                                     const void *buf, size_t count, size_t stride,
                                     uint64_t *wrong_p, uint64_t *first_p)
{
    unsigned long long wrong = 0, first = ~0ull;

    fc_twins_verify_table[p->dtype][p->op](p, src, index_base, (const uint8_t *)buf, count,
                                           stride, &wrong, &first);
    *wrong_p = wrong;
    *first_p = first;
}

extern "C" void fc_twins_fill_grid(const fc_pattern_t *p, int32_t r, uint64_t index_base,
                                   void *buf, size_t count, size_t stride)
{
    fc_twins_fill_table[p->dtype][p->op](p, r, index_base, (uint8_t *)buf, count, stride);
}

extern "C" uint64_t fc_twins_digest_grid(const void *buf, size_t bytes, size_t stride)
{
    uint64_t acc = 0;

    for (size_t tid = 0; tid < stride; ++tid)
        acc += fc_digest_thread((const uint8_t *)buf, bytes, tid, stride);
    return acc;
}

/* the digest's definition, one word at a time (the reference) */
extern "C" uint64_t fc_twins_digest_reference(const void *buf, size_t bytes)
{
    const uint8_t *b = (const uint8_t *)buf;
    uint64_t acc = 0;

    for (size_t k = 0; k < bytes / 8; ++k) {
        uint64_t w = 0;

        for (int i = 7; i >= 0; --i)
            w = (w << 8) | b[k * 8 + (size_t)i];
        acc += fc_mix64(w ^ fc_mix64(k + 1));
    }
    for (size_t k = bytes / 8 * 8; k < bytes; ++k)
        acc += fc_mix64((uint64_t)b[k] ^ fc_mix64(~(uint64_t)k));
    return acc;
}

/* the untouched-buffer check's per-thread code over a grid of `stride`
 * threads, for elements of esize bytes that must each be `byte` repeated */
extern "C" void fc_twins_untouched_grid(const void *buf, size_t count, size_t esize, int byte,
                                        size_t stride, uint64_t *wrong_p, uint64_t *first_p)
{
    const uint8_t *b = (const uint8_t *)buf;
    uint64_t rep = 0x0101010101010101ull * (uint8_t)byte;
    unsigned long long wrong = 0, first = ~0ull;

    for (size_t tid = 0; tid < stride; ++tid)
        switch (esize) {
        case 1: fc_untouched_thread<uint8_t>(b, count, (uint8_t)rep, tid, stride, &wrong, &first);
                break;
        case 2: fc_untouched_thread<uint16_t>(b, count, (uint16_t)rep, tid, stride, &wrong,
                                              &first);
                break;
        case 4: fc_untouched_thread<uint32_t>(b, count, (uint32_t)rep, tid, stride, &wrong,
                                              &first);
                break;
        default: fc_untouched_thread<uint64_t>(b, count, rep, tid, stride, &wrong, &first);
                 break;
        }
    *wrong_p = wrong;
    *first_p = first;
}
