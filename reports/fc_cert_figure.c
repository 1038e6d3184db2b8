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
