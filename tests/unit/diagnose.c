/*
 * diagnose.c - unit tests of the runner's diagnosis of a stage that did
 * not end (runners/fc_diagnose*.c) on fixture launcher text: the ranks'
 * FABCERT-WATCHDOG and FABCERT-DOWN lines and Open MPI's notices, fed
 * line by line through fc_launch_scan_line() as the launcher's stderr is,
 * on a cluster of three hosts in three racks, two ranks each. Each case
 * checks which hosts are blamed (and quarantined), and that nobody else
 * is:
 *   - start-up skew: the ranks of c1 started 4 s late (a slow shared
 *     filesystem) and were torn down before their own deadline came,
 *     after the first rank's watchdog fired: they did arrive, nobody is
 *     "missing";
 *   - a rank stopped at its deadline and woken by the tear-down says so
 *     past its deadline: it did not arrive;
 *   - a host silent at the timeout did not arrive, as before;
 *   - a rank whose MPI call failed (its FABCERT-MPIERR line; the launcher
 *     names it as the first to end) observed a fault: it is not blamed;
 *     the point-to-point probe places the fault when a host answers no
 *     partner, else nobody is quarantined; a rank that died beside it is
 *     still the one blamed;
 *   - a node that dies outright (its Open MPI daemon killed, or the whole
 *     node): the launcher says it lost the daemon there, and that host
 *     alone is named and quarantined, though a rank of another host lost
 *     its line and Open MPI's "Peer host:" names the launcher's own host;
 *     with no launcher word, the one host whose every rank is silent;
 *     two hosts lost, or two wholly silent: nobody placed;
 *   - a node shut down (SIGTERM to its ranks from outside): its ranks say
 *     they were torn down like everyone else's, but the launcher reports
 *     one of them ended by SIGTERM (it names no rank it ended itself): that
 *     host alone; without that notice, Open MPI's "Peer host:" and the
 *     first tear-down lines (which after any death point at the
 *     launcher's own host) place nobody.
 *   - one stopped rank of a host whose other rank polls (one GPU's
 *     process of several): the host is placed, that rank named; most
 *     ranks idle, scattered over hosts beside busy ones: nobody.
 *   - a node whose clock jumped 30 s: its watchdogs claim the timeout
 *     passed in a launch shorter than the timeout: that host is named
 *     and quarantined (its ranks ended the stage), not "every rank torn
 *     down"; the same reports in a longer launch are no jump.
 * The launcher texts are the ones mpirun printed in the reviewer's runs
 * (faults planted from outside the code), host names changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_diagnose.h"
#include "fc_inventory.h"
#include "fc_launch.h"
#include "fc_tap.h"

static fc_tap_t tap;
static fc_inventory_t inv;
static char log_path[] = "/tmp/fc-diagnose-XXXXXX";

/* A watchdog report in time (late 0.01 s), busy in all_reduce. */
static void wd(char *buf, size_t len, int rank, const char *host)
{
    snprintf(buf + strlen(buf), len - strlen(buf),
             "FABCERT-WATCHDOG {\"stage\":\"cluster\",\"rank\":%d,\"host\":\"%s\","
             "\"index\":3,\"at\":\"all_reduce int32 sum 64 KiB\",\"timeout_s\":20,"
             "\"late_s\":0.010,\"calls_entered\":10,\"calls_done\":9,\"window_s\":5.00,"
             "\"cpu_s\":0.5000,\"done_in_window\":0}\n", rank, host);
}

/* The same, with the CPU its main thread used in the 5 s window. */
static void wd_cpu(char *buf, size_t len, int rank, const char *host, double cpu_s)
{
    snprintf(buf + strlen(buf), len - strlen(buf),
             "FABCERT-WATCHDOG {\"stage\":\"cluster\",\"rank\":%d,\"host\":\"%s\","
             "\"index\":3,\"at\":\"all_reduce int32 sum 64 KiB\",\"timeout_s\":20,"
             "\"late_s\":0.010,\"calls_entered\":10,\"calls_done\":9,\"window_s\":5.00,"
             "\"cpu_s\":%.4f,\"done_in_window\":0}\n", rank, host, cpu_s);
}

/* A tear-down line, before_ms before the rank's own deadline, gap_ms
 * after its watchdog's last sample. */
static void down_gap(char *buf, size_t len, int rank, const char *host, long before_ms,
                     long gap_ms)
{
    snprintf(buf + strlen(buf), len - strlen(buf),
             "FABCERT-DOWN {\"stage\":\"cluster\",\"rank\":%d,\"host\":\"%s\",\"index\":3,"
             "\"at\":\"all_reduce int32 sum 64 KiB\",\"signal\":15,"
             "\"before_deadline_ms\":%ld,\"since_sample_ms\":%ld}\n", rank, host, before_ms,
             gap_ms);
}

/* ... from a rank that was running (sampled 200 ms ago). */
static void down(char *buf, size_t len, int rank, const char *host, long before_ms)
{
    down_gap(buf, len, rank, host, before_ms, 200);
}

/* A failed MPI call's line; peer -1: none named. */
static void mpierr(char *buf, size_t len, int rank, const char *host, int peer)
{
    snprintf(buf + strlen(buf), len - strlen(buf),
             "FABCERT-MPIERR {\"stage\":\"cluster\",\"rank\":%d,\"host\":\"%s\",\"index\":3,"
             "\"at\":\"all_reduce int32 sum 64 KiB\",\"peer\":%d,"
             "\"error\":\"MPI_ERR_OTHER: known error not in list\",\"class\":16}\n",
             rank, host, peer);
}

/* The probe's answers: every host hears every other, but `cut` (or none
 * when NULL), which hears nobody and is heard by nobody. */
static json_t *probe(void *arg, json_t *hosts, char *err, size_t errlen)
{
    const char *cut = arg;
    json_t *answers = json_array(), *h;
    size_t i, j;

    json_array_foreach(hosts, i, h) {
        json_t *heard = json_array(), *g;

        json_array_foreach(hosts, j, g)
            if (j != i && !(cut && (strcmp(json_string_value(h), cut) == 0 ||
                                    strcmp(json_string_value(g), cut) == 0)))
                json_array_append_new(heard, json_integer((json_int_t)j));
        json_array_append_new(answers, json_pack("{s:i, s:s, s:o}", "rank", (int)i, "host",
                                                 json_string_value(h), "heard", heard));
    }
    return json_pack("{s:O, s:o, s:f, s:s}", "hosts", hosts, "answers", answers, "seconds",
                     1.0, "log", "probe.log");
}

static const char *probe_cut;   /* the next diagnosis's probe: NULL, none */
static int probe_on;

/* The findings of the diagnosis of `text` (the launcher's stderr, the
 * launch ended after `seconds`), as "type host quarantine; ..." */
static json_t *diagnose(const char *text, double seconds, char *summary, size_t len)
{
    static const char *const rank_hosts[] = { "a1", "a1", "b1", "b1", "c1", "c1" };
    fc_launch_result_t res = { .exit_status = 1, .seconds = seconds };
    json_t *recs = json_array(), *hosts = json_array(), *start = json_object(), *out, *f;
    fc_diag_in_t in;
    char *copy = strdup(text), *line, *save = NULL;
    FILE *fp = fopen(log_path, "w");
    size_t i;

    if (fp == NULL || copy == NULL)
        fc_tap_bail(&tap, "cannot write %s", log_path);
    fputs(text, fp);
    fclose(fp);
    res.watchdog = json_array();
    res.down = json_array();
    res.mpierr = json_array();
    for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        fc_launch_scan_line(line, &res);
    free(copy);
    for (i = 0; i < 6; ++i)
        json_array_append_new(hosts, json_string(rank_hosts[i]));
    json_object_set_new(start, "type", json_string("stage_start"));
    json_object_set_new(start, "rank_hosts", hosts);
    json_object_set_new(start, "timeout_s", json_real(20.0));
    json_array_append_new(recs, start);
    memset(&in, 0, sizeof(in));
    in.inv = &inv;
    in.stage = "cluster";
    in.recs = recs;
    in.res = &res;
    in.log_path = log_path;
    in.timeout_s = 20;
    in.hosts = json_pack("[s,s,s]", "a1", "b1", "c1");
    if (probe_on) {
        in.probe = probe;
        in.probe_arg = (void *)probe_cut;
    }
    out = fc_diagnose_unfinished(&in);
    json_decref(in.hosts);
    summary[0] = '\0';
    json_array_foreach(out, i, f)
        snprintf(summary + strlen(summary), len - strlen(summary), "%s%s %s %s",
                 i ? "; " : "", json_string_value(json_object_get(f, "type")),
                 json_string_value(json_object_get(f, "host")),
                 json_is_true(json_object_get(json_object_get(f, "implicates"), "quarantine"))
                     ? "quarantine" : "nobody");
    json_decref(recs);
    fc_launch_result_free(&res);
    return out;
}

static const char *reason(json_t *out, size_t i)
{
    const char *r = json_string_value(json_array_get(
        json_object_get(json_array_get(out, i), "reasons"), 0));

    return r ? r : "";
}

static void expect(json_t *out, const char *got, const char *want, const char *what)
{
    fc_tap_is_str(&tap, got, want, "%s: '%s'", what, want);
    if (strcmp(got, want) != 0)
        fc_tap_diag(&tap, "got '%s'; %s", got, reason(out, 0));
}

int main(void)
{
    char text[8192], got[1024];
    json_t *out;
    int fd;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 36);
    if ((fd = mkstemp(log_path)) < 0)
        fc_tap_bail(&tap, "cannot make a temporary file");
    close(fd);
    if (fc_inventory_parse("a1\nb1\nc1\n", "hosts", "a1 rack1\nb1 rack2\nc1 rack3\n", "racks",
                           &inv) != FC_OK)
        fc_tap_bail(&tap, "cannot parse the fixture inventory");

    /* 1. start-up skew: c1's ranks started 4 s after the others; the first
     * watchdogs fired at 20 s, their ranks ended 3 s later, and mpirun tore
     * down c1's ranks 1 s before their own deadline */
    text[0] = '\0';
    for (int r = 0; r < 4; ++r)
        wd(text, sizeof(text), r, r < 2 ? "a1" : "b1");
    down(text, sizeof(text), 4, "c1", 1000);
    down(text, sizeof(text), 5, "c1", 1020);
    out = diagnose(text, 23.2, got, sizeof(got));
    expect(out, got, "hang  nobody",
           "ranks torn down before their own deadline are not 'did not arrive'");
    fc_tap_ok(&tap, strstr(reason(out, 0), "did not arrive") == NULL &&
                  strstr(reason(out, 0), "ranks 4,5 were torn down before their own deadline") !=
                      NULL,
              "the record says why they gave no report");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 2. the same, and a1's ranks silent: a1 alone did not arrive */
    text[0] = '\0';
    for (int r = 2; r < 4; ++r)
        wd(text, sizeof(text), r, "b1");
    down(text, sizeof(text), 4, "c1", 1000);
    down(text, sizeof(text), 5, "c1", 1020);
    out = diagnose(text, 23.2, got, sizeof(got));
    expect(out, got, "hang a1 quarantine",
           "beside ranks torn down early, a silent host alone did not arrive");
    json_decref(out);

    /* 3. c1's ranks stopped (SIGSTOP) at their deadline: woken by the
     * tear-down 3 s past it, they say so late */
    text[0] = '\0';
    for (int r = 0; r < 4; ++r)
        wd(text, sizeof(text), r, r < 2 ? "a1" : "b1");
    down(text, sizeof(text), 4, "c1", -3100);
    down(text, sizeof(text), 5, "c1", -3120);
    out = diagnose(text, 23.2, got, sizeof(got));
    expect(out, got, "hang c1 quarantine",
           "ranks torn down 3 s past their own deadline were not running at it");
    json_decref(out);

    /* 3b. c1's ranks started late and were stopped (SIGSTOP) for 9 s:
     * woken by the tear-down before their own deadline, but their
     * watchdog had not run for 9 s: they did not arrive */
    text[0] = '\0';
    for (int r = 0; r < 4; ++r)
        wd(text, sizeof(text), r, r < 2 ? "a1" : "b1");
    down_gap(text, sizeof(text), 4, "c1", 1000, 9000);
    down_gap(text, sizeof(text), 5, "c1", 1020, 9010);
    out = diagnose(text, 23.2, got, sizeof(got));
    expect(out, got, "hang c1 quarantine",
           "ranks torn down before their deadline that had not run for 9 s did not arrive");
    json_decref(out);

    /* 4. c1's ranks silent at the timeout: did not arrive */
    text[0] = '\0';
    for (int r = 0; r < 4; ++r)
        wd(text, sizeof(text), r, r < 2 ? "a1" : "b1");
    out = diagnose(text, 23.2, got, sizeof(got));
    expect(out, got, "hang c1 quarantine", "a host silent at the timeout did not arrive");
    fc_tap_ok(&tap, strstr(reason(out, 0), "ranks 4,5 on host c1 did not arrive") != NULL,
              "named with its ranks");
    json_decref(out);

    /* 5. rank 2 (b1) had its all_reduce fail (a peer's link died) and
     * ended the job; mpirun names it, the others were torn down (rank 4's
     * line lost as the job ended, as happens); the probe finds every host
     * answering */
    static const char aborted[] =
        "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD\n"
        "with errorcode 1.\n"
        "mpirun has exited due to process rank 2 with PID 0 on\n"
        "node b1 exiting improperly. There are three reasons this could occur:\n";
    probe_on = 1;
    probe_cut = NULL;
    snprintf(text, sizeof(text), "%s", aborted);
    mpierr(text, sizeof(text), 2, "b1", -1);
    for (int r = 0; r < 6; ++r)
        if (r != 2 && r != 4)
            down(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1", 17000);
    out = diagnose(text, 2.1, got, sizeof(got));
    expect(out, got, "hang  nobody",
           "a rank whose MPI call failed observed the fault: nobody placed, nobody quarantined");
    fc_tap_ok(&tap, strstr(reason(out, 0), "rank 2 on b1 (in all_reduce int32 sum 64 KiB, no "
                                           "peer named (a collective): MPI_ERR_OTHER") != NULL &&
                  strstr(reason(out, 0), "rank(s) 4 said nothing") != NULL &&
                  strstr(reason(out, 0), "6 of 6 directed exchanges arrived intact") != NULL,
              "the record says which call failed where, and what the probe found");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 6. the same, and c1's fabric stopped forwarding: the probe places it */
    probe_cut = "c1";
    out = diagnose(text, 2.1, got, sizeof(got));
    expect(out, got, "hang c1 quarantine",
           "the probe places the fault on the host that answers no partner, not the observer");
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(
                          json_array_get(out, 0), "implicates"), "part")), "link", "as its link");
    json_decref(out);

    /* 7. the failed call was a pairs exchange with rank 4: the peer is named */
    probe_cut = NULL;
    snprintf(text, sizeof(text), "%s", aborted);
    mpierr(text, sizeof(text), 2, "b1", 4);
    for (int r = 0; r < 6; ++r)
        if (r != 2)
            down(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1", 17000);
    out = diagnose(text, 2.1, got, sizeof(got));
    fc_tap_ok(&tap, strstr(reason(out, 0), "its peer rank 4 on c1") != NULL,
              "a point-to-point call's failure names its peer");
    json_decref(out);

    /* 7b. rank 2 received a control message wrong (lib/base/fc_ctl.h) from rank
     * 4 and ended the job: an observer too, its words say which message */
    snprintf(text, sizeof(text), "%s", aborted);
    snprintf(text + strlen(text), sizeof(text) - strlen(text),
             "FABCERT-MPIERR {\"stage\":\"cluster\",\"rank\":2,\"host\":\"b1\",\"index\":3,"
             "\"at\":\"all_reduce int32 sum 64 KiB\",\"peer\":4,\"error\":\"its checksum does "
             "not match: a bit changed on the way\",\"class\":-1,\"control\":\"the point's "
             "status\"}\n");
    for (int r = 0; r < 6; ++r)
        if (r != 2)
            down(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1", 17000);
    out = diagnose(text, 2.1, got, sizeof(got));
    expect(out, got, "hang  nobody",
           "a rank that received a control message wrong observed it: nobody quarantined");
    fc_tap_ok(&tap, strstr(reason(out, 0), "a control message between the ranks arrived wrong "
                                           "and ended the stage") != NULL &&
                  strstr(reason(out, 0), "rank 2 on b1 (in all_reduce int32 sum 64 KiB, the "
                                         "control message 'the point's status' from rank 4 on "
                                         "c1: its checksum does not match") != NULL,
              "the record names the rank that received it, the message and its sender");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 8. c1's ranks were killed, and rank 2's call failed for it: c1 died */
    snprintf(text, sizeof(text), "%s", "mpirun noticed that process rank 4 with PID 0 on node "
             "c1 exited on signal 9 (Killed).\n");
    mpierr(text, sizeof(text), 2, "b1", -1);
    for (int r = 0; r < 4; ++r)
        if (r != 2)
            down(text, sizeof(text), r, r < 2 ? "a1" : "b1", 17000);
    out = diagnose(text, 2.1, got, sizeof(got));
    expect(out, got, "crash c1 quarantine",
           "beside a rank that died, the one whose call failed is not blamed");
    json_decref(out);

    /* 9. c1's Open MPI daemon killed (-9): mpirun says it lost it; c1's
     * ranks say nothing, rank 3 of b1 lost its line, and Open MPI names
     * a1 (the launcher's host, torn down first) as the disconnected peer */
    static const char lost_c1[] =
        "--------------------------------------------------------------------------\n"
        "ORTE has lost communication with a remote daemon.\n\n"
        "  HNP daemon   : [[32048,0],0] on node a1\n"
        "  Remote daemon: [[32048,0],2] on node c1\n\n"
        "This is usually due to either a failure of the TCP network\n";
    static const char peer_a1[] =
        "An MPI communication peer process has unexpectedly disconnected.  This\n"
        "  Local host: b1\n  Local PID:  27821\n  Peer host:  a1\n";
    probe_on = 0;
    snprintf(text, sizeof(text), "%s%s", lost_c1, peer_a1);
    down(text, sizeof(text), 0, "a1", 17836);
    down(text, sizeof(text), 1, "a1", 17835);
    down(text, sizeof(text), 2, "b1", 16826);
    out = diagnose(text, 2.9, got, sizeof(got));
    expect(out, got, "crash c1 quarantine",
           "a daemon the launcher lost names its host alone, not the peer Open MPI names");
    fc_tap_ok(&tap, strstr(reason(out, 0), "host c1 died (or its launcher daemon did): the "
                                           "launcher lost it") != NULL &&
                  strstr(reason(out, 0), "rank(s) 3 of other hosts sent no word either") != NULL,
              "it names c1's ranks and does not blame b1's silent rank");
    fc_tap_is_str(&tap, json_string_value(json_object_get(json_array_get(out, 0), "ranks")), "4,5",
                  "it names c1's ranks and does not blame b1's silent rank"
                  " [json_string_value(json_object_get(json_array_get(out, 0),...]");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 10. c1's ranks ended by SIGTERM from outside (a node shutdown): they
     * wrote their tear-down lines first, mpirun reports rank 4 ended by
     * signal 15, Open MPI names c1 as the peer */
    snprintf(text, sizeof(text), "%s",
             "An MPI communication peer process has unexpectedly disconnected.  This\n"
             "  Local host: b1\n  Local PID:  5107\n  Peer host:  c1\n"
             "mpirun noticed that process rank 4 with PID 5111 on node c1 exited on signal 15 "
             "(Terminated).\n");
    down(text, sizeof(text), 4, "c1", 17972);
    down(text, sizeof(text), 5, "c1", 17970);
    down(text, sizeof(text), 0, "a1", 16950);
    down(text, sizeof(text), 1, "a1", 16950);
    down(text, sizeof(text), 2, "b1", 15935);
    down(text, sizeof(text), 3, "b1", 15934);
    out = diagnose(text, 2.4, got, sizeof(got));
    expect(out, got, "crash c1 quarantine",
           "ranks ended by SIGTERM from outside the launcher name their host alone");
    fc_tap_ok(&tap, strstr(reason(out, 0), "rank(s) 4,5 on host c1 were ended from outside the "
                                           "launcher") != NULL &&
                  strstr(reason(out, 0), "4 rank(s) of the others were torn down after") != NULL &&
                  strstr(reason(out, 0), "exited on signal 15 (Terminated) before its own "
                                         "tear-down began") != NULL &&
                  strstr(reason(out, 0), "Open MPI named c1 as a disconnected peer") != NULL,
              "it says why (the launcher's notice, the peer Open MPI names)");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 11. every rank torn down, no notice: a1's lines came first (the
     * launcher's host, torn down first) and Open MPI names it: nobody */
    snprintf(text, sizeof(text), "%s", peer_a1);
    for (int r = 0; r < 6; ++r)
        down(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1", r < 2 ? 17300 : 16300);
    out = diagnose(text, 2.4, got, sizeof(got));
    expect(out, got, "hang  nobody",
           "the first tear-down lines and Open MPI's peer alone place nobody");
    fc_tap_ok(&tap, strstr(reason(out, 0), "Open MPI named a1 as a disconnected peer; a1's ranks' "
                                           "tear-down lines came first, 1.0 s ahead") != NULL &&
                  strstr(reason(out, 0), "which alone places nobody") != NULL,
              "the record gives the weak witnesses and says they place nobody");
    json_decref(out);

    /* 12. the launcher lost two hosts: not placed */
    snprintf(text, sizeof(text), "%s%s", lost_c1,
             "ORTE has lost communication with a remote daemon.\n"
             "  Remote daemon: [[32048,0],1] on node b1\n");
    down(text, sizeof(text), 0, "a1", 17836);
    down(text, sizeof(text), 1, "a1", 17835);
    out = diagnose(text, 2.9, got, sizeof(got));
    expect(out, got, "crash  nobody", "two hosts lost: nobody placed, nobody quarantined");
    json_decref(out);

    /* 13. every process of c1 killed, daemon too, and the launcher names
     * no host (ORTE said only that it could not reliably start a daemon):
     * c1 is the one host whose every rank is silent; b1's rank 3 lost its
     * line */
    snprintf(text, sizeof(text), "%s", "ORTE was unable to reliably start one or more daemons.\n");
    down(text, sizeof(text), 0, "a1", 17370);
    down(text, sizeof(text), 1, "a1", 17371);
    down(text, sizeof(text), 2, "b1", 16365);
    out = diagnose(text, 2.9, got, sizeof(got));
    expect(out, got, "crash c1 quarantine",
           "with no launcher word, the one host whose every rank is silent died");
    fc_tap_ok(&tap, strstr(reason(out, 0), "the only host so") != NULL,
              "b1's silent rank is not blamed beside it");
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(
                          json_array_get(out, 0), "evidence"), "silent_not_blamed")), "3",
                  "b1's silent rank is not blamed beside it"
                  " [json_string_value(json_object_get(json_object_get( json_a...]");
    json_decref(out);

    /* 14. two hosts wholly silent, no launcher word: nobody placed */
    text[0] = '\0';
    down(text, sizeof(text), 0, "a1", 17370);
    down(text, sizeof(text), 1, "a1", 17371);
    out = diagnose(text, 2.9, got, sizeof(got));
    expect(out, got, "crash b1 nobody; crash c1 nobody",
           "two hosts wholly silent: neither placed");
    json_decref(out);

    /* 15. every rank stuck in time; rank 5 alone (one of c1's two) used
     * no CPU while every other rank polled: c1 is placed, rank 5 named */
    probe_on = 1;
    probe_cut = NULL;
    text[0] = '\0';
    for (int r = 0; r < 6; ++r)
        wd_cpu(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1", r == 5 ? 0.0 : 0.5);
    out = diagnose(text, 21.0, got, sizeof(got));
    expect(out, got, "hang c1 quarantine",
           "one stopped rank beside a busy rank of its host: its host is placed");
    fc_tap_is_str(&tap, json_string_value(json_object_get(json_array_get(out, 0), "ranks")), "5",
                  "the record names the stopped rank alone");
    fc_tap_ok(&tap, strstr(reason(out, 0), "rank(s) 5 on host c1 stopped making progress") != NULL,
              "the record names the stopped rank alone"
              " [strstr(reason(out, 0), \"rank(s) 5 on host c1 stopped maki...]");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 16. both of c1's ranks idle: the whole host, as before */
    text[0] = '\0';
    for (int r = 0; r < 6; ++r)
        wd_cpu(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1", r >= 4 ? 0.0 : 0.5);
    out = diagnose(text, 21.0, got, sizeof(got));
    expect(out, got, "hang c1 quarantine", "a host whose every rank stopped is placed");
    fc_tap_is_str(&tap, json_string_value(json_object_get(json_array_get(out, 0), "ranks")), "4,5",
                  "with both its ranks");
    json_decref(out);

    /* 17. four of six idle, on every host, beside busy ones: not a few
     * stopped processes (a library that waits without polling for some) */
    text[0] = '\0';
    for (int r = 0; r < 6; ++r)
        wd_cpu(text, sizeof(text), r, r < 2 ? "a1" : r < 4 ? "b1" : "c1",
               r == 2 || r == 4 ? 0.5 : 0.0);
    out = diagnose(text, 21.0, got, sizeof(got));
    expect(out, got, "hang  nobody", "most ranks idle, scattered over the hosts: nobody placed");
    json_decref(out);

    /* 18. c1's clock jumped 30 s mid-stage (the attack's run, its lines):
     * its two watchdogs claim the 20 s timeout passed 11.5 s ago, in a
     * launch that lasted 8.5 s; the others were torn down */
    text[0] = '\0';
    for (int r = 4; r < 6; ++r)
        snprintf(text + strlen(text), sizeof(text) - strlen(text),
                 "FABCERT-WATCHDOG {\"stage\":\"cluster\",\"rank\":%d,\"host\":\"c1\","
                 "\"index\":0,\"at\":\"all_reduce float32 sum 64 KiB\",\"timeout_s\":20,"
                 "\"late_s\":11.501,\"calls_entered\":156,\"calls_done\":155,"
                 "\"window_s\":30.50,\"cpu_s\":0.0405,\"done_in_window\":56}\n"
                 "fabcert[c1:rank %d] error: stage cluster passed its timeout of 20 s at "
                 "all_reduce float32 sum 64 KiB; ending rank %d (lib/base/fc_watchdog.c:148)\n",
                 r, r, r);
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s",
             "An MPI communication peer process has unexpectedly disconnected.  This\n"
             "  Local host: b1\n  Local PID:  11714\n  Peer host:  c1\n");
    for (int r = 0; r < 4; ++r)
        down(text, sizeof(text), r, r < 2 ? "a1" : "b1", 13480);
    out = diagnose(text, 8.5, got, sizeof(got));
    expect(out, got, "hang c1 quarantine",
           "watchdogs that fired before the timeout could come (a clock that jumped) name "
           "their host");
    fc_tap_ok(&tap, strstr(reason(out, 0), "the watchdog(s) of rank(s) 4,5 on host c1 fired "
                                           "early") != NULL &&
                  strstr(reason(out, 0), "lasted 8.5 s by the runner's clock") != NULL,
              "the record says they fired early, and how it knows");
    fc_tap_diag(&tap, "%s", reason(out, 0));
    json_decref(out);

    /* 19. the same reports in a launch that lasted 33 s: no early fire
     * (a rank stopped past its deadline: did not arrive, as before) */
    out = diagnose(text, 33.0, got, sizeof(got));
    fc_tap_ok(&tap, strstr(reason(out, 0), "fired early") == NULL,
              "a late report in a launch longer than the timeout is no clock jump");
    json_decref(out);

    fc_inventory_free(&inv);
    unlink(log_path);
    return fc_tap_done(&tap);
}
