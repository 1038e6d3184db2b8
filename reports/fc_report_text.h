/*
 * fc_report_text.h - the words every writer of the reports shares: one
 * safe line for a terminal or summary.txt, the run's command-line
 * overrides and its measurement-shaping environment as one line each,
 * the sysfs tree a run read instead of /sys, and
 * what a technician should do about each kind of part a finding names.
 * A leaf: it reads the run's verdicts and calls no writer.
 */
#ifndef FC_REPORT_TEXT_H
#define FC_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "fc_verdict.h"

/* A JSON object of settings as one line, each "KEY<sep>VALUE" (an array
 * value gives one per item), joined with ", ", control characters shown
 * as '?', each value cut at 120 characters; "" for none. */
void fc_settings_text(json_t *settings, const char *sep, char *buf, size_t len);
/* The run's command-line overrides as one line ("--iters 3, --stages
 * node"), "" when the profile ran as written. */
void fc_overrides_text(const fc_run_verdict_t *v, char *buf, size_t len);
/* The variables of the launching environment that shape the measurement,
 * as the plan recorded them ("OMPI_MCA_btl=self,vader, UCX_TLS=rc"), ""
 * when there were none. They stand beside the overrides, not among them:
 * every report says them as visibly, and they never fail a run. */
void fc_environment_text(const fc_run_verdict_t *v, char *buf, size_t len);
/* One resume of the run (an entry of fc_run_verdict_t.resumes) as one
 * line: "2026-12-03T13:45:41Z: kept node, rack; ran again soak (1
 * attempt superseded)". */
void fc_resume_text(json_t *resume, char *buf, size_t len);
/* A rerun's earlier run (the plan's rerun_of, `run --rerun-failed`) as
 * one line: "rerun of RUN_ID (DIR) after repair: racks rack2 (its
 * results.jsonl sha256 HEX); racks that passed there and keep its
 * certificates: rack1, rack3". */
void fc_rerun_text(json_t *rerun_of, char *buf, size_t len);
/* One line of text for a person's terminal or summary.txt: formatted,
 * every control character (from any input: a record's reason, a host
 * name, a profile's name) shown as '?', then one newline, so no input can
 * add or break a line. */
void fc_print_line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The sysfs tree the run's preflight and soak read instead of /sys
 * (FC_SYSFS_ROOT in the plan's environment or an --env override), or
 * NULL: every report says it, so a run on a fixture tree cannot be taken
 * for one on real hardware. */
const char *fc_sysfs_root_of(const fc_run_verdict_t *v);
/* What a technician should do about a part ("link", "GPU", "rack", ...;
 * "inspect the evidence" for a part without advice). */
const char *fc_part_action(const char *part);

#endif
