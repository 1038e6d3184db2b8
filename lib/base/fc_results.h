/*
 * fc_results.h - DIR/results.jsonl: one JSON object per measurement or
 * check, appended and flushed as it is made, so that a crash or a killed
 * job loses nothing already measured. Objects are built with jansson.
 * Every record is one whole line written with one write(2) on an O_APPEND
 * descriptor, so concurrent writers (stage rank 0, the runner) never
 * interleave inside a line.
 */
#ifndef FC_RESULTS_H
#define FC_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "fc_status.h"

typedef struct fc_results {
    int fd;                 /* open with O_APPEND; -1 when closed */
    char path[4096];
    long judged;            /* records with a verdict this writer was given,
                             * whether or not their write succeeded ... */
    long judged_not_pass;   /* ... and those whose verdict is not PASS: a
                             * stage's end record carries both, so a record
                             * lost on the way is seen to be missing */
} fc_results_t;

/* Create dir (and parents) if needed and open dir/results.jsonl. */
fc_status_t fc_results_open(const char *dir, fc_results_t *results_p);
/* Append obj as one line with one write(2); takes the reference to obj. */
fc_status_t fc_results_append(fc_results_t *results, json_t *obj);
/* Append line[0..len) (ending in '\n') with one write(2); a short write is
 * an error, never completed by a second write. */
fc_status_t fc_results_write_line(fc_results_t *results, const char *line,
                                  size_t len);
void fc_results_close(fc_results_t *results);
/* mkdir -p; returns FC_OK or logs and returns FC_ERR_INVALID. */
fc_status_t fc_mkdir_p(const char *dir);
/* "<directory of this executable>/rel" into buf ("./rel" if unknown). */
void fc_path_beside_exe(const char *rel, char *buf, size_t len);
/* A file fabcert ships, found relative to this executable: build_rel in
 * the build tree (build/fabcert, build/suites/NAME) when it is there, else
 * installed_rel in `make install`'s layout (PREFIX/bin/fabcert,
 * PREFIX/libexec/fabcert/NAME, PREFIX/share/fabcert/thresholds) when it is
 * there, else build_rel (which the caller's error then names). */
void fc_path_shipped(const char *build_rel, const char *installed_rel, char *buf, size_t len);
/* The stage program (or probe, retest) NAME beside the fabcert command:
 * build/suites/NAME, or PREFIX/libexec/fabcert/NAME when installed. */
void fc_path_program(const char *name, char *buf, size_t len);
/* The first write of this process that failed (a full disk under --out):
 * fc_write_failed records the file and errno, fc_write_failure gives
 * "FILE: REASON" and 1, or 0 when every write succeeded. The runner says
 * it and exits 1 (runners/fc_run_state.c): not bad input, not a verdict. */
void fc_write_failed(const char *path, int err);
int fc_write_failure(char *buf, size_t len);
/* The time now as results records write it: "2026-12-02T11:27:11Z". */
void fc_results_time(char *buf, size_t len);

#endif
