/*
 * fc_probe.h - launch the point-to-point probe (suites/probe.c) on a set
 * of hosts, one rank each, and place a host cut off from the others.
 *
 * The runner calls this after a stage got stuck with every rank inside the
 * same call: a fresh launch, a few seconds, every pair of hosts exchanging
 * a checked message. A host whose fabric stopped forwarding is heard by no
 * partner and hears none; the others hear each other. With every pair
 * answering, the fabric carries every host's traffic and the probe places
 * nothing. A host whose link is nearly dead, one way or both (a small
 * message gets through now and then), is cut off while every other pair
 * talks: it is placed too.
 */
#ifndef FC_PROBE_H
#define FC_PROBE_H

#include <jansson.h>

/* How to launch, as the runner launches its stages. */
typedef struct fc_probe_launch {
    const char *mpirun;             /* the launcher's program */
    int srun;                       /* Slurm's srun instead of mpirun */
    const char *const *mpirun_args; /* passed to the launcher */
    int nmpirun_args;
    const char *out_dir;            /* probe.STAGE.{tap,log,hosts} go here */
    const char *stage;
    double timeout_s;               /* each rank's deadline */
} fc_probe_launch_t;

/* Launch the probe on `hosts` (JSON array of names); returns
 * {"hosts":[..], "answers":[{rank,host,heard,wrong,sent,seconds}..],
 *  "seconds":S, "log":PATH} or NULL with the reason in err. */
json_t *fc_probe_run(const fc_probe_launch_t *pl, json_t *hosts, char *err, size_t errlen);

/* Which hosts the probe places: a JSON array of names, empty when it
 * places none, NULL when it cannot (fewer than 3 hosts). Placed: a host
 * answering no partner (of two or more partners that answered, none heard
 * it, and it heard none), unless every host is; and, among the others, a
 * host cut off one way or both (of at least three partners that answered,
 * at most one or a quarter heard it; or, by its own answer, it heard at
 * most one or a quarter), when the hosts left, two or more and at least
 * twice as many, all talk to each other both ways (a failed exchange
 * each, or an eighth, at most) and no two hosts cut off talk to each
 * other both ways (cut off together: not told apart). A missing answer
 * leaves what that host heard unknown, never failed. *summary_p gets one
 * line saying what the probe found, e.g. "6 host(s), 30 of 30 directed
 * exchanges arrived intact, 6 answer(s) of 6". */
json_t *fc_probe_silent_hosts(json_t *probe, char *summary, size_t len);

/* What the probe says of `host`: "answering no partner (3 of them said
 * so)", "heard by 1 of the 3 partners that answered and hearing 0 of 3",
 * or "heard by 3 of the 3 partners that answered, and giving no answer". */
void fc_probe_host_text(json_t *probe, const char *host, char *text, size_t len);

/* The start check: the stage program `program` (build/suites/NAME)
 * launched on `hosts` (a JSON array of names), one rank each, with
 * FC_STAGE_START_CHECK as its only argument, under the launcher's own
 * arguments (an --env the run was given reaches it as it reached the
 * stage). Two uses: a launch that failed with no rank named and the ranks
 * of more than one host never reached main has each such host started
 * alone, and one whose program still does not reach main is the host
 * where it cannot start (a bad host's failure can end the launch before a
 * healthy one's ranks were even forked); a launch in which no rank at all
 * reached main has halves of its hosts started, then halves of the halves
 * that fail (runners/fc_diagnose_unreached.c). Returns {"hosts":[..],
 * "host":H (one host only), "reached_main":true|false (a FABCERT-START
 * line came from every host), "started_ranks":N, "started_on":[..] (each
 * start line's host, by the rank's own name for it), "exit_status":S,
 * "timed_out":T, "seconds":D, "log":PATH}, or NULL with the reason in err
 * when the launcher itself could not be run. */
json_t *fc_start_check_run(const fc_probe_launch_t *pl, const char *program, json_t *hosts,
                           char *err, size_t errlen);

#endif
