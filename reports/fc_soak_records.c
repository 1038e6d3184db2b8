/*
 * fc_soak_records.c - labels, certificate figures, HTML cells, rules and
 * limits of the soak stage's records, and of a soak point's windows and drift (see
 * fc_soak_records.h). Numbers in a cell are read as the stage writes them;
 * a figure that is absent reads as 0, and the certificate beside the page
 * has it as null.
 */
#include "fc_soak_records.h"

#include <string.h>

#include "fc_alloc.h"
#include "fc_cert_figure.h"
#include "fc_drift.h"
#include "fc_html_escape.h"
#include "fc_json.h"
#include "fc_rules.h"

/* ---- names --------------------------------------------------------------- */

void fc_label_soak_counters(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "link error counters of %s", fc_json_str(rec, "host"));
}

void fc_label_soak_gpu(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "GPU %lld (%s) of %s", (long long)json_integer_value(
                 json_object_get(rec, "device")), fc_json_str(rec, "uuid"),
             fc_json_str(rec, "host"));
}

/* ---- certificate figures ------------------------------------------------- */

/* A soak point's runs, windows and drift. */
void fc_figure_soak_drift(json_t *soak, json_t *f)
{
    if (!json_is_object(soak))
        return;
    json_object_set_new(f, "soak_runs", fc_figure_or_null(json_object_get(soak, "runs")));
    json_object_set_new(f, "soak_windows", json_integer(
        (json_int_t)json_array_size(json_object_get(soak, "windows"))));
    json_object_set_new(f, "drift_pct", fc_figure_or_null(json_object_get(soak, "drift_pct")));
    /* the intermittent condition, where an older stage judged it */
    if (json_is_number(json_object_get(soak, "intermittent_pct")))
        json_object_set_new(f, "intermittent_pct",
                            json_deep_copy(json_object_get(soak, "intermittent_pct")));
    json_object_set_new(f, "max_drift_pct", fc_figure_limit(soak, "max_drift_pct"));
    /* the drift rule's noise floor, the tolerance it judged against and
     * what confirmed or contradicted a drift, where the stage wrote them */
    if (json_object_get(soak, "drift_rule")) {
        json_t *c = json_object_get(soak, "confirmation");

        json_object_set_new(f, "noise_floor_pct",
                            fc_figure_or_null(json_object_get(soak, "noise_floor_pct")));
        json_object_set_new(f, "drift_tolerance_pct",
                            fc_figure_or_null(json_object_get(soak, "tolerance_pct")));
        json_object_set_new(f, "drift_confirmation", json_is_object(c) ? json_pack(
            "{s:s, s:o, s:o}", "outcome", fc_json_str(c, "outcome"),
            "first_drift_pct", fc_figure_or_null(json_object_get(json_object_get(
                c, "first"), "drift_pct")),
            "last_drift_pct", fc_figure_or_null(json_object_get(json_object_get(
                c, "last"), "drift_pct"))) : json_null());
        json_object_set_new(f, "soak_extended_s",
                            fc_figure_or_null(json_object_get(soak, "extended_s")));
    }
}

void fc_figure_soak_counters(json_t *rec, json_t *f)
{
    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    json_object_set_new(f, "counter_deltas", fc_figure_or_null(json_object_get(rec, "links")));
    json_object_set_new(f, "max_error_delta",
                        fc_figure_or_null(json_object_get(rec, "max_error_delta")));
}

/* A GPU over the soak: which one, the burn's figures per kind (TFLOPS,
 * GEMMs, the digest every chunk and GPU of its kind must share) and the
 * health readings' judgement (windows judged, the failing counters). */
void fc_figure_soak_gpu(json_t *rec, json_t *f)
{
    json_t *burn = json_object_get(rec, "burn"), *health = json_object_get(rec, "health");
    json_t *kinds = json_object(), *k;
    const char *name;

    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    json_object_set_new(f, "gpu", fc_figure_or_null(json_object_get(rec, "device")));
    json_object_set_new(f, "model", fc_figure_or_null(json_object_get(rec, "gpu")));
    json_object_set_new(f, "uuid", fc_figure_or_null(json_object_get(rec, "uuid")));
    json_object_set_new(f, "pci_bus_id", fc_figure_or_null(json_object_get(rec, "pci_bus_id")));
    json_object_foreach(json_object_get(burn, "kinds"), name, k)
        json_object_set_new(kinds, name, json_pack(
            "{s:o, s:o, s:o, s:o, s:o, s:o}", "tflops_median",
            fc_figure_or_null(json_object_get(k, "tflops_median")), "iterations",
            fc_figure_or_null(json_object_get(k, "iterations")), "chunks",
            fc_figure_or_null(json_object_get(k, "chunks")), "digest",
            fc_figure_or_null(json_object_get(k, "digest")), "mismatched_iterations",
            fc_figure_or_null(json_object_get(k, "mismatched_iterations")), "verdict",
            fc_figure_or_null(json_object_get(k, "verdict"))));
    json_object_set_new(f, "burn", kinds);
    json_object_set_new(f, "burn_not_run", fc_figure_or_null(json_object_get(burn, "why")));
    json_object_set_new(f, "health_windows_judged",
                        fc_figure_or_null(json_object_get(health, "windows_judged")));
    json_object_set_new(f, "health_not_read", fc_figure_or_null(json_object_get(health, "why")));
    json_object_set_new(f, "evidence", fc_figure_or_null(json_object_get(rec, "evidence")));
}

/* ---- HTML cells ---------------------------------------------------------- */

/* A soak point's runs and windows, the time past its duration, its drift
 * against its tolerance, and what confirmed or contradicted a drift. */
void fc_cell_soak_drift(FILE *f, json_t *soak)
{
    if (!json_is_object(soak))
        return;
    fprintf(f, "; %lld runs in %zu windows",
            (long long)json_integer_value(json_object_get(soak, "runs")),
            json_array_size(json_object_get(soak, "windows")));
    if (json_is_number(json_object_get(soak, "extended_s")) &&
        json_number_value(json_object_get(soak, "extended_s")) > 0 &&
        (long long)json_array_size(json_object_get(soak, "windows")) >
        (long long)json_integer_value(json_object_get(soak, "nominal_windows")))
        fprintf(f, " (%.1f s past its duration: %lld window(s) to settle the drift)",
                json_number_value(json_object_get(soak, "extended_s")),
                (long long)json_array_size(json_object_get(soak, "windows")) -
                (long long)json_integer_value(json_object_get(soak, "nominal_windows")));
    if (json_is_number(json_object_get(soak, "drift_pct")) &&
        json_is_number(json_object_get(soak, "tolerance_pct")))
        fprintf(f, ", drift %.1f%% (tolerance %.1f%%: limit %.1f%%, the windows' noise "
                "floor %.1f%%%s)", json_number_value(json_object_get(soak, "drift_pct")),
                json_number_value(json_object_get(soak, "tolerance_pct")),
                json_number_value(json_object_get(soak, "max_drift_pct")),
                json_number_value(json_object_get(soak, "noise_floor_pct")),
                json_is_true(json_object_get(soak, "tolerance_widened"))
                ? ", wider than the limit" : "");
    else if (json_is_number(json_object_get(soak, "drift_pct")))
        fprintf(f, ", drift %.1f%% (limit %.1f%%)",
                json_number_value(json_object_get(soak, "drift_pct")),
                json_number_value(json_object_get(soak, "max_drift_pct")));
    if (json_is_object(json_object_get(soak, "confirmation"))) {
        json_t *c = json_object_get(soak, "confirmation");
        json_t *first = json_object_get(c, "first"), *last = json_object_get(c, "last");

        fprintf(f, "; a drift seen ");
        if (json_is_object(first))
            fprintf(f, "over %lld windows (%.1f%%) ",
                    (long long)json_integer_value(json_object_get(first, "windows")),
                    json_number_value(json_object_get(first, "drift_pct")));
        fprintf(f, "was ");
        fc_html_escape(f, fc_json_str(c, "outcome"));
        fprintf(f, " over %lld (%.1f%%)",
                (long long)json_integer_value(json_object_get(last, "windows")),
                json_number_value(json_object_get(last, "drift_pct")));
    }
    if (json_is_number(json_object_get(soak, "intermittent_pct")))
        fprintf(f, ", intermittent %.1f%% (the slowest %lld windows)",
                json_number_value(json_object_get(soak, "intermittent_pct")),
                (long long)json_integer_value(json_object_get(soak,
                                                              "intermittent_windows")));
}

void fc_cell_soak_counters(FILE *f, json_t *rec)
{
    json_t *links = json_object_get(rec, "links"), *c, *cv;
    const char *link, *name;
    int moved = 0;

    json_object_foreach(links, link, c)
        json_object_foreach(c, name, cv)
            if (json_integer_value(cv) != 0) {
                fprintf(f, "%s", moved++ ? "; " : "");
                fc_html_escape(f, link);
                fprintf(f, " %s %+lld", name, (long long)json_integer_value(cv));
            }
    if (!moved)
        fprintf(f, "no counter of %zu link(s) moved", json_object_size(links));
}

void fc_cell_soak_gpu(FILE *f, json_t *rec)
{
    json_t *burn = json_object_get(rec, "burn"), *health = json_object_get(rec, "health"), *k;
    const char *name;
    size_t i;
    int n = 0;

    json_object_foreach(json_object_get(burn, "kinds"), name, k)
        fprintf(f, "%s%s %.4g TFLOPS (%lld GEMMs, %s)", n++ ? ", " : "burn: ", name,
                json_number_value(json_object_get(k, "tflops_median")),
                (long long)json_integer_value(json_object_get(k, "iterations")),
                fc_json_str(k, "verdict"));
    if (n == 0) {
        fprintf(f, "no burn");
        if (json_is_string(json_object_get(burn, "why"))) {
            fprintf(f, " (");
            fc_html_escape(f, fc_json_str(burn, "why"));
            fprintf(f, ")");
        }
    }
    if (!json_is_true(json_object_get(health, "read"))) {
        fprintf(f, "; health not read (");
        fc_html_escape(f, fc_json_str(health, "why"));
        fprintf(f, ")");
        return;
    }
    fprintf(f, "; health read in %lld window(s)",
            (long long)json_integer_value(json_object_get(health, "windows_judged")));
    json_array_foreach(json_object_get(rec, "evidence"), i, k)
        if (json_is_string(json_object_get(k, "counter")) && json_object_get(k, "after")) {
            fprintf(f, "; ");
            fc_html_escape(f, fc_json_str(k, "counter"));
            fprintf(f, " %lld to %lld", (long long)json_integer_value(json_object_get(k, "before")),
                    (long long)json_integer_value(json_object_get(k, "after")));
            if (json_is_integer(json_object_get(k, "window")))
                fprintf(f, " in window %lld",
                        (long long)json_integer_value(json_object_get(k, "window")));
        }
}

/* ---- rules --------------------------------------------------------------- */

/* A soak point's drift rule: judged when the soak had enough windows,
 * else not applied (the stage may say so itself in its notes); the
 * tolerance named where the windows' noise floor widened the limit. */
void fc_rules_soak_drift(json_t *lines, json_t *soak, json_t *notes)
{
    double max = json_number_value(json_object_get(soak, "max_drift_pct"));
    size_t nw = json_array_size(json_object_get(soak, "windows"));
    int judged = json_is_number(json_object_get(soak, "drift_pct"));

    if (!json_is_object(soak) || max < 0 || fc_rule_note(notes, "drift"))
        return;
    if (judged && json_is_true(json_object_get(soak, "tolerance_widened")))
        fc_rule_add(lines, 1, "drift <= %.4g%% (max_drift_pct %.4g%% widened to the windows' "
                    "noise floor, over %zu windows)",
                    json_number_value(json_object_get(soak, "tolerance_pct")), max, nw);
    else if (judged && nw >= 2)
        fc_rule_add(lines, 1, "drift <= %.4g%% (max_drift_pct, over %zu windows)", max, nw);
    else if (json_object_get(soak, "drift_rule"))
        fc_rule_add(lines, 0, "drift <= %.4g%%: %zu window(s), and drift is judged from "
                    "twice confirm_windows", max, nw);
    else
        fc_rule_add(lines, 0, "drift <= %.4g%%: %zu window(s), and drift is judged between "
                    "two or more", max, nw);
}

void fc_rules_soak_counters(json_t *rec, json_t *lines)
{
    if (json_is_number(json_object_get(rec, "max_error_delta")))
        fc_rule_add(lines, 1, "error counters rise by at most %.0f (max_error_delta)",
                    json_number_value(json_object_get(rec, "max_error_delta")));
}

/* The limits a GPU's health was judged by (the plugin's defaults), and the
 * burn's rule. */
void fc_rules_soak_gpu(json_t *rec, json_t *lines)
{
    json_t *l = json_object_get(json_object_get(rec, "health"), "limits");
    const char *asked = fc_json_str(json_object_get(rec, "burn"), "asked");

    if (json_is_object(l)) {
        fc_rule_add(lines, 1, "per window: uncorrectable ECC errors rise by at most %.0f, "
                    "retired pages and rows remapped for them by at most %.0f, NVLink error "
                    "counters by at most %.0f per link; clocks held down by a thermal limit "
                    "at most %.0f ms; no hardware or thermal slowdown active at a window's "
                    "end%s", json_number_value(json_object_get(l, "max_ecc_uncorrected_delta")),
                    json_number_value(json_object_get(l, "max_retired_pages_delta")),
                    json_number_value(json_object_get(l, "max_nvlink_error_delta")),
                    json_number_value(json_object_get(l, "max_thermal_violation_ms")),
                    json_number_value(json_object_get(l, "max_power_violation_ms")) < 0
                        ? " (the time held at the power cap is reported: a GPU at full load "
                          "holds it by design)" : "");
    }
    if (asked[0] && strcmp(asked, "none") != 0)
        fc_rule_add(lines, 1, "burn %s: every GEMM's C equal to its chunk's first, every "
                    "chunk's to the first, and to the other GPUs' of the same model, SM "
                    "count and algorithm", asked);
    else
        fc_rule_add(lines, 0, "no GPU burn (soak.gpu_burn: none)");
}

/* ---- limits -------------------------------------------------------------- */

/* A soak point's drift. A record that carries its rule (drift_rule) is
 * judged again from its own windows by the stage's rule (lib/soak/fc_drift.h):
 * a drift above its tolerance, the larger of max_drift_pct and the noise
 * floor of those windows (a record cannot widen it by claiming a larger
 * floor), or a drift_pct it states above that tolerance. An older record:
 * its sustained and intermittent drift against max_drift_pct. */
int fc_soak_drift_fails(json_t *soak, char *why, size_t len)
{
    double lim = fc_rule_num(soak, "max_drift_pct");
    json_t *wins = json_object_get(soak, "windows"), *w;
    fc_drift_t d;
    double *m;
    size_t i;
    int k;

    if (!json_is_object(soak) || lim < 0)
        return 0;
    if (json_object_get(soak, "drift_rule") == NULL) {
        if (fc_rule_num(soak, "drift_pct") > lim) {
            snprintf(why, len, "sustained drift %.1f%% is above max_drift_pct %g",
                     fc_rule_num(soak, "drift_pct"), lim);
            return 1;
        }
        if (fc_rule_num(soak, "intermittent_pct") > lim) {
            snprintf(why, len, "intermittent drift %.1f%% is above max_drift_pct %g",
                     fc_rule_num(soak, "intermittent_pct"), lim);
            return 1;
        }
        return 0;
    }
    k = fc_rule_num(soak, "confirm_windows") >= 1 ? (int)fc_rule_num(soak, "confirm_windows")
                                                  : 2;
    m = fc_xcalloc(json_array_size(wins) + 1, sizeof(*m), "a soak record's windows");
    json_array_foreach(wins, i, w)
        m[i] = fc_rule_num(w, "median_us") / 1e6;
    fc_drift_judge(m, (int)json_array_size(wins), k, lim, &d);
    free(m);
    if (fc_drift_seen(&d)) {
        snprintf(why, len, "its windows show a drift of %.1f%% (windows %d to %d against "
                 "%d to %d), above its tolerance %.1f%% (max_drift_pct %g, the windows' "
                 "noise floor %.1f%%)", d.drift_pct, d.from, d.n - 1, d.base_from,
                 d.base_from + k - 1, d.tolerance_pct, lim, d.floor_pct);
        return 1;
    }
    if (fc_rule_num(soak, "drift_pct") > d.tolerance_pct) {
        snprintf(why, len, "drift %.1f%% is above its tolerance %.1f%% (max_drift_pct %g, "
                 "the windows' noise floor %.1f%%)", fc_rule_num(soak, "drift_pct"),
                 d.tolerance_pct, lim, d.floor_pct);
        return 1;
    }
    return 0;
}
