/*
 * fc_attempt_records.c - labels, certificate figures and HTML cells of the
 * records about a stage's attempt (see fc_attempt_records.h). A retest's
 * wrong exchanges are the evidence, so its figures are not judged again:
 * its figure copies them, and its cell is its first reason.
 */
#include "fc_attempt_records.h"

#include <string.h>

#include "fc_cert_figure.h"
#include "fc_html_escape.h"
#include "fc_json.h"

/* ---- names --------------------------------------------------------------- */

void fc_label_hang(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "arrival of %s", fc_json_str(rec, "host")[0]
             ? fc_json_str(rec, "host") : "every rank");
}

void fc_label_crash(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "ranks %s of %s (died)", fc_json_str(rec, "ranks"),
             fc_json_str(rec, "host")[0] ? fc_json_str(rec, "host") : "the job");
}

void fc_label_retest(json_t *rec, char *buf, size_t len)
{
    /* the bounded retest of the hosts in every group that saw wrong bits */
    if (strcmp(fc_json_str(rec, "method"), "intersection") == 0) {
        snprintf(buf, len, "bounded retest of %s", fc_json_str(rec, "group"));
        return;
    }
    snprintf(buf, len, "retest of the %s in %s", strcmp(fc_json_str(rec, "kind"), "slow")
             ? "wrong result" : "slowness", fc_json_str(rec, "group")[0]
             ? fc_json_str(rec, "group") : "the stage");
}

void fc_label_selftest(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "self-test of the %s stage", fc_json_str(rec, "stage"));
}

/* ---- certificate figures ------------------------------------------------- */

void fc_figure_stop(json_t *rec, json_t *f)
{
    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    json_object_set_new(f, "ranks", json_string(fc_json_str(rec, "ranks")));
    json_object_set_new(f, "stuck_at", json_string(fc_json_str(rec, "stuck_at")));
    /* what placed it, or why nothing did: the launcher's words, the ranks'
     * accounts, the probe's answers, the failed MPI calls */
    if (json_is_object(json_object_get(rec, "evidence")))
        json_object_set(f, "evidence", json_object_get(rec, "evidence"));
}

/* The evidence that places (or could not place) a fault: the group, the
 * culprit, every exchange; a slowness retest adds its timings, the bounded
 * retest of the suspects its partners, time and bytes. */
void fc_figure_retest(json_t *rec, json_t *f)
{
    static const char *const keys[] = {
        "group", "group_hosts", "localised", "culprit", "observed", "ranks", "hosts",
        "bytes", "iterations", "exchanges_checked", "exchanges_wrong", "exchanges",
    };
    static const char *const slow_keys[] = {
        "kind", "method", "collective", "all_median_us", "leave_one_out",
        "exchange_lower_quartile_us", "exchanges_slow", "exchanges_timed", "slow_factor",
    };
    /* the bounded retest of the hosts in every wrong result: its partners,
     * time, bytes and what a placement explains */
    static const char *const bounded_keys[] = {
        "method", "suspects", "partners", "narrowed", "seconds", "limit_s", "sweeps",
        "bytes_checked", "evidence", "explains",
    };
    int slow = strcmp(fc_json_str(rec, "kind"), "slow") == 0;
    int bounded = strcmp(fc_json_str(rec, "method"), "intersection") == 0;

    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); ++k)
        json_object_set_new(f, keys[k], fc_figure_or_null(json_object_get(rec, keys[k])));
    for (size_t k = 0; slow && k < sizeof(slow_keys) / sizeof(slow_keys[0]); ++k)
        json_object_set_new(f, slow_keys[k], fc_figure_or_null(json_object_get(rec, slow_keys[k])));
    for (size_t k = 0; bounded && k < sizeof(bounded_keys) / sizeof(bounded_keys[0]); ++k)
        json_object_set_new(f, bounded_keys[k],
                            fc_figure_or_null(json_object_get(rec, bounded_keys[k])));
}

/* ---- HTML cells ---------------------------------------------------------- */

void fc_cell_stop(FILE *f, json_t *rec)
{
    fc_html_escape(f, fc_json_str(rec, "stuck_at"));
}

void fc_cell_retest(FILE *f, json_t *rec)
{
    fc_html_escape(f, json_string_value(json_array_get(json_object_get(rec, "reasons"), 0)));
}
