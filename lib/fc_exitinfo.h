/*
 * fc_exitinfo.h - what the launcher said about the ranks that ended.
 *
 * When a rank dies, the launcher says so on its stderr, each in its own
 * words. This file reads a launcher's log and returns one JSON object per
 * rank it names:
 *
 *   {"rank": 3, "host": "gpu04" (or ""), "pid": 12230 (or -1),
 *    "signal": 9 (or 0), "exit_code": 0 (or the status), "oom": false,
 *    "launcher": "mpirun", "text": the launcher's line, "line": its line
 *    number in the text, 1-based: what came before it in the log happened
 *    before the launcher saw the rank end, "after_abort": true when srun
 *    had already said it aborts the step (so it ended that task itself)}
 *
 * Forms read (Open MPI 4 and 5, Slurm's srun):
 *   mpirun noticed that process rank R with PID P on node H exited on signal S (Name).
 *   mpirun detected that one or more processes exited with non-zero status ...
 *     Process name: [[J,V],R]  /  Exit code: C
 *   mpirun has exited due to process rank R with PID P on / node H exiting improperly.
 *   srun: error: H: task R: Killed | Segmentation fault | Out Of Memory | ...
 *   srun: error: H: tasks 0-1,4: Exited with exit code C
 * Open MPI names only the first rank that failed; srun names each.
 */
#ifndef FC_EXITINFO_H
#define FC_EXITINFO_H

#include <jansson.h>

/* Never NULL: an empty array when the text names no rank. */
json_t *fc_exitinfo_parse(const char *text);

#endif
