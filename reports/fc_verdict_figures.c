/*
 * fc_verdict_figures.c - see fc_verdict_figures.h. The figures read are
 * the ones the stages write: a point's and a contention record's `wrong`
 * and digest agreement, a pair's `wrong` per size, a soak_gpu record's
 * burn results that differed. Which types are judged
 * again, and which per size, the record-type table says (bits_rejudged,
 * bits_per_size in fc_record.h). The limits: a point's `limit` against
 * its busbw (where busbw means something: lib/engine/fc_judge.c's rule) and
 * median, its confirmation alone's rounds against the same limit by the
 * majority rule (lib/engine/fc_confirm_rule.h); a soak point's drift judged
 * again from its windows (older records: against max_drift_pct); a pair's sizes against their min_bw_gbps and its latency
 * against its latency_limit, its alone measurements likewise; a
 * contention record's slowdown against its max_slowdown; a point's link
 * counters against its counters.limits (fc_counters_check.h).
 */
#include "fc_verdict_figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_calls.h"
#include "fc_coll.h"
#include "fc_confirm_rule.h"
#include "fc_counters_check.h"
#include "fc_drift.h"
#include "fc_judge.h"
#include "fc_json.h"
#include "fc_record.h"

/* A count of wrong elements that is not a whole number 0 (absent is 0). */
static int fc_count_wrong(json_t *v)
{
    return v != NULL && !json_is_null(v) &&
           !(json_is_integer(v) && json_integer_value(v) == 0);
}

static void fc_why_add(char *why, size_t len, const char *what, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    size_t used = strlen(why);

    snprintf(why + used, len - used, "%s%s %s", used ? ", " : "", what,
             text ? text : "missing");
    free(text);
}

int fc_record_wrong_bits(json_t *rec, char *why, size_t len)
{
    static const char *const digests[] = { "digest_ranks_agree", "digest_reps_agree" };
    const fc_record_type_t *t = fc_record_type_of(rec);
    json_t *sizes = json_object_get(rec, "sizes"), *z;
    size_t i;

    why[0] = '\0';
    if (!t->bits_rejudged)
        return 0;
    if (fc_count_wrong(json_object_get(rec, "wrong")))
        fc_why_add(why, len, "wrong", json_object_get(rec, "wrong"));
    for (size_t d = 0; d < sizeof(digests) / sizeof(digests[0]); ++d) {
        json_t *v = json_object_get(rec, digests[d]);

        if (v != NULL && !json_is_true(v))
            fc_why_add(why, len, digests[d], v);
    }
    if (t->id == FC_RECORD_SOAK_GPU) {
        /* the GPU burn's results that differed: wrong bits of a GEMM */
        json_t *k;
        const char *kind;

        json_object_foreach(json_object_get(json_object_get(rec, "burn"), "kinds"), kind, k)
            for (size_t c = 0; c < 2; ++c) {
                static const char *const counts[] = { "mismatched_iterations",
                                                      "chunks_differing" };
                char what[64];

                snprintf(what, sizeof(what), "burn %s %s", kind, counts[c]);
                if (fc_count_wrong(json_object_get(k, counts[c])))
                    fc_why_add(why, len, what, json_object_get(k, counts[c]));
            }
    }
    if (t->bits_per_size) {
        /* each size's count, absent included (nothing shows it checked),
         * and each direction's: which receiver saw wrong bits */
        json_array_foreach(sizes, i, z)
            if (fc_count_wrong(json_object_get(z, "wrong")) ||
                json_object_get(z, "wrong") == NULL) {
                char what[64];

                snprintf(what, sizeof(what), "wrong at %lld bytes",
                         (long long)json_integer_value(json_object_get(z, "bytes")));
                fc_why_add(why, len, what, json_object_get(z, "wrong"));
            }
        json_array_foreach(json_object_get(rec, "exchanges"), i, z)
            if (fc_count_wrong(json_object_get(z, "wrong")) ||
                strcmp(fc_json_str(z, "verdict"), "wrong") == 0) {
                char what[160];

                snprintf(what, sizeof(what), "wrong from %.60s to %.60s",
                         fc_json_str(z, "sender_host"), fc_json_str(z, "receiver_host"));
                fc_why_add(why, len, what, json_object_get(z, "wrong"));
            }
    }
    return why[0] != '\0';
}

/* A number member, or -1 when it is not one (a limit that is not there). */
static double fc_num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_number(v) ? json_number_value(v) : -1;
}

/* Does a point's figure (busbw, median in us) fail its limit? The busbw
 * limit applies only where busbw means something (more than one rank, a
 * bus factor above 0), as the stage's judge applies it. why, when given,
 * says which. */
static int fc_point_fails_limit(json_t *rec, json_t *limit, double busbw, double median_us,
                                char *why, size_t len)
{
    double min_bw = fc_num(limit, "min_busbw_gbps"), max_lat = fc_num(limit, "max_latency_us");
    int coll = fc_coll_from_name(fc_json_str(rec, "collective"));
    int ranks = (int)json_integer_value(json_object_get(rec, "ranks"));
    int line = (int)json_integer_value(json_object_get(limit, "line"));

    if (min_bw >= 0 && coll >= 0 && !fc_judge_busbw_void((fc_coll_id_t)coll, ranks) &&
        busbw < min_bw) {
        if (why)
            snprintf(why, len, "busbw %.3f GB/s is below min_busbw_gbps %g (profile line %d)",
                     busbw, min_bw, line);
        return 1;
    }
    if (max_lat >= 0 && !(median_us >= 0 && median_us <= max_lat)) {
        /* a median that is not there fails the limit too */
        if (why && median_us < 0)
            snprintf(why, len, "no median time, under max_latency_us %g (profile line %d)",
                     max_lat, line);
        else if (why)
            snprintf(why, len, "median %.1f us is above max_latency_us %g (profile line %d)",
                     median_us, max_lat, line);
        return 1;
    }
    return 0;
}

/* Did a confirmation alone clear a point's limit? Its verdict says
 * not_reproduced, and its rounds' suspect figures meet the limit by the
 * majority rule (a round not measured decides nothing). */
static int fc_point_cleared(json_t *rec, json_t *limit)
{
    json_t *conf = json_object_get(rec, "confirmation"), *round;
    int slow[FC_CONFIRM_MAX_MEASURES], n = 0;
    size_t i;

    if (strcmp(fc_json_str(conf, "verdict"), "not_reproduced") != 0)
        return 0;
    json_array_foreach(json_object_get(conf, "rounds"), i, round) {
        json_t *a = json_object_get(round, "suspect");

        if (n == FC_CONFIRM_MAX_MEASURES)
            break;
        slow[n++] = !json_is_object(a) ? -1 :
                    fc_point_fails_limit(rec, limit, fc_num(a, "busbw_gbps"),
                                         fc_num(a, "median_us"), NULL, 0);
    }
    return n > 0 && fc_confirm_decide(slow, n) == FC_CONFIRM_CLEARED;
}

/* Does a pair's figure at size entry z (its bandwidth) or, with
 * judge_lat, its latency lat_us (with the record's latency_limit; -1: not
 * there, which fails) fail? */
static int fc_pair_fails_limit(json_t *rec, json_t *z, double bw, int judge_lat,
                               double lat_us, char *why, size_t len)
{
    double min_bw = fc_num(z, "min_bw_gbps");
    json_t *ll = json_object_get(rec, "latency_limit");

    if (min_bw >= 0 && bw < min_bw) {
        if (why)
            snprintf(why, len, "at %lld bytes %.4f GB/s per direction is below min_bw_gbps "
                     "%g (profile line %lld)",
                     (long long)json_integer_value(json_object_get(z, "bytes")), bw, min_bw,
                     (long long)json_integer_value(json_object_get(z, "limit_line")));
        return 1;
    }
    if (judge_lat && fc_num(ll, "max_latency_us") >= 0 &&
        !(lat_us >= 0 && lat_us <= fc_num(ll, "max_latency_us"))) {
        if (why && lat_us < 0)
            snprintf(why, len, "no latency, under max_latency_us %g (profile line %lld)",
                     fc_num(ll, "max_latency_us"),
                     (long long)json_integer_value(json_object_get(ll, "line")));
        else if (why)
            snprintf(why, len, "latency %.1f us is above max_latency_us %g (profile line "
                     "%lld)", lat_us, fc_num(ll, "max_latency_us"),
                     (long long)json_integer_value(json_object_get(ll, "line")));
        return 1;
    }
    return 0;
}

/* Did a pair's confirmation alone clear it? not_reproduced, and its alone
 * measurements meet every size's limit and the latency limit by the
 * majority rule. */
static int fc_pair_cleared(json_t *rec)
{
    json_t *conf = json_object_get(rec, "confirmation"), *m, *z;
    json_t *sizes = json_object_get(rec, "sizes");
    int slow[FC_CONFIRM_MAX_MEASURES], n = 0;
    size_t i, k;

    if (strcmp(fc_json_str(conf, "verdict"), "not_reproduced") != 0)
        return 0;
    json_array_foreach(json_object_get(json_object_get(conf, "alone"), "measurements"), i, m) {
        int fails = 0;

        if (n == FC_CONFIRM_MAX_MEASURES)
            break;
        if (strcmp(fc_json_str(m, "result"), "not measured") == 0) {
            slow[n++] = -1;
            continue;
        }
        /* each alone size against the record's entry of that size; no
         * size, or one the record has not, clears nothing */
        fails = json_array_size(json_object_get(m, "sizes")) == 0;
        json_array_foreach(json_object_get(m, "sizes"), k, z) {
            json_t *mine = NULL, *e;
            size_t j;

            json_array_foreach(sizes, j, e)
                if (json_integer_value(json_object_get(e, "bytes")) ==
                    json_integer_value(json_object_get(z, "bytes")))
                    mine = e;
            fails |= mine == NULL ||
                     fc_pair_fails_limit(rec, mine, fc_num(z, "bw_gbps"), k == 0,
                                         fc_num(z, "latency_us"), NULL, 0);
        }
        slow[n++] = fails;
    }
    return n > 0 && fc_confirm_decide(slow, n) == FC_CONFIRM_CLEARED;
}

/* An overlap record's figures against its min_overlap_pct: the overlap
 * efficiency and, where the record carries it, compute_work_pct (the
 * compute done beside the collective over the compute done alone in the
 * same wall time), each at least the limit, as the stage judges them; a
 * figure that is not a number under a limit fails. */
static int fc_overlap_fails_limit(json_t *rec, char *why, size_t len)
{
    double lim = fc_num(rec, "min_overlap_pct");
    json_t *eff = json_object_get(rec, "overlap_pct"), *work = json_object_get(rec,
                                                                             "compute_work_pct");

    if (!json_is_number(json_object_get(rec, "min_overlap_pct")))
        return 0;
    if (!json_is_number(eff) || json_number_value(eff) < lim) {
        snprintf(why, len, "overlap %.1f%% is below min_overlap_pct %g", fc_num(rec,
                 "overlap_pct"), lim);
        return 1;
    }
    if (work != NULL && (!json_is_number(work) || json_number_value(work) < lim)) {
        snprintf(why, len, "the compute beside the collective did %.1f%% of its work alone, "
                 "below min_overlap_pct %g", fc_num(rec, "compute_work_pct"), lim);
        return 1;
    }
    return 0;
}

/* A scaling record's drop against its max_drop_pct: the larger of the
 * drop it states and the one its two busbw figures give. */
static int fc_scaling_fails_limit(json_t *rec, char *why, size_t len)
{
    double lim = fc_num(rec, "max_drop_pct"), peak = fc_num(rec, "peak_busbw");
    double prev = fc_num(rec, "prev_peak_busbw"), drop = fc_num(rec, "drop_pct");

    json_t *limit = json_object_get(rec, "limit");

    /* its floor (limits:), on the count's fastest iteration as the stage */
    if (json_is_object(limit) && fc_num(limit, "min_busbw_gbps") >= 0 &&
        !(peak >= fc_num(limit, "min_busbw_gbps"))) {
        snprintf(why, len, "busbw %g GB/s on %lld nodes is below min_busbw_gbps %g", peak,
                 (long long)json_integer_value(json_object_get(rec, "nodes")),
                 fc_num(limit, "min_busbw_gbps"));
        return 1;
    }
    if (json_is_object(limit) && fc_num(limit, "max_latency_us") >= 0 &&
        !(json_is_number(json_object_get(rec, "median_us")) &&
          fc_num(rec, "median_us") <= fc_num(limit, "max_latency_us"))) {
        snprintf(why, len, "median %g us on %lld nodes is above max_latency_us %g",
                 fc_num(rec, "median_us"),
                 (long long)json_integer_value(json_object_get(rec, "nodes")),
                 fc_num(limit, "max_latency_us"));
        return 1;
    }
    if (!json_is_number(json_object_get(rec, "max_drop_pct")))
        return 0;
    if (prev > 0 && peak >= 0 && 100 * (prev - peak) / prev > drop)
        drop = 100 * (prev - peak) / prev;
    if (drop > lim) {
        snprintf(why, len, "busbw on %lld nodes %.1f%% below %lld nodes, above max_drop_pct %g",
                 (long long)json_integer_value(json_object_get(rec, "nodes")), drop,
                 (long long)json_integer_value(json_object_get(rec, "prev_nodes")), lim);
        return 1;
    }
    return 0;
}

/* A contention record's slowdown (loaded over clean median time) against
 * its max_slowdown, as the stage judges it (a limit above 0); a slowdown
 * that is not a number under the limit fails. */
static int fc_contention_fails_limit(json_t *rec, char *why, size_t len)
{
    double lim = fc_num(rec, "max_slowdown");
    json_t *sd = json_object_get(rec, "slowdown");

    if (!json_is_number(json_object_get(rec, "max_slowdown")) || !(lim > 0))
        return 0;
    if (!json_is_number(sd) || !(json_number_value(sd) <= lim)) {
        if (json_is_number(sd))
            snprintf(why, len, "slowdown %.2fx under %s is above max_slowdown %gx",
                     json_number_value(sd), fc_json_str(rec, "kind"), lim);
        else
            snprintf(why, len, "slowdown missing under %s, with max_slowdown %gx",
                     fc_json_str(rec, "kind"), lim);
        return 1;
    }
    return 0;
}

/* Its link counters: an error counter that rose above max_errors
 * (fc_counters_check.h; its traffic bound makes it INCOMPLETE, judged in
 * fc_verdict_findings.c). */
static int fc_counters_fail(json_t *rec, char *why, size_t len)
{
    json_t *z = fc_counters_check(rec);
    int fails = z != NULL && strcmp(fc_json_str(z, "verdict"), "FAIL") == 0;

    if (fails)
        snprintf(why, len, "%s", json_string_value(
            json_array_get(json_object_get(z, "reasons"), 0)));
    json_decref(z);
    return fails;
}

/* A soak point's drift. A record that carries its rule (drift_rule) is
 * judged again from its own windows by the stage's rule (lib/soak/fc_drift.h):
 * a drift above its tolerance, the larger of max_drift_pct and the noise
 * floor of those windows (a record cannot widen it by claiming a larger
 * floor), or a drift_pct it states above that tolerance. An older record:
 * its sustained and intermittent drift against max_drift_pct. */
static int fc_soak_drift_fails(json_t *soak, char *why, size_t len)
{
    double lim = fc_num(soak, "max_drift_pct");
    json_t *wins = json_object_get(soak, "windows"), *w;
    fc_drift_t d;
    double *m;
    size_t i;
    int k;

    if (!json_is_object(soak) || lim < 0)
        return 0;
    if (json_object_get(soak, "drift_rule") == NULL) {
        if (fc_num(soak, "drift_pct") > lim) {
            snprintf(why, len, "sustained drift %.1f%% is above max_drift_pct %g",
                     fc_num(soak, "drift_pct"), lim);
            return 1;
        }
        if (fc_num(soak, "intermittent_pct") > lim) {
            snprintf(why, len, "intermittent drift %.1f%% is above max_drift_pct %g",
                     fc_num(soak, "intermittent_pct"), lim);
            return 1;
        }
        return 0;
    }
    k = fc_num(soak, "confirm_windows") >= 1 ? (int)fc_num(soak, "confirm_windows") : 2;
    m = fc_xcalloc(json_array_size(wins) + 1, sizeof(*m), "a soak record's windows");
    json_array_foreach(wins, i, w)
        m[i] = fc_num(w, "median_us") / 1e6;
    fc_drift_judge(m, (int)json_array_size(wins), k, lim, &d);
    free(m);
    if (fc_drift_seen(&d)) {
        snprintf(why, len, "its windows show a drift of %.1f%% (windows %d to %d against "
                 "%d to %d), above its tolerance %.1f%% (max_drift_pct %g, the windows' "
                 "noise floor %.1f%%)", d.drift_pct, d.from, d.n - 1, d.base_from,
                 d.base_from + k - 1, d.tolerance_pct, lim, d.floor_pct);
        return 1;
    }
    if (fc_num(soak, "drift_pct") > d.tolerance_pct) {
        snprintf(why, len, "drift %.1f%% is above its tolerance %.1f%% (max_drift_pct %g, "
                 "the windows' noise floor %.1f%%)", fc_num(soak, "drift_pct"),
                 d.tolerance_pct, lim, d.floor_pct);
        return 1;
    }
    return 0;
}

int fc_record_limit_fails(json_t *rec, char *why, size_t len)
{
    fc_record_id_t id = fc_record_id(rec);
    json_t *soak = json_object_get(rec, "soak"), *limit = json_object_get(rec, "limit"), *z;
    size_t i;

    why[0] = '\0';
    if (id == FC_RECORD_POINT) {
        double busbw = fc_num(rec, "busbw_gbps");
        double median = fc_num(json_object_get(rec, "time_us"), "median");

        if (json_is_object(limit) &&
            fc_point_fails_limit(rec, limit, busbw, median, why, len) &&
            !fc_point_cleared(rec, limit))
            return 1;
        why[0] = '\0';
        if (fc_soak_drift_fails(soak, why, len))
            return 1;
        return fc_counters_fail(rec, why, len);
    }
    if (id == FC_RECORD_OVERLAP)
        return fc_overlap_fails_limit(rec, why, len);
    if (id == FC_RECORD_SCALING)
        return fc_scaling_fails_limit(rec, why, len);
    if (id == FC_RECORD_CONTENTION)
        return fc_contention_fails_limit(rec, why, len) || fc_counters_fail(rec, why, len);
    if (id != FC_RECORD_PAIR && id != FC_RECORD_RAIL_PAIR)    /* a rail's: the same */
        return 0;
    json_array_foreach(json_object_get(rec, "sizes"), i, z)
        if (fc_pair_fails_limit(rec, z, fc_num(z, "bw_gbps"), i == 0,
                                fc_num(rec, "latency_us"), why, len)) {
            if (fc_pair_cleared(rec))
                break;
            return 1;
        }
    why[0] = '\0';
    return 0;
}

int fc_record_unchecked_calls(json_t *rec, char *why, size_t len)
{
    json_t *iters = json_object_get(rec, "iters");
    json_int_t timed = json_integer_value(json_object_get(json_object_get(
        json_object_get(rec, "calls"), "timed"), "made"));

    why[0] = '\0';
    if (!fc_record_type_of(rec)->calls_counted)
        return 0;
    if (fc_calls_json_unchecked(json_object_get(rec, "calls"), why, len))
        return 1;
    /* a point times every one of its iterations (a soak's, every run's) */
    if (fc_record_id(rec) == FC_RECORD_POINT && json_is_integer(iters) &&
        timed < json_integer_value(iters)) {
        snprintf(why, len, "it counts %lld timed calls made for its %lld iterations",
                 (long long)timed, (long long)json_integer_value(iters));
        return 1;
    }
    return 0;
}

int fc_record_rejudged(json_t *rec, char *text, size_t len)
{
    char why[320];
    const char *verdict = fc_json_str(rec, "verdict");

    text[0] = '\0';
    if (strcmp(verdict, "FAIL") == 0)
        return 0;
    if (fc_record_wrong_bits(rec, why, sizeof(why)))
        snprintf(text, len, "its own figures show wrong bits (%s), though its verdict says "
                 "'%s': wrong bits are never tolerated", why, verdict);
    else if (strcmp(verdict, "PASS") == 0 && fc_record_unchecked_calls(rec, why, sizeof(why)))
        snprintf(text, len, "its own figures do not show every call checked (%s), though "
                 "its verdict says 'PASS'", why);
    else if (strcmp(verdict, "PASS") == 0 && fc_record_limit_fails(rec, why, sizeof(why)))
        snprintf(text, len, "its own figures fail its limit (%s), though its verdict says "
                 "'%s' and no confirmation alone cleared it", why, verdict);
    return text[0] != '\0';
}

const char *fc_record_verdict(json_t *rec)
{
    char why[320];

    /* a PASS its own figures contradict: wrong bits, whatever it says; a
     * call whose output it does not show checked; a limit it fails that no
     * confirmation alone cleared */
    return fc_record_wrong_bits(rec, why, sizeof(why)) ||
           (strcmp(fc_json_str(rec, "verdict"), "PASS") == 0 &&
            (fc_record_unchecked_calls(rec, why, sizeof(why)) ||
             fc_record_limit_fails(rec, why, sizeof(why)))) ? "FAIL"
                                                            : fc_json_str(rec, "verdict");
}

int fc_record_contradiction(json_t *rec, char *why, size_t len)
{
    const fc_record_type_t *t = fc_record_type_of(rec);
    const char *verdict = fc_json_str(rec, "verdict");
    json_t *conf = json_object_get(rec, "confirmation");
    const char *cv = fc_json_str(conf, "verdict");

    why[0] = '\0';
    if (t->id == FC_RECORD_RETEST && strcmp(verdict, "FAIL") != 0)
        snprintf(why, len, "a retest record whose verdict is '%s': a retest follows an "
                 "observed fault and is always a FAIL", verdict);
    else if (strcmp(verdict, "PASS") == 0 && json_is_object(conf) && cv[0] &&
             strcmp(cv, "ok") != 0 && strcmp(cv, "not_reproduced") != 0)
        snprintf(why, len, "it passes though its confirmation says '%s'", cv);
    else if (strcmp(verdict, "PASS") == 0 && json_is_true(json_object_get(conf, "confirmed")))
        snprintf(why, len, "it passes though its confirmation confirmed the fault");
    return why[0] != '\0';
}
