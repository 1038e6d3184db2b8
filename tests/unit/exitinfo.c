/*
 * exitinfo.c - unit tests of lib/base/fc_exitinfo.c: each launcher's words for
 * a rank that ended (Open MPI's signal notice, its non-zero-status and
 * exited-improperly paragraphs, srun's per-task errors with task lists,
 * OOM) give the rank, host, signal or exit code; a task srun names after
 * it aborted the step is marked as ended by srun; lines that name no dead
 * rank (a peer's "hung up" paragraph, a watchdog line) give no rank.
 * Hosts named without a rank: Open MPI's lost daemon (ORTE's and PRTE's
 * paragraphs, as an orted killed on xr05 made mpirun print them) and
 * srun's node failure (a hostlist) give host_lost; Open MPI's "Peer host:"
 * gives peer_host, a weak witness the diagnosis does not place alone.
 */
#include <stdio.h>
#include <string.h>

#include "fc_exitinfo.h"
#include "fc_tap.h"

static fc_tap_t tap;

/* the notes of `text` as "rank@host:sig/code[oom] ..." */
static void names(const char *text, const char *expected, const char *what)
{
    json_t *notes = fc_exitinfo_parse(text), *n;
    char got[512] = "";
    size_t i;

    json_array_foreach(notes, i, n)
        if (strcmp(json_string_value(json_object_get(n, "kind")), "rank") == 0)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%lld@%s:%lld/%lld%s",
                 i ? " " : "", (long long)json_integer_value(json_object_get(n, "rank")),
                 json_string_value(json_object_get(n, "host")),
                 (long long)json_integer_value(json_object_get(n, "signal")),
                 (long long)json_integer_value(json_object_get(n, "exit_code")),
                 json_is_true(json_object_get(n, "oom")) ? "oom" : "");
    for (i = 0; i < json_array_size(notes); ++i)
        if (json_is_true(json_object_get(json_array_get(notes, i), "after_abort")))
            snprintf(got + strlen(got), sizeof(got) - strlen(got), " !%zu", i);
    fc_tap_is_str(&tap, got, expected, "%s: '%s'", what, expected);
    if (strcmp(got, expected) != 0)
        fc_tap_diag(&tap, "got '%s'", got);
    json_decref(notes);
}

/* the first note's string `key` */
static void text_of(const char *text, const char *key, const char *expected, const char *what)
{
    json_t *notes = fc_exitinfo_parse(text);
    const char *got = json_string_value(json_object_get(json_array_get(notes, 0), key));

    fc_tap_is_str(&tap, got ? got : "(none)", expected, "%s", what);
    json_decref(notes);
}

/* the notes of `text` that name a host without a rank, "kind:host ..." */
static void hosts(const char *text, const char *expected, const char *what)
{
    json_t *notes = fc_exitinfo_parse(text), *n;
    char got[512] = "";
    size_t i;

    json_array_foreach(notes, i, n)
        if (json_integer_value(json_object_get(n, "rank")) < 0)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s:%s@%lld",
                     got[0] ? " " : "", json_string_value(json_object_get(n, "kind")),
                     json_string_value(json_object_get(n, "host")),
                     (long long)json_integer_value(json_object_get(n, "line")));
    fc_tap_is_str(&tap, got, expected, "%s: '%s'", what, expected);
    if (strcmp(got, expected) != 0)
        fc_tap_diag(&tap, "got '%s'", got);
    json_decref(notes);
}

int main(void)
{
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 19);
    names("--------------------------------------------------------------------------\n"
          "mpirun noticed that process rank 9 with PID 17635 on node bh34404 exited on "
          "signal 9 (Killed).\n"
          "--------------------------------------------------------------------------\n",
          "9@bh34404:9/0", "Open MPI's signal notice");
    names("prterun noticed that process rank 2 with PID 0 on node n2 exited on signal 11 "
          "(Segmentation fault).\n", "2@n2:11/0", "Open MPI 5's notice");
    names("mpirun detected that one or more processes exited with non-zero status, thus "
          "causing\nthe job to be terminated. The first process to do so was:\n\n"
          "  Process name: [[47095,1],3]\n  Exit code:    7\n", "3@:0/7",
          "the non-zero status paragraph");
    /* Open MPI 4.1.4 here: `mpirun -np 2 /tmp/nos/noexec` (chmod -x), the
     * program missing on one node of the virtual cluster alike */
    names("--------------------------------------------------------------------------\n"
          "mpirun was unable to launch the specified application as it could not access\n"
          "or execute an executable:\n\nExecutable: /tmp/nos/noexec\nNode: vm\n\n"
          "while attempting to start process rank 0.\n"
          "--------------------------------------------------------------------------\n",
          "0@vm:0/0", "Open MPI unable to launch the program on a node");
    text_of("mpirun was unable to launch the specified application as it could not access\n"
            "or execute an executable:\n\nExecutable: /tmp/nos/noexec\nNode: vm\n\n"
            "while attempting to start process rank 0.\n", "start_error",
            "could not access or execute an executable: /tmp/nos/noexec",
            "and why, with the executable's path");
    /* help-orterun.txt's proc-failed-to-start, filled in */
    names("mpirun was unable to start the specified application as it encountered an\n"
          "error:\n\nError code: 1\nError name: (null)\nNode: gpu07\n\n"
          "when attempting to start process rank 12.\n", "12@gpu07:0/0",
          "Open MPI unable to start a process on a node (an error code)");
    /* the non-zero status paragraph, as mpirun wrote it on the virtual
     * cluster (a library missing on nos103): its quoted words name the
     * process and the code */
    text_of("mpirun detected that one or more processes exited with non-zero status, thus "
            "causing\nthe job to be terminated. The first process to do so was:\n\n"
            "  Process name: [[60434,1],2]\n  Exit code:    127\n", "text",
            "mpirun detected that one or more processes exited with non-zero status: "
            "Process name: [[60434,1],2], Exit code: 127", "the non-zero status paragraph's words");
    names("mpirun has exited due to process rank 5 with PID 0 on\n"
          "node gpu07 exiting improperly. There are three reasons this could occur:\n",
          "5@gpu07:0/0", "the exited-improperly paragraph");
    names("srun: error: node3: task 4: Killed\n", "4@node3:9/0", "srun, one task killed");
    names("srun: error: node1: tasks 0-1,3: Exited with exit code 2\n",
          "0@node1:0/2 1@node1:0/2 3@node1:0/2", "srun, a task list with an exit code");
    names("srun: error: node2: task 6: Out Of Memory\n", "6@node2:9/0oom", "srun, OOM");
    names("An MPI communication peer process has unexpectedly disconnected.\n"
          "  Local host: a\n  Peer host:  b\n"
          "FABCERT-WATCHDOG {\"rank\":1}\nPrimary job  terminated normally, but 1 process "
          "returned\n", "", "lines that name no dead rank give nothing");
    names(NULL, "", "no log at all gives nothing");
    names("srun: error: vm: task 1: Killed\n"
          "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
          "srun: error: vm: task 0: Killed\n", "1@vm:9/0 0@vm:9/0 !1",
          "a task srun names after aborting the step is marked after_abort");
    /* mpirun's words when the orted of xr05 was killed (-9) mid-stage */
    hosts("[xr01:27774] plm:rsh: Warning: setpgid(27791,27791) failed in parent\n"
          "Killed\n"
          "--------------------------------------------------------------------------\n"
          "ORTE has lost communication with a remote daemon.\n\n"
          "  HNP daemon   : [[32048,0],0] on node xr01\n"
          "  Remote daemon: [[32048,0],4] on node xr05\n\n"
          "This is usually due to either a failure of the TCP network\n",
          "host_lost:xr05@7", "Open MPI's lost daemon names its node, not the HNP's");
    hosts("PRTE has lost communication with a remote daemon.\n"
          "  HNP daemon   : [prterun-n1-123@0,0] on node n1\n"
          "  Remote daemon: [prterun-n1-123@0,2] on node n3\n",
          "host_lost:n3@3", "PRTE's lost daemon");
    hosts("srun: error: Node failure on gpu[03-04]\n"
          "srun: error: gpu03: task 6: Killed\n",
          "host_lost:gpu03@1 host_lost:gpu04@1", "srun's node failure, a hostlist");
    hosts("An MPI communication peer process has unexpectedly disconnected.  This\n"
          "usually indicates a failure in the peer process (e.g., a crash or\n"
          "  Local host: xr03\n  Local PID:  5107\n  Peer host:  xr04\n"
          "  Peer host:  xr02\n",
          "peer_host:xr04@5", "Open MPI's peer disconnect names the peer's host, once per paragraph");
    hosts("  Remote daemon: [[1,0],4] on node xr05\n  Peer host: xr04\n"
          "mpirun noticed that process rank 3 with PID 1 on node xr04 exited on signal 15 "
          "(Terminated).\n", "", "a host line outside its paragraph names nobody");
    return fc_tap_done(&tap);
}
