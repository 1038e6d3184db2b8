/*
 * fc_verdict_retest.c - see fc_verdict_retest.h. The runner launches the
 * retest right after the stage's attempt, so the retest records of that
 * attempt sit after its checks and before the stage's next stage_start.
 */
#include "fc_verdict_retest.h"

#include <string.h>

#include "fc_verdict.h"

static int fc_pending(json_t *rec)
{
    json_t *imp = json_object_get(rec, "implicates");

    return json_is_object(imp) && json_is_false(json_object_get(imp, "localised"));
}

/* The kind of fault a pending record or a retest record is about. */
static const char *fc_kind(json_t *obj)
{
    return fc_json_str(obj, "kind")[0] ? fc_json_str(obj, "kind") : "wrong";
}

int fc_retest_supersedes(json_t *records, size_t at)
{
    json_t *rec = json_array_get(records, at), *imp = json_object_get(rec, "implicates");
    const char *stage = fc_json_str(rec, "stage"), *group = fc_json_str(imp, "group");
    const char *kind = fc_kind(imp);

    if (!fc_pending(rec))
        return 0;
    for (size_t i = at + 1; i < json_array_size(records); ++i) {
        json_t *r = json_array_get(records, i);
        const char *type = fc_json_str(r, "type");

        if (strcmp(fc_json_str(r, "stage"), stage) != 0)
            continue;
        if (strcmp(type, "stage_start") == 0)
            return 0;
        if (strcmp(type, "retest") == 0 && strcmp(fc_json_str(r, "group"), group) == 0 &&
            strcmp(fc_kind(r), kind) == 0)
            return 1;
    }
    return 0;
}

int fc_retest_concerns(json_t *rec, const char *rack)
{
    size_t i;
    json_t *v;

    if (strcmp(fc_json_str(rec, "rack"), rack) == 0)
        return 1;
    json_array_foreach(json_object_get(rec, "racks"), i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), rack) == 0)
            return 1;
    return 0;
}

void fc_retest_figure(json_t *rec, json_t *f)
{
    static const char *const keys[] = {
        "group", "group_hosts", "localised", "culprit", "observed", "ranks", "hosts",
        "bytes", "iterations", "exchanges_checked", "exchanges_wrong", "exchanges",
    };

    static const char *const slow_keys[] = {
        "kind", "method", "collective", "all_median_us", "leave_one_out",
        "exchange_lower_quartile_us", "exchanges_slow", "exchanges_timed", "slow_factor",
    };
    int slow = strcmp(fc_kind(rec), "slow") == 0;

    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); ++k) {
        json_t *v = json_object_get(rec, keys[k]);

        json_object_set_new(f, keys[k], v ? json_deep_copy(v) : json_null());
    }
    for (size_t k = 0; slow && k < sizeof(slow_keys) / sizeof(slow_keys[0]); ++k) {
        json_t *v = json_object_get(rec, slow_keys[k]);

        json_object_set_new(f, slow_keys[k], v ? json_deep_copy(v) : json_null());
    }
}
