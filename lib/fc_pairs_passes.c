/*
 * fc_pairs_passes.c - see fc_pairs_passes.h: the stored measurements, their
 * replay by the confirmation's numbering, and the passes.
 */
#include "fc_pairs_passes.h"

#include <stdlib.h>

#include "fc_alloc.h"

typedef struct fc_passes {
    fc_pairs_run_t *run;
    int *judged;                /* each stored measurement's judgement */
    int capacity;               /* measurements run->alone holds */
    int replay_only;            /* this pass measures nothing new */
    fc_pairs_measure_func_t measure;
    void *arg;
} fc_passes_t;

/* Stored measurement m judged at every size by the pass's tolerance:
 * FC_CONFIRM_MEAS_SLOW when slow at any size, else _UNDECIDED when no
 * honest reference judged a size (fc_pairs_judge_alone), else _FAST. */
static int fc_passes_judge(fc_pairs_run_t *run, int m)
{
    int nz = run->ctx->sp.nsizes, slow = 0, undecided = 0;

    for (int z = 0; z < nz; ++z) {
        fc_pairs_judge_alone(run, &run->alone[(size_t)m * nz + z]);
        slow |= run->alone[(size_t)m * nz + z].slow;
        undecided |= run->alone[(size_t)m * nz + z].undecided;
    }
    return slow ? FC_CONFIRM_MEAS_SLOW : undecided ? FC_CONFIRM_MEAS_UNDECIDED
                                                   : FC_CONFIRM_MEAS_FAST;
}

/* The stored measurement that replays the pass's measurement number m of
 * x <-> y (the pair's k-th of this pass, k its earlier ones), or -1. */
static int fc_passes_replay(const fc_pairs_run_t *run, int x, int y, int m)
{
    int nz = run->ctx->sp.nsizes, lo = x < y ? x : y, hi = x < y ? y : x, k = 0;

    for (int i = 0; i < m; ++i) {
        const fc_pair_t *p = &run->alone[(size_t)run->alone_of[i] * nz];

        k += p->a == lo && p->b == hi;
    }
    for (int s = 0; s < run->nalone; ++s) {
        const fc_pair_t *p = &run->alone[(size_t)s * nz];

        if (p->a == lo && p->b == hi && k-- == 0)
            return s;
    }
    return -1;
}

/* The confirmation's probe (fc_pairs_probe_func_t): replayed, or measured
 * and stored. */
static int fc_passes_probe(void *arg, int x, int y)
{
    fc_passes_t *ps = arg;
    fc_pairs_run_t *run = ps->run;
    int m = run->confirm.nmeasures, s = fc_passes_replay(run, x, y, m);

    if (s >= 0) {
        run->alone_of[m] = s;
        return ps->judged[s];
    }
    if (ps->replay_only || run->nalone >= ps->capacity ||
        ps->measure(ps->arg, run, x, y, run->nalone) != 0) {
        run->confirm.max_measures = run->confirm.nmeasures;     /* no probe starts */
        return FC_CONFIRM_MEAS_UNMEASURED;
    }
    s = run->nalone++;
    run->alone_of[m] = s;
    return ps->judged[s] = fc_passes_judge(run, s);
}

static int fc_passes_contradicts(void *arg, int x, int y, int first, int n)
{
    return fc_pairs_alone_contradicts(((fc_passes_t *)arg)->run, x, y, first, n);
}

void fc_pairs_confirm_passes(fc_pairs_run_t *run, int npairs, const int *a, const int *b,
                             const int *slow, int max_measures, fc_pairs_measure_func_t measure,
                             void *arg)
{
    fc_passes_t ps = { run, NULL, 2 * max_measures, 0, measure, arg };
    double pct = run->ctx->sp.max_below_median_pct;

    run->alone = fc_xcalloc((size_t)ps.capacity * (size_t)run->ctx->sp.nsizes + 1,
                            sizeof(*run->alone), "the alone measurements");
    run->alone_of = fc_xcalloc((size_t)max_measures + 1, sizeof(int),
                               "the confirmation's measurements");
    ps.judged = fc_xcalloc((size_t)ps.capacity + 1, sizeof(int),
                           "the alone measurements' judgements");
    run->nalone = 0;
    run->alone_widened = 0;
    for (int pass = 0; pass < FC_PAIRS_PASSES; ++pass) {
        ps.replay_only = pass == FC_PAIRS_PASSES - 1;
        for (int s = 0; s < run->nalone; ++s)
            ps.judged[s] = fc_passes_judge(run, s);
        fc_pairs_confirm(run->nnodes, run->node_racks, run->ctx->inv.nracks, npairs, a, b,
                         slow, max_measures, fc_passes_probe, fc_passes_contradicts, &ps,
                         &run->confirm);
        run->alone_passes = pass + 1;
        if (pct < 0 || fc_pairs_alone_spread(run) <= fc_confirm_tolerance(
                           pct, run->alone_widened ? run->alone_pct : pct))
            break;
        if (pass + 1 < FC_PAIRS_PASSES)
            fc_pairs_confirm_free(&run->confirm);
        run->alone_widened = 1;
        run->alone_pct = fc_confirm_tolerance(pct, run->alone_spread_pct);
    }
    free(ps.judged);
}
