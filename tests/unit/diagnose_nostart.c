/*
 * diagnose_nostart.c - unit tests of the runner's reading of a stage
 * program that could not start on a host (runners/fc_diagnose_nostart.c),
 * on the launcher's stderr as Open MPI 4.1.4 and Slurm's srun wrote it
 * here (tests/fixtures/launcher/, a file per case; each says below how it
 * was made), fed line by line through fc_launch_scan_line() as
 * fc_launch() does. The
 * attempt ran on 4 hosts in 2 racks, 2 ranks each, with no stage_start
 * (the launch ended before the stage began). Each case checks who is
 * named, how, and who is quarantined:
 *   - a host whose constructor-exit library ends its ranks with 127
 *     (tests/inject/fc_nostart.c): mpirun names rank 2 alone; the runner's
 *     placement (--map-by node), which the 6 ranks that started confirm,
 *     puts it on nos103: that host, quarantined; its rank 6 is mentioned;
 *   - the same with --mpirun-arg --map-by slot: the ranks that started
 *     are not where the runner asked (rank 2 on nos102), so the rank is
 *     not placed: its candidates are named, nobody is quarantined;
 *   - two hosts that sent no start line, the launcher naming nobody: the
 *     ranks are named with both candidates, nobody is quarantined; the
 *     same with --map-by slot when mpirun names nobody; with the runner's
 *     start check (each candidate launched alone, a stand-in here), the
 *     host whose program still does not start alone is quarantined and
 *     the other cleared, both when both fail, nobody when both start;
 *   - every host (FC_NOSTART_HOST=*): one run-level error, nobody
 *     quarantined; the same under srun on its only host;
 *   - a constructor killed by SIGSEGV on nos104: Open MPI names the host
 *     itself, or (about half the runs here) names no rank at all and ends
 *     with 139: every rank of nos104 and no other never reached main;
 *   - the program missing on nos102 (a tmpfs mounted over build/suites in
 *     that node's mount namespace): Open MPI's "unable to launch" names the
 *     node; under srun, Slurm's exit code 2 (execve's errno) names the host,
 *     and the launch's status 2 is no stage rejecting its input;
 *   - a stage that refused its input on every rank (all wrote their start
 *     line, rank 0's status 2): no rank that never started.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_diagnose.h"
#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_launch.h"
#include "fc_tap.h"

#define FIXTURES "tests/fixtures/launcher/"

static fc_tap_t tap;
static fc_inventory_t inv;

/* The next diagnosis's start check, a stand-in for the runner's
 * (fc_start_check_run): the hosts in start_bad do not reach main alone,
 * the others do; NULL: no start check (this machine alone). */
static const char *start_bad;
static char start_asked[256];   /* the hosts it was asked to start, in turn */
static const char *launcher_host;   /* where mpirun runs; NULL: here */
static int keep_memo;               /* the next diagnosis is of the same run */

static json_t *start_check(void *arg, json_t *hosts, char *err, size_t errlen)
{
    const char *host = json_string_value(json_array_get(hosts, 0));
    json_t *h, *rec;
    size_t i;
    int bad = 0;

    (void)arg, (void)err, (void)errlen;
    snprintf(start_asked + strlen(start_asked), sizeof(start_asked) - strlen(start_asked),
             "%s", start_asked[0] ? "," : "");
    json_array_foreach(hosts, i, h) {
        bad |= strstr(start_bad, json_string_value(h)) != NULL;
        snprintf(start_asked + strlen(start_asked), sizeof(start_asked) - strlen(start_asked),
                 "%s%s", i ? "+" : "", json_string_value(h));
    }
    rec = json_pack("{s:O, s:b, s:i, s:b, s:f, s:s}", "hosts", hosts, "reached_main", !bad,
                    "exit_status", bad ? (json_array_size(hosts) > 1 ? 1 : 127) : 0,
                    "timed_out", 0, "seconds", 0.8, "log", "start.rack.log");
    if (json_array_size(hosts) == 1)
        json_object_set_new(rec, "host", json_string(host));
    json_object_set_new(rec, "started_on", bad ? json_array() : json_deep_copy(hosts));
    return rec;
}

/* The findings on the log at `path` (the launcher ended with `status`;
 * -1: killed at the runner's limit),
 * placed as mpirun --map-by node (srun: by the launcher), one line each:
 * "type host ranks quarantine|nobody exit/signal placed_by". */
static json_t *diagnose(const char *path, int status, int srun, char *summary, size_t len,
                        int *never_p)
{
    static const char *const hosts[] = { "nos101", "nos102", "nos103", "nos104" };
    fc_launch_result_t res = { .exit_status = status, .timed_out = status < 0,
                               .seconds = status < 0 ? 35.2 : 4.2 };
    json_t *recs = json_array(), *out, *f;
    char *text = NULL, *line, *save = NULL;
    fc_diag_in_t in;
    size_t i;

    if (fc_input_read(path, "fixture", FC_INPUT_DOC_MAX, &text, NULL) != FC_OK)
        fc_tap_bail(&tap, "cannot read %s", path);
    res.watchdog = json_array();
    res.down = json_array();
    res.mpierr = json_array();
    res.started = json_array();
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        fc_launch_scan_line(line, &res);
    free(text);
    memset(&in, 0, sizeof(in));
    in.inv = &inv;
    in.stage = "rack";
    in.recs = recs;
    in.res = &res;
    in.log_path = path;
    in.timeout_s = 10;
    in.ranks = 8;
    in.hosts = json_pack("[s,s,s,s]", hosts[0], hosts[1], hosts[2], hosts[3]);
    in.start_check = start_bad ? start_check : NULL;
    in.launcher_host = launcher_host;
    start_asked[0] = '\0';
    if (!keep_memo)
        fc_diagnose_forget_unreached();
    if (!srun) {
        in.placement = json_array();
        for (int r = 0; r < 8; ++r)
            json_array_append_new(in.placement, json_string(hosts[r % 4]));
        in.placement_text = "the hostfile's 4 host(s) in inventory order, --map-by node, "
                            "2 rank(s) per host";
    }
    *never_p = fc_diagnose_never_reached_main(&in);
    out = fc_diagnose_unfinished(&in);
    json_decref(in.hosts);
    json_decref(in.placement);
    summary[0] = '\0';
    json_array_foreach(out, i, f) {
        json_t *ev = json_object_get(f, "evidence");

        snprintf(summary + strlen(summary), len - strlen(summary), "%s%s %s %s %s %lld/%lld %s",
                 i ? "; " : "", json_string_value(json_object_get(f, "type")),
                 json_is_string(json_object_get(f, "host")) ?
                     json_string_value(json_object_get(f, "host")) : "-",
                 json_is_string(json_object_get(f, "ranks")) ?
                     json_string_value(json_object_get(f, "ranks")) : "-",
                 json_is_true(json_object_get(json_object_get(f, "implicates"), "quarantine"))
                     ? "quarantine" : "nobody",
                 (long long)json_integer_value(json_object_get(f, "exit_code")),
                 (long long)json_integer_value(json_object_get(f, "signal")),
                 json_is_string(json_object_get(ev, "placed_by")) ?
                     json_string_value(json_object_get(ev, "placed_by")) : "-");
    }
    json_decref(recs);
    fc_launch_result_free(&res);
    return out;
}

/* The first finding's words ("reasons" or a stage_error's "reason"). */
static const char *words(json_t *out)
{
    json_t *f = json_array_get(out, 0);
    const char *r = json_string_value(json_array_get(json_object_get(f, "reasons"), 0));

    return r ? r : json_string_value(json_object_get(f, "reason")) ?
                   json_string_value(json_object_get(f, "reason")) : "";
}

/* One case: the findings' summary, and each of `has` (NULL-ended) in the
 * first finding's words. */
static void expect(const char *fixture, int status, int srun, const char *want,
                   const char *const *has, const char *what)
{
    char summary[2048], path[256];
    json_t *out;
    int never, all = 1;

    snprintf(path, sizeof(path), FIXTURES "%s", fixture);
    out = diagnose(path, status, srun, summary, sizeof(summary), &never);
    fc_tap_is_str(&tap, summary, want, "%s", what);
    for (int k = 0; has && has[k]; ++k)
        if (strstr(words(out), has[k]) == NULL) {
            fc_tap_diag(&tap, "not in the words: '%s'", has[k]);
            all = 0;
        }
    fc_tap_ok(&tap, all, "%s: the words say so", what);
    if (!all)
        fc_tap_diag(&tap, "%s", words(out));
    json_decref(out);
}

int main(void)
{
    char summary[2048];
    json_t *out;
    int never;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 55);
    if (fc_inventory_parse("nos101\nnos102\nnos103\nnos104\n", "hosts",
                           "nos1[01-02] rack1\nnos1[03-04] rack2\n", "racks", &inv) != FC_OK)
        fc_tap_bail(&tap, "cannot parse the fixture inventory");

    /* fabcert run on the virtual cluster, --ppn 2, the library on
     * nos103: mpirun named rank 2 with its exit code, no host */
    expect("ompi41-exit127.log", 127, 0, "cannot_start nos103 2 quarantine 127/0 placement",
           (const char *const[]){ "could not start on host nos103: rank 2 exited with status "
           "127 before reaching main", "Process name: [[60434,1],2], Exit code: 127",
           "as the 6 rank(s) that started confirm", "rank(s) 6 there sent no start line",
           "error while loading shared libraries: libfc_absent.so", NULL },
           "a constructor exiting 127 on nos103: placed by the confirmed placement");

    /* the same run with --mpirun-arg --map-by --mpirun-arg slot */
    expect("ompi41-exit127-map-by-slot.log", 127, 0, "stage_error - 4 nobody 0/0 -",
           (const char *const[]){ "the host is not known: rank 2 started on nos102, where the runner asked for "
           "nos103", "candidates (fewer ranks said they started there than were asked): "
           "nos103", "nobody is quarantined", NULL },
           "--map-by slot: the placement is not confirmed, rank 4 and its candidate named, "
           "nobody quarantined");

    /* the same, mpirun naming no rank (hosts renamed from fcn1257NN) */
    expect("ompi41-exit127-map-by-slot-unnamed.log", 127, 0, "stage_error - 4,5 nobody 0/0 -",
           (const char *const[]){ "did not start for rank(s) 4,5 (no start line), and the "
           "launcher ended with status 127 naming no rank", "rank 2 started on nos102, where "
           "the runner asked for nos103", "candidates (fewer ranks said they started there "
           "than were asked): nos103", NULL },
           "--map-by slot, no rank named: the ranks and their candidate named, nobody "
           "quarantined");

    /* FC_NOSTART_HOST=*: no rank reached main anywhere */
    expect("ompi41-exit127-everywhere.log", 127, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "could not start on any host: no rank of the stage reached "
           "main", "a program broken everywhere, not one node: nobody is quarantined", NULL },
           "the program broken everywhere: one run-level error, nobody quarantined");

    /* the same, mpirun saying only that it aborts the job (status 127),
     * under load (hosts renamed from the run's fcn4787NN) */
    expect("ompi41-exit127-everywhere-unnamed.log", 127, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "could not start on any host: no rank of the stage reached "
           "main", "said a process failed and it aborts the job (\"Primary job  terminated "
           "normally, but 1 process returned\"), and ended with status 127 naming no rank",
           "error while loading shared libraries", NULL },
           "broken everywhere, no rank named: still one run-level error");

    /* the library raising SIGSEGV on nos104, Open MPI naming it */
    expect("ompi41-signal.log", 139, 0, "cannot_start nos104 3 quarantine 0/11 launcher",
           (const char *const[]){ "rank 3 exited on signal 11 (Segmentation fault) before "
           "reaching main", "the launcher names the host", "rank(s) 7 there", NULL },
           "SIGSEGV before main on nos104, the launcher names the host");

    /* the same, Open MPI naming no rank (its exit status 139) */
    expect("ompi41-signal-unnamed.log", 139, 0,
           "cannot_start nos104 3,7 quarantine 0/11 whole_host",
           (const char *const[]){ "none of its rank(s) 3,7 reached main", "every rank "
           "of every other host did (6)", "status 139 (128 + 11", "naming no rank", NULL },
           "SIGSEGV before main, no rank named: every rank of nos104 and no other missing");

    /* the library on nos103 under load 24: mpirun said it aborts the job,
     * then hung ("PMIX ERROR: UNREACHABLE") and was killed at the limit
     * before it named the rank (hosts renamed from the run's fcn6356NN) */
    expect("ompi41-exit127-then-hung.log", -1, 0,
           "cannot_start nos103 2,6 quarantine 0/0 whole_host",
           (const char *const[]){ "none of its rank(s) 2,6 reached main", "the launcher said "
           "a process failed and it aborts the job, naming no rank", "the launcher then hung, "
           "and was killed at the runner's limit after 35 s", NULL },
           "mpirun hung after its abort: every rank of nos103 and no other never started");
    {
        fc_launch_result_t res = { 0 };

        fc_launch_scan_line("a non-zero exit code. Per user-direction, the job has been aborted.",
                            &res);
        fc_tap_ok(&tap, res.abort_said, "the launcher's word that it aborts the job is seen "
                  "(the launch is stopped %.0f s later if it does not end)",
                  FC_LAUNCH_ABORT_GRACE_S);
    }

    /* the program missing on nos102 (mount namespace of its orted) */
    expect("ompi41-not-executable.log", 1, 0, "cannot_start nos102 1 quarantine 0/0 launcher",
           (const char *const[]){ "rank 1 could not be launched (the launcher could not "
           "access or execute an executable: /work/wt/nostart/build/suites/rack)",
           "rank(s) 5 there sent no start line either", NULL },
           "the program missing on nos102: Open MPI's unable-to-launch names the node");

    /* the same under load 28: mpirun hung in its start-up saying nothing
     * of nos102 (a PMIx "UNREACHABLE") until the runner's limit (hosts
     * renamed from the run's fcn9371NN) */
    expect("ompi41-not-executable-hung.log", -1, 0,
           "cannot_start nos102 1,5 quarantine 0/0 whole_host",
           (const char *const[]){ "none of its rank(s) 1,5 reached main", "the launcher gave "
           "no word on it, naming no rank", "the launcher then hung, and was killed at the "
           "runner's limit", NULL },
           "the program missing on nos102 and mpirun hung mute: every rank of nos102 and no "
           "other never started");

    /* srun, the program missing on nos103 (Slurm's lines, hosts and
     * paths changed; execve's errno 2 as its status) */
    expect("srun-missing-one-host.log", 2, 1, "cannot_start nos103 4,5 quarantine 2/0 launcher",
           (const char *const[]){ "rank 4 exited with status 2 before reaching main (Slurm's "
           "status for a program it could not execute there", "srun: error: nos103: tasks "
           "4-5: Exited with exit code 2", "slurmstepd-nos103: error: execve(): "
           "/opt/fabcert/libexec/fabcert/rack: No such file or directory", NULL },
           "srun, the program missing on nos103: srun names the host, status 2 is no bad input");
    out = diagnose(FIXTURES "srun-missing-one-host.log", 2, 1, summary, sizeof(summary), &never);
    fc_tap_is_int(&tap, never, 2, "its two tasks never reached main: the run does not stop as "
                  "if the stage refused its input");
    json_decref(out);

    /* slurm.t's run on its one host "vm", every task 127: no rank
     * reached main, so the program is broken everywhere, whichever host
     * srun names */
    expect("srun-exit127-everywhere.log", 127, 1, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "could not start on any host: no rank of the stage reached "
           "main", "srun: error: vm: tasks 0-1: Exited with exit code 127", NULL },
           "srun, every task 127 and no start line: a run-level error");

    /* a stage that refused its input: every rank started, rank 0's 2 */
    {
        char path[] = "/tmp/fc-nostart-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

        if (f == NULL)
            fc_tap_bail(&tap, "cannot write a temporary file");
        for (int r = 0; r < 8; ++r)
            fprintf(f, "FABCERT-START {\"stage\":\"rack\",\"rank\":%d,\"host\":\"nos10%d\","
                    "\"pid\":%d}\n", r, r % 4 + 1, 100 + r);
        fprintf(f, "fabcert: profile.yaml:3:5: unknown key 'iter'\n"
                "--------------------------------------------------------------------------\n"
                "mpirun detected that one or more processes exited with non-zero status, thus "
                "causing\nthe job to be terminated. The first process to do so was:\n\n"
                "  Process name: [[1234,1],0]\n  Exit code:    2\n"
                "--------------------------------------------------------------------------\n");
        fclose(f);
        out = diagnose(path, 2, 0, summary, sizeof(summary), &never);
        fc_tap_is_int(&tap, never, 0, "a stage refusing its input on every rank: every rank "
                      "started, none is taken for one that could not");
        fc_tap_is_str(&tap, summary, "stage_error - - nobody 0/0 -",
                      "and the launch is read as before (the launcher failed)");
        json_decref(out);
        /* two hosts without a start line and no rank named: not placed
         * on one (a slow host's ranks killed before main) */
        f = fopen(path, "w");
        if (f == NULL)
            fc_tap_bail(&tap, "cannot write %s", path);
        for (int r = 0; r < 8; ++r)
            if (r % 4 < 2)
                fprintf(f, "FABCERT-START {\"stage\":\"rack\",\"rank\":%d,\"host\":"
                        "\"nos10%d\",\"pid\":%d}\n", r, r % 4 + 1, 100 + r);
        fprintf(f, "--------------------------------------------------------------------------\n"
                "Primary job  terminated normally, but 1 process returned\n"
                "a non-zero exit code. Per user-direction, the job has been aborted.\n"
                "--------------------------------------------------------------------------\n");
        fclose(f);
        out = diagnose(path, 139, 0, summary, sizeof(summary), &never);
        fc_tap_is_str(&tap, summary, "stage_error - 2,3,6,7 nobody 0/0 -",
                      "no rank named, two hosts silent: the ranks named, nobody placed");
        fc_tap_ok(&tap, strstr(words(out), "the host is not known: they are not the ranks of "
                               "one host alone; candidates (fewer ranks said they started "
                               "there than were asked): nos103, nos104") != NULL,
                  "with both candidate hosts: %s", words(out));
        json_decref(out);
        /* the same with the start check: nos104 does not start alone */
        start_bad = "nos104";
        out = diagnose(path, 139, 0, summary, sizeof(summary), &never);
        fc_tap_is_str(&tap, summary, "cannot_start nos104 3,7 quarantine 127/0 start_check",
                      "with the start check, the host that does not start alone is placed");
        fc_tap_is_str(&tap, start_asked, "nos103,nos104", "each candidate was started alone, "
                      "and no other host");
        fc_tap_ok(&tap, strstr(words(out), "launched again on nos104 alone, one rank, it "
                               "still did not reach main (no start line; the launcher ended "
                               "with status 127 after 0.8 s)") != NULL, "its words say so: %s",
                  words(out));
        json_decref(out);
        start_bad = "nos103 nos104";
        out = diagnose(path, 139, 0, summary, sizeof(summary), &never);
        fc_tap_is_str(&tap, summary, "cannot_start nos103 2,6 quarantine 127/0 start_check; "
                      "cannot_start nos104 3,7 quarantine 127/0 start_check",
                      "both fail alone: both placed");
        json_decref(out);
        start_bad = "";
        out = diagnose(path, 139, 0, summary, sizeof(summary), &never);
        fc_tap_is_str(&tap, summary, "stage_error - 2,3,6,7 nobody 0/0 -",
                      "both start alone: nobody placed");
        fc_tap_ok(&tap, strstr(words(out), "each launched alone: nos103: started alone "
                               "(status 0); nos104: started alone (status 0)") != NULL,
                  "and the words give the start checks: %s", words(out));
        json_decref(out);
        start_bad = NULL;
        remove(path);
    }
    /* fabcert run on the virtual cluster with nos103's cable cut: Open
     * MPI could not start its daemon there, no rank reached main, none
     * named; halves of the hosts started, then halves of those that fail */
    start_bad = "nos103";
    expect("ompi41-daemons-unreached.log", 1, 0,
           "cannot_start nos103 2,6 quarantine 127/0 start_check_halving",
           (const char *const[]){ "the launcher could not start the stage on host nos103: "
           "its launch on 4 hosts ended before any rank reached main, naming no rank (\"ORTE "
           "was unable to reliably start one or more daemons.\")", "nos103 alone did not "
           "reach main (the launcher ended with status 127 after 0.8 s) while nos101, nos102, "
           "nos104 did", "quarantined, the stage runs again without it", NULL },
           "a host whose daemon cannot start: placed by halving");
    fc_tap_is_str(&tap, start_asked, "nos101+nos102,nos103,nos103,nos104",
                  "the first half started; the second, failing with it, was split unstarted; "
                  "nos103 failed alone twice");
    start_bad = "nos101 nos102 nos103 nos104";
    expect("ompi41-daemons-unreached.log", 1, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "the launcher failed before the stage started",
           "no host started in any, so no host is to blame", NULL },
           "no host starts anywhere: nobody placed");
    start_bad = "";
    expect("ompi41-daemons-unreached.log", 1, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "every host started, the failure did not come back", NULL },
           "every half starts: nobody placed");
    start_bad = "nos102 nos104";
    expect("ompi41-daemons-unreached.log", 1, 0,
           "cannot_start nos102 1,5 quarantine 127/0 start_check_halving; "
           "cannot_start nos104 3,7 quarantine 127/0 start_check_halving",
           NULL, "two hosts down, one in each half: both placed");
    /* the cable of nos101, where mpirun runs, out: only it starts, which
     * says as much against its own link as against every other host's */
    start_bad = "nos102 nos103 nos104";
    launcher_host = "nos101";
    expect("ompi41-daemons-unreached.log", 1, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "only the launcher's own host started: its network, or the "
           "launcher, is as likely at fault as every other host, so no host is to blame",
           NULL }, "only the launcher's own host starts: nobody placed");
    /* the next stage of that run: two of the hosts that failed alone still
     * do, so it is not halved again */
    keep_memo = 1;
    expect("ompi41-daemons-unreached.log", 1, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "not halved again: two of the hosts that failed alone "
           "after the rack stage, on the same hosts, still fail alone (there, started again "
           "on halves of the 4 hosts", NULL },
           "the next stage on the same hosts, still cut off: not halved again");
    fc_tap_is_str(&tap, start_asked, "nos102,nos103", "two checks, not a halving");
    /* then the launcher's link back and nos104's cut: halved afresh */
    start_bad = "nos104";
    expect("ompi41-daemons-unreached.log", 1, 0,
           "cannot_start nos104 3,7 quarantine 127/0 start_check_halving", NULL,
           "a host cut later on the same hosts: halved afresh, placed");
    keep_memo = 0;
    launcher_host = NULL;
    start_bad = NULL;
    expect("ompi41-daemons-unreached.log", 1, 0, "stage_error - - nobody 0/0 -",
           (const char *const[]){ "the launcher failed before the stage started", NULL },
           "on this machine alone (no start check): the error, nobody placed");
    /* the ranks' start lines are read from the launcher's stderr */
    {
        fc_launch_result_t res = { 0 };

        res.watchdog = json_array();
        res.down = json_array();
        res.started = json_array();
        fc_launch_scan_line("FABCERT-START {\"stage\":\"rack\",\"rank\":5,\"host\":\"nos102\","
                            "\"pid\":7}", &res);
        fc_launch_scan_line("[nos102:7] FABCERT-START {\"stage\":\"rack\",\"rank\":6,\"host\":"
                            "\"nos103\",\"pid\":8}", &res);
        fc_tap_is_int(&tap, (long long)json_array_size(res.started), 2,
                      "start lines are kept, with a prefix too (--tag-output)");
        fc_launch_result_free(&res);
    }
    return fc_tap_done(&tap);
}
