/*
 * fc_gpu_health.c - the judge of fc_gpu_health.h: two NVML snapshots of a
 * node's GPUs compared GPU by GPU (matched by UUID, so a renumbering
 * cannot pair the wrong ones) and counter by counter. Every finding keeps
 * its evidence (GPU, counter, both values, the limit) and the verdict is
 * the worst of them, as lib/counters/fc_counters_judge.c does for network links:
 * FAIL for what a healthy GPU does not do, INCOMPLETE for what could not
 * be seen, PASS only when something was compared and none of that
 * happened. Pure JSON: no NVML here, so it is tested on any machine.
 */
#include "fc_gpu_health.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    unsigned long long bit;
    const char *name;
} fc_reasons[] = {
    { FC_NVML_REASON_GPU_IDLE, "gpu_idle" },
    { FC_NVML_REASON_APP_CLOCKS, "applications_clocks_setting" },
    { FC_NVML_REASON_SW_POWER_CAP, "sw_power_cap" },
    { FC_NVML_REASON_HW_SLOWDOWN, "hw_slowdown" },
    { FC_NVML_REASON_SYNC_BOOST, "sync_boost" },
    { FC_NVML_REASON_SW_THERMAL, "sw_thermal_slowdown" },
    { FC_NVML_REASON_HW_THERMAL, "hw_thermal_slowdown" },
    { FC_NVML_REASON_HW_POWER_BRAKE, "hw_power_brake_slowdown" },
    { FC_NVML_REASON_DISPLAY_CLOCKS, "display_clock_setting" },
};

const char *fc_gpu_reason_name(unsigned long long bit)
{
    for (size_t k = 0; k < sizeof(fc_reasons) / sizeof(fc_reasons[0]); ++k)
        if (fc_reasons[k].bit == bit)
            return fc_reasons[k].name;
    return NULL;
}

void fc_gpu_health_limits_default(fc_gpu_health_limits_t *l)
{
    l->max_ecc_uncorrected_delta = 0;
    l->max_ecc_corrected_delta = -1;
    l->max_retired_pages_delta = 0;
    l->max_nvlink_error_delta = 0;
    l->max_thermal_violation_ms = 0;
    l->max_power_violation_ms = -1;
    l->max_temperature_c = -1;
    l->fail_reasons = FC_NVML_REASON_HW_SLOWDOWN | FC_NVML_REASON_HW_THERMAL |
                      FC_NVML_REASON_HW_POWER_BRAKE | FC_NVML_REASON_SW_THERMAL;
}

typedef enum { FC_LIM_ECC_UNC, FC_LIM_ECC_COR, FC_LIM_PAGES, FC_LIM_THERMAL,
               FC_LIM_POWER, FC_LIM_NONE } fc_limit_kind_t;

/* Each counter: which limit judges its rise, and what a rise means. */
static const struct {
    const char *name;
    fc_limit_kind_t limit;
    const char *meaning;
} fc_counters[] = {
    { "ecc_volatile_uncorrected", FC_LIM_ECC_UNC, "uncorrectable ECC errors" },
    { "ecc_aggregate_uncorrected", FC_LIM_ECC_UNC, "uncorrectable ECC errors (lifetime)" },
    { "ecc_volatile_corrected", FC_LIM_ECC_COR, "corrected ECC errors" },
    { "ecc_aggregate_corrected", FC_LIM_ECC_COR, "corrected ECC errors (lifetime)" },
    { "retired_pages_sbe", FC_LIM_PAGES, "pages retired for repeated corrected errors" },
    { "retired_pages_dbe", FC_LIM_PAGES, "pages retired for an uncorrectable error" },
    { "remapped_rows_uncorrected", FC_LIM_PAGES, "rows remapped for uncorrectable errors" },
    { "remapped_rows_corrected", FC_LIM_NONE, "rows remapped for corrected errors" },
    { "violation_thermal_ns", FC_LIM_THERMAL, "clocks held down by a thermal limit" },
    { "violation_power_ns", FC_LIM_POWER, "clocks held down by the power limit" },
};

/* The comparison so far. */
typedef struct fc_health_judgement {
    json_t *out, *fail, *other, *evidence;
    const char *host;
} fc_health_judgement_t;

__attribute__((format(printf, 3, 4)))
static void fc_health_note(fc_health_judgement_t *j, const char *uuid, const char *fmt, ...)
{
    char buf[640];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(uuid ? j->fail : j->other, json_string(buf));
    if (uuid && json_is_null(json_object_get(j->out, "gpu")))
        json_object_set_new(j->out, "gpu", json_string(uuid));
}

static void fc_health_evidence(fc_health_judgement_t *j, const json_t *gpu, const char *link,
                               const char *counter, json_int_t b, json_int_t a, double limit)
{
    json_t *e = json_pack("{s:s?, s:O?, s:O?, s:s, s:s, s:I, s:I, s:f}",
                          "gpu", json_string_value(json_object_get(gpu, "uuid")),
                          "index", json_object_get(gpu, "index"),
                          "pci_bus_id", json_object_get(gpu, "pci_bus_id"),
                          "part", link ? "nvlink" : "gpu", "counter", counter,
                          "before", b, "after", a, "limit", limit);

    if (link)
        json_object_set_new(e, "link", json_string(link));
    json_array_append_new(j->evidence, e);
}

static double fc_limit_of(const fc_gpu_health_limits_t *l, fc_limit_kind_t k)
{
    switch (k) {
    case FC_LIM_ECC_UNC: return l->max_ecc_uncorrected_delta;
    case FC_LIM_ECC_COR: return l->max_ecc_corrected_delta;
    case FC_LIM_PAGES: return l->max_retired_pages_delta;
    case FC_LIM_THERMAL: return l->max_thermal_violation_ms < 0 ? -1 : l->max_thermal_violation_ms * 1e6;
    case FC_LIM_POWER: return l->max_power_violation_ms < 0 ? -1 : l->max_power_violation_ms * 1e6;
    default: return -1;
    }
}

/* "GPU 3 (GPU-1234..., 0000:18:00.0) of host h" */
static void fc_gpu_label(const json_t *gpu, const char *host, char *buf, size_t len)
{
    const json_t *index = json_object_get(gpu, "index");
    char num[24] = "";

    if (json_is_integer(index))
        snprintf(num, sizeof(num), " %lld", (long long)json_integer_value(index));
    snprintf(buf, len, "GPU%s (%s, %s) of host %s", num,
             json_string_value(json_object_get(gpu, "uuid")) ?: "no UUID",
             json_string_value(json_object_get(gpu, "pci_bus_id")) ?: "no PCI id", host);
}

/* One counter of one GPU (or of one of its links when link is set). */
static void fc_health_counter(fc_health_judgement_t *j, const json_t *gpu, const char *label,
                              const char *link, const char *name, const char *meaning,
                              const json_t *b, const json_t *a, double limit, json_t *deltas)
{
    const char *uuid = json_string_value(json_object_get(gpu, "uuid"));
    json_int_t vb = json_integer_value(b), va = json_integer_value(a);
    char where[64] = "";

    if (link)
        snprintf(where, sizeof(where), ", NVLink %s", link);
    if (!json_is_integer(a)) {
        fc_health_note(j, NULL, "%s%s: %s was read before the window and not after, so a "
                       "change cannot be seen", label, where, name);
        return;
    }
    json_object_set_new(deltas, name, json_integer(va - vb));
    if (va < vb) {
        fc_health_note(j, NULL, "%s%s: %s fell from %lld to %lld during the window: the "
                       "driver reloaded or the GPU was reset, which hides any rise",
                       label, where, name, (long long)vb, (long long)va);
        return;
    }
    if (limit >= 0 && (double)(va - vb) > limit) {
        fc_health_evidence(j, gpu, link, name, vb, va, limit);
        fc_health_note(j, uuid, "%s%s: %s rose by %lld during the window, from %lld to %lld "
                       "(%s; limit %.0f)", label, where, name, (long long)(va - vb),
                       (long long)vb, (long long)va, meaning, limit);
    }
}

static void fc_health_nvlinks(fc_health_judgement_t *j, const json_t *gb, const json_t *ga,
                              const char *label, const fc_gpu_health_limits_t *l,
                              json_t *deltas)
{
    const json_t *lb = json_object_get(gb, "nvlink"), *la = json_object_get(ga, "nvlink");
    const char *uuid = json_string_value(json_object_get(gb, "uuid"));
    json_t *links = json_object();
    const char *link;
    json_t *b;

    json_object_foreach((json_t *)lb, link, b) {
        const json_t *a = json_object_get(la, link);
        json_t *d = json_object();
        const char *name;
        json_t *vb;

        if (a == NULL) {
            fc_health_note(j, NULL, "%s: NVLink %s was read before the window and not after",
                           label, link);
            json_decref(d);
            continue;
        }
        if (json_is_string(json_object_get(b, "state")) &&
            strcmp(json_string_value(json_object_get(b, "state")), "active") == 0 &&
            !(json_is_string(json_object_get(a, "state")) &&
              strcmp(json_string_value(json_object_get(a, "state")), "active") == 0)) {
            fc_health_evidence(j, gb, link, "state", 1, 0, 0);
            fc_health_note(j, uuid, "%s: NVLink %s went down during the window (active "
                           "before, %s after)", label, link,
                           json_string_value(json_object_get(a, "state")) ?: "unreadable");
        }
        json_object_foreach(b, name, vb)
            if (json_is_integer(vb))
                fc_health_counter(j, gb, label, link, name, "NVLink errors", vb,
                                  json_object_get(a, name), l->max_nvlink_error_delta, d);
        json_object_set_new(links, link, d);
    }
    json_object_set_new(deltas, "nvlink", links);
}

/* The clocks-event reasons that fail, active at the end of the window. */
static void fc_health_reasons(fc_health_judgement_t *j, const json_t *ga, const char *label,
                              const fc_gpu_health_limits_t *l)
{
    const json_t *r = json_object_get(json_object_get(ga, "clocks_event_reasons"), "mask");
    unsigned long long mask;

    if (!json_is_integer(r))
        return;
    mask = (unsigned long long)json_integer_value(r) & l->fail_reasons;
    for (int bit = 0; bit < 64; ++bit)
        if (mask & (1ull << bit)) {
            const char *name = fc_gpu_reason_name(1ull << bit);

            fc_health_evidence(j, ga, NULL, name ? name : "clocks_event_reason", 0, 1, 0);
            fc_health_note(j, json_string_value(json_object_get(ga, "uuid")),
                           "%s: its clocks were held down by %s at the end of the window "
                           "(clocks-event reasons 0x%llx)", label, name ? name : "a reason",
                           (unsigned long long)json_integer_value(r));
        }
}

static void fc_health_gpu(fc_health_judgement_t *j, const json_t *gb, const json_t *ga,
                          const fc_gpu_health_limits_t *l, json_t *deltas_all)
{
    const char *uuid = json_string_value(json_object_get(gb, "uuid"));
    const json_t *cb = json_object_get(gb, "counters"), *ca = json_object_get(ga, "counters");
    const json_t *fa = json_object_get(ga, "flags"), *fb = json_object_get(gb, "flags");
    json_t *deltas = json_object();
    char label[256];

    fc_gpu_label(gb, j->host, label, sizeof(label));
    for (size_t k = 0; k < sizeof(fc_counters) / sizeof(fc_counters[0]); ++k) {
        const json_t *b = json_object_get(cb, fc_counters[k].name);

        if (json_is_integer(b))
            fc_health_counter(j, gb, label, NULL, fc_counters[k].name, fc_counters[k].meaning,
                              b, json_object_get(ca, fc_counters[k].name),
                              fc_limit_of(l, fc_counters[k].limit), deltas);
    }
    static const struct { const char *name, *meaning; } flags[] = {
        { "retired_pages_pending", "a memory error that needs a GPU reset to be contained" },
        { "remap_pending", "a memory error that needs a GPU reset to be contained" },
        { "remap_failure", "a memory error that needs a GPU reset to be contained" },
        { "fabric_degraded_bw", "NVML says the GPU's multi-node NVLink bandwidth is "
                                "degraded: a link or switch tray of its NVLink domain" },
        { "fabric_route_unhealthy", "NVML says a route of the GPU's NVLink fabric is "
                                    "unhealthy" },
    };
    for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); ++k)
        if (json_is_true(json_object_get(fa, flags[k].name)) &&
            !json_is_true(json_object_get(fb, flags[k].name))) {
            fc_health_evidence(j, ga, NULL, flags[k].name, 0, 1, 0);
            fc_health_note(j, uuid, "%s: %s became set during the window (%s)", label,
                           flags[k].name, flags[k].meaning);
        }
    fc_health_nvlinks(j, gb, ga, label, l, deltas);
    fc_health_reasons(j, ga, label, l);
    if (l->max_temperature_c >= 0 && json_is_integer(json_object_get(ga, "temperature_c")) &&
        (double)json_integer_value(json_object_get(ga, "temperature_c")) > l->max_temperature_c) {
        json_int_t t = json_integer_value(json_object_get(ga, "temperature_c"));

        fc_health_evidence(j, ga, NULL, "temperature_c",
                           json_integer_value(json_object_get(gb, "temperature_c")), t,
                           l->max_temperature_c);
        fc_health_note(j, uuid, "%s: %lld C at the end of the window (limit %.0f C)", label,
                       (long long)t, l->max_temperature_c);
    }
    json_object_set_new(deltas_all, uuid ? uuid : "unknown", deltas);
}

/* after's GPU with the UUID of gb, or NULL */
static const json_t *fc_health_match(const json_t *after, const json_t *gb)
{
    const char *uuid = json_string_value(json_object_get(gb, "uuid"));
    size_t i;
    json_t *ga;

    json_array_foreach(json_object_get(after, "gpus"), i, ga) {
        const char *u = json_string_value(json_object_get(ga, "uuid"));

        if (uuid && u && strcmp(u, uuid) == 0)
            return ga;
    }
    return NULL;
}

json_t *fc_gpu_health_judge(const json_t *before, const json_t *after,
                            const fc_gpu_health_limits_t *limits, const char *host)
{
    fc_health_judgement_t j = { json_object(), json_array(), json_array(), json_array(),
                                host ? host : "?" };
    fc_gpu_health_limits_t def;
    json_t *deltas = json_object(), *reasons;
    const json_t *gpus = json_object_get(before, "gpus");
    size_t i, compared = 0;
    json_t *gb;

    if (limits == NULL) {
        fc_gpu_health_limits_default(&def);
        limits = &def;
    }
    json_object_set_new(j.out, "gpu", json_null());
    json_array_foreach(gpus, i, gb) {
        const json_t *ga = fc_health_match(after, gb);
        char label[256];

        fc_gpu_label(gb, j.host, label, sizeof(label));
        if (!json_is_string(json_object_get(gb, "uuid"))) {
            fc_health_note(&j, NULL, "%s could not be read before the window (%s)", label,
                           json_string_value(json_object_get(json_object_get(gb, "not_read"),
                                                             "handle")) ?: "no UUID");
            continue;
        }
        if (ga == NULL) {
            fc_health_evidence(&j, gb, NULL, "present", 1, 0, 0);
            fc_health_note(&j, json_string_value(json_object_get(gb, "uuid")) ?: "unknown",
                           "%s is gone: NVML listed it before the window and not after "
                           "(fallen off the bus, or reset)", label);
            continue;
        }
        ++compared;
        fc_health_gpu(&j, gb, ga, limits, deltas);
    }
    if (compared == 0 && json_array_size(j.fail) == 0)
        fc_health_note(&j, NULL, "no GPU of host %s was read before the window", j.host);
    reasons = json_array();
    json_array_extend(reasons, j.fail);
    json_array_extend(reasons, j.other);
    json_object_set_new(j.out, "verdict", json_string(json_array_size(j.fail) ? "FAIL" :
                                                      json_array_size(j.other) ? "INCOMPLETE" :
                                                      "PASS"));
    json_object_set_new(j.out, "reasons", reasons);
    json_object_set_new(j.out, "evidence", j.evidence);
    json_object_set_new(j.out, "deltas", deltas);
    json_decref(j.fail);
    json_decref(j.other);
    return j.out;
}
