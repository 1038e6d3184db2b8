/*
 * fc_overlap.h - the overlap stage's judgement and record (fc_overlap.c),
 * shared by its host form (suites/overlap.c) and its GPU form
 * (fc_overlap_gpu.c).
 */
#ifndef FC_OVERLAP_H
#define FC_OVERLAP_H

#include <jansson.h>
#include <stdint.h>

#include "fc_calls.h"
#include "fc_stage.h"

/* One size's measurements, on rank 0. */
typedef struct fc_ovl_meas {
    uint64_t bytes, requested;  /* measured (whole elements), asked for */
    int iters;
    const double *slow;         /* 3 x iters: the slowest rank's collective
                                 * alone, compute alone, together (s) */
    double work_pct;            /* the compute's work together / alone, % */
    long long wrong_all;        /* wrong all_reduce elements, all ranks */
    int first_rank;             /* the rank with most of them */
    double det[4];              /* its first: iteration, element, expected, got */
    const char *kind;           /* "compute" (host kernel), "gemm" (GPU) */
    const char *extra_fail;     /* another failure (a wrong GEMM, a failed
                                 * batch), or NULL */
    json_t *extra_impl;         /* what extra_fail implicates (borrowed;
                                 * NULL: the cluster's part) */
    json_t *extra;              /* members for the record (taken) */
    fc_calls_t calls;           /* the all_reduce calls made and checked
                                 * (fc_overlap_calls_reduce) */
} fc_ovl_meas_t;

/* Judge, write the record and the TAP point (rank 0 only). */
void fc_overlap_record(fc_stage_ctx_t *ctx, const fc_ovl_meas_t *m);
/* Every rank's calls into *all on rank 0: the most any rank made, the
 * fewest any rank checked (fc_calls_fold). Collective. */
void fc_overlap_calls_reduce(const fc_calls_t *mine, fc_calls_t *all);

#endif
