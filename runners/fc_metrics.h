/*
 * fc_metrics.h - `fabcert run --metrics FILE`: the run's state and figures
 * for the site's monitoring, in the Prometheus text exposition format
 * (gauges with HELP and TYPE, a final "# EOF" so an OpenMetrics parser
 * takes it too), written the way node_exporter's textfile collector wants
 * it: to FILE.tmp, fsync, renamed over FILE, so a scrape never reads half
 * a file. Point the collector's directory at FILE's (name it *.prom).
 *
 * Fed by the progress follower (fc_progress.h) with every record it reads
 * from results.jsonl, and rewritten when something an operator watches
 * changes: a stage starts or ends, a soak window closes, a host is
 * quarantined, and every 10 s with the stage's progress; at the end with
 * each rack's verdict as the report reached it. Families (docs/operators-guide.md,
 * "Metrics for the site's monitoring", lists them with their labels):
 * fabcert_run_state, fabcert_rack_verdict, fabcert_stage_state,
 * fabcert_stage_checks, fabcert_stage_failures, fabcert_stage_incomplete,
 * fabcert_stage_seconds, fabcert_stage_progress_ratio,
 * fabcert_stage_eta_seconds, fabcert_busbw_gbps, fabcert_soak_window,
 * fabcert_soak_window_busbw_gbps, fabcert_soak_window_slowdown_pct,
 * fabcert_soak_wrong_elements, fabcert_soak_drift_pct,
 * fabcert_link_error_delta, fabcert_host_quarantined,
 * fabcert_metrics_updated_timestamp_seconds.
 */
#ifndef FC_METRICS_H
#define FC_METRICS_H

#include <jansson.h>

#include "fc_run.h"

typedef struct fc_metrics fc_metrics_t;

/* Start the metrics of st's run in path; st->prior (a resume's earlier
 * records) are taken in first. Writes the file at once. */
fc_metrics_t *fc_metrics_open(const char *path, const fc_run_state_t *st);
/* Take in one record of results.jsonl; 1 when it changed what an
 * operator watches (the file should be rewritten now). */
int fc_metrics_record(fc_metrics_t *m, json_t *rec);
/* The stage being run: how much of it is done (0-1, < 0: not known) and
 * its ETA in seconds (< 0: not known). */
void fc_metrics_progress(fc_metrics_t *m, const char *stage, double ratio, double eta_s);
/* Rewrite the file (atomically). */
void fc_metrics_flush(fc_metrics_t *m);
/* The run is over: its state ("finished", "interrupted"), each rack's
 * verdict (an array of {rack, verdict}; NULL: none reached); the file is
 * written a last time and m freed. */
void fc_metrics_close(fc_metrics_t *m, const char *state, json_t *racks);

#endif
