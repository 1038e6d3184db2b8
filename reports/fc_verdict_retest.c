/*
 * fc_verdict_retest.c - see fc_verdict_retest.h. The runner launches the
 * retest right after the stage's attempt, so the retest records of that
 * attempt sit after its checks and before the stage's next stage_start.
 */
#include "fc_verdict_retest.h"

#include <string.h>

#include "fc_json.h"
#include "fc_record.h"

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
        fc_record_id_t id;

        if (strcmp(fc_json_str(r, "stage"), stage) != 0)
            continue;
        id = fc_record_id(r);
        if (id == FC_RECORD_STAGE_START)
            return 0;
        /* only a FAIL supersedes: a retest record that passes contradicts
         * itself (fc_record_contradiction) and clears nothing */
        if (id == FC_RECORD_RETEST && strcmp(fc_json_str(r, "group"), group) == 0 &&
            strcmp(fc_kind(r), kind) == 0 && strcmp(fc_json_str(r, "verdict"), "FAIL") == 0)
            return 1;
    }
    return 0;
}

/* The group a failure of a wrong result implicates, or NULL when records[at]
 * is no such failure. */
static const char *fc_wrong_group(json_t *rec)
{
    json_t *imp = json_object_get(rec, "implicates");

    if (strcmp(fc_json_str(rec, "verdict"), "FAIL") != 0)
        return NULL;
    if (fc_record_id(rec) == FC_RECORD_RETEST)
        return strcmp(fc_kind(rec), "wrong") == 0 &&
               !json_is_true(json_object_get(rec, "localised")) ? fc_json_str(rec, "group")
                                                                  : NULL;
    return fc_pending(rec) && strcmp(fc_kind(imp), "wrong") == 0 ? fc_json_str(imp, "group")
                                                                  : NULL;
}

/* Is the culprit of retest record r one of its suspects? A partner placed
 * by the retest was not in every group that saw wrong bits: what it
 * explains, it does not show. */
static int fc_culprit_suspect(json_t *r)
{
    const char *x = fc_json_str(json_object_get(r, "culprit"), "host");
    json_t *h;
    size_t i;

    json_array_foreach(json_object_get(r, "suspects"), i, h)
        if (x[0] && json_is_string(h) && strcmp(json_string_value(h), x) == 0)
            return 1;
    return 0;
}

/* Does r's own evidence hold its culprit, and is the culprit in the
 * group the failure at rec implicates? Wrong exchanges checked, each
 * with the culprit at one end (what placed it); and a host outside the
 * group cannot have spread wrong bits into its output. */
static int fc_culprit_shown(json_t *r, json_t *rec)
{
    const char *x = fc_json_str(json_object_get(r, "culprit"), "host");
    json_t *imp = json_object_get(rec, "implicates"), *e, *h;
    json_t *hosts = fc_record_id(rec) == FC_RECORD_RETEST ? json_object_get(rec, "group_hosts")
                                                          : json_object_get(imp, "hosts");
    size_t i;
    int wrong = 0, member = 0;

    json_array_foreach(json_object_get(r, "exchanges"), i, e) {
        if (strcmp(fc_json_str(e, "verdict"), "wrong") != 0)
            continue;
        if (strcmp(fc_json_str(e, "sender_host"), x) != 0 &&
            strcmp(fc_json_str(e, "receiver_host"), x) != 0)
            return 0;
        ++wrong;
    }
    json_array_foreach(hosts, i, h)
        member |= json_is_string(h) && strcmp(json_string_value(h), x) == 0;
    return wrong > 0 && member;
}

json_t *fc_retest_explained_by(json_t *records, size_t at, const char *rack)
{
    json_t *rec = json_array_get(records, at);
    const char *group = fc_wrong_group(rec), *stage = fc_json_str(rec, "stage");

    if (group == NULL)
        return NULL;
    for (size_t i = at + 1; i < json_array_size(records); ++i) {
        json_t *r = json_array_get(records, i), *g;
        size_t k;

        if (fc_record_id(r) != FC_RECORD_RETEST ||
            strcmp(fc_json_str(r, "method"), "intersection") != 0 ||
            !json_is_true(json_object_get(r, "localised")) ||
            strcmp(fc_json_str(r, "verdict"), "FAIL") != 0 || !fc_record_source_ok(r) ||
            strcmp(fc_json_str(r, "run_id"), fc_json_str(rec, "run_id")) != 0 ||
            !fc_culprit_suspect(r) || !fc_culprit_shown(r, rec) ||
            strcmp(fc_json_str(json_object_get(r, "culprit"), "rack"), rack) == 0)
            continue;
        json_array_foreach(json_object_get(r, "explains"), k, g)
            if (strcmp(fc_json_str(g, "stage"), stage) == 0 &&
                strcmp(fc_json_str(g, "group"), group) == 0)
                return r;
    }
    return NULL;
}
