/*
 * fc_diagnose_int.h - what the three readings of an unfinished stage
 * share (runners/fc_diagnose.c, fc_diagnose_crash.c, fc_diagnose_stuck.c);
 * not for other callers: fc_diagnose.h is the interface.
 */
#ifndef FC_DIAGNOSE_INT_H
#define FC_DIAGNOSE_INT_H

#include <stddef.h>

#include "fc_diagnose.h"

/* a watchdog report this late means the rank was not running at the
 * deadline (stopped or starved): it did not arrive */
#define FC_LATE_REPORT_S 1.5
/* a watchdog that says the timeout passed in a launch shorter than the
 * timeout by more than this fired early (its clock jumped) */
#define FC_EARLY_MARGIN_S 0.5
/* a rank whose main thread used less than this share of a core over the
 * watchdog's window (a stopped process: microseconds), completing no call,
 * made no progress */
#define FC_STALL_CPU_FRAC 0.002
/* ... and it stands out only if every other rank, waiting in the same
 * call, used at least this share (a poller on a machine 20 times
 * oversubscribed still gets 3%) and this many times the stalled ones' */
#define FC_BUSY_MIN_FRAC 0.005
#define FC_BUSY_RATIO 10.0
/* each probe rank's deadline */
#define FC_PROBE_TIMEOUT_S 5.0

typedef struct fc_diag_rank {
    const char *host;
    json_t *wd;             /* watchdog report in time, or NULL */
    json_t *late;           /* watchdog report after the deadline */
    json_t *down;           /* tear-down line */
    json_t *note;           /* the launcher's word on its end, before the
                             * tear-down began */
    int ended_by_launcher;  /* the launcher named it after the tear-down
                             * began: torn down, not dead of itself */
    json_t *mpierr;         /* its MPI call failed (FABCERT-MPIERR): it
                             * observed a fault and ended the job */
} fc_diag_rank_t;

typedef struct fc_diag {
    const fc_diag_in_t *in;
    json_t *start;          /* the attempt's stage_start */
    fc_diag_rank_t *ranks;
    size_t n;
    double timeout_s;
    int timeout_came;       /* some rank's watchdog fired in time */
    const char *stuck_at;   /* where the ranks in time were */
    json_t *notes;          /* the launcher's notes */
    json_t *lost;           /* its notes of hosts it lost (a daemon that
                             * stopped answering, a node Slurm declared
                             * failed) before its tear-down began, one
                             * per host of the stage */
    json_t *peer_hosts;     /* hosts named as a disconnected peer (weak:
                             * see fc_exitinfo.h), each once */
    json_t *out;            /* the findings */
} fc_diag_t;

/* Is s one of the strings of list? */
int fc_diag_in_list(json_t *list, const char *s);
const char *fc_diag_rack(const fc_diag_t *d, const char *host);
/* Append a finding (a record without the run's common fields) to d->out;
 * returns it for more fields. */
json_t *fc_diag_finding(fc_diag_t *d, const char *type, const char *host,
                        const char *ranks, const char *why, const char *part,
                        int quarantine);
/* Said nothing at all (no watchdog report, no tear-down line), and the
 * launcher did not say that it ended the rank itself. */
int fc_diag_silent(const fc_diag_rank_t *r);
/* No watchdog report, but a tear-down line that came before its own
 * deadline, or within FC_LATE_REPORT_S after it, from a process that was
 * running (its watchdog thread sampled within FC_LATE_REPORT_S): each
 * rank's deadline starts at its own start-up, so a rank that started
 * later than the one that fired first is torn down before its watchdog
 * could speak. Never one that did not arrive. (A stopped rank, woken by
 * the tear-down, says so: a gap of seconds since its last sample, and,
 * past its deadline, a late line.) */
int fc_diag_torn_early(const fc_diag_rank_t *r);
/* How the launcher says a rank ended, e.g. "exited on signal 9 (Killed)". */
void fc_diag_note_text(json_t *note, char *buf, size_t len);
/* Comma list of the ranks of `host` (NULL: every host) for which keep
 * (NULL: all) holds; returns their count. */
int fc_diag_host_ranks(const fc_diag_t *d, const char *host,
                       int (*keep)(const fc_diag_rank_t *), char *buf, size_t len);
/* Is rank k the first of its host (so that each host is seen once)? */
int fc_diag_first_of_host(const fc_diag_t *d, size_t k);

/* Is `host` one of the stage's? */
int fc_diag_has_host(const fc_diag_t *d, const char *host);
/* The launcher's note that it lost `host`, or NULL. */
json_t *fc_diag_lost_note(const fc_diag_t *d, const char *host);

/* The timeout never came: ranks died, or the launcher ended the stage. */
void fc_diag_crashes(fc_diag_t *d);
/* The timeout came: name the hosts whose ranks did not report in time
 * (died: a crash; else: a hang). Returns how many hosts were named. */
int fc_diag_not_arrived(fc_diag_t *d);
/* Every rank reported in time, inside the same call: place it or say why
 * not. */
void fc_diag_stuck(fc_diag_t *d);
/* The launch ended before the stage started, and the launcher names a
 * rank that never reached main: place its host, or say why not
 * (fc_diagnose_nostart.c). 0 when it names none. */
int fc_diag_cannot_start(fc_diag_t *d);
/* No rank reached main and the launcher named none, or (hung) the launch
 * hung before the stage began and the probe placed nobody: halves of the
 * hosts started, then halves of those that fail, place a host that does
 * not start alone (fc_diagnose_unreached.c). 1 when placed; 0 with what
 * the checks found in summary ("; started again ...", empty when none
 * ran). */
int fc_diag_unreached(fc_diag_t *d, int hung, char *summary, size_t len);
/* The launcher hung before the stage started: the probe may place it. */
void fc_diag_never_started(fc_diag_t *d);
/* Ranks ended because an MPI call failed, and no rank died or went
 * missing of itself: they observed the fault; the probe may place it,
 * else nobody is blamed. */
void fc_diag_mpi_failed(fc_diag_t *d);

#endif
