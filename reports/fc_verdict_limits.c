/*
 * fc_verdict_limits.c - the limit each record was judged against, held to
 * the frozen profile. A record carries the limit its stage applied (a
 * point's `limit`, a pair size's `min_bw_gbps` and `limit_line`, a pair's
 * `latency_limit`, a soak point's `max_drift_pct`), and its own figures
 * are judged again against it (fc_verdict_figures.h). That limit must be
 * the one the frozen profile gives it, in its values (the line it names
 * is a reference for people): derived again with the stages' own
 * lookup (lib/profile/fc_profile.c's fc_profile_find_limit, on the requested size
 * for a point, on each size and on the latency message's 8 bytes for a
 * pair), or the record was judged against something else: INCOMPLETE,
 * naming both. Its figures are then also judged against the profile's
 * limit, and one that fails it under a PASS (with no confirmation alone
 * that cleared it) is a FAIL, as with its own limit. A record written
 * before its stage recorded a limit (a pair without `latency_limit`) is
 * judged against the profile's limit alone. Overlap records
 * (min_overlap_pct, compute_ms) and scaling records (max_drop_pct or
 * max_first_drop_pct, the floor of limits:) are held the same way, and a
 * scaling PASS also to its series: its reference count's record, in its
 * attempt, there, ending PASS and carrying the busbw it was compared with;
 * a first count not alone in its series (fc_scaling_reference).
 * A point's link counters limits (counters.limits) likewise.
 * Contention records are held to the profile's contention max_slowdown,
 * which the stage writes into each of them. A soak point with no drift
 * judged (drift_pct null) under a drift limit is INCOMPLETE, and so is a
 * multi-host PASS point (or a PASS contention record) without counters
 * of a stage that read them (its stage_start's counters_read, or another
 * of its records carrying them) under a profile that reads them.
 */
#include "fc_verdict_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_coll.h"
#include "fc_counters_check.h"
#include "fc_pairs_stage.h"
#include "fc_stages.h"
#include "fc_verdict_figures.h"

/* "min_busbw_gbps 1.5, max_latency_us 5e+06, profile line 28", or "none" */
static void fc_limit_text(double min_bw, double max_lat, long line, int present, char *buf,
                          size_t len)
{
    if (!present)
        snprintf(buf, len, "none");
    else
        snprintf(buf, len, "min %g GB/s, max %g us, profile line %ld", min_bw, max_lat, line);
}

static double fc_lnum(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_number(v) ? json_number_value(v) : -1;
}

/* The profile's limit as a record's `limit` member holds it (null: none). */
static json_t *fc_limit_json(const fc_limit_rule_t *rule)
{
    return rule ? json_pack("{s:f, s:f, s:i}", "min_busbw_gbps", rule->min_busbw_gbps,
                            "max_latency_us", rule->max_latency_us, "line", rule->line)
                : json_null();
}

/* A copy of rec with the profile's limits in place of its own, for its
 * figures to be judged against them by the same rule. */
static json_t *fc_with_profile_limits(json_t *rec, const fc_stage_profile_t *sp)
{
    json_t *copy = json_deep_copy(rec), *z;
    size_t i;

    /* its link counters' limits (fc_counters_check.h), where judged */
    if (json_is_object(json_object_get(json_object_get(copy, "counters"), "limits")))
        json_object_set_new(json_object_get(copy, "counters"), "limits",
                            fc_counters_limits_json(&sp->counters));
    if (fc_record_id(rec) == FC_RECORD_CONTENTION) {
        json_object_set_new(copy, "max_slowdown", json_real(sp->cont.max_slowdown));
        return copy;
    }
    if (fc_record_id(rec) == FC_RECORD_OVERLAP) {
        json_object_set_new(copy, "min_overlap_pct", json_real(sp->overlap.min_overlap_pct));
        json_object_set_new(copy, "compute_ms", json_real(sp->overlap.compute_ms));
        return copy;
    }
    if (fc_record_id(rec) == FC_RECORD_SCALING) {
        json_t *pn = json_object_get(rec, "prev_nodes");

        /* the first count has no step to judge; the step from one node
         * has its own limit */
        json_t *req = json_object_get(rec, "requested_bytes");

        json_object_set_new(copy, "max_drop_pct", !json_is_integer(pn) ? json_null()
                            : json_real(json_integer_value(pn) == 1
                                        ? sp->scaling.max_first_drop_pct
                                        : sp->scaling.max_drop_pct));
        /* its floor (limits:), found as the stage finds it */
        json_object_set_new(copy, "limit", fc_limit_json(fc_profile_find_limit(
            sp, fc_coll_from_name(fc_json_str(rec, "collective")),
            fc_dtype_from_name(fc_json_str(rec, "dtype")),
            fc_reduce_op_from_name(fc_json_str(rec, "op")),
            (uint64_t)json_integer_value(req ? req : json_object_get(rec, "bytes")))));
        return copy;
    }
    if (fc_record_id(rec) == FC_RECORD_POINT) {
        int coll = fc_coll_from_name(fc_json_str(rec, "collective"));
        json_t *req = json_object_get(rec, "requested_bytes");
        const fc_limit_rule_t *rule = fc_profile_find_limit(
            sp, coll, fc_dtype_from_name(fc_json_str(rec, "dtype")),
            fc_reduce_op_from_name(fc_json_str(rec, "op")),
            (uint64_t)json_integer_value(req ? req : json_object_get(rec, "bytes")));

        json_object_set_new(copy, "limit", fc_limit_json(rule));
        if (json_is_object(json_object_get(copy, "soak")))
            json_object_set_new(json_object_get(copy, "soak"), "max_drift_pct",
                                json_real(sp->soak.max_drift_pct));
        return copy;
    }
    json_array_foreach(json_object_get(copy, "sizes"), i, z) {
        const fc_limit_rule_t *rule = fc_profile_find_limit(
            sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE,
            (uint64_t)json_integer_value(json_object_get(z, "bytes")));

        json_object_set_new(z, "min_bw_gbps", json_real(rule ? rule->min_busbw_gbps : -1));
        json_object_set_new(z, "limit_line", json_integer(rule ? rule->line : 0));
    }
    {
        const fc_limit_rule_t *lat = fc_profile_find_limit(sp, FC_COLL_SENDRECV, FC_INT32,
                                                           FC_OP_NONE, FC_PAIRS_LAT_BYTES);

        json_object_set_new(copy, "latency_limit", lat && lat->max_latency_us >= 0
            ? json_pack("{s:f, s:i, s:I}", "max_latency_us", lat->max_latency_us, "line",
                        lat->line, "bytes", (json_int_t)FC_PAIRS_LAT_BYTES)
            : json_null());
    }
    return copy;
}

/* Two objects with the same members and values, numbers compared by value
 * (a record rewritten by another JSON writer may say 0 for 0.0). */
static int fc_same_values(json_t *a, json_t *b)
{
    const char *k;
    json_t *v, *w;

    if (!json_is_object(a) || !json_is_object(b) || json_object_size(a) != json_object_size(b))
        return 0;
    json_object_foreach(a, k, v) {
        w = json_object_get(b, k);
        if (json_is_number(v) && json_is_number(w) ? json_number_value(v) != json_number_value(w)
                                                   : !json_equal(v, w))
            return 0;
    }
    return 1;
}

/* Where rec's recorded limits differ from the profile's (in want, the
 * record with the profile's limits): "" when they agree; members a record
 * of an older fabcert does not carry are not compared. */
static void fc_limits_differ(json_t *rec, json_t *want, char *why, size_t len)
{
    char a[128], b[128];
    json_t *z, *w;
    size_t i;

    why[0] = '\0';
    if (json_is_object(json_object_get(json_object_get(rec, "counters"), "limits")) &&
        !fc_same_values(json_object_get(json_object_get(rec, "counters"), "limits"),
                        json_object_get(json_object_get(want, "counters"), "limits"))) {
        char *had = json_dumps(json_object_get(json_object_get(rec, "counters"), "limits"),
                               JSON_COMPACT | JSON_SORT_KEYS);
        char *pro = json_dumps(json_object_get(json_object_get(want, "counters"), "limits"),
                               JSON_COMPACT | JSON_SORT_KEYS);

        snprintf(why, len, "its counters limits %s are not the frozen profile's %s",
                 had ? had : "?", pro ? pro : "?");
        free(had);
        free(pro);
        return;
    }
    if (fc_record_id(rec) == FC_RECORD_OVERLAP || fc_record_id(rec) == FC_RECORD_SCALING ||
        fc_record_id(rec) == FC_RECORD_CONTENTION) {
        static const char *const keys[] = { "min_overlap_pct", "compute_ms", "max_drop_pct",
                                            "max_slowdown" };

        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); ++k) {
            json_t *h = json_object_get(rec, keys[k]), *s = json_object_get(want, keys[k]);

            if (s == NULL)
                continue;
            if (h == NULL || json_is_number(h) != json_is_number(s) ||
                (json_is_number(h) && json_number_value(h) != json_number_value(s))) {
                snprintf(why, len, "its %s %g is not the frozen profile's %g", keys[k],
                         fc_lnum(rec, keys[k]), fc_lnum(want, keys[k]));
                return;
            }
        }
        if (fc_record_id(rec) != FC_RECORD_SCALING)
            return;
    }
    if (fc_record_id(rec) == FC_RECORD_POINT || fc_record_id(rec) == FC_RECORD_SCALING) {
        json_t *have = json_object_get(rec, "limit"), *should = json_object_get(want, "limit");

        /* the same values: the line it names is a reference for people
         * (records of an older fabcert name the line above the rule) */
        if (have != NULL && (json_is_object(have) != json_is_object(should) ||
                             fc_lnum(have, "min_busbw_gbps") != fc_lnum(should, "min_busbw_gbps") ||
                             fc_lnum(have, "max_latency_us") != fc_lnum(should, "max_latency_us"))) {
            fc_limit_text(fc_lnum(have, "min_busbw_gbps"), fc_lnum(have, "max_latency_us"),
                          (long)json_integer_value(json_object_get(have, "line")),
                          json_is_object(have), a, sizeof(a));
            fc_limit_text(fc_lnum(should, "min_busbw_gbps"), fc_lnum(should, "max_latency_us"),
                          (long)json_integer_value(json_object_get(should, "line")),
                          json_is_object(should), b, sizeof(b));
            snprintf(why, len, "its limit (%s) is not the frozen profile's (%s)", a, b);
        } else if (json_is_object(json_object_get(rec, "soak")) &&
                   json_object_get(json_object_get(rec, "soak"), "max_drift_pct") &&
                   fc_lnum(json_object_get(rec, "soak"), "max_drift_pct") !=
                   fc_lnum(json_object_get(want, "soak"), "max_drift_pct")) {
            snprintf(why, len, "its max_drift_pct %g is not the frozen profile's %g",
                     fc_lnum(json_object_get(rec, "soak"), "max_drift_pct"),
                     fc_lnum(json_object_get(want, "soak"), "max_drift_pct"));
        }
        return;
    }
    json_array_foreach(json_object_get(rec, "sizes"), i, z) {
        w = json_array_get(json_object_get(want, "sizes"), i);
        if (json_object_get(z, "min_bw_gbps") &&
            fc_lnum(z, "min_bw_gbps") != fc_lnum(w, "min_bw_gbps")) {
            snprintf(why, len, "its limit at %lld bytes (min %g GB/s, profile line %lld) is not "
                     "the frozen profile's (min %g GB/s, profile line %lld)",
                     (long long)json_integer_value(json_object_get(z, "bytes")),
                     fc_lnum(z, "min_bw_gbps"),
                     (long long)json_integer_value(json_object_get(z, "limit_line")),
                     fc_lnum(w, "min_bw_gbps"),
                     (long long)json_integer_value(json_object_get(w, "limit_line")));
            return;
        }
    }
    if (json_object_get(rec, "latency_limit") &&
        fc_lnum(json_object_get(rec, "latency_limit"), "max_latency_us") !=
        fc_lnum(json_object_get(want, "latency_limit"), "max_latency_us"))
        snprintf(why, len, "its latency limit (max %g us) is not the frozen profile's (max %g us)",
                 fc_lnum(json_object_get(rec, "latency_limit"), "max_latency_us"),
                 fc_lnum(json_object_get(want, "latency_limit"), "max_latency_us"));
}

/* Is r the scaling stage's stage_start or stage_end (an attempt's edge)? */
static int fc_scaling_edge(json_t *r, const char *type)
{
    return strcmp(fc_json_str(r, "type"), type) == 0 &&
           strcmp(fc_json_str(r, "stage"), "scaling") == 0;
}

static int fc_same_point(json_t *a, json_t *b)
{
    return strcmp(fc_json_str(a, "collective"), fc_json_str(b, "collective")) == 0 &&
           strcmp(fc_json_str(a, "dtype"), fc_json_str(b, "dtype")) == 0 &&
           strcmp(fc_json_str(a, "op"), fc_json_str(b, "op")) == 0 &&
           json_integer_value(json_object_get(a, "requested_bytes")) ==
           json_integer_value(json_object_get(b, "requested_bytes"));
}

/* A scaling PASS held to the series it was judged in (the records of its
 * attempt, at its point): a first count with no other count beside it
 * compared nothing; a later count's reference (the record of prev_nodes)
 * must be there, not have failed (bad: the verdict each earlier record
 * ends with here), and carry the busbw it was compared with. why: "" when
 * it holds. */
static void fc_scaling_reference(json_t *records, size_t i, const fc_verdict_scan_t *scan,
                                 const unsigned char *bad, char *why, size_t len)
{
    json_t *rec = json_array_get(records, i), *pn = json_object_get(rec, "prev_nodes"), *r;
    json_int_t nodes = json_integer_value(json_object_get(rec, "nodes"));
    size_t n = json_array_size(records), j;
    int other = 0;
    json_int_t fewer = 0;       /* a count below this one in its series */

    why[0] = '\0';
    for (j = i; j-- > 0;) {
        r = json_array_get(records, j);
        if (fc_scaling_edge(r, "stage_start"))
            break;
        if (scan->ignored[j] || scan->other_run[j] || scan->type[j]->id != FC_RECORD_SCALING ||
            !fc_same_point(r, rec))
            continue;
        other |= json_integer_value(json_object_get(r, "nodes")) != nodes;
        if (json_integer_value(json_object_get(r, "nodes")) < nodes)
            fewer = json_integer_value(json_object_get(r, "nodes"));
        if (json_is_integer(pn) &&
            json_integer_value(json_object_get(r, "nodes")) == json_integer_value(pn)) {
            if (bad[j])
                snprintf(why, len, "judged against a count that had failed (%lld nodes): "
                         "its busbw is no reference", (long long)json_integer_value(pn));
            else if (fc_lnum(r, "peak_busbw") != fc_lnum(rec, "prev_peak_busbw"))
                snprintf(why, len, "its prev_peak_busbw %g is not the %lld-node record's "
                         "peak_busbw %g", fc_lnum(rec, "prev_peak_busbw"),
                         (long long)json_integer_value(pn), fc_lnum(r, "peak_busbw"));
            return;
        }
    }
    if (json_is_integer(pn)) {
        snprintf(why, len, "its reference count (%lld nodes) has no record in its attempt",
                 (long long)json_integer_value(pn));
        return;
    }
    for (j = i + 1; j < n; ++j) {
        json_int_t rn;

        r = json_array_get(records, j);
        if (fc_scaling_edge(r, "stage_start") || fc_scaling_edge(r, "stage_end"))
            break;
        if (scan->ignored[j] || scan->other_run[j] || scan->type[j]->id != FC_RECORD_SCALING ||
            !fc_same_point(r, rec))
            continue;
        rn = json_integer_value(json_object_get(r, "nodes"));
        other |= rn != nodes;
        if (rn < nodes)
            fewer = rn;
    }
    if (fewer > 0)
        snprintf(why, len, "no prev_nodes, though its series has a count of fewer nodes "
                 "(%lld): its step from it was not judged", (long long)fewer);
    else if (!other)
        snprintf(why, len, "a series of one node count (%lld nodes): nothing was compared",
                 (long long)nodes);
}

void fc_verdict_limits_scan(json_t *records, const fc_run_verdict_t *out,
                            const fc_profile_t *profile, fc_verdict_scan_t *scan)
{
    json_t *rec;
    size_t i;
    unsigned char *bad;

    /* per stage: whether its points were read with their link counters,
     * by its stage_start's counters_read (this fabcert's stages say it) or
     * by a point of it that carries them (records of a fabcert before
     * counters carry neither, and are not held to them) */
    unsigned char counted[FC_STAGE_COUNT] = { 0 };

    if (profile == NULL)
        return;         /* no frozen profile: the plan check says why */
    json_array_foreach(records, i, rec)
        if (scan->stage[i] >= 0 && !scan->ignored[i] && !scan->other_run[i] &&
            (json_is_true(json_object_get(rec, "counters_read")) ||
             ((scan->type[i]->id == FC_RECORD_POINT ||
               scan->type[i]->id == FC_RECORD_CONTENTION) &&
              json_is_object(json_object_get(json_object_get(rec, "counters"), "limits")))))
            counted[scan->stage[i]] = 1;
    bad = fc_xcalloc(json_array_size(records) + 1, 1, "the scaling records' verdicts");
    json_array_foreach(records, i, rec) {
        fc_record_id_t id = scan->type[i]->id;
        int s = scan->stage[i];
        char differ[300], fails[256], label[200], text[FC_VERDICT_TEXT], ref[200] = "";
        json_t *want;

        if ((id != FC_RECORD_POINT && id != FC_RECORD_PAIR && id != FC_RECORD_RAIL_PAIR &&
             id != FC_RECORD_OVERLAP &&
             id != FC_RECORD_SCALING && id != FC_RECORD_CONTENTION) || s < 0 || scan->ignored[i] ||
            scan->other_run[i] || !profile->stages[s].present || !out->planned[s])
            continue;
        want = fc_with_profile_limits(rec, &profile->stages[s]);
        fc_limits_differ(rec, want, differ, sizeof(differ));
        /* its figures against the profile's limit: a PASS they fail (its
         * own limit was another, or not recorded) is a FAIL */
        fails[0] = '\0';
        if (strcmp(fc_json_str(rec, "verdict"), "PASS") == 0 &&
            strcmp(fc_record_verdict(rec), "PASS") == 0)
            fc_record_limit_fails(want, fails, sizeof(fails));
        json_decref(want);
        /* a soak point whose drift was never judged (too few windows)
         * under a drift limit certifies no drift */
        if (!differ[0] && !fails[0] && id == FC_RECORD_POINT &&
            strcmp(fc_record_verdict(rec), "PASS") == 0 &&
            json_is_object(json_object_get(rec, "soak")) &&
            profile->stages[s].soak.max_drift_pct >= 0 &&
            !json_is_number(json_object_get(json_object_get(rec, "soak"), "drift_pct")))
            snprintf(ref, sizeof(ref), "its drift was not judged (drift_pct null over %zu "
                     "window(s)) under max_drift_pct %g",
                     json_array_size(json_object_get(json_object_get(rec, "soak"), "windows")),
                     profile->stages[s].soak.max_drift_pct);
        /* a multi-host point of a stage that read its points' link
         * counters, under a profile that reads them, with none: its
         * traffic and errors were never judged (a gather that failed, or
         * a record with its counters cut out) */
        if (!differ[0] && !fails[0] && !ref[0] && counted[s] &&
            (fc_stage_desc((fc_stage_id_t)s)->sections & FC_SECT_COUNTERS) &&
            profile->stages[s].counters.read &&
            ((id == FC_RECORD_POINT && json_integer_value(json_object_get(rec, "hosts")) >= 2) ||
             id == FC_RECORD_CONTENTION) &&
            strcmp(fc_record_verdict(rec), "PASS") == 0 &&
            !json_is_object(json_object_get(json_object_get(rec, "counters"), "limits")))
            snprintf(ref, sizeof(ref), "it carries no link counters, though its stage read "
                     "them and the frozen profile reads them (counters.read): its traffic "
                     "and errors were not judged");
        if (id == FC_RECORD_SCALING) {
            if (strcmp(fc_record_verdict(rec), "PASS") == 0)
                fc_scaling_reference(records, i, scan, bad, ref, sizeof(ref));
            bad[i] = strcmp(fc_record_verdict(rec), "PASS") != 0 || differ[0] || fails[0] ||
                     ref[0];
        }
        if (!differ[0] && !fails[0] && ref[0])
            snprintf(differ, sizeof(differ), "%s", ref);
        if (!differ[0] && !fails[0])
            continue;
        if (scan->limits == NULL)
            scan->limits = json_object();
        fc_check_label(rec, label, sizeof(label));
        if (fails[0])
            snprintf(text, sizeof(text), "%.120s: its own figures fail the frozen profile's "
                     "limit (%.150s), though its verdict says 'PASS'%s%.100s", label, fails,
                     differ[0] ? " and " : "", differ);
        else if (ref[0] && strcmp(ref, differ) == 0)
            snprintf(text, sizeof(text), "%.120s: %.200s, though its verdict says '%s'",
                     label, ref, fc_json_str(rec, "verdict"));
        else
            snprintf(text, sizeof(text), "%.120s: %.280s: it was judged against another limit "
                     "than the profile's", label, differ);
        {
            char key[32];

            snprintf(key, sizeof(key), "%zu", i);
            json_object_set_new(scan->limits, key, json_pack("{s:s, s:s}", "verdict",
                                fails[0] ? "FAIL" : "INCOMPLETE", "text", text));
        }
    }
    free(bad);
}

const char *fc_verdict_limit_issue(const fc_verdict_scan_t *scan, size_t i, const char **text_p)
{
    char key[32];
    json_t *issue;

    if (scan->limits == NULL)
        return NULL;
    snprintf(key, sizeof(key), "%zu", i);
    issue = json_object_get(scan->limits, key);
    if (issue == NULL)
        return NULL;
    *text_p = fc_json_str(issue, "text");
    return fc_json_str(issue, "verdict");
}
