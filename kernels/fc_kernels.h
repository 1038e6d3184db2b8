/*
 * fc_kernels.h - the contract that the CPU kernels (fc_kernels_cpu.c) and
 * the GPU kernels (fc_kernels_cuda.cu) both implement: fill an input buffer
 * from the pattern, verify an output buffer against the pattern's
 * expectation, verify that a buffer the call must leave alone holds its
 * known byte, digest a buffer. Buffers are arrays of elements of the
 * pattern's type; "index_base" is the pattern index of element 0 and
 * "pos_base" the position of element 0 in the whole output buffer (so that
 * a mismatch can be reported at its place in what the collective wrote).
 */
#ifndef FC_KERNELS_H
#define FC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "fc_pattern.h"

/* What a verification found. Fields other than wrong are meaningful only
 * when wrong > 0. */
typedef struct fc_mismatch {
    uint64_t wrong;         /* number of elements whose bits differ */
    uint64_t first_pos;     /* position of the first wrong element */
    uint64_t expected_bits; /* its expected bits */
    uint64_t actual_bits;   /* the bits found there */
} fc_mismatch_t;

/* Fill count elements of rank's input, pattern indices index_base.. */
void fc_cpu_fill(const fc_pattern_t *p, int32_t rank, uint64_t index_base,
                 void *buf, size_t count);

/* Verify count elements that should come from rank src (moves) at pattern
 * indices index_base..; adds to *m, keeping the first mismatch found in
 * position order if m->wrong was 0. */
void fc_cpu_verify(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                   const void *buf, size_t count, uint64_t pos_base,
                   fc_mismatch_t *m);

/* Verify count elements of esize bytes (1, 2, 4 or 8) that must each be
 * the byte `byte` repeated: a buffer the call must leave alone (a reduce's
 * non-root recv). Adds the elements with any changed bit to *m, keeping
 * the first in position order if m->wrong was 0 (expected bits: the byte
 * repeated over the element). */
void fc_cpu_verify_untouched(const void *buf, size_t count, size_t esize, int byte,
                             uint64_t pos_base, fc_mismatch_t *m);

/* XXH3-64 of a buffer. */
uint64_t fc_cpu_digest(const void *buf, size_t bytes);

/* The instruction sets fc_cpu_verify and fc_cpu_digest are built for
 * (kernels/fc_check_isa.h). Each computes the same results; the best one
 * the CPU supports is used unless fc_cpu_isa_set chose another. */
typedef enum fc_cpu_isa {
    FC_CPU_ISA_BASE = 0,    /* x86-64 baseline (SSE2) */
    FC_CPU_ISA_AVX2,        /* x86-64-v3 */
    FC_CPU_ISA_AVX512,      /* x86-64-v4 */
    FC_CPU_ISA_COUNT
} fc_cpu_isa_t;

/* 1 if this CPU can run isa's code, else 0. */
int fc_cpu_isa_supported(fc_cpu_isa_t isa);
/* "base", "avx2", "avx512". */
const char *fc_cpu_isa_name(fc_cpu_isa_t isa);
/* The instruction set in use. */
fc_cpu_isa_t fc_cpu_isa_get(void);
/* Use isa from now on, in every thread; -1 (nothing changed) if this CPU
 * cannot run it. */
int fc_cpu_isa_set(fc_cpu_isa_t isa);

#endif
