/*
 * fc_retest.c - see fc_retest.h. The groups are written to
 * OUT/retest.STAGE[.N].json for the retest's rank 0 (group, hosts, racks,
 * what was observed first and how many checks saw it, and every host's
 * rack); the retest's TAP and log go beside the stage's.
 */
#include "fc_retest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_exitinfo.h"
#include "fc_launch.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_verdict.h"

#define FC_RETEST_MAX_ARGS 512
#define FC_RETEST_MAX_S 300

/* A failing check whose wrong result is not yet placed. */
static int fc_retest_pending(json_t *rec)
{
    json_t *imp = json_object_get(rec, "implicates");

    return strcmp(fc_json_str(rec, "verdict"), "FAIL") == 0 && json_is_object(imp) &&
           json_is_false(json_object_get(imp, "localised"));
}

/* "all_reduce float32 sum 4096 bytes: <first reason>" */
static void fc_retest_observed(json_t *rec, char *buf, size_t len)
{
    const char *why = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));
    const char *op = fc_json_str(rec, "op");
    const char *pending = why ? strstr(why, ", not yet localised: ") : NULL;

    if (pending)        /* the measurement, not the stage's "wrong result in" */
        why = pending + strlen(", not yet localised: ");

    if (strcmp(fc_json_str(rec, "type"), "pair") == 0) {
        snprintf(buf, len, "pair %s <-> %s: %s", fc_json_str(rec, "host_a"),
                 fc_json_str(rec, "host_b"), why ? why : "wrong bits");
        return;
    }
    snprintf(buf, len, "%s %s%s%s %lld bytes%s%s: %s", fc_json_str(rec, "collective"),
             fc_json_str(rec, "dtype"), op[0] && strcmp(op, "none") ? " " : "",
             op[0] && strcmp(op, "none") ? op : "",
             (long long)json_integer_value(json_object_get(rec, "bytes")),
             json_object_get(rec, "kind") ? " under " : "", fc_json_str(rec, "kind"),
             why ? why : "wrong bits");
}

/* {stage, host_racks, groups: [...]} from the stage's records; NULL when
 * nothing waits for a retest. */
static json_t *fc_retest_groups(const fc_retest_launch_t *l, json_t *recs)
{
    json_t *groups = json_array(), *racks = json_object(), *rec;
    size_t i;
    int ended = 0;

    json_array_foreach(recs, i, rec) {
        json_t *imp = json_object_get(rec, "implicates"), *g = NULL, *q;
        size_t k;

        const char *kind = fc_json_str(imp, "kind")[0] ? fc_json_str(imp, "kind") : "wrong";

        ended |= strcmp(fc_json_str(rec, "type"), "stage_end") == 0;
        if (!fc_retest_pending(rec))
            continue;
        json_array_foreach(groups, k, q)
            if (strcmp(fc_json_str(q, "group"), fc_json_str(imp, "group")) == 0 &&
                strcmp(fc_json_str(q, "kind"), kind) == 0)
                g = q;
        if (g == NULL) {
            char observed[1024];

            fc_retest_observed(rec, observed, sizeof(observed));
            g = json_pack("{s:s, s:s, s:O, s:O, s:s, s:i}", "group", fc_json_str(imp, "group"),
                          "kind", kind, "hosts", json_object_get(imp, "hosts"), "racks",
                          json_object_get(imp, "racks"), "observed", observed, "points", 0);
            if (g == NULL)
                continue;       /* a record without its hosts: nothing to retest */
            if (fc_json_str(rec, "collective")[0])    /* what the leave-one-out runs */
                json_object_set_new(g, "point", json_pack(
                    "{s:s, s:s, s:s, s:I}", "collective", fc_json_str(rec, "collective"),
                    "dtype", fc_json_str(rec, "dtype"), "op", fc_json_str(rec, "op"),
                    "bytes", json_integer_value(json_object_get(rec, "requested_bytes"))));
            json_array_append_new(groups, g);
        }
        json_object_set_new(g, "points", json_integer(
            json_integer_value(json_object_get(g, "points")) + 1));
    }
    if (!ended || json_array_size(groups) == 0) {
        json_decref(groups);
        json_decref(racks);
        return NULL;
    }
    for (int h = 0; h < l->inv->nhosts; ++h)
        json_object_set_new(racks, l->inv->hosts[h],
                            json_string(l->inv->racks[l->inv->host_rack[h]]));
    return json_pack("{s:s, s:o, s:o}", "stage", l->stage, "host_racks", racks,
                     "groups", groups);
}

/* What the launcher said about the retest, in a few words: its first
 * notice of a rank that died, or how the launch ended. */
void fc_retest_end_text(const fc_launch_result_t *res, const char *log, char *buf, size_t len)
{
    FILE *f = fopen(log, "r");
    char *text = NULL;
    size_t n = 0;
    json_t *ended = NULL, *first;

    if (f != NULL) {
        fseek(f, 0, SEEK_END);
        n = (size_t)(ftell(f) > 0 ? ftell(f) : 0);
        rewind(f);
        text = fc_xcalloc(n + 1, 1, "the retest's log");
        if (fread(text, 1, n, f) != n)
            text[0] = '\0';
        fclose(f);
    }
    ended = fc_exitinfo_parse(text ? text : "");
    first = json_array_get(ended, 0);
    if (res->not_started)
        snprintf(buf, len, "the retest could not start");
    else if (res->timed_out)
        snprintf(buf, len, "the retest was killed at its limit (%.0f s)", res->seconds);
    else if (first != NULL)
        snprintf(buf, len, "the retest's rank %lld on %s ended (%s%lld)",
                 (long long)json_integer_value(json_object_get(first, "rank")),
                 fc_json_str(first, "host")[0] ? fc_json_str(first, "host") : "its host",
                 json_integer_value(json_object_get(first, "signal")) ? "signal " : "exit code ",
                 (long long)(json_integer_value(json_object_get(first, "signal")) ?
                             json_integer_value(json_object_get(first, "signal")) :
                             json_integer_value(json_object_get(first, "exit_code"))));
    else
        snprintf(buf, len, "the retest ended (exit status %d) without its records",
                 res->exit_status);
    json_decref(ended);
    free(text);
}

/* A group whose retest wrote no record (it died, hung, could not start):
 * the runner says so, with what the launcher said, so "could not be
 * placed" is never mistaken for "the placement run crashed". The record
 * speaks for the group's pending points like a retest's; it places
 * nothing and quarantines nobody. */
static void fc_retest_unfinished(const fc_retest_launch_t *l, json_t *groups,
                                 const fc_launch_result_t *res, const char *log)
{
    json_t *recs = NULL, *g;
    fc_results_t out;
    char why[512], now[32];
    size_t i;
    int torn = 0, opened = 0;

    if (fc_results_load(l->results_path, l->results_offset, &recs, &torn) != FC_OK)
        recs = json_array();
    fc_retest_end_text(res, log, why, sizeof(why));
    json_array_foreach(json_object_get(groups, "groups"), i, g) {
        json_t *r, *rec;
        size_t k;
        int have = 0;
        char reason[1024];

        json_array_foreach(recs, k, r)
            have |= strcmp(fc_json_str(r, "type"), "retest") == 0 &&
                    strcmp(fc_json_str(r, "group"), fc_json_str(g, "group")) == 0;
        if (have)
            continue;
        if (!opened && fc_results_open(l->out_dir, &out) != FC_OK)
            break;
        opened = 1;
        fc_results_time(now, sizeof(now));
        snprintf(reason, sizeof(reason), "%s in %s, not localised: %s; nothing placed, "
                 "nobody quarantined (see retest.%s%s.log); observed: %s",
                 strcmp(fc_json_str(g, "kind"), "slow") ? "wrong result" : "confirmed slowness",
                 fc_json_str(g, "group"), why, l->stage, l->suffix, fc_json_str(g, "observed"));
        rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:O, s:b, s:b, s:[s], s:s}",
                        "type", "retest", "source", "runner", "run_id", l->run_id, "stage",
                        l->stage, "time", now, "group", fc_json_str(g, "group"), "kind",
                        fc_json_str(g, "kind"), "group_hosts", json_object_get(g, "hosts"),
                        "racks", json_object_get(g, "racks"), "localised", 0, "finished", 0,
                        "reasons", reason, "verdict", "FAIL");
        if (rec == NULL)
            continue;
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:O, s:O, s:b}", "part", "group", "host", "", "racks",
            json_object_get(g, "racks"), "hosts", json_object_get(g, "hosts"), "quarantine", 0));
        fc_results_append(&out, rec);
        fc_print_line(stdout, "retest %s: %s: %s", l->stage, fc_json_str(g, "group"), why);
    }
    if (opened)
        fc_results_close(&out);
    json_decref(recs);
}

void fc_retest_launch_note(const char *out_dir, const char *run_id, const char *stage,
                           const char *method, int groups, const fc_launch_result_t *res)
{
    fc_results_t out;
    char now[32];
    json_t *rec;

    if (fc_results_open(out_dir, &out) != FC_OK)
        return;
    fc_results_time(now, sizeof(now));
    rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:i, s:b, s:i}", "type", "retest_launch",
                    "source", "runner", "run_id", run_id, "stage", stage, "time", now,
                    "seconds", res->seconds, "exit_status", res->exit_status, "timed_out",
                    res->timed_out, "groups", groups);
    if (rec != NULL && method != NULL)
        json_object_set_new(rec, "method", json_string(method));
    if (rec != NULL)
        fc_results_append(&out, rec);
    fc_results_close(&out);
}

int fc_retest_after_stage(const fc_retest_launch_t *l, json_t *stage_recs)
{
    char path[PATH_MAX + 64], tap[PATH_MAX + 64], log[PATH_MAX + 64];
    char exe[PATH_MAX], timeout[32];
    const char *argv[FC_RETEST_MAX_ARGS];
    json_t *groups;
    fc_launch_result_t res;
    /* the stage's timeout, but a soak's hours are not the retest's */
    double limit = l->timeout_s < FC_RETEST_MAX_S ? l->timeout_s : FC_RETEST_MAX_S;
    int n = 0;

    if (fc_launch_interrupted() || l->nprefix + 16 > FC_RETEST_MAX_ARGS)
        return 0;
    if ((groups = fc_retest_groups(l, stage_recs)) == NULL)
        return 0;
    snprintf(path, sizeof(path), "%s/retest.%s%s.json", l->out_dir, l->stage, l->suffix);
    if (json_dump_file(groups, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        json_decref(groups);
        return 0;
    }
    snprintf(tap, sizeof(tap), "%s/retest.%s%s.tap", l->out_dir, l->stage, l->suffix);
    snprintf(log, sizeof(log), "%s/retest.%s%s.log", l->out_dir, l->stage, l->suffix);
    fc_path_program("retest", exe, sizeof(exe));
    snprintf(timeout, sizeof(timeout), "%.0f", limit);
    for (int k = 0; k < l->nprefix; ++k)
        argv[n++] = l->prefix[k];
    argv[n++] = exe;
    argv[n++] = "--out";
    argv[n++] = l->out_dir;
    argv[n++] = "--run-id";
    argv[n++] = l->run_id;
    argv[n++] = "--stage";
    argv[n++] = l->stage;
    argv[n++] = "--groups";
    argv[n++] = path;
    argv[n++] = "--timeout";
    argv[n++] = timeout;
    argv[n] = NULL;
    printf("retest %s: %zu group(s) with a wrong result or a confirmed slowness; checked, "
           "timed point-to-point exchanges and the collective without each node, on the "
           "stage's hosts, to place it\n", l->stage,
           json_array_size(json_object_get(groups, "groups")));
    fflush(stdout);
    fc_launch((char *const *)argv, tap, log, limit + l->margin_s, &res);
    printf("retest %s: %s, %.1f s\n", l->stage,
           res.not_started ? "could not start" :
           res.timed_out ? "killed at the limit: what it was to place stays unplaced" :
           res.exit_status == 2 ? "rejected its input" : "ended", res.seconds);
    fc_retest_unfinished(l, groups, &res, log);
    fc_retest_launch_note(l->out_dir, l->run_id, l->stage, NULL,
                          (int)json_array_size(json_object_get(groups, "groups")), &res);
    json_decref(groups);
    fc_launch_result_free(&res);
    return 1;
}
