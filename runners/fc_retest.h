/*
 * fc_retest.h - the runner's side of the retest that places a wrong
 * result (suites/retest.c). After a stage, the records it appended are
 * scanned for failing checks whose wrong result still implicates a whole
 * group (implicates.localised false); if there are any, the retest is
 * launched right away with the stage's own launcher arguments (the same
 * hosts, ranks per node, mpirun options and --env variables, so a faulty
 * NIC or the tests' injector acts on it as on the stage), bounded by the
 * stage's timeout (at most 300 s) plus the launch margin. Its `retest` records land in
 * results.jsonl beside the stage's; the runner quarantines what they
 * confirm, and the verdicts read them (reports/fc_verdict_retest.c).
 */
#ifndef FC_RETEST_H
#define FC_RETEST_H

#include <jansson.h>

#include "fc_inventory.h"
#include "fc_launch.h"

typedef struct fc_retest_launch {
    const char *const *prefix;      /* the stage's launcher argv, up to (not
                                     * including) the stage program */
    int nprefix;
    const char *out_dir, *run_id;
    const char *stage;              /* its name */
    const char *suffix;             /* "" or ".2" for a second attempt */
    double timeout_s;               /* the stage's */
    double margin_s;                /* the launcher's start-up and tear-down */
    const fc_inventory_t *inv;
    const char *results_path;       /* results.jsonl, and where the stage's */
    long results_offset;            /* records begin in it */
} fc_retest_launch_t;

/* Run the retest when the stage's records (an array) ask for one. Returns
 * 1 when it was launched (its records, or the runner's record of a retest
 * that did not finish, are then in results.jsonl), 0 when none was
 * needed. */
int fc_retest_after_stage(const fc_retest_launch_t *l, json_t *stage_recs);

/* What the launcher said about a retest that wrote no record, in a few
 * words: its first notice of a rank that died, or how the launch ended
 * (log: the launch's stderr). */
void fc_retest_end_text(const fc_launch_result_t *res, const char *log, char *buf, size_t len);
/* The retest_launch record: how long a retest's launch took, start-up and
 * end included (what it adds to a run); method NULL for the retest after
 * a stage, "intersection" for the bounded retest of the suspects. */
void fc_retest_launch_note(const char *out_dir, const char *run_id, const char *stage,
                           const char *method, int groups, const fc_launch_result_t *res);

#endif
