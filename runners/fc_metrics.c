/*
 * fc_metrics.c - see fc_metrics.h. Each family is a JSON object from its
 * label set (already written as the exposition format's `{...}` text,
 * values escaped) to its value, kept in the order first seen; the file is
 * the families in a fixed order. What a figure is:
 *
 *   - busbw per stage and collective: for each group (a node, a rack, the
 *     whole job; `host` only for a one-host group) the slowest busbw over
 *     types and ops at the largest size measured (the bandwidth-bound
 *     end of the sweep), with that size as `bytes`. Pairs are left out
 *     (n(n-1)/2 series at 4,096 nodes; their failures are counted);
 *   - soak: the latest window's busbw per point and its slowdown against
 *     the fastest window so far (a live drift; the judged drift, a level
 *     held to the end against one held before it (lib/soak/fc_drift.h), comes
 *     with the soak's point records as fabcert_soak_drift_pct);
 *   - counter deltas: each link counter's rise over the soak, per host.
 *
 * A resume's superseded attempts: their checks are no longer counted (as
 * in the verdict), their failures still are.
 */
#include "fc_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fc_alloc.h"
#include "fc_progress.h"
#include "fc_report.h"

static const struct fc_family {
    const char *name, *help;
} fc_families[] = {
    { "fabcert_run_state", "1 for the run's state (running, finished, interrupted)" },
    { "fabcert_rack_verdict", "1 for the rack's verdict (PENDING until the run's report)" },
    { "fabcert_host_quarantined", "1 for a host quarantined by the run" },
    { "fabcert_stage_state", "1 for the stage's state (pending, running, done, skipped)" },
    { "fabcert_stage_checks", "checks the stage judged" },
    { "fabcert_stage_failures", "checks of the stage that failed" },
    { "fabcert_stage_incomplete", "checks of the stage that could not be certified" },
    { "fabcert_stage_seconds", "seconds the stage's last attempt ran" },
    { "fabcert_stage_progress_ratio", "fraction of the running stage done" },
    { "fabcert_stage_eta_seconds", "seconds until the running stage ends, as measured" },
    { "fabcert_busbw_gbps", "slowest busbw (GB/s) over types and ops at the largest size" },
    { "fabcert_soak_window", "windows of the soak closed so far" },
    { "fabcert_soak_window_busbw_gbps", "busbw (GB/s) of the soak's latest window" },
    { "fabcert_soak_window_slowdown_pct", "latest soak window's median time over the fastest "
                                          "window's, less one, in percent" },
    { "fabcert_soak_wrong_elements", "wrong elements seen by the soak so far" },
    { "fabcert_soak_drift_pct", "the soak's judged drift, in percent" },
    { "fabcert_link_error_delta", "rise of a link counter over the soak" },
    { "fabcert_metrics_updated_timestamp_seconds", "when this file was written (Unix time)" },
};
#define FC_NFAMILIES (sizeof(fc_families) / sizeof(fc_families[0]))

struct fc_metrics {
    char path[PATH_MAX];
    char run[64];
    json_t *fam[FC_NFAMILIES];      /* labels text -> value */
    json_t *best_window;            /* soak point -> fastest window median */
    json_t *busbw_at;               /* busbw labels -> the figure kept */
};

static int fc_family_index(const char *name)
{
    for (size_t i = 0; i < FC_NFAMILIES; ++i)
        if (strcmp(fc_families[i].name, name) == 0)
            return (int)i;
    FC_ASSERT(!"a metric family of the table");
    return 0;
}

/* Append `key="value"` to buf (value escaped as the format says). */
static void fc_label(char *buf, size_t len, const char *key, const char *value)
{
    size_t used = strlen(buf);

    used += (size_t)snprintf(buf + used, len - used, "%s%s=\"", used ? "," : "", key);
    for (const char *c = value ? value : ""; *c && used + 4 < len; ++c) {
        if (*c == '\\' || *c == '"')
            buf[used++] = '\\', buf[used++] = *c;
        else if (*c == '\n')
            buf[used++] = '\\', buf[used++] = 'n';
        else if ((unsigned char)*c >= 0x20)
            buf[used++] = *c;
    }
    if (used + 2 < len)
        buf[used++] = '"';
    buf[used] = '\0';
}

static void fc_set(fc_metrics_t *m, const char *family, const char *labels, double value)
{
    json_object_set_new(m->fam[fc_family_index(family)], labels, json_real(value));
}

static void fc_add(fc_metrics_t *m, const char *family, const char *labels, double value)
{
    json_t *v = json_object_get(m->fam[fc_family_index(family)], labels);

    fc_set(m, family, labels, (v ? json_number_value(v) : 0) + value);
}

/* One of a set of states: 1 for `state`, 0 for the others. */
static void fc_state(fc_metrics_t *m, const char *family, const char *key, const char *what,
                     const char *const *states, const char *state)
{
    for (int k = 0; states[k]; ++k) {
        char labels[512] = "";

        fc_label(labels, sizeof(labels), "run", m->run);
        if (key)
            fc_label(labels, sizeof(labels), key, what);
        fc_label(labels, sizeof(labels), "state", states[k]);
        fc_set(m, family, labels, strcmp(states[k], state) == 0);
    }
}

static void fc_stage_state(fc_metrics_t *m, const char *stage, const char *state)
{
    static const char *const states[] = { "pending", "running", "done", "skipped", NULL };

    fc_state(m, "fabcert_stage_state", "stage", stage, states, state);
}

static void fc_rack_verdict(fc_metrics_t *m, const char *rack, const char *verdict)
{
    static const char *const verdicts[] = { "PENDING", "PASS", "FAIL", "INCOMPLETE", NULL };

    for (int k = 0; verdicts[k]; ++k) {
        char labels[512] = "";

        fc_label(labels, sizeof(labels), "run", m->run);
        fc_label(labels, sizeof(labels), "rack", rack);
        fc_label(labels, sizeof(labels), "verdict", verdicts[k]);
        fc_set(m, "fabcert_rack_verdict", labels, strcmp(verdicts[k], verdict) == 0);
    }
}

static void fc_stage_labels(const fc_metrics_t *m, const char *stage, char *buf, size_t len)
{
    buf[0] = '\0';
    fc_label(buf, len, "run", m->run);
    fc_label(buf, len, "stage", stage);
}

/* A sweep point's busbw: per group, the slowest at the largest size. */
static void fc_point_busbw(fc_metrics_t *m, json_t *rec, const char *stage)
{
    char labels[1024] = "";
    json_int_t bytes = json_integer_value(json_object_get(rec, "requested_bytes"));
    double busbw = json_number_value(json_object_get(rec, "busbw_gbps"));
    json_t *at, *old;

    if (!json_is_number(json_object_get(rec, "busbw_gbps")))
        return;
    fc_label(labels, sizeof(labels), "run", m->run);
    fc_label(labels, sizeof(labels), "stage", stage);
    fc_label(labels, sizeof(labels), "collective", fc_json_str(rec, "collective"));
    fc_label(labels, sizeof(labels), "rack", fc_json_str(rec, "rack"));
    fc_label(labels, sizeof(labels), "host", json_integer_value(json_object_get(rec, "hosts"))
             == 1 ? fc_json_str(rec, "host") : "");
    at = json_object_get(m->busbw_at, labels);
    if (at && json_integer_value(json_object_get(at, "bytes")) > bytes)
        return;     /* a smaller size than the figure kept */
    if (at && json_integer_value(json_object_get(at, "bytes")) == bytes &&
        json_number_value(json_object_get(at, "busbw")) <= busbw)
        return;     /* the same size, not slower */
    if (at) {       /* replace the family's sample of the old size */
        old = json_object_get(at, "labels");
        json_object_del(m->fam[fc_family_index("fabcert_busbw_gbps")], json_string_value(old));
    }
    {
        char full[1100], num[32];

        snprintf(num, sizeof(num), "%lld", (long long)bytes);
        snprintf(full, sizeof(full), "%s", labels);
        fc_label(full, sizeof(full), "bytes", num);
        fc_set(m, "fabcert_busbw_gbps", full, busbw);
        json_object_set_new(m->busbw_at, labels, json_pack("{s:I, s:f, s:s}", "bytes",
                            (json_int_t)bytes, "busbw", busbw, "labels", full));
    }
}

/* A soak point's labels: run, collective, dtype, op, bytes. */
static void fc_soak_labels(const fc_metrics_t *m, json_t *p, const char *bytes_key, char *buf,
                           size_t len)
{
    char num[32];

    snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(json_object_get(p, bytes_key)));
    buf[0] = '\0';
    fc_label(buf, len, "run", m->run);
    fc_label(buf, len, "collective", fc_json_str(p, "collective"));
    fc_label(buf, len, "dtype", fc_json_str(p, "dtype"));
    fc_label(buf, len, "op", fc_json_str(p, "op"));
    fc_label(buf, len, "bytes", num);
}

static void fc_soak_window(fc_metrics_t *m, json_t *rec)
{
    char labels[1024];
    json_t *p;
    size_t i;

    fc_label((labels[0] = '\0', labels), sizeof(labels), "run", m->run);
    fc_set(m, "fabcert_soak_window", labels,
           (double)json_integer_value(json_object_get(rec, "window")) + 1);
    json_array_foreach(json_object_get(rec, "points"), i, p) {
        double med = json_number_value(json_object_get(p, "median_us"));
        json_t *best;

        fc_soak_labels(m, p, "bytes", labels, sizeof(labels));
        fc_set(m, "fabcert_soak_window_busbw_gbps", labels,
               json_number_value(json_object_get(p, "busbw_gbps")));
        fc_add(m, "fabcert_soak_wrong_elements", labels,
               (double)json_integer_value(json_object_get(p, "wrong")));
        best = json_object_get(m->best_window, labels);
        if (med > 0 && (best == NULL || med < json_number_value(best)))
            json_object_set_new(m->best_window, labels, json_real(med));
        best = json_object_get(m->best_window, labels);
        if (med > 0 && best)
            fc_set(m, "fabcert_soak_window_slowdown_pct", labels,
                   (med / json_number_value(best) - 1) * 100);
    }
}

static void fc_soak_counters(fc_metrics_t *m, json_t *rec)
{
    const char *link, *counter;
    json_t *counters, *v;

    json_object_foreach(json_object_get(rec, "links"), link, counters)
        json_object_foreach(counters, counter, v) {
            char labels[1024] = "";

            if (!json_is_number(v))
                continue;
            fc_label(labels, sizeof(labels), "run", m->run);
            fc_label(labels, sizeof(labels), "rack", fc_json_str(rec, "rack"));
            fc_label(labels, sizeof(labels), "host", fc_json_str(rec, "host"));
            fc_label(labels, sizeof(labels), "link", link);
            fc_label(labels, sizeof(labels), "counter", counter);
            fc_set(m, "fabcert_link_error_delta", labels, json_number_value(v));
        }
}

int fc_metrics_record(fc_metrics_t *m, json_t *rec)
{
    const char *type = fc_json_str(rec, "type"), *stage = fc_json_str(rec, "stage");
    const char *verdict = fc_json_str(rec, "verdict");
    char labels[1024];

    if (m == NULL || strcmp(fc_json_str(rec, "run_id"), m->run) != 0)
        return 0;
    fc_stage_labels(m, stage, labels, sizeof(labels));
    if (strcmp(type, "stage_start") == 0) {
        fc_stage_state(m, stage, "running");
        return 1;
    }
    if (strcmp(type, "stage_end") == 0) {
        fc_set(m, "fabcert_stage_seconds", labels,
               json_number_value(json_object_get(rec, "seconds")));
        return 1;
    }
    if (strcmp(type, "stage_skip") == 0 || strcmp(type, "stage_done") == 0) {
        char skipped[512];
        json_t *was;

        /* a skipped stage is done too, and stays "skipped" */
        snprintf(skipped, sizeof(skipped), "%s", labels);
        fc_label(skipped, sizeof(skipped), "state", "skipped");
        was = json_object_get(m->fam[fc_family_index("fabcert_stage_state")], skipped);
        if (type[6] == 's' || !was || json_number_value(was) != 1)
            fc_stage_state(m, stage, type[6] == 's' ? "skipped" : "done");
        return 1;
    }
    if (strcmp(type, "resume") == 0) {
        json_t *x;
        size_t i;

        json_array_foreach(json_object_get(rec, "superseded"), i, x) {
            fc_stage_labels(m, fc_json_str(x, "stage"), labels, sizeof(labels));
            fc_set(m, "fabcert_stage_checks", labels, 0);
            fc_set(m, "fabcert_stage_incomplete", labels, 0);
        }
        return 1;
    }
    if (strcmp(type, "quarantine") == 0) {
        labels[0] = '\0';
        fc_label(labels, sizeof(labels), "run", m->run);
        fc_label(labels, sizeof(labels), "rack", fc_json_str(rec, "rack"));
        fc_label(labels, sizeof(labels), "host", fc_json_str(rec, "host"));
        fc_set(m, "fabcert_host_quarantined", labels, 1);
        return 1;
    }
    if (strcmp(type, "soak_window") == 0) {
        fc_soak_window(m, rec);
        return 1;
    }
    if (fc_record_is_check(type) && verdict[0] && fc_stage_from_name(stage) >= 0) {
        fc_add(m, "fabcert_stage_checks", labels, 1);
        fc_add(m, "fabcert_stage_failures", labels,
               strcmp(verdict, "PASS") != 0 && strcmp(verdict, "INCOMPLETE") != 0);
        fc_add(m, "fabcert_stage_incomplete", labels, strcmp(verdict, "INCOMPLETE") == 0);
    } else if ((strcmp(type, "hang") == 0 || strcmp(type, "crash") == 0) && stage[0]) {
        fc_add(m, "fabcert_stage_failures", labels, 1);
    }
    if (strcmp(type, "point") == 0 && strcmp(stage, "soak") != 0)
        fc_point_busbw(m, rec, stage);
    if (strcmp(type, "point") == 0 && strcmp(stage, "soak") == 0 &&
        json_is_number(json_object_get(json_object_get(rec, "soak"), "drift_pct"))) {
        fc_soak_labels(m, rec, "requested_bytes", labels, sizeof(labels));
        fc_set(m, "fabcert_soak_drift_pct", labels,
               json_number_value(json_object_get(json_object_get(rec, "soak"), "drift_pct")));
    }
    if (strcmp(type, "soak_counters") == 0)
        fc_soak_counters(m, rec);
    return 0;
}

void fc_metrics_progress(fc_metrics_t *m, const char *stage, double ratio, double eta_s)
{
    char labels[512];

    if (m == NULL)
        return;
    fc_stage_labels(m, stage, labels, sizeof(labels));
    if (ratio >= 0)
        fc_set(m, "fabcert_stage_progress_ratio", labels, ratio > 1 ? 1 : ratio);
    if (eta_s >= 0)
        fc_set(m, "fabcert_stage_eta_seconds", labels, eta_s);
}

void fc_metrics_flush(fc_metrics_t *m)
{
    char *text = NULL, labels[128] = "";
    size_t size = 0;
    struct timespec ts;
    FILE *f;

    if (m == NULL || (f = open_memstream(&text, &size)) == NULL)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    fc_label(labels, sizeof(labels), "run", m->run);
    fc_set(m, "fabcert_metrics_updated_timestamp_seconds", labels,
           (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
    for (size_t i = 0; i < FC_NFAMILIES; ++i) {
        const char *key;
        json_t *v;

        if (json_object_size(m->fam[i]) == 0)
            continue;
        fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fc_families[i].name,
                fc_families[i].help, fc_families[i].name);
        json_object_foreach(m->fam[i], key, v)
            fprintf(f, "%s{%s} %.10g\n", fc_families[i].name, key, json_number_value(v));
    }
    fprintf(f, "# EOF\n");
    fclose(f);
    fc_write_atomic(m->path, text);
    free(text);
}

fc_metrics_t *fc_metrics_open(const char *path, const fc_run_state_t *st)
{
    fc_metrics_t *m = fc_xcalloc(1, sizeof(*m), "the run's metrics");
    static const char *const states[] = { "running", "finished", "interrupted", NULL };
    json_t *rec;
    size_t i;

    snprintf(m->path, sizeof(m->path), "%s", path);
    snprintf(m->run, sizeof(m->run), "%s", st->o.run_id);
    for (size_t k = 0; k < FC_NFAMILIES; ++k)
        m->fam[k] = json_object();
    m->best_window = json_object();
    m->busbw_at = json_object();
    fc_state(m, "fabcert_run_state", NULL, NULL, states, "running");
    for (int r = 0; r < st->inv.nracks; ++r)
        fc_rack_verdict(m, st->inv.racks[r], "PENDING");
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (st->profile.stages[s].present && st->o.stages[s])
            fc_stage_state(m, fc_stage_name((fc_stage_id_t)s), "pending");
    json_array_foreach(st->prior, i, rec)
        fc_metrics_record(m, rec);
    fc_metrics_flush(m);
    return m;
}

void fc_metrics_close(fc_metrics_t *m, const char *state, json_t *racks)
{
    static const char *const states[] = { "running", "finished", "interrupted", NULL };
    json_t *r;
    size_t i;

    if (m == NULL)
        return;
    fc_state(m, "fabcert_run_state", NULL, NULL, states, state);
    json_array_foreach(racks, i, r)
        fc_rack_verdict(m, fc_json_str(r, "rack"), fc_json_str(r, "verdict"));
    json_object_clear(m->fam[fc_family_index("fabcert_stage_progress_ratio")]);
    json_object_clear(m->fam[fc_family_index("fabcert_stage_eta_seconds")]);
    fc_metrics_flush(m);
    for (size_t k = 0; k < FC_NFAMILIES; ++k)
        json_decref(m->fam[k]);
    json_decref(m->best_window);
    json_decref(m->busbw_at);
    free(m);
}
