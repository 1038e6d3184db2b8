/*
 * fc_exitinfo.h - what the launcher said about the ranks that ended.
 *
 * When a rank dies, the launcher says so on its stderr, each in its own
 * words. This file reads a launcher's log and returns one JSON object per
 * rank it names:
 *
 *   {"kind": "rank", "rank": 3, "host": "gpu04" (or ""), "pid": 12230
 *    (or -1), "signal": 9 (or 0), "exit_code": 0 (or the status), "oom":
 *    false, "launcher": "mpirun", "text": the launcher's line, "line": its
 *    line number in the text, 1-based: what came before it in the log
 *    happened before the launcher saw the rank end, "after_abort": true
 *    when srun had already said it aborts the step (so it ended that task
 *    itself)}
 *
 * and one per host it names without a rank ("rank": -1, the same fields):
 *
 *   "kind": "host_lost"  the launcher lost the host itself: Open MPI's
 *            daemon there stopped answering (the node died, or its daemon
 *            was killed), Slurm's controller declared the node failed
 *   "kind": "job_aborted"  (host "") Open MPI says some process ended badly
 *            and it aborts the job, naming none yet ("Primary job
 *            terminated normally, but 1 process returned a non-zero exit
 *            code"): its rank comes later, if at all
 *   "kind": "peer_host"  an MPI process reported that its peer on the host
 *            disconnected (Open MPI's "Peer host:"). A weak witness: the
 *            launcher's own host's ranks are torn down first and are named
 *            so after any death (runners/fc_diagnose_crash.c)
 *
 * Forms read (Open MPI 4 and 5, Slurm's srun):
 *   mpirun noticed that process rank R with PID P on node H exited on signal S (Name).
 *   mpirun detected that one or more processes exited with non-zero status ...
 *     Process name: [[J,V],R]  /  Exit code: C
 *   mpirun has exited due to process rank R with PID P on / node H exiting improperly.
 *   srun: error: H: task R: Killed | Segmentation fault | Out Of Memory | ...
 *   srun: error: H: tasks 0-1,4: Exited with exit code C
 *   ORTE (PRTE) has lost communication with a remote daemon.
 *     Remote daemon: [[J,0],V] on node H                      (host_lost)
 *   mpirun was unable to launch the specified application as it could not
 *     access or execute an executable: / Executable: X / Node: H /
 *     while attempting to start process rank R.   (and "unable to start":
 *     the rank note gets "start_error": why, e.g. "could not access or
 *     execute an executable: X"; no status: the process never ran)
 *   srun: error: Node failure on H (a Slurm hostlist)          (host_lost)
 *   An MPI communication peer process has unexpectedly disconnected. ...
 *     Peer host:  H                                           (peer_host)
 * Open MPI names only the first rank that failed, and never a rank it
 * ended itself; srun names each.
 */
#ifndef FC_EXITINFO_H
#define FC_EXITINFO_H

#include <jansson.h>

/* Never NULL: an empty array when the text names no rank. */
json_t *fc_exitinfo_parse(const char *text);

#endif
