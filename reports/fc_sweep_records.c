/*
 * fc_sweep_records.c - labels, finding subjects, certificate figures, HTML
 * cells, rules and limits of the collective sweeps' records (see
 * fc_sweep_records.h). The label and the finding's subject of a
 * measurement are one text: the label gives its size as people read it
 * ("4 KiB"), the finding as the stage wrote it ("4096 bytes"). Numbers in
 * a cell are read as the stages write them; a figure that is absent reads
 * as 0, and the certificate beside the page has it as null.
 */
#include "fc_sweep_records.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fc_cert_figure.h"
#include "fc_coll.h"
#include "fc_confirm_rule.h"
#include "fc_counters_check.h"
#include "fc_counters_interval.h"
#include "fc_html_escape.h"
#include "fc_json.h"
#include "fc_judge.h"
#include "fc_profile.h"
#include "fc_rules.h"
#include "fc_soak_records.h"

/* ---- names --------------------------------------------------------------- */

/* A point or a contention record: "all_reduce float32 sum 4 KiB on rack1
 * [under storage]", the size in bytes (in_bytes) or as people read it. */
static void fc_name_sweep(json_t *rec, int in_bytes, const char *kind_word, char *buf,
                          size_t len)
{
    const char *op = fc_json_str(rec, "op");
    json_int_t bytes = json_integer_value(json_object_get(rec, "bytes"));
    char size[32];

    if (in_bytes)
        snprintf(size, sizeof(size), "%lld bytes", (long long)bytes);
    else
        fc_format_size((uint64_t)bytes, size, sizeof(size));
    snprintf(buf, len, "%s %s%s%s %s on %s%s%s", fc_json_str(rec, "collective"),
             fc_json_str(rec, "dtype"), strcmp(op, "none") ? " " : "",
             strcmp(op, "none") ? op : "", size, fc_json_str(rec, "group"),
             kind_word ? kind_word : "", kind_word ? fc_json_str(rec, "kind") : "");
}

void fc_label_point(json_t *rec, char *buf, size_t len)
{
    fc_name_sweep(rec, 0, NULL, buf, len);
}

void fc_label_contention(json_t *rec, char *buf, size_t len)
{
    fc_name_sweep(rec, 0, " under ", buf, len);
}

/* A finding's measurement is cut at 199 characters, so its reason shows. */
void fc_subject_point(json_t *rec, char *buf, size_t len)
{
    char what[200];

    fc_name_sweep(rec, 1, NULL, what, sizeof(what));
    snprintf(buf, len, "%s", what);
}

void fc_subject_contention(json_t *rec, char *buf, size_t len)
{
    char what[200];

    fc_name_sweep(rec, 1, " under ", what, sizeof(what));
    snprintf(buf, len, "%s", what);
}

/* "all_reduce float32 sum 4 MiB on cluster beside compute" */
void fc_label_overlap(json_t *rec, char *buf, size_t len)
{
    fc_name_sweep(rec, 0, " beside ", buf, len);
}

void fc_subject_overlap(json_t *rec, char *buf, size_t len)
{
    char what[200];

    fc_name_sweep(rec, 1, " beside ", what, sizeof(what));
    snprintf(buf, len, "%s", what);
}

/* "all_reduce float32 sum 1 MiB on 4 nodes" */
void fc_label_scaling(json_t *rec, char *buf, size_t len)
{
    fc_name_sweep(rec, 0, NULL, buf, len);
}

/* ---- certificate figures ------------------------------------------------- */

void fc_figure_point(json_t *rec, json_t *f)
{
    json_t *limit = json_object_get(rec, "limit");
    json_t *rel = json_object_get(rec, "relative");

    json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
    json_object_set_new(f, "bytes", fc_figure_or_null(json_object_get(rec, "bytes")));
    json_object_set_new(f, "busbw_gbps", fc_figure_or_null(json_object_get(rec, "busbw_gbps")));
    json_object_set_new(f, "time_median_us", fc_figure_or_null(
        json_object_get(json_object_get(rec, "time_us"), "median")));
    fc_figure_soak_drift(json_object_get(rec, "soak"), f);
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
    json_object_set_new(f, "clean_median_us",
                        fc_figure_or_null(json_object_get(rec, "clean_median_us")));
    json_object_set_new(f, "loaded_median_us",
                        fc_figure_or_null(json_object_get(rec, "loaded_median_us")));
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

/* ---- HTML cells ---------------------------------------------------------- */

void fc_cell_point(FILE *f, json_t *rec)
{
    fprintf(f, "busbw %.4g GB/s, median %.1f us, %lld wrong",
            json_number_value(json_object_get(rec, "busbw_gbps")),
            json_number_value(json_object_get(json_object_get(rec, "time_us"), "median")),
            (long long)json_integer_value(json_object_get(rec, "wrong")));
    /* the group's links over the point's run (rack, cluster; records
     * without them, as before): bytes out beside busbw, and the errors and
     * drops where a link counts them */
    if (json_is_object(json_object_get(rec, "counters"))) {
        json_t *sum = json_object_get(json_object_get(rec, "counters"), "sum");
        double out = fc_interval_tx_bytes(json_object_get(rec, "counters"), NULL);

        if (out >= 0)
            fprintf(f, "; %.3f MB out on the links", out / 1e6);
        if (json_is_number(json_object_get(sum, "errors")))
            fprintf(f, ", %.0f errors", json_number_value(json_object_get(sum, "errors")));
        if (json_is_number(json_object_get(sum, "drops")))
            fprintf(f, ", %.0f drops", json_number_value(json_object_get(sum, "drops")));
    }
    fc_cell_soak_drift(f, json_object_get(rec, "soak"));
}

void fc_cell_contention(FILE *f, json_t *rec)
{
    json_t *bgs = json_object_get(rec, "background"), *b;
    const char *kind;

    fprintf(f, "slowdown %.2fx (%.1f us loaded, %.1f us clean)",
            json_number_value(json_object_get(rec, "slowdown")),
            json_number_value(json_object_get(rec, "loaded_median_us")),
            json_number_value(json_object_get(rec, "clean_median_us")));
    json_object_foreach(bgs, kind, b)
        fprintf(f, "; %s %.3g of %.3g MB/s", kind,
                json_number_value(json_object_get(b, "achieved_mbps")),
                json_number_value(json_object_get(b, "target_mbps")));
    /* the nodes' links over the phase (records without them, as before) */
    if (json_is_object(json_object_get(rec, "counters"))) {
        char text[512];
        double clean = fc_interval_tx_bytes(json_object_get(rec, "clean_counters"), NULL);

        fc_interval_text(json_object_get(rec, "counters"), text, sizeof(text));
        fprintf(f, "; ");
        fc_html_escape(f, text);
        if (clean >= 0)
            fprintf(f, " (clean phase before: %.3f MB out)", clean / 1e6);
    }
}

void fc_cell_overlap(FILE *f, json_t *rec)
{
    fprintf(f, "overlap %.0f%% (collective %.1f us alone, compute %.1f us alone, %.1f us "
            "together)", json_number_value(json_object_get(rec, "overlap_pct")),
            json_number_value(json_object_get(rec, "coll_alone_us")),
            json_number_value(json_object_get(rec, "compute_alone_us")),
            json_number_value(json_object_get(rec, "together_us")));
}

void fc_cell_scaling(FILE *f, json_t *rec)
{
    fprintf(f, "busbw %.3f GB/s on %lld nodes (median; %.3f at best)",
            json_number_value(json_object_get(rec, "busbw")),
            (long long)json_integer_value(json_object_get(rec, "nodes")),
            json_number_value(json_object_get(rec, "peak_busbw")));
    if (json_is_number(json_object_get(rec, "drop_pct")))
        fprintf(f, ", best %.0f%% %s %.3f GB/s on %lld nodes%s",
                fabs(json_number_value(json_object_get(rec, "drop_pct"))),
                json_number_value(json_object_get(rec, "drop_pct")) >= 0 ? "below" : "above",
                json_number_value(json_object_get(rec, "prev_peak_busbw")),
                (long long)json_integer_value(json_object_get(rec, "prev_nodes")),
                json_is_true(json_object_get(rec, "crosses_spine")) ? ", across the spine"
                : "");
}

/* ---- rules --------------------------------------------------------------- */

void fc_rules_point(json_t *rec, json_t *lines)
{
    json_t *limit = json_object_get(rec, "limit");

    fc_rules_figures(lines, "", json_is_object(limit)
                     ? json_number_value(json_object_get(limit, "min_busbw_gbps")) : -1,
                     json_is_object(limit)
                     ? json_number_value(json_object_get(limit, "max_latency_us")) : -1,
                     (long)json_integer_value(json_object_get(limit, "line")),
                     json_object_get(rec, "relative"),
                     json_object_get(rec, "rules_not_applied"), "busbw");
    fc_rules_soak_drift(lines, json_object_get(rec, "soak"),
                        json_object_get(rec, "rules_not_applied"));
}

void fc_rules_contention(json_t *rec, json_t *lines)
{
    json_t *z;
    size_t i;

    if (json_number_value(json_object_get(rec, "max_slowdown")) > 0)
        fc_rule_add(lines, 1, "slowdown <= %.2fx",
                    json_number_value(json_object_get(rec, "max_slowdown")));
    json_array_foreach(json_object_get(rec, "rules_not_applied"), i, z)
        if (json_is_string(z))
            fc_rule_add(lines, 0, "%s", json_string_value(z));
}

void fc_rules_overlap(json_t *rec, json_t *lines)
{
    fc_rule_add(lines, 1, "overlap >= %.0f%%",
                json_number_value(json_object_get(rec, "min_overlap_pct")));
    if (json_object_get(rec, "compute_work_pct"))
        fc_rule_add(lines, 1, "compute work beside the collective >= %.0f%% of alone",
                    json_number_value(json_object_get(rec, "min_overlap_pct")));
}

void fc_rules_scaling(json_t *rec, json_t *lines)
{
    /* the first node count of the series has nothing before it to drop
     * from: no rule (its busbw is the next step's base) */
    if (json_is_number(json_object_get(rec, "max_drop_pct")))
        fc_rule_add(lines, json_is_number(json_object_get(rec, "drop_pct")),
                    "busbw drop from %lld nodes <= %.0f%%",
                    (long long)json_integer_value(json_object_get(rec, "prev_nodes")),
                    json_number_value(json_object_get(rec, "max_drop_pct")));
    {
        json_t *limit = json_object_get(rec, "limit");
        json_t *bw = json_object_get(limit, "min_busbw_gbps");
        json_t *lat = json_object_get(limit, "max_latency_us");

        if (json_is_number(bw) && json_number_value(bw) >= 0)
            fc_rule_add(lines, 1, "busbw (fastest iteration) >= %.4g GB/s (profile line %lld)",
                        json_number_value(bw),
                        (long long)json_integer_value(json_object_get(limit, "line")));
        if (json_is_number(lat) && json_number_value(lat) >= 0)
            fc_rule_add(lines, 1, "median <= %.4g us (profile line %lld)",
                        json_number_value(lat),
                        (long long)json_integer_value(json_object_get(limit, "line")));
    }
}

/* ---- limits: the figures judged again against their own limits --------- */

/* Does a point's figure (busbw, median in us) fail its limit? The busbw
 * limit applies only where busbw means something (more than one rank, a
 * bus factor above 0), as the stage's judge applies it. why, when given,
 * says which. */
static int fc_point_fails_limit(json_t *rec, json_t *limit, double busbw, double median_us,
                                char *why, size_t len)
{
    double min_bw = fc_rule_num(limit, "min_busbw_gbps");
    double max_lat = fc_rule_num(limit, "max_latency_us");
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
                    fc_point_fails_limit(rec, limit, fc_rule_num(a, "busbw_gbps"),
                                         fc_rule_num(a, "median_us"), NULL, 0);
    }
    return n > 0 && fc_confirm_decide(slow, n) == FC_CONFIRM_CLEARED;
}

/* An overlap record's figures against its min_overlap_pct: the overlap
 * efficiency and, where the record carries it, compute_work_pct (the
 * compute done beside the collective over the compute done alone in the
 * same wall time), each at least the limit, as the stage judges them; a
 * figure that is not a number under a limit fails. */
int fc_limits_overlap(json_t *rec, char *why, size_t len)
{
    double lim = fc_rule_num(rec, "min_overlap_pct");
    json_t *eff = json_object_get(rec, "overlap_pct");
    json_t *work = json_object_get(rec, "compute_work_pct");

    if (!json_is_number(json_object_get(rec, "min_overlap_pct")))
        return 0;
    if (!json_is_number(eff) || json_number_value(eff) < lim) {
        snprintf(why, len, "overlap %.1f%% is below min_overlap_pct %g", fc_rule_num(rec,
                 "overlap_pct"), lim);
        return 1;
    }
    if (work != NULL && (!json_is_number(work) || json_number_value(work) < lim)) {
        snprintf(why, len, "the compute beside the collective did %.1f%% of its work alone, "
                 "below min_overlap_pct %g", fc_rule_num(rec, "compute_work_pct"), lim);
        return 1;
    }
    return 0;
}

/* A scaling record's drop against its max_drop_pct: the larger of the
 * drop it states and the one its two busbw figures give. */
int fc_limits_scaling(json_t *rec, char *why, size_t len)
{
    double lim = fc_rule_num(rec, "max_drop_pct"), peak = fc_rule_num(rec, "peak_busbw");
    double prev = fc_rule_num(rec, "prev_peak_busbw"), drop = fc_rule_num(rec, "drop_pct");

    json_t *limit = json_object_get(rec, "limit");

    /* its floor (limits:), on the count's fastest iteration as the stage */
    if (json_is_object(limit) && fc_rule_num(limit, "min_busbw_gbps") >= 0 &&
        !(peak >= fc_rule_num(limit, "min_busbw_gbps"))) {
        snprintf(why, len, "busbw %g GB/s on %lld nodes is below min_busbw_gbps %g", peak,
                 (long long)json_integer_value(json_object_get(rec, "nodes")),
                 fc_rule_num(limit, "min_busbw_gbps"));
        return 1;
    }
    if (json_is_object(limit) && fc_rule_num(limit, "max_latency_us") >= 0 &&
        !(json_is_number(json_object_get(rec, "median_us")) &&
          fc_rule_num(rec, "median_us") <= fc_rule_num(limit, "max_latency_us"))) {
        snprintf(why, len, "median %g us on %lld nodes is above max_latency_us %g",
                 fc_rule_num(rec, "median_us"),
                 (long long)json_integer_value(json_object_get(rec, "nodes")),
                 fc_rule_num(limit, "max_latency_us"));
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
    double lim = fc_rule_num(rec, "max_slowdown");
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

/* A point's figures against its limit, unless its confirmation alone
 * cleared it; then its soak drift and its link counters. */
int fc_limits_point(json_t *rec, char *why, size_t len)
{
    json_t *limit = json_object_get(rec, "limit");

    if (json_is_object(limit) &&
        fc_point_fails_limit(rec, limit, fc_rule_num(rec, "busbw_gbps"),
                             fc_rule_num(json_object_get(rec, "time_us"), "median"), why,
                             len) &&
        !fc_point_cleared(rec, limit))
        return 1;
    why[0] = '\0';
    return fc_soak_drift_fails(json_object_get(rec, "soak"), why, len) ||
           fc_counters_fail(rec, why, len);
}

int fc_limits_contention(json_t *rec, char *why, size_t len)
{
    return fc_contention_fails_limit(rec, why, len) || fc_counters_fail(rec, why, len);
}
