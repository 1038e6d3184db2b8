/*
 * fc_soak_gpu_record.c - rank 0's half of the soak's GPU side: every
 * GPU's summary (its burn's figures, its health judged window by window
 * and over the whole soak) becomes one soak_gpu record and one TAP point.
 * The burn's digests are compared across GPUs here: cuBLAS gives the same
 * bits only on the same model, SM count, toolkit and algorithm, so GPUs
 * are compared within those groups, and a GPU whose C differs from what a
 * strict majority of its group computed fails; with no majority (two
 * GPUs that disagree) every GPU of the group fails, since nothing says
 * which one is wrong. The verdict is the worst finding: FAIL for what a
 * healthy GPU does not do, INCOMPLETE for what could not be seen (no
 * health reading, a burn that did not run), PASS only when the burn ran
 * and every reading was judged.
 */
#include <stdio.h>
#include <string.h>

#include "fc_log.h"
#include "fc_soak_gpu_int.h"

json_t *fc_soak_gpu_limits_json(const fc_gpu_health_limits_t *l)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I}",
                     "max_ecc_uncorrected_delta", l->max_ecc_uncorrected_delta,
                     "max_ecc_corrected_delta", l->max_ecc_corrected_delta,
                     "max_retired_pages_delta", l->max_retired_pages_delta,
                     "max_nvlink_error_delta", l->max_nvlink_error_delta,
                     "max_thermal_violation_ms", l->max_thermal_violation_ms,
                     "max_power_violation_ms", l->max_power_violation_ms,
                     "max_temperature_c", l->max_temperature_c,
                     "fail_reasons_mask", (json_int_t)l->fail_reasons);
}

/* What one GPU's record is built from. */
typedef struct fc_gpu_findings {
    json_t *fail, *other, *evidence;
    char label[192];        /* "GPU 3 (GPU-...) of host h", for the reasons */
} fc_gpu_findings_t;

/* The group a GPU's burn of `kind` is compared in. */
static void fc_burn_group(const json_t *s, const char *kind, char *buf, size_t len)
{
    const json_t *dev = json_object_get(s, "device");
    const json_t *k = json_object_get(json_object_get(json_object_get(s, "burn"), "kinds"),
                                      kind);

    snprintf(buf, len, "%s|%lld|%lld|%s", fc_json_str_or(dev, "gpu", "?"),
             (long long)json_integer_value(json_object_get(dev, "sm_count")),
             (long long)json_integer_value(json_object_get(k, "n")),
             fc_json_str_or(k, "algo", "?"));
}

static const char *fc_burn_digest(const json_t *s, const char *kind)
{
    return fc_json_str_or(json_object_get(json_object_get(json_object_get(s, "burn"), "kinds"),
                                          kind), "digest", NULL);
}

/* GPU r's burn of kind against its group's: a reason when it differs from
 * a strict majority, or when the group has none. */
static void fc_burn_peers(json_t *all, size_t r, const char *kind, fc_gpu_findings_t *f)
{
    const json_t *s = json_array_get(all, r);
    const char *mine = fc_burn_digest(s, kind);
    char group[512], other[512];
    size_t n = 0, same = 0, i;
    json_t *o;

    if (mine == NULL)
        return;
    fc_burn_group(s, kind, group, sizeof(group));
    json_array_foreach(all, i, o) {
        const char *d = fc_burn_digest(o, kind);

        fc_burn_group(o, kind, other, sizeof(other));
        if (d == NULL || strcmp(group, other) != 0)
            continue;
        ++n;
        same += strcmp(d, mine) == 0;
    }
    if (n < 2 || same == n || 2 * same > n)
        return;
    {
        char text[512];

        snprintf(text, sizeof(text), "%s: burn %s: its C (digest %s) differs from %s of "
                 "the %zu GPUs of its model, SM count and algorithm in this soak, which "
                 "computed the same inputs", f->label, kind, mine,
                 2 * (n - same) > n ? "what most" : "what the others", n);
        json_array_append_new(f->fail, json_string(text));
        json_array_append_new(f->evidence, json_pack("{s:s, s:s, s:s, s:i, s:i}", "part", "gpu",
                              "counter", "burn_digest", "digest", mine, "agreeing",
                              (int)same, "gpus", (int)n));
    }
}

/* The burn's findings of one GPU. */
static void fc_burn_findings(json_t *all, size_t r, fc_gpu_findings_t *f)
{
    const json_t *burn = json_object_get(json_array_get(all, r), "burn");
    const json_t *kinds = json_object_get(burn, "kinds");
    const char *asked = fc_json_str_or(burn, "asked", "none"), *why;
    char list[64], *save = NULL, *w, text[640];

    if (strcmp(asked, "none") == 0)
        return;
    if ((why = fc_json_str_or(burn, "why", NULL)) != NULL) {
        snprintf(text, sizeof(text), "%s: the GPU burn beside the collectives did not run "
                 "throughout: %s", f->label, why);
        json_array_append_new(f->other, json_string(text));
    }
    snprintf(list, sizeof(list), "%s", asked);
    for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        const json_t *k = json_object_get(kinds, w), *bad;

        if (k == NULL) {
            if (why == NULL) {
                snprintf(text, sizeof(text), "%s: burn %s: no chunk of it ran during the soak",
                         f->label, w);
                json_array_append_new(f->other, json_string(text));
            }
            continue;
        }
        bad = json_object_get(k, "first_bad");
        if (strcmp(fc_json_str_or(k, "verdict", ""), "PASS") != 0) {
            snprintf(text, sizeof(text), "%s: burn %s: %lld of %lld GEMM results differed "
                     "from their chunk's first, and %lld of %lld chunks from the first chunk "
                     "(%s, chunk %lld): the GPU computed the same inputs differently",
                     f->label, w, (long long)json_integer_value(json_object_get(k, "mismatched_iterations")),
                     (long long)json_integer_value(json_object_get(k, "iterations")),
                     (long long)json_integer_value(json_object_get(k, "chunks_differing")),
                     (long long)json_integer_value(json_object_get(k, "chunks")),
                     fc_json_str_or(bad, "why", "fewer than 2 GEMMs"),
                     (long long)json_integer_value(json_object_get(bad, "chunk")));
            json_array_append_new(f->fail, json_string(text));
            json_array_append_new(f->evidence, json_pack("{s:s, s:s, s:s, s:O}", "part", "gpu",
                                  "counter", "burn_mismatch", "kind", w, "first_bad", bad));
        }
        fc_burn_peers(all, r, w, f);
    }
}

/* The health findings of one GPU: each window not PASS, and the whole
 * soak's where no window failed (a limit above 0 a rise spread over
 * windows crossed). */
static void fc_health_findings(const json_t *health, fc_gpu_findings_t *f)
{
    const json_t *j, *whole = json_object_get(health, "whole");
    int window_failed = 0, window_other = 0;
    size_t i, k;
    char text[800];

    if (!json_is_true(json_object_get(health, "read"))) {
        snprintf(text, sizeof(text), "%s: %s", f->label,
                 fc_json_str_or(health, "why", "GPU health not read"));
        json_array_append_new(f->other, json_string(text));
        return;
    }
    json_array_foreach(json_object_get(health, "windows"), i, j) {
        int fail = strcmp(fc_json_str_or(j, "verdict", ""), "FAIL") == 0;
        const json_t *reason, *e;

        window_failed |= fail;
        window_other |= !fail;
        json_array_foreach(json_object_get(j, "reasons"), k, reason) {
            snprintf(text, sizeof(text), "soak window %lld: %s",
                     (long long)json_integer_value(json_object_get(j, "window")),
                     json_string_value(reason));
            json_array_append_new(fail ? f->fail : f->other, json_string(text));
        }
        json_array_foreach(json_object_get(j, "evidence"), k, e) {
            json_t *c = json_deep_copy(e);

            json_object_set(c, "window", json_object_get(j, "window"));
            json_array_append_new(f->evidence, c);
        }
    }
    if (strcmp(fc_json_str_or(whole, "verdict", "PASS"), "PASS") == 0 ||
        (window_failed && window_other))
        return;
    if (strcmp(fc_json_str_or(whole, "verdict", ""), "FAIL") == 0 && window_failed)
        return;
    json_array_foreach(json_object_get(whole, "reasons"), k, j) {
        snprintf(text, sizeof(text), "over the whole soak: %s", json_string_value(j));
        json_array_append_new(strcmp(fc_json_str_or(whole, "verdict", ""), "FAIL") == 0
                              ? f->fail : f->other, json_string(text));
    }
    json_array_foreach(json_object_get(whole, "evidence"), k, j)
        json_array_append(f->evidence, (json_t *)j);
}

/* "bf16 312.4, fp64 51.0 TFLOPS" (median over chunks) */
static void fc_burn_figures(const json_t *burn, char *buf, size_t len)
{
    const char *name;
    json_t *k;
    size_t at = 0;

    buf[0] = '\0';
    json_object_foreach((json_t *)json_object_get(burn, "kinds"), name, k)
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s %.3g", at ? ", " : "", name,
                                   json_real_value(json_object_get(k, "tflops_median")));
    if (at && at < len)
        snprintf(buf + at, len - at, " TFLOPS (median over the burn's chunks)");
}

static void fc_soak_gpu_record(fc_stage_ctx_t *ctx, json_t *all, size_t r)
{
    const json_t *s = json_array_get(all, r), *dev = json_object_get(s, "device");
    int rank = (int)json_integer_value(json_object_get(s, "rank"));
    const char *host = ctx->rank_hosts[rank], *rack = ctx->inv.racks[ctx->rank_racks[rank]];
    fc_gpu_findings_t f = { json_array(), json_array(), json_array(), "" };
    json_t *rec = fc_stage_record(ctx, "soak_gpu"), *reasons = json_array();
    const char *verdict;
    char figures[256];
    int pass;

    snprintf(f.label, sizeof(f.label), "GPU %lld (%s) of host %s",
             (long long)json_integer_value(json_object_get(dev, "device")),
             fc_json_str_or(dev, "uuid", "no UUID"), host);
    fc_health_findings(json_object_get(s, "health"), &f);
    fc_burn_findings(all, r, &f);
    verdict = json_array_size(f.fail) ? "FAIL" : json_array_size(f.other) ? "INCOMPLETE" : "PASS";
    pass = strcmp(verdict, "PASS") == 0;
    json_array_extend(reasons, f.fail);
    json_array_extend(reasons, f.other);
    json_object_set_new(rec, "host", json_string(host));
    json_object_set_new(rec, "rack", json_string(rack));
    json_object_set_new(rec, "rank", json_integer(rank));
    json_object_set(rec, "device", json_object_get(dev, "device"));
    json_object_set(rec, "gpu", json_object_get(dev, "gpu"));
    json_object_set(rec, "uuid", json_object_get(dev, "uuid"));
    json_object_set(rec, "pci_bus_id", json_object_get(dev, "pci_bus_id"));
    json_object_set(rec, "burn", json_object_get(s, "burn"));
    json_object_set(rec, "health", json_object_get(s, "health"));
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "evidence", f.evidence);
    json_object_set_new(rec, "verdict", json_string(verdict));
    json_object_set_new(rec, "implicates", strcmp(verdict, "FAIL") != 0 ? json_null() :
                        json_pack("{s:s, s:s, s:s, s:O?, s:O?, s:b}", "part", "gpu", "host",
                                  host, "rack", rack, "gpu", json_object_get(dev, "device"),
                                  "uuid", json_object_get(dev, "uuid"), "quarantine", 1));
    fc_burn_figures(json_object_get(s, "burn"), figures, sizeof(figures));
    if (figures[0])
        fc_tap_diag(&ctx->tap, "GPU %lld of host %s: burn %s", (long long)json_integer_value(
                        json_object_get(dev, "device")), host, figures);
    if (!pass)
        fc_stage_count_not_pass(ctx, rec);
    fc_tap_point(&ctx->tap, pass ? FC_OK : FC_ERR_FAIL, "GPU %lld (%s) of host %s over the "
                 "soak: burn and health%s%s", (long long)json_integer_value(
                     json_object_get(dev, "device")), fc_json_str_or(dev, "uuid", "no UUID"),
                 host, pass ? "" : ": ", pass ? "" : json_string_value(
                     json_array_get(json_object_get(rec, "reasons"), 0)));
    fc_results_append(&ctx->results, rec);
    json_decref(f.fail);
    json_decref(f.other);
}

void fc_soak_gpu_records(fc_stage_ctx_t *ctx, json_t *all)
{
    for (size_t r = 0; r < json_array_size(all); ++r)
        if (json_is_object(json_array_get(all, r)))
            fc_soak_gpu_record(ctx, all, r);
}
