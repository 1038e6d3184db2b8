/*
 * fc_engine_int.h - what the engine's two files share (lib/engine/fc_engine.c
 * runs a point on every rank; lib/engine/fc_engine_summary.c folds the ranks'
 * reports into the point's summary on rank 0). Private to them.
 */
#ifndef FC_ENGINE_INT_H
#define FC_ENGINE_INT_H

#include "fc_engine.h"
#include "fc_point_rank.h"

/* What one rank found, gathered to rank 0. */
typedef struct fc_rank_report {
    int32_t world_rank;
    char host[FC_HOST_MAX];
    uint64_t wrong;
    int32_t first_iter;
    uint64_t first_pos;
    uint64_t first_expected;
    uint64_t first_actual;
    uint64_t digest0;       /* digest of the first iteration's output */
    int32_t reps_agree;
    double batch_s;         /* batched: this rank's time per call, or -1 */
    fc_calls_t calls;       /* this rank's calls, made and checked */
} fc_rank_report_t;

/* Everything one point's iterations need. */
typedef struct fc_point_run {
    fc_backend_t *be;
    const fc_test_point_t *pt;
    fc_point_rank_t pr;     /* this rank's inputs, roots and checks */
    int batch_calls;        /* the batch's calls (fc_engine_batch_calls) */
} fc_point_run_t;

/* Rank 0: fold the ranks' reports, the slowest rank's time of each
 * iteration and every rank's barrier waits (waits[r * iters + i]) into
 * the summary. */
void fc_engine_summarise(const fc_point_run_t *run, const fc_rank_report_t *reps,
                         const double *slowest_times, const double *waits,
                         fc_point_summary_t *s);

#endif
