/*
 * fc_cert_figure.c - see fc_cert_figure.h. The members are the stages'
 * own (lib/fc_stage.c, lib/pairs/fc_pairs_report.c, suites/, the retest in
 * lib/retest/fc_retest_records.c and lib/retest/fc_retest_slow.c, the runner's
 * runners/fc_diagnose*.c); a limit the profile did not set (absent or
 * negative) is null.
 */
#include "fc_cert_figure.h"

#include <string.h>

#include "fc_json.h"
#include "fc_sensitivity.h"

json_t *fc_figure_limit(json_t *limit, const char *key)
{
    json_t *v = json_object_get(limit, key);

    return json_is_number(v) && json_number_value(v) >= 0
               ? json_real(json_number_value(v)) : json_null();
}

json_t *fc_figure_or_null(json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

json_t *fc_figure_sensitivity(json_t *rec)
{
    json_t *own = json_object_get(rec, "sensitivity");

    return json_is_object(own) ? json_deep_copy(own) : fc_sensitivity_of(rec);
}

void fc_figure_point(json_t *rec, json_t *f)
{
    json_t *limit = json_object_get(rec, "limit");
    json_t *rel = json_object_get(rec, "relative");

    json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
    json_object_set_new(f, "bytes", fc_figure_or_null(json_object_get(rec, "bytes")));
    json_object_set_new(f, "busbw_gbps", fc_figure_or_null(json_object_get(rec, "busbw_gbps")));
    json_object_set_new(f, "time_median_us", fc_figure_or_null(
        json_object_get(json_object_get(rec, "time_us"), "median")));
    if (json_is_object(json_object_get(rec, "soak"))) {
        json_t *soak = json_object_get(rec, "soak");

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
    json_object_set_new(f, "wrong", fc_figure_or_null(json_object_get(rec, "wrong")));
    json_object_set_new(f, "min_busbw_gbps", fc_figure_limit(limit, "min_busbw_gbps"));
    json_object_set_new(f, "max_latency_us", fc_figure_limit(limit, "max_latency_us"));
    json_object_set_new(f, "peer_median_busbw_gbps",
                        fc_figure_limit(rel, "peer_median_busbw_gbps"));
    if (json_object_get(rel, "peer_median_algbw_gbps"))     /* one rank: algbw compared */
        json_object_set_new(f, "peer_median_algbw_gbps",
                            fc_figure_limit(rel, "peer_median_algbw_gbps"));
    /* which rules judged it: the peer class, and the rules that could
     * not apply with why (records from before peer classes have none) */
    if (json_object_get(rel, "class"))
        json_object_set_new(f, "peer_class", fc_figure_or_null(json_object_get(rel, "class")));
    if (json_array_size(json_object_get(rec, "rules_not_applied")) > 0)
        json_object_set_new(f, "rules_not_applied",
                            json_deep_copy(json_object_get(rec, "rules_not_applied")));
    json_object_set_new(f, "sensitivity", fc_figure_sensitivity(rec));
}

void fc_figure_contention(json_t *rec, json_t *f)
{
    json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
    json_object_set_new(f, "bytes", fc_figure_or_null(json_object_get(rec, "bytes")));
    json_object_set_new(f, "kind", json_string(fc_json_str(rec, "kind")));
    json_object_set_new(f, "clean_median_us", fc_figure_or_null(json_object_get(rec, "clean_median_us")));
    json_object_set_new(f, "loaded_median_us", fc_figure_or_null(json_object_get(rec, "loaded_median_us")));
    json_object_set_new(f, "slowdown", fc_figure_or_null(json_object_get(rec, "slowdown")));
    json_object_set_new(f, "max_slowdown", fc_figure_limit(rec, "max_slowdown"));
    json_object_set_new(f, "background", fc_figure_or_null(json_object_get(rec, "background")));
    if (json_object_get(rec, "background_hosts"))
        json_object_set_new(f, "background_hosts",
                            fc_figure_or_null(json_object_get(rec, "background_hosts")));
    if (json_object_get(rec, "measured_hosts"))
        json_object_set_new(f, "measured_hosts",
                            fc_figure_or_null(json_object_get(rec, "measured_hosts")));
    json_object_set_new(f, "wrong", fc_figure_or_null(json_object_get(rec, "wrong")));
}

void fc_figure_overlap(json_t *rec, json_t *f)
{
    static const char *const keys[] = { "bytes", "coll_alone_us", "compute_alone_us",
                                        "together_us", "overlap_pct", "wrong" };

    json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i)
        json_object_set_new(f, keys[i], fc_figure_or_null(json_object_get(rec, keys[i])));
    json_object_set_new(f, "min_overlap_pct", fc_figure_limit(rec, "min_overlap_pct"));
}

void fc_figure_scaling(json_t *rec, json_t *f)
{
    static const char *const keys[] = { "collective", "dtype", "op", "bytes", "nodes",
                                        "busbw", "peak_busbw", "prev_nodes", "prev_peak_busbw",
                                        "drop_pct",
                                        "crosses_spine", "wrong" };

    json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i)
        json_object_set_new(f, keys[i], fc_figure_or_null(json_object_get(rec, keys[i])));
    json_object_set_new(f, "max_drop_pct", fc_figure_limit(rec, "max_drop_pct"));
}

void fc_figure_soak_counters(json_t *rec, json_t *f)
{
    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    json_object_set_new(f, "counter_deltas", fc_figure_or_null(json_object_get(rec, "links")));
    json_object_set_new(f, "max_error_delta", fc_figure_or_null(json_object_get(rec, "max_error_delta")));
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
