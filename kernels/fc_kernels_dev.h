/*
 * fc_kernels_dev.h - what one GPU thread does in the fill, verification,
 * untouched-buffer and digest kernels, written as __host__ __device__
 * templates so that the same code runs in two places: the kernels of
 * fc_kernels_cuda.cu call it with their own thread index and grid stride,
 * and tests/gpu/kernel_twins_cuda.cu calls it on the host for every thread
 * of a simulated grid and compares the result with the CPU kernels
 * (kernels/fc_kernels_cpu.c). The indexing
 * (a misaligned head, the 16-byte vector body, the tail, the unrolling) is
 * where a fast kernel goes wrong, and this way it is tested without a GPU.
 *
 * A buffer of count elements is split into a head of scalar elements up to
 * the first 16-byte boundary, a body of 16-byte vectors and a scalar tail.
 * Each thread takes the vectors tid, tid + stride, ...; FC_UNROLL of them
 * are loaded before any is checked, so that several loads are in flight
 * per thread (Little's law: bandwidth = bytes in flight / latency). The
 * (type, op) pair is a template argument: no switch runs per element, and
 * the expectation of fc_pattern.h specialises to straight-line code.
 * Needs nvcc (C++); the kernels' callers use fc_kernels_cuda.h.
 */
#ifndef FC_KERNELS_DEV_H
#define FC_KERNELS_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <vector_types.h>

#include "fc_pattern.h"

#define FC_VEC_BYTES 16
#define FC_UNROLL 4

/* Storage type of one element of a type. */
template <int DT> struct fc_elem { typedef uint32_t t; };
template <> struct fc_elem<FC_UINT8> { typedef uint8_t t; };
template <> struct fc_elem<FC_FLOAT16> { typedef uint16_t t; };
template <> struct fc_elem<FC_BFLOAT16> { typedef uint16_t t; };
template <> struct fc_elem<FC_INT64> { typedef uint64_t t; };
template <> struct fc_elem<FC_FLOAT64> { typedef uint64_t t; };

/* How a buffer splits into head, vector body and tail (in elements). */
typedef struct fc_span {
    size_t head;        /* scalar elements before the first 16-byte boundary */
    size_t nvec;        /* 16-byte vectors after them */
    size_t tail_start;  /* first element of the scalar tail */
    size_t nscalar;     /* head + tail */
} fc_span_t;

/* buf must be aligned to its element size (every buffer here is). */
FC_HD fc_span_t fc_span_make(const void *buf, size_t count, size_t esize)
{
    fc_span_t s;
    size_t mis = (size_t)((uintptr_t)buf & (FC_VEC_BYTES - 1));

    s.head = mis ? (FC_VEC_BYTES - mis) / esize : 0;
    if (s.head > count)
        s.head = count;
    s.nvec = (count - s.head) / (FC_VEC_BYTES / esize);
    s.tail_start = s.head + s.nvec * (FC_VEC_BYTES / esize);
    s.nscalar = s.head + (count - s.tail_start);
    return s;
}

/* The element the k-th scalar of a span stands for. */
FC_HD size_t fc_span_scalar(const fc_span_t *s, size_t k)
{
    return k < s->head ? k : s->tail_start + (k - s->head);
}

/* A read-once 16-byte load: on the device a streaming load (ld.global.cs,
 * CUDA C++ Programming Guide, "Load Functions Using Cache Hints"). */
FC_HD uint4 fc_load16(const uint4 *p)
{
#ifdef __CUDA_ARCH__
    return __ldcs(p);
#else
    return *p;
#endif
}

template <typename T> union fc_vec_u {
    uint4 v;
    T e[FC_VEC_BYTES / sizeof(T)];
};

/* Expected bits of the output element with pattern index i. */
template <int DT, int OP>
FC_HD typename fc_elem<DT>::t fc_expect(const fc_pattern_t *p, int32_t src, uint64_t i)
{
    return (typename fc_elem<DT>::t)fc_pattern_expected_lane(p, DT, OP, src, fc_elem_group(DT, i),
                                                             fc_elem_lane(DT, i));
}

/* Input bits of element i of rank r, whose slot is j = (r + i) mod n. */
template <int DT, int OP>
FC_HD typename fc_elem<DT>::t fc_input(const fc_pattern_t *p, int32_t r, int32_t j, uint64_t i)
{
    uint32_t h;

    if (OP == FC_OP_NONE)
        return (typename fc_elem<DT>::t)fc_move_bits(DT, p->seed, r, i);
    h = fc_pattern_g_hash(p, DT, fc_elem_group(DT, i), fc_elem_lane(DT, i));
    return (typename fc_elem<DT>::t)fc_value_to_bits(DT, fc_pattern_input_value_op(p, OP, j, h));
}

/* One thread's share of a verification: adds its wrong elements to *wrong_p
 * and keeps the lowest wrong position in *first_p (~0 when none). */
template <int DT, int OP>
FC_HD void fc_verify_thread(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                            const uint8_t *buf, size_t count, size_t tid, size_t stride,
                            unsigned long long *wrong_p, unsigned long long *first_p)
{
    typedef typename fc_elem<DT>::t T;
    const int V = FC_VEC_BYTES / (int)sizeof(T);
    const fc_span_t s = fc_span_make(buf, count, sizeof(T));
    const uint4 *vec = (const uint4 *)(buf + s.head * sizeof(T));
    unsigned long long wrong = 0, first = ~0ull;

    for (size_t q0 = tid; q0 < s.nvec; q0 += stride * FC_UNROLL) {
        fc_vec_u<T> v[FC_UNROLL];

#pragma unroll
        for (int u = 0; u < FC_UNROLL; ++u)
            if (q0 + u * stride < s.nvec)
                v[u].v = fc_load16(vec + q0 + u * stride);
#pragma unroll
        for (int u = 0; u < FC_UNROLL; ++u) {
            size_t k0 = s.head + (q0 + u * stride) * V;

            if (q0 + u * stride >= s.nvec)
                break;
#pragma unroll
            for (int e = 0; e < V; ++e) {
                unsigned bad = v[u].e[e] != fc_expect<DT, OP>(p, src, index_base + k0 + e);

                wrong += bad;
                /* positions only grow along a thread's walk */
                if (bad && first == ~0ull)
                    first = k0 + e;
            }
        }
    }
    for (size_t k = tid; k < s.nscalar; k += stride) {
        size_t i = fc_span_scalar(&s, k);

        if (((const T *)buf)[i] != fc_expect<DT, OP>(p, src, index_base + i)) {
            ++wrong;
            if (i < first)
                first = i;
        }
    }
    *wrong_p += wrong;
    if (first < *first_p)
        *first_p = first;
}

/* One thread's share of checking that a buffer the call must leave alone
 * still holds `expected` (a byte repeated) in every element: adds its
 * changed elements to *wrong_p and keeps the lowest position in *first_p.
 * Element by element, grid-stride: it runs only after a digest differed. */
template <typename T>
FC_HD void fc_untouched_thread(const uint8_t *buf, size_t count, T expected, size_t tid,
                               size_t stride, unsigned long long *wrong_p,
                               unsigned long long *first_p)
{
    const T *e = (const T *)buf;
    unsigned long long wrong = 0, first = ~0ull;

    for (size_t k = tid; k < count; k += stride)
        if (e[k] != expected) {
            ++wrong;
            if (first == ~0ull)
                first = k;
        }
    *wrong_p += wrong;
    if (first < *first_p)
        *first_p = first;
}

/* One thread's share of a fill with rank r's input. */
template <int DT, int OP>
FC_HD void fc_fill_thread(const fc_pattern_t *p, int32_t r, uint64_t index_base, uint8_t *buf,
                          size_t count, size_t tid, size_t stride)
{
    typedef typename fc_elem<DT>::t T;
    const int V = FC_VEC_BYTES / (int)sizeof(T);
    const fc_span_t s = fc_span_make(buf, count, sizeof(T));
    uint4 *vec = (uint4 *)(buf + s.head * sizeof(T));
    const uint64_t n = (uint64_t)p->nranks;

    for (size_t q = tid; q < s.nvec; q += stride) {
        uint64_t i0 = index_base + s.head + q * V;
        int32_t j = (int32_t)(((uint64_t)r + i0) % n);
        fc_vec_u<T> v;

#pragma unroll
        for (int e = 0; e < V; ++e) {
            v.e[e] = fc_input<DT, OP>(p, r, j, i0 + e);
            if (++j == (int32_t)n)
                j = 0;
        }
        vec[q] = v.v;
    }
    for (size_t k = tid; k < s.nscalar; k += stride) {
        size_t i = fc_span_scalar(&s, k);
        uint64_t idx = index_base + i;

        ((T *)buf)[i] = fc_input<DT, OP>(p, r, (int32_t)(((uint64_t)r + idx) % n), idx);
    }
}

/* The digest's mix (a bijection of 64-bit words: one flipped bit changes
 * the sum); see docs/DECISIONS.md, "GPU digest". */
FC_HD uint64_t fc_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

FC_HD uint64_t fc_digest_word(uint64_t w, uint64_t k)
{
    return fc_mix64(w ^ fc_mix64(k + 1));
}

/* One thread's share of the digest: the sum over 64-bit words k of
 * mix(word ^ mix(k + 1)), plus mix(byte ^ mix(~k)) for each byte of a
 * partial last word (taken by thread 0). Any grid gives the same sum. */
FC_HD uint64_t fc_digest_thread(const uint8_t *buf, size_t bytes, size_t tid, size_t stride)
{
    size_t words = bytes / 8, head = 0, nvec;
    uint64_t acc = 0;

    if ((uintptr_t)buf & 7) {
        /* not word-aligned: assemble each word from its bytes */
        for (size_t k = tid; k < words; k += stride) {
            uint64_t w = 0;

            for (int b = 7; b >= 0; --b)
                w = (w << 8) | buf[k * 8 + (size_t)b];
            acc += fc_digest_word(w, k);
        }
    } else {
        const uint64_t *w = (const uint64_t *)buf;

        if ((uintptr_t)buf & 15)
            head = words > 0 ? 1 : 0;
        nvec = (words - head) / 2;
        for (size_t q0 = tid; q0 < nvec; q0 += stride * FC_UNROLL) {
            fc_vec_u<uint64_t> v[FC_UNROLL];

#pragma unroll
            for (int u = 0; u < FC_UNROLL; ++u)
                if (q0 + u * stride < nvec)
                    v[u].v = fc_load16((const uint4 *)(w + head) + q0 + u * stride);
#pragma unroll
            for (int u = 0; u < FC_UNROLL; ++u) {
                size_t k = head + (q0 + u * stride) * 2;

                if (q0 + u * stride >= nvec)
                    break;
                acc += fc_digest_word(v[u].e[0], k) + fc_digest_word(v[u].e[1], k + 1);
            }
        }
        /* the head word and an odd last word */
        if (tid == 0 && head)
            acc += fc_digest_word(w[0], 0);
        if (tid == (stride > 1 ? 1 : 0) && head + nvec * 2 < words)
            acc += fc_digest_word(w[words - 1], words - 1);
    }
    if (tid == 0)
        for (size_t k = words * 8; k < bytes; ++k)
            acc += fc_mix64((uint64_t)buf[k] ^ fc_mix64(~(uint64_t)k));
    return acc;
}

#ifdef __CUDACC__
/* Block-wide sum of *wrong and minimum of *first; thread 0 holds the
 * result (the others may return early). blockDim.x must be THREADS, a
 * multiple of 32 and at most 1024. Device only. */
template <int THREADS>
__device__ static void fc_block_reduce(unsigned long long *wrong, unsigned long long *first)
{
    __shared__ unsigned long long sw[THREADS / 32], sf[THREADS / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    for (int round = 0; round < 2; ++round) {
        for (int off = 16; off > 0; off >>= 1) {
            unsigned long long f = __shfl_down_sync(0xffffffffu, *first, off);

            *wrong += __shfl_down_sync(0xffffffffu, *wrong, off);
            if (f < *first)
                *first = f;
        }
        if (round == 1)
            break;
        if (lane == 0) {
            sw[warp] = *wrong;
            sf[warp] = *first;
        }
        __syncthreads();
        if (warp != 0)
            return;
        *wrong = lane < THREADS / 32 ? sw[lane] : 0;
        *first = lane < THREADS / 32 ? sf[lane] : ~0ull;
    }
}
#endif

#endif
