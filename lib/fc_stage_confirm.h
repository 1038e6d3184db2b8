/*
 * fc_stage_confirm.h - confirmation before blame for the sweep stages
 * (node, rack, cluster; DESIGN rule 2). Every group of a sweep stage runs
 * each point at the same time as the others, so a group can be slow
 * because of what ran beside it (a busy host, a shared spine), not
 * because of its own parts. A group that failed a point on its timing
 * alone (its bits were right) is measured again *alone*: every other
 * group idle, interleaved with a passing peer of its own class as the
 * control (suspect, control, suspect, control). The failure stands only
 * when every alone round fails too: the absolute limits on the suspect's
 * own figures, and the relative rule against the control measured in the
 * same round (or, with no control, against the class's reference). What
 * is not reproduced passes, and its record keeps both measurements.
 *
 * At most FC_CONFIRM_MAX_GROUPS groups are re-measured per point; the
 * others keep their failure unconfirmed (never a pass, never a
 * quarantine). Wrong bits are not this module's: they go to the runner's
 * retest (fc_stage_wrong.h).
 */
#ifndef FC_STAGE_CONFIRM_H
#define FC_STAGE_CONFIRM_H

#include <jansson.h>

#include "fc_stage.h"

#define FC_CONFIRM_ROUNDS 2
#define FC_CONFIRM_MAX_GROUPS 8

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

/* 1 when a judged group failed on its timing only (it ran, its bits were
 * right): what the confirmation re-measures. */
int fc_stage_timing_failure(const fc_point_summary_t *s, const fc_judgement_t *j);

#endif
