/*
 * fc_kernels_cpu.c - CPU twins of the GPU kernels (see fc_kernels.h).
 *
 * Verification must run near memory bandwidth, so the hot loop only counts
 * wrong elements, whole 32-bit words at a time (one hash per word:
 * fc_pattern.h's element groups); the loops are built once per instruction
 * set (fc_check_isa.h: AVX-512, AVX2, baseline) and the best one the CPU
 * supports is chosen at the first call (__builtin_cpu_supports), unless a
 * caller chose one (fc_cpu_isa_set, for the tests). Elements before the
 * first and after the last whole group are checked one by one here. Only
 * when the count is non-zero does a second, scalar pass find the first
 * wrong element and its bits. The group index is folded to 32 bits
 * (fc_index_fold); the loop is split where its high half changes. The
 * digest is XXH3-64 from the same table.
 */
#include "fc_kernels.h"

#include <string.h>

#include "fc_check_isa.h"
#include "fc_pattern_host.h"

void fc_cpu_fill(const fc_pattern_t *p, int32_t rank, uint64_t index_base,
                 void *buf, size_t count)
{
    size_t size = fc_dtype_info(p->dtype)->size;
    int32_t j = (int32_t)(((uint64_t)rank + index_base) % (uint64_t)p->nranks);

    for (size_t k = 0; k < count; ++k) {
        uint64_t i = index_base + k;
        uint32_t x = fc_elem_group(p->dtype, i), lane = fc_elem_lane(p->dtype, i);
        uint64_t bits = p->op == FC_OP_NONE
            ? fc_move_bits(p->dtype, p->seed, rank, i)
            : fc_value_to_bits(p->dtype, fc_pattern_input_value_at(
                                  p, j, fc_pattern_g_hash(p, p->dtype, x, lane)));

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

/* ---- choosing the instruction set ------------------------------------ */

static const fc_check_ops_t *const fc_check_tables[FC_CPU_ISA_COUNT] = {
    [FC_CPU_ISA_BASE] = &fc_check_ops_base,
    [FC_CPU_ISA_AVX2] = &fc_check_ops_avx2,
    [FC_CPU_ISA_AVX512] = &fc_check_ops_avx512,
};

/* The chosen table's index plus one; 0 until the first call chooses. */
static int fc_cpu_isa_chosen;

int fc_cpu_isa_supported(fc_cpu_isa_t isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case FC_CPU_ISA_BASE: return 1;
    case FC_CPU_ISA_AVX2: return __builtin_cpu_supports("x86-64-v3") != 0;
    case FC_CPU_ISA_AVX512: return __builtin_cpu_supports("x86-64-v4") != 0;
    default: return 0;
    }
}

const char *fc_cpu_isa_name(fc_cpu_isa_t isa)
{
    return isa >= 0 && isa < FC_CPU_ISA_COUNT ? fc_check_tables[isa]->name : "?";
}

fc_cpu_isa_t fc_cpu_isa_get(void)
{
    int chosen = __atomic_load_n(&fc_cpu_isa_chosen, __ATOMIC_RELAXED);

    if (chosen == 0) {
        fc_cpu_isa_t best = FC_CPU_ISA_BASE;

        for (int isa = FC_CPU_ISA_BASE; isa < FC_CPU_ISA_COUNT; ++isa)
            if (fc_cpu_isa_supported((fc_cpu_isa_t)isa))
                best = (fc_cpu_isa_t)isa;
        chosen = best + 1;
        __atomic_store_n(&fc_cpu_isa_chosen, chosen, __ATOMIC_RELAXED);
    }
    return (fc_cpu_isa_t)(chosen - 1);
}

int fc_cpu_isa_set(fc_cpu_isa_t isa)
{
    if (!fc_cpu_isa_supported(isa))
        return -1;
    __atomic_store_n(&fc_cpu_isa_chosen, (int)isa + 1, __ATOMIC_RELAXED);
    return 0;
}

static const fc_check_ops_t *fc_check_ops(void)
{
    return fc_check_tables[fc_cpu_isa_get()];
}

/* ---- verification ----------------------------------------------------- */

static uint64_t fc_load_bits(const void *buf, size_t size, size_t k)
{
    switch (size) {
    case 1: return ((const uint8_t *)buf)[k];
    case 2: return ((const uint16_t *)buf)[k];
    case 4: return ((const uint32_t *)buf)[k];
    default: return ((const uint64_t *)buf)[k];
    }
}

/* Element by element: count the wrong ones among count, or (first_p not
 * NULL) stop at the first and return its offset in *first_p. */
static uint64_t fc_cpu_count_scalar(const fc_pattern_t *p, int32_t src,
                                    uint64_t index_base, const void *buf,
                                    size_t count, size_t *first_p)
{
    size_t size = fc_dtype_info(p->dtype)->size;
    uint64_t mask = size == 8 ? ~0ull : ((1ull << (8 * size)) - 1);
    uint64_t wrong = 0;

    for (size_t k = 0; k < count; ++k) {
        uint64_t expected = fc_pattern_expected_bits(p, src, index_base + k) & mask;

        if (fc_load_bits(buf, size, k) != expected) {
            ++wrong;
            if (first_p != NULL) {
                *first_p = k;
                return wrong;
            }
        }
    }
    return wrong;
}

/* Whole groups: count elements (a multiple of the group size) from
 * index_base (a group boundary), in calls that neither wrap the low half
 * of the group index nor exceed FC_CHECK_CHUNK_WORDS. */
static uint64_t fc_cpu_count_groups(const fc_pattern_t *p, int32_t src,
                                    uint64_t index_base, const void *buf,
                                    size_t count)
{
    fc_check_count_func_t count_func = fc_check_ops()->count[p->dtype][p->op];
    size_t word = fc_dtype_info(p->dtype)->size << fc_dtype_pack_shift(p->dtype);
    int shift = fc_dtype_pack_shift(p->dtype);
    size_t words = count >> shift, done = 0;
    uint64_t wrong = 0;

    while (done < words) {
        uint64_t q = (index_base >> shift) + done;
        uint64_t room = (1ull << 32) - (uint32_t)q;
        size_t n = words - done;

        if (n > room)
            n = (size_t)room;
        if (n > FC_CHECK_CHUNK_WORDS)
            n = FC_CHECK_CHUNK_WORDS;
        wrong += count_func(p, src, (uint32_t)q, fc_index_fold(q) ^ (uint32_t)q,
                            (const uint8_t *)buf + done * word, n);
        done += n;
    }
    return wrong;
}

void fc_cpu_verify(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                   const void *buf, size_t count, uint64_t pos_base,
                   fc_mismatch_t *m)
{
    size_t size = fc_dtype_info(p->dtype)->size;
    uint64_t group = 1ull << fc_dtype_pack_shift(p->dtype);
    size_t head = (size_t)((group - (index_base & (group - 1))) & (group - 1));
    size_t body, first = 0;
    uint64_t wrong;

    if (head > count)
        head = count;
    body = (count - head) & ~(size_t)(group - 1);
    wrong = fc_cpu_count_scalar(p, src, index_base, buf, head, NULL);
    wrong += fc_cpu_count_groups(p, src, index_base + head,
                                 (const uint8_t *)buf + head * size, body);
    wrong += fc_cpu_count_scalar(p, src, index_base + head + body,
                                 (const uint8_t *)buf + (head + body) * size,
                                 count - head - body, NULL);
    if (wrong > 0 && m->wrong == 0 &&
        fc_cpu_count_scalar(p, src, index_base, buf, count, &first) > 0) {
        m->first_pos = pos_base + first;
        m->expected_bits = fc_pattern_expected_bits(p, src, index_base + first) &
                           (size == 8 ? ~0ull : ((1ull << (8 * size)) - 1));
        m->actual_bits = fc_load_bits(buf, size, first);
    }
    m->wrong += wrong;
}

/* The byte repeated over an element of size bytes. */
static uint64_t fc_repeat_byte(int byte, size_t size)
{
    uint64_t mask = size == 8 ? ~0ull : ((1ull << (8 * size)) - 1);

    return (0x0101010101010101ull * (uint8_t)byte) & mask;
}

void fc_cpu_verify_untouched(const void *buf, size_t count, size_t esize, int byte,
                             uint64_t pos_base, fc_mismatch_t *m)
{
    uint64_t expected = fc_repeat_byte(byte, esize), wrong = 0;
    size_t first = count;

    /* rare (only after a digest differed): one pass, element by element */
    for (size_t k = 0; k < count; ++k)
        if (fc_load_bits(buf, esize, k) != expected) {
            if (wrong++ == 0)
                first = k;
        }
    if (wrong > 0 && m->wrong == 0) {
        m->first_pos = pos_base + first;
        m->expected_bits = expected;
        m->actual_bits = fc_load_bits(buf, esize, first);
    }
    m->wrong += wrong;
}

uint64_t fc_cpu_digest(const void *buf, size_t bytes)
{
    return fc_check_ops()->digest(buf, bytes);
}
