/*
 * fc_pairs_passes.h - the pairs confirmation run in passes, so that its
 * tolerance is never tighter than the noise its own alone measurements
 * show (rank 0; lib/pairs/fc_pairs_passes.c). Each pass judges every stored
 * alone measurement again (lib/pairs/fc_pairs_alone.c) by the pass's tolerance
 * and runs the confirmation (lib/pairs/fc_pairs_confirm.h), replaying what an
 * earlier pass measured (a pair's k-th measurement of the pass is its k-th
 * stored one) and measuring only what is new. When the alone measurements
 * of a pair then spread more than the tolerance (fc_pairs_alone_spread),
 * the next pass judges by that spread; the last pass only replays, so the
 * tolerance it judges by is never below the spread of what it judges. A
 * probe slow alone where the rounds measured its pair faster is measured
 * again (fc_pairs_alone_contradicts). A slow measurement is followed by
 * its control: a pair of the same path kind touching
 * neither node nor a node most of whose pairs were slow, nearest the
 * reference in the rounds; within the tolerance of its control it is not
 * slow (the machine was slow at that moment, not the pair). A limit's
 * failure its control shares is undecided: it stands in the record, and
 * blames nobody. The measurement itself is the
 * caller's callback (suites/pairs.c over MPI, tests/unit/pairs_agree.c
 * from fixtures).
 */
#ifndef FC_PAIRS_PASSES_H
#define FC_PAIRS_PASSES_H

#include "fc_pairs_stage.h"

#define FC_PAIRS_PASSES 4

/* Measure x <-> y alone once into run->alone[s * nsizes + z] for every
 * size (merged, not judged): 0, or -1 when it could not be made (the
 * stage's time would not hold it: no later one is asked for in the pass). */
typedef int (*fc_pairs_measure_func_t)(void *arg, fc_pairs_run_t *run, int x, int y, int s);

/* Confirm the rounds' npairs pairs (a[k], b[k], slow[k]) alone, at most
 * max_measures measurements a pass: run->confirm holds the last pass's
 * verdicts, run->alone (allocated here, 2 * max_measures measurements at
 * most) every measurement, run->alone_of the last pass's numbering;
 * run->alone_widened, alone_pct, alone_spread_pct and alone_passes say
 * which tolerance judged and why. */
/* The thresholds by which a slow alone measurement is judged again
 * without its ranks' waits for a CPU, for the records: {looked_at_pct,
 * most_faster, measured_again_at_most, calm_wait_pct, calm_at_least,
 * others_counted}. */
json_t *fc_pairs_cpu_wait_rule_json(void);

void fc_pairs_confirm_passes(fc_pairs_run_t *run, int npairs, const int *a, const int *b,
                             const int *slow, int max_measures, fc_pairs_measure_func_t measure,
                             void *arg);

#endif
