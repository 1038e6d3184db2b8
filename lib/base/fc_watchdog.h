/*
 * fc_watchdog.h - the in-process watchdog that makes every stage end, and
 * the rank's last word when it is torn down.
 *
 * Each rank starts one at stage start with the stage's timeout. The main
 * thread marks its progress (the point or round it is entering, and each
 * measured call it enters and completes); if the deadline passes, the
 * watchdog thread prints one line on stderr,
 *
 *     FABCERT-WATCHDOG {"stage":..,"rank":..,"host":..,"index":..,"at":..,
 *                       "calls_entered":..,"calls_done":..,"window_s":..,
 *                       "cpu_s":..,"done_in_window":..}
 *
 * saying where this rank was stuck and what its main thread did in the
 * last seconds (CPU time it used, calls it completed: a rank waiting in
 * MPI polls and uses CPU; a rank whose process stopped making progress
 * does not), waits a few seconds so that the other ranks' lines get
 * through mpirun, and ends the process with exit status 1. A rank that is
 * dead prints nothing, and one that was stopped prints late (late_s, the
 * seconds between its deadline and its report, gives it away): the runner
 * reads these lines, and the ranks of the stage that did not report in
 * time are the ones that did not arrive.
 *
 * A rank that the launcher tears down (SIGTERM: mpirun ends the job when
 * one of its processes died) says so before it goes, with one line
 *
 *     FABCERT-DOWN {"stage":..,"rank":..,"host":..,"index":..,"at":..,"signal":15,
 *                   "before_deadline_ms":..,"since_sample_ms":..}
 *
 * so that after a crash the ranks that said nothing are the dead ones, and
 * after a timeout a rank torn down before its own deadline came (it
 * started later than the rank that fired first) is not taken for one
 * that did not arrive (before_deadline_ms: how long before this rank's
 * own deadline the tear-down came, negative after it; since_sample_ms:
 * how long the process had not run its watchdog thread, seconds for one
 * that was stopped).
 * A rank whose MPI call failed (the library reported an error: a peer's
 * link died, a transport gave up) is an observer of the fault, not its
 * cause; the stage's error handler (lib/stage/fc_stage_mpierr.c) has it say so
 * before it ends, with one line
 *
 *     FABCERT-MPIERR {"stage":..,"rank":..,"host":..,"index":..,"at":..,
 *                     "peer":..,"error":..,"class":..}
 *
 * (peer: the world rank of the point-to-point partner in flight, or -1
 * inside a collective, where the library does not say which peer failed).
 * A control message that arrives wrong (lib/base/fc_ctl.h) gives the same line
 * with "control" (the exchange), "peer" the rank that sent it and class -1.
 * Before any of that, first thing in main (before MPI_Init), every rank
 * that starts says so, with one line
 *
 *     FABCERT-START {"stage":..,"rank":..,"host":..,"pid":..}
 *
 * (rank: its world rank as the launcher set it in the environment, before
 * MPI can say: OMPI_COMM_WORLD_RANK, PMIX_RANK, SLURM_PROCID or PMI_RANK;
 * no line where none is set), so that after a launch that ended before
 * the stage began, a rank the launcher names without such a line never
 * reached main (its program could not start on its host), and the ranks
 * that did say where the launcher put them (runners/fc_diagnose_nostart.c).
 * The watchdog uses no MPI, so it works while MPI is stuck.
 */
#ifndef FC_WATCHDOG_H
#define FC_WATCHDOG_H

#include "fc_status.h"

#define FC_WATCHDOG_TAG "FABCERT-WATCHDOG "
#define FC_WATCHDOG_DOWN_TAG "FABCERT-DOWN "
#define FC_WATCHDOG_MPIERR_TAG "FABCERT-MPIERR "
#define FC_WATCHDOG_START_TAG "FABCERT-START "

/* A stage program's only argument for the runner's start check: it says
 * FABCERT-START, initialises MPI, finalises and exits 0, and does nothing
 * else (runners/fc_probe.h, fc_start_check_run). */
#define FC_STAGE_START_CHECK "--start-check"

/* The FABCERT-START line, before MPI_Init (no watchdog runs yet). */
void fc_watchdog_started(const char *stage);

fc_status_t fc_watchdog_start(double timeout_s, const char *stage, int rank,
                              const char *host);
/* Entering work item `index` (a point, a round), described by `what`. */
void fc_watchdog_progress(int index, const char *what);
/* Entering and having completed one measured call (a collective, an
 * exchange): lock-free counters the watchdog reports. */
void fc_watchdog_call_enter(void);
void fc_watchdog_call_done(void);
void fc_watchdog_stop(void);
/* The world rank of the point-to-point partner of the exchange being
 * entered, or -1 when none (a collective). */
void fc_watchdog_peer(int world_rank);
/* An MPI call failed with `error` (the library's words) of error class
 * `error_class`: print the FABCERT-MPIERR line (the caller ends the rank). */
void fc_watchdog_mpi_error(const char *error, int error_class);
/* A control message (lib/base/fc_ctl.h) of the exchange `what`, sent by world
 * rank from_world (-1: not known), arrived wrong (`why`): the same line,
 * with "control":what, "peer":from_world and class -1 (the caller ends the
 * rank). */
void fc_watchdog_control_error(const char *what, int from_world, const char *why);
/* Who this rank is, for the lines above, before fc_watchdog_start (the
 * stage's start-up exchanges come before its timeout is known). */
void fc_watchdog_identify(const char *stage, int rank, const char *host);

#endif
