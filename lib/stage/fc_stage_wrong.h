/*
 * fc_stage_wrong.h - what a wrong collective result implicates, before the
 * retest has placed it (DESIGN, rule 2: blame only after confirmation). A
 * corrupted contribution spreads to every rank's output, so the rank that
 * observed the wrong bits first is not the culprit: the result implicates
 * its whole group (the node, the rack or the cluster the communicator
 * spanned), every rack with a host in it fails, and nobody is quarantined
 * until the runner's retest (suites/retest.c) names a node.
 */
#ifndef FC_STAGE_WRONG_H
#define FC_STAGE_WRONG_H

#include "fc_stage.h"

/* 1 when the point's output was wrong: wrong elements, or ranks or
 * repetitions that disagree on the bits. */
int fc_stage_wrong_result(const fc_point_summary_t *s);

/* The hosts and racks of world rank r's group, in rank order, appended to
 * the two arrays: the ranks it measured with (not the contention stage's
 * background or idle ranks: ctx->rank_measures). */
void fc_stage_group_members(const fc_stage_ctx_t *ctx, int r, json_t *hosts, json_t *racks);

/* {part: "group" ("node" when the group is one host), host: that host or
 * "", rack, group, hosts: [...], racks: [...], quarantine: false,
 * localised: false} for the group of world rank r. */
json_t *fc_stage_wrong_implicates(const fc_stage_ctx_t *ctx, int r);

/* The same for a confirmed timing failure of a group of several hosts,
 * with kind "slow": the runner's retest places the slowness (a node whose
 * presence makes the collective slow) or says it cannot. */
json_t *fc_stage_slow_implicates(const fc_stage_ctx_t *ctx, int r);

/* "<what> in G (N hosts), not yet localised" into buf; what is "wrong
 * result" or "confirmed slowness". */
void fc_stage_pending_text(const fc_stage_ctx_t *ctx, int r, const char *what, char *buf,
                           size_t len);

#endif
