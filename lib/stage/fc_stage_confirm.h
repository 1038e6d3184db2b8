/*
 * fc_stage_confirm.h - confirmation before blame for the sweep stages
 * (node, rack, cluster; DESIGN rule 2). Every group of a sweep stage runs
 * each point at the same time as the others, so a group can be slow
 * because of what ran beside it (a busy host, a shared spine), not
 * because of its own parts. A group that failed a point on its timing
 * alone (its bits were right) is measured again *alone*: every other
 * group idle, interleaved with a passing peer of its own class as the
 * control (suspect, control, suspect, control). Each alone round is
 * judged by the absolute limits on the suspect's own figures and the
 * relative rule against the control measured in the same round (or, with
 * no control, against the class's reference), and the rounds decide by
 * the one rule of lib/engine/fc_confirm_rule.h: two rounds, a third when they
 * disagree, the majority of three. The relative rule allows the profile's
 * percentage, or the spread of the control's own alone rounds when that
 * is larger (the machine's noise: a tolerance tighter than it confirms
 * nothing); the record says which and why. What is not reproduced passes; the
 * record keeps every measurement (the one beside the others and each
 * alone round, with its control).
 *
 * At most FC_CONFIRM_MAX_GROUPS groups are re-measured per point; the
 * others keep their failure unconfirmed (never a pass, never a
 * quarantine). Wrong bits are not this module's: they go to the runner's
 * retest (fc_stage_wrong.h).
 */
#ifndef FC_STAGE_CONFIRM_H
#define FC_STAGE_CONFIRM_H

#include <jansson.h>

#include "fc_confirm_rule.h"
#include "fc_stage.h"

#define FC_CONFIRM_MAX_GROUPS 8

/* An alone round slow while a rank of the suspect group waited for a CPU
 * this share of the run or more, and this much more than every rank of
 * its control measured in the same round (its ranks share the cores as
 * the suspect's do; with no control, nothing is held), by enough to
 * explain the slowness (its time less the wait no longer than the
 * control's time, or than FC_SWEEP_HELD_RUN_FLOOR_S: a call held for a
 * scheduler tick of 4 ms with 98% of it waited leaves 80 us, and a share
 * read as 97% or 99% would move a bound of 1/(1 - share) times the
 * control's threefold), was held
 * by a host's processors (a CPU-bound process on that rank's core holds
 * each call for one of its scheduler turns): it is measured again in its
 * place, after a pause with every rank idle (so that the scheduler may
 * move the busy process), doubling, at most so many times a group. */
#define FC_SWEEP_HELD_WAIT 0.25
#define FC_SWEEP_HELD_BEYOND 0.20
#define FC_SWEEP_HELD_AGAIN 4
#define FC_SWEEP_HELD_PAUSE_S 0.25
#define FC_SWEEP_HELD_RUN_FLOOR_S 0.5e-3

/* All ranks of the stage, after point `index` ran on every group (be is
 * this rank's group backend and bufs its buffers, my_first the world rank
 * of its group's rank
 * 0, ident as the engine takes it). On world rank 0, sums/js hold the n
 * groups' summaries and judgements: they are settled here (js[g].confirmed,
 * status and reasons) and extra[g] gets a "confirmation" member for each
 * group that failed on timing. */
void fc_stage_confirm_point(fc_stage_ctx_t *ctx, fc_backend_t *be, fc_engine_bufs_t *bufs,
                            int my_first, const fc_engine_ident_t *ident, int index,
                            const fc_test_point_t *pt, fc_point_summary_t *sums,
                            fc_judgement_t *js, int n, json_t **extra);

/* Was alone round a (its control c, NULL none), slow, held by a host's
 * CPU (FC_SWEEP_HELD_*)? */
int fc_stage_confirm_held(const fc_point_summary_t *a, const fc_point_summary_t *c,
                          int slow);

/* 1 when a judged group failed on its timing only (it ran, its bits were
 * right): what the confirmation re-measures. */
int fc_stage_timing_failure(const fc_point_summary_t *s, const fc_judgement_t *j);

/* The pure part, for rank 0 and the unit tests (tests/unit/stage_confirm.c).
 *
 * One alone round: 1 the suspect a failed it (the limits on its own
 * figures; with relative set, its relative figure more than pct percent
 * below the control c measured in the same round, or below ref when c did
 * not run), 0 it passed, -1 it was not measured. kind names the
 * group in messages ("node", "rack"). */
int fc_stage_confirm_round(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                           const char *kind, double ref, int relative, double pct,
                           const fc_point_summary_t *a, const fc_point_summary_t *c);

/* The relative tolerance of nrounds alone rounds with controls c[]: the
 * profile's percentage, or the spread of the control's relative figures
 * over its rounds (fc_confirm_spread_pct) when larger; *spread_p gets the
 * spread (0 with fewer than two control rounds). */
double fc_stage_confirm_tolerance(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                                  const fc_point_summary_t *c, int nrounds, double *spread_p);

/* The decision after nrounds alone rounds a[] (controls c[]) of a group
 * that failed the point with summary s and judgement j beside the others:
 * each round's result into fails[], then the rule's decision
 * (FC_CONFIRM_MORE: measure another round). */
fc_confirm_decision_t fc_stage_confirm_decide(const fc_stage_profile_t *sp,
                                              const fc_test_point_t *pt, const char *kind,
                                              const fc_point_summary_t *s,
                                              const fc_judgement_t *j,
                                              const fc_point_summary_t *a,
                                              const fc_point_summary_t *c, int nrounds,
                                              int *fails);

/* Settle suspect g (control h, or -1) of the n groups in sums/js after its
 * nrounds alone rounds: confirmed (js[g].confirmed, the evidence appended
 * to its first reason), cleared (PASS) or left standing unconfirmed, and
 * extra[g] = {"confirmation": {verdict, text, control, concurrent, rounds,
 * round_reasons, alone_measurements, alone_slow, tolerance}}
 * (fc_stage_confirm_point adds seconds and cpu_wait). */
void fc_stage_confirm_settle(const fc_stage_profile_t *sp, const char *kind,
                             const fc_test_point_t *pt, fc_point_summary_t *sums,
                             fc_judgement_t *js, int g, int h, const fc_point_summary_t *a,
                             const fc_point_summary_t *c, int nrounds, json_t **extra);

#endif
