/*
 * fc_diagnose.h - why a stage did not end, and which host to blame.
 *
 * The runner calls this when a stage attempt ended without its stage_end
 * record. It reads what every rank said (the watchdog's report at the
 * timeout, the tear-down line a rank writes when the launcher ends it:
 * lib/base/fc_watchdog.h), what the launcher said about the ranks that died
 * (lib/base/fc_exitinfo.h), and tells three cases apart:
 *
 *   crash   ranks died (a signal, an exit, OOM) before the timeout: the
 *           launcher names them, or every rank of their host stayed silent
 *           while the others reported being torn down. Only that host is
 *           blamed (record type "crash": ranks, signal or exit code, the
 *           launcher's words).
 *   hang    the timeout came and some ranks did not report in time (dead
 *           without a launcher notice, stopped, starved): their hosts are
 *           blamed, as before.
 *   stuck   every rank reported in time, inside the same call. Two kinds
 *           of evidence place it: each rank's own account of its last
 *           seconds (a rank waiting in MPI polls and uses CPU; the ranks of
 *           a host whose processes stopped making progress use none and
 *           complete nothing), and a short point-to-point probe among the
 *           stage's hosts, launched afresh, in which a host whose fabric
 *           stopped forwarding is cut off from the others. A host
 *           is blamed only when one of them places it; otherwise the
 *           record says why not and nobody is quarantined.
 *   cannot start  the launch ended before the stage's first record, and
 *           the launcher names a rank that never reached main (no start
 *           line from it: lib/base/fc_watchdog.h): a library or the program
 *           missing on its host, a crash in its start-up. Its host, from
 *           the launcher's words or from the placement the runner asked
 *           for once the ranks that started confirm it, is blamed (record
 *           type "cannot_start", beside no attempt); not placed, or on
 *           every host, a stage_error names the cause and nobody is
 *           quarantined (fc_diagnose_nostart.c).
 *   never started  the launcher hung before the stage's first record (its
 *           ranks stuck in start-up, before their watchdogs): the probe
 *           alone can place it, as above (record type "probe", beside the
 *           runner's stage_error: no attempt of the stage began).
 *
 * The result is a JSON array of records without the run's common fields
 * (type, host, rack, ranks, reasons, implicates, verdict, evidence); the
 * runner stamps and appends them, and quarantines every host whose record
 * has implicates.quarantine true.
 */
#ifndef FC_DIAGNOSE_H
#define FC_DIAGNOSE_H

#include <jansson.h>

#include "fc_inventory.h"
#include "fc_launch.h"

/* Run the point-to-point probe on these hosts (a JSON array of names);
 * returns the probe's per-host answers (fc_probe.h) or NULL with why in
 * err. */
typedef json_t *(*fc_diag_probe_func_t)(void *arg, json_t *hosts, char *err, size_t errlen);

/* Start the stage program on these hosts (a JSON array of names), one
 * rank each (fc_start_check_run, runners/fc_probe.h); NULL with why in
 * err. */
typedef json_t *(*fc_diag_start_func_t)(void *arg, json_t *hosts, char *err, size_t errlen);

typedef struct fc_diag_in {
    const fc_inventory_t *inv;
    const char *stage;
    json_t *recs;                   /* what this attempt appended */
    const fc_launch_result_t *res;
    const char *log_path;           /* the launcher's stderr */
    fc_diag_probe_func_t probe;     /* NULL: no probe */
    fc_diag_start_func_t start_check;   /* NULL: none (this machine alone) */
    void *probe_arg;                /* of both */
    json_t *hosts;                  /* the hosts the attempt was launched on */
    double timeout_s;               /* the stage's, from the profile */
    int ranks;                      /* the attempt's ranks */
    json_t *placement;              /* the host the runner asked the launcher
                                     * to put each rank on, by rank; NULL
                                     * where the launcher places them itself
                                     * (srun) */
    const char *placement_text;     /* how it was asked, in words */
    const char *launcher_host;      /* where the launcher runs, by its own
                                     * name (gethostname); NULL: here */
} fc_diag_in_t;

json_t *fc_diagnose_unfinished(const fc_diag_in_t *in);
/* Is host one of in->hosts (the attempt was launched on it, healthy)? */
int fc_diagnose_launched(const fc_diag_in_t *in, const char *host);
/* The stage wrote its end, yet the launcher says a rank of it died (a
 * signal, the OOM killer, an exit status no stage gives with that end):
 * a crash finding per such rank whose host is in in->hosts, which
 * quarantines it (fc_diagnose_after_end.c). in->probe is not used. */
json_t *fc_diagnose_after_end(const fc_diag_in_t *in);
/* How many ranks the launcher names dead that never reached main (no
 * start line): the attempt's program could not start there, whatever
 * status it gave (a 2 is then no stage refusing its input). */
int fc_diagnose_never_reached_main(const fc_diag_in_t *in);

/* Forget the hosts found unreachable all but the launcher's own earlier
 * in this run (each later stage on the same hosts is not halved again:
 * fc_diagnose_unreached.c); for a test that diagnoses many runs. */
void fc_diagnose_forget_unreached(void);

#endif
