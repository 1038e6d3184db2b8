/*
 * fc_pattern_host.h - host-side companions of fc_pattern.h: type and op
 * names, sizes, and fc_pattern_make(), which chooses the value ranges that
 * keep every reduction exact for a given type, op and rank count.
 * Shared by the CPU kernels, the engine and the GPU plugin.
 */
#ifndef FC_PATTERN_HOST_H
#define FC_PATTERN_HOST_H

#include <stddef.h>

#include "fc_pattern.h"

typedef struct fc_dtype_info {
    const char *name;       /* as in profiles and results: "float16" */
    size_t size;            /* bytes per element */
    int is_signed;          /* has negative values */
    int exact_bits;         /* integers below 2^exact_bits are exact */
} fc_dtype_info_t;

const fc_dtype_info_t *fc_dtype_info(fc_dtype_t dtype);
const char *fc_op_name(fc_op_t op);
/* Parse a name; returns -1 if unknown. */
int fc_dtype_from_name(const char *name);
int fc_op_from_name(const char *name);
/* As fc_op_from_name, but only reductions (sum, prod, min, max). */
int fc_reduce_op_from_name(const char *name);

/* Build the pattern for (dtype, op, nranks, seed); op FC_OP_NONE gives the
 * move pattern. nranks must be >= 1. */
void fc_pattern_make(fc_dtype_t dtype, fc_op_t op, int nranks, uint32_t seed,
                     fc_pattern_t *pattern_p);

/* The seed of input set `set` (0 or 1) of a test seeded `seed`. Every
 * measurement alternates two sets, so that a buffer delivered again (a
 * stale receive, a replayed message) is wrong for the set it stands in
 * for: nearly every element of one set differs from the other's. */
static inline uint32_t fc_pattern_set_seed(uint32_t seed, int set)
{
    return set ? seed ^ 0x9E3779B9u : seed;
}

#endif
