/*
 * fc_check_isa.h - the interface between fc_kernels_cpu.c and the hot
 * loops of the CPU checker, which are compiled once per instruction set
 * from one template (fc_check_body.h): fc_check_base.c (x86-64 baseline,
 * SSE2), fc_check_avx2.c (x86-64-v3) and fc_check_avx512.c (x86-64-v4),
 * each built with its own -march (Makefile). Each defines one table of
 * type fc_check_ops_t; fc_kernels_cpu.c chooses one at run time. Every
 * table computes the same function: the same counts and the same digests
 * (tests/unit/check_isa.c compares them).
 */
#ifndef FC_CHECK_ISA_H
#define FC_CHECK_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "fc_pattern.h"

/* Most words one count call takes: its 32-bit lane counters cannot wrap
 * (4 elements per word at most). */
#define FC_CHECK_CHUNK_WORDS ((size_t)1 << 24)

/* Count the wrong elements among nwords whole groups (fc_dtype_pack_shift)
 * of buf: words of 4 bytes (1-, 2- and 4-byte types) or 8 bytes (8-byte
 * types). The first group has folded index q0 ^ hi_fold (fc_index_fold),
 * the next ones q0 + 1 ..., and q0 + nwords - 1 must not wrap. nwords is
 * at most FC_CHECK_CHUNK_WORDS. */
typedef uint64_t (*fc_check_count_func_t)(const fc_pattern_t *p, int32_t src,
                                          uint32_t q0, uint32_t hi_fold,
                                          const void *buf, size_t nwords);

/* XXH3-64 of a buffer. */
typedef uint64_t (*fc_check_digest_func_t)(const void *buf, size_t bytes);

typedef struct fc_check_ops {
    const char *name;                   /* "avx512", "avx2", "base" */
    fc_check_digest_func_t digest;
    fc_check_count_func_t count[FC_DTYPE_COUNT][FC_OP_COUNT];
} fc_check_ops_t;

extern const fc_check_ops_t fc_check_ops_base;
extern const fc_check_ops_t fc_check_ops_avx2;
extern const fc_check_ops_t fc_check_ops_avx512;

#endif
