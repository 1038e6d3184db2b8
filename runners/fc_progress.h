/*
 * fc_progress.h - what a running `fabcert run` tells the people and the
 * tools that watch it. An eight-hour soak must not be eight silent hours:
 * while a stage runs, the runner follows results.jsonl as it grows (each
 * record is one whole line, written with one write(2)) and learns from the
 * stage's own records how far it is: the `work` its stage_start plans
 * (test points, pairs rounds, soak seconds), the points written, each
 * `pairs_round`, each `soak_window`, the checks that did not pass. From the
 * measured rate it gives an ETA for the stage.
 *
 * Two outputs: one line on stdout at least every 10 s and at every soak
 * window ("progress: stage soak (4 of 4): 12.0 of 30.0 s, window 4, 0
 * failed, ETA 18 s"), when stdout is a terminal or with --progress; and
 * DIR/progress.json, the same facts for tools, rewritten atomically (a
 * temporary file, fsync, rename) so a reader never sees half a file.
 *
 * The follower also hands every record it reads to the metrics writer
 * (fc_metrics.h), which rewrites its file as stages and soak windows end.
 */
#ifndef FC_PROGRESS_H
#define FC_PROGRESS_H

#include <jansson.h>

#include "fc_run.h"

typedef struct fc_progress fc_progress_t;

/* Follow st's results.jsonl from byte `offset` on (what is before it is
 * not this invocation's); print: progress lines on stdout. Writes
 * progress.json at once, and with --metrics the metrics file
 * (fc_metrics.h). */
fc_progress_t *fc_progress_open(const fc_run_state_t *st, long offset, int print);
/* The runner is about to launch attempt `attempt` of stage s. */
void fc_progress_stage(fc_progress_t *p, fc_stage_id_t s, int attempt);
/* Read what was appended; print a line when one is due; rewrite
 * progress.json when something changed (at most once a second). An
 * fc_launch_tick_func_t: arg is the fc_progress_t. */
void fc_progress_tick(void *arg);
/* The run is over: a last read, then progress.json says `state`
 * ("finished", "interrupted") and the verdict ("" when none was reached),
 * and the metrics each rack's (racks: fc_report_dir_racks's, or NULL);
 * frees p. */
void fc_progress_close(fc_progress_t *p, const char *state, const char *verdict,
                       json_t *racks);

/* Write text to path atomically: path.tmp, fsync, rename. 0 or -1 (said
 * on stderr). progress.json and the metrics file are written so. */
int fc_write_atomic(const char *path, const char *text);

#endif
