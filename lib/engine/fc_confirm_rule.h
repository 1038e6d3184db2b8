/*
 * fc_confirm_rule.h - the one rule by which a slowness seen beside others
 * is confirmed alone (DESIGN rule 2), wherever it is measured: the pairs
 * stage's probes (lib/pairs/fc_pairs_confirm.c) and the sweep stages' groups
 * (lib/stage/fc_stage_confirm.c). The suspect is measured alone twice; when the
 * two agree they decide; when they disagree a third measurement decides:
 * the majority of three. One unlucky measurement (a busy machine) neither
 * confirms nor clears a suspect, and a flaky part slow two times of three
 * is confirmed. A measurement that could not be taken decides nothing:
 * the suspicion stands, unconfirmed (never a pass, never a blame). A
 * measurement taken but that no honest reference could judge (the pairs
 * stage: no figure its own two nodes do not set, lib/pairs/fc_pairs_judge.c) is
 * undecided: it is not fast, so it clears nothing, and not slow, so it
 * confirms nothing; a majority of them leaves the probe undecided.
 *
 * Pure logic: the callers take the measurements and keep every one of
 * them in their records, with the tolerance they were judged by; tests/unit/pairs_confirm.c and
 * tests/unit/stage_confirm.c plant flaky sequences.
 */
#ifndef FC_CONFIRM_RULE_H
#define FC_CONFIRM_RULE_H

#include <stddef.h>

#define FC_CONFIRM_MIN_MEASURES 2   /* alone measurements always taken */
#define FC_CONFIRM_MAX_MEASURES 3   /* ... and the third, when they disagree */

/* One alone measurement's judgement, as the callers give it. */
#define FC_CONFIRM_MEAS_UNMEASURED (-1) /* could not be taken */
#define FC_CONFIRM_MEAS_FAST 0          /* judged, not slow */
#define FC_CONFIRM_MEAS_SLOW 1          /* judged slow */
#define FC_CONFIRM_MEAS_UNDECIDED 2     /* taken, no honest reference judged it */

typedef enum fc_confirm_decision {
    FC_CONFIRM_MORE = -2,           /* take another measurement */
    FC_CONFIRM_UNMEASURED = -1,     /* a measurement could not be taken */
    FC_CONFIRM_CLEARED = 0,         /* fast alone: not reproduced */
    FC_CONFIRM_SLOW = 1,            /* slow alone: reproduced */
    FC_CONFIRM_UNDECIDED = 2,       /* measured, but not judged either way */
} fc_confirm_decision_t;

/* The decision after n alone measurements, slow[i] each one's judgement
 * (FC_CONFIRM_MEAS_*: 1 slow, 0 fast, 2 undecided, -1 not measured):
 * FC_CONFIRM_MORE while n is below two, or two that disagree; otherwise
 * the majority (slow, fast, or else undecided). */
fc_confirm_decision_t fc_confirm_decide(const int *slow, int n);

/* Measurements of slow[0..n-1] that were slow. */
int fc_confirm_slow_count(const int *slow, int n);

/* The noise floor of a confirmation: a relative tolerance tighter than the
 * spread its own alone measurements show cannot confirm anything, so the
 * rule judges by the larger of the two. The spread of n figures of one
 * subject measured alone (a bandwidth each; those not above 0 left out):
 * 100 * (1 - lowest / highest), 0 for fewer than two. */
double fc_confirm_spread_pct(const double *figures, int n);
/* The tolerance a confirmation uses: profile_pct (negative: no relative
 * rule, returned as is), or spread_pct when larger. */
double fc_confirm_tolerance(double profile_pct, double spread_pct);

/* "slow in 2 of 3 alone measurements" (or "not measured"), for texts. */
void fc_confirm_tally_text(const int *slow, int n, char *buf, size_t len);

#endif
