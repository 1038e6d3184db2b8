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
 *   - a host silent at the timeout did not arrive, as before.
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

/* A tear-down line, before_ms before the rank's own deadline. */
static void down(char *buf, size_t len, int rank, const char *host, long before_ms)
{
    snprintf(buf + strlen(buf), len - strlen(buf),
             "FABCERT-DOWN {\"stage\":\"cluster\",\"rank\":%d,\"host\":\"%s\",\"index\":3,"
             "\"at\":\"all_reduce int32 sum 64 KiB\",\"signal\":15,"
             "\"before_deadline_ms\":%ld}\n", rank, host, before_ms);
}

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
    out = fc_diagnose_unfinished(&in);
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
    fc_tap_ok(&tap, strcmp(got, want) == 0, "%s: '%s'", what, want);
    if (strcmp(got, want) != 0)
        fc_tap_diag(&tap, "got '%s'; %s", got, reason(out, 0));
}

int main(void)
{
    char text[8192], got[1024];
    json_t *out;
    int fd;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 6);
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

    /* 4. c1's ranks silent at the timeout: did not arrive */
    text[0] = '\0';
    for (int r = 0; r < 4; ++r)
        wd(text, sizeof(text), r, r < 2 ? "a1" : "b1");
    out = diagnose(text, 23.2, got, sizeof(got));
    expect(out, got, "hang c1 quarantine", "a host silent at the timeout did not arrive");
    fc_tap_ok(&tap, strstr(reason(out, 0), "ranks 4,5 on host c1 did not arrive") != NULL,
              "named with its ranks");
    json_decref(out);

    fc_inventory_free(&inv);
    unlink(log_path);
    return fc_tap_done(&tap);
}
