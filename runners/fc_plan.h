/*
 * fc_plan.h - what a run of a profile on an inventory will do, before it
 * does it (`fabcert plan`, and the summary `fabcert run` prints at its
 * start with the whole plan in DIR/plan.txt and DIR/plan.json): the stages
 * in the stage table's order, each with its ranks, its groups (nodes,
 * racks, the job; the pairs and rails tournaments' rounds; the scaling
 * series' node counts), the sweep (collectives, types, ops, sizes,
 * iterations) and the soak's duration; an estimate of each stage's time
 * from a stated model (fc_plan_model.c), and, given an earlier run's
 * directory, from its measured stage times; and what the profile leaves
 * out of the mission (fc_plan_gaps.c): stages it does not run, data
 * checks it does not make, a soak shorter than a burn-in.
 *
 * Everything is derived from the tables the stages themselves use: the
 * stage table (lib/base/fc_stages.c), the sweep a stage program derives
 * (fc_stage_sweep_plan, with the run's overrides), the pairs schedule
 * (lib/stage/fc_pairs_schedule.h) and the scaling series
 * (fc_stage_series_counts).
 */
#ifndef FC_PLAN_H
#define FC_PLAN_H

#include <jansson.h>
#include <stdio.h>

#include "fc_run.h"

/* The plan of st (options, profile with --soak-duration applied,
 * inventory) as JSON: {"profile", "profile_sha256", "hosts", "racks":
 * [{name, hosts}], "ppn", "local", "stages": [...], "estimate_s",
 * "model": {...}, "leaves_out": [...], "not_applicable": [...]}. Each
 * stage: name, proves, required, selected, runs (0 with "why_not"),
 * backend, ranks, ranks_per_node, groups {kind, count, largest_ranks},
 * sweep {collectives, dtypes, ops, sizes, points, warmup, iters, batched,
 * calls}, and its own: pairs/rails rounds, series, contention phases,
 * soak duration and window; "estimate_s". */
json_t *fc_plan_build(const fc_run_state_t *st);

/* The sweep stage s will measure: the profile's with the run's overrides,
 * by the stage programs' own fc_stage_sweep_plan; *sp_p and the points
 * (malloc'ed), their count returned. */
struct fc_test_point;
int fc_plan_stage_sweep(const fc_run_state_t *st, fc_stage_id_t s, fc_stage_profile_t *sp_p,
                        struct fc_test_point **points_p);

/* Put an earlier run's measured stage times beside the estimate: for each
 * stage of plan that DIR ran, "measured_s" (its wall time from the
 * runner's stage_done, else its stage_end seconds) and "from_estimate_s"
 * (that time scaled by this plan's estimate over DIR's own, where DIR has a
 * plan.json, else as measured), and plan's "from": {dir, hosts, total_s,
 * from_estimate_s}. 0, or 2 with the file and line said (a DIR that is no
 * run, a line that is not a record). */
int fc_plan_from(json_t *plan, const char *dir);

/* The plan as people read it: the full table and every gap (full), or
 * the few lines `fabcert run` prints at its start. */
void fc_plan_print(const json_t *plan, FILE *f, int full);

/* "45s", "12m05s", "8h00m". */
void fc_plan_duration(double seconds, char *buf, size_t len);

/* DIR/plan.txt and DIR/plan.json: 0, or -1 (said). */
int fc_plan_write(const json_t *plan, const char *dir);

/* `fabcert run`'s start: the plan's few lines on stdout, the whole of it
 * in DIR/plan.txt and plan.json. 0, or -1 when a file could not be
 * written (said). */
int fc_run_plan_start(const fc_run_state_t *st);

/* `fabcert plan`: run's options (--profile, --hosts, --racks, --ppn,
 * --np, --stages, the overrides) with --from DIR and --json. 0, or 2. */
int fc_cmd_plan(int argc, char **argv);

/* ---- fc_plan_model.c: the model, stage by stage ---------------------- */

/* A stage's estimated seconds, from its plan entry (ranks, groups, sweep
 * and its own figures) and its profile; the model's terms are said in
 * fc_plan_model_json. */
double fc_plan_model_stage(const json_t *stage, const fc_stage_profile_t *sp,
                           fc_stage_id_t s);
/* The model's constants and formula, for the plan's "model". */
json_t *fc_plan_model_json(void);

/* ---- fc_plan_gaps.c: what the profile leaves out ---------------------- */

/* Append to leaves_out one sentence per part of the mission the plan does
 * not cover, and to not_applicable the stages the profile's hardware
 * cannot run (an NVLink domain stage where the domain is the node). */
void fc_plan_gaps(const fc_run_state_t *st, const json_t *stages, json_t *leaves_out,
                  json_t *not_applicable);

#endif
