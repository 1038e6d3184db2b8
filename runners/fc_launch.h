/*
 * fc_launch.h - run one stage's launcher (mpirun) with a hard time limit.
 * Its stdout (the stage's TAP) goes to a file as it comes; its stderr goes
 * to a log file, and the watchdog lines in it (lib/base/fc_watchdog.h) are kept
 * as JSON for the runner's hang diagnosis, as are the tear-down lines of
 * ranks that the launcher ended (FABCERT-DOWN), the lines of ranks whose
 * MPI call failed (FABCERT-MPIERR) and the line each rank writes as its
 * program starts (FABCERT-START). Past the limit, or when the
 * runner is interrupted (SIGINT, SIGTERM, SIGHUP: an operator's Ctrl-C, a
 * batch system's cancel), the whole process group gets SIGTERM, then
 * SIGKILL: nothing the runner starts outlives it.
 */
#ifndef FC_LAUNCH_H
#define FC_LAUNCH_H

#include <jansson.h>
#include <limits.h>

typedef struct fc_launch_result {
    int exit_status;        /* of the launcher; -1 if killed at the limit
                             * or stopped (interrupted, abort_hung) */
    int timed_out;
    int interrupted;        /* stopped because the runner was interrupted */
    int not_started;        /* exec failed or files could not be made */
    int abort_said;         /* the launcher said it aborts the job */
    int abort_hung;         /* the launcher said it aborted the job, then
                             * did not exit within FC_LAUNCH_ABORT_GRACE_S:
                             * stopped as at the limit (exit_status -1) */
    double seconds;
    json_t *watchdog;       /* array of the ranks' watchdog reports */
    json_t *down;           /* array of the ranks' tear-down lines */
    json_t *mpierr;         /* array of the ranks' failed-MPI-call lines */
    json_t *started;        /* array of the ranks' start lines (before
                             * MPI_Init: the ranks that reached main) */
} fc_launch_result_t;

/* How long a launcher that said it aborts the job (Open MPI's "Per
 * user-direction, the job has been aborted": a rank ended badly; or that
 * it "was unable to launch the specified application") may take to end
 * it before it is stopped: its tear-down takes a second or two,
 * and under load Open MPI has been seen to hang there (a PMIx
 * "UNREACHABLE"), which would hold the diagnosis until the limit. */
#define FC_LAUNCH_ABORT_GRACE_S 10.0

/* Catch SIGINT, SIGTERM and SIGHUP from now on: a launch under way is
 * stopped, and fc_launch_interrupted() says which signal came. */
void fc_launch_catch_signals(void);
/* The monotonic clock, in seconds: the runner's own durations. */
double fc_monotonic_s(void);
int fc_launch_interrupted(void);

/* A function called about twice a second while a launch runs (the
 * runner's progress: runners/fc_progress.h); NULL: none. */
typedef void (*fc_launch_tick_func_t)(void *arg);
void fc_launch_set_tick(fc_launch_tick_func_t tick, void *arg);

/* argv[0] is looked up in PATH. */
void fc_launch(char *const argv[], const char *tap_path, const char *log_path,
               double limit_s, fc_launch_result_t *res);
/* One line of the launcher's stderr: a watchdog report, a tear-down line,
 * a failed MPI call's line or a start line goes into res->watchdog,
 * res->down, res->mpierr or res->started (arrays made by the caller;
 * mpierr and started may be NULL); Open MPI's word that it aborts the job
 * sets res->abort_said; other lines
 * are ignored. What fc_launch() does with each line;
 * tests/unit/diagnose.c feeds it fixture lines. */
void fc_launch_scan_line(const char *line, fc_launch_result_t *res);
/* The launcher's command line on a chosen set of hosts, per_node ranks on
 * each: mpirun -np N --hostfile FILE --map-by node (FILE written here), or
 * one srun job step on --nodelist; then the launcher's own arguments. The
 * buffers the arguments point into are the struct's. */
typedef struct fc_launch_hosts {
    const char *mpirun;             /* the launcher's program */
    int srun;                       /* Slurm's srun instead of mpirun */
    const char *const *mpirun_args; /* passed to the launcher (--env's -x) */
    int nmpirun_args;
    int per_node;                   /* ranks on each host */
    int oversubscribe;              /* mpirun: --oversubscribe --bind-to none,
                                     * as the stages launch */
    char hostfile[PATH_MAX + 64];   /* mpirun: where the host file goes */
    char np[16], nodes[32], tasks[48];
    char nodelist[65536];           /* srun: the hosts */
} fc_launch_hosts_t;

/* Into args (room for max): the launcher's arguments for `hosts` (an array
 * of names); returns how many, args[that] being where the program goes,
 * or -1 with the reason in err when the host file cannot be written. */
int fc_launch_hosts_argv(fc_launch_hosts_t *lh, json_t *hosts, const char **args, int max,
                         char *err, size_t errlen);
/* Free what fc_launch() gathered. */
void fc_launch_result_free(fc_launch_result_t *res);

#endif
