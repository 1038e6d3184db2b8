/*
 * fc_pairs_records.c - labels, certificate figures, HTML cells, rules and
 * limits of the pairs stage's records (see fc_pairs_records.h). A pair's rules
 * are one set per size (its limit, the relative rule, the same-rack rule
 * for a pair inside a rack), then its latency limit.
 */
#include "fc_pairs_records.h"

#include <stdint.h>
#include <string.h>

#include "fc_cert_figure.h"
#include "fc_confirm_rule.h"
#include "fc_json.h"
#include "fc_profile.h"
#include "fc_rules.h"

/* ---- names --------------------------------------------------------------- */

void fc_label_pair(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "pair %s <-> %s", fc_json_str(rec, "host_a"),
             fc_json_str(rec, "host_b"));
}

void fc_label_pairs_node(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "link of %s", fc_json_str(rec, "host"));
}

/* ---- certificate figures ------------------------------------------------- */

void fc_figure_pair(json_t *rec, json_t *f)
{
    json_object_set_new(f, "host_a", json_string(fc_json_str(rec, "host_a")));
    json_object_set_new(f, "host_b", json_string(fc_json_str(rec, "host_b")));
    json_object_set_new(f, "latency_us", fc_figure_or_null(json_object_get(rec, "latency_us")));
    json_t *sizes = fc_figure_or_null(json_object_get(rec, "sizes")), *z;
    size_t i;

    /* the per-exchange samples are results.jsonl's, for compare and
     * baseline: the certificate keeps each size's figures */
    json_array_foreach(sizes, i, z)
        json_object_del(z, "samples");
    json_object_set_new(f, "sizes", sizes);
    json_object_set_new(f, "sensitivity", fc_figure_sensitivity(rec));
}

void fc_figure_pairs_node(json_t *rec, json_t *f)
{
    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    json_object_set_new(f, "slow_partners",
                        fc_figure_or_null(json_object_get(rec, "slow_partners")));
    json_object_set_new(f, "partners", fc_figure_or_null(json_object_get(rec, "partners")));
}

/* ---- HTML cells ---------------------------------------------------------- */

void fc_cell_pair(FILE *f, json_t *rec)
{
    json_t *z0 = json_array_get(json_object_get(rec, "sizes"), 0);

    fprintf(f, "%.4g GB/s per direction, latency %.1f us",
            json_number_value(json_object_get(z0, "bw_gbps")),
            json_number_value(json_object_get(rec, "latency_us")));
}

void fc_cell_pairs_node(FILE *f, json_t *rec)
{
    fprintf(f, "slow with %lld of %lld partners",
            (long long)json_integer_value(json_object_get(rec, "slow_partners")),
            (long long)json_integer_value(json_object_get(rec, "partners")));
}

/* ---- rules --------------------------------------------------------------- */

/* A pair inside a rack: the same-rack rule, its rack's pairs against the
 * pairs inside the other racks. */
static void fc_rules_same_rack(json_t *lines, const char *size, json_t *same)
{
    double pct = json_number_value(json_object_get(same, "max_below_median_pct"));

    if (!json_is_object(same))
        return;
    fc_rule_add(lines, 1, "%ssame-rack rule: the pairs inside rack %s (median %.4g GB/s) "
                "%s %.4g%% below the %s (%.4g GB/s)%s", size, fc_json_str(same, "rack"),
                json_number_value(json_object_get(same, "rack_pairs_median_gbps")),
                json_is_true(json_object_get(same, "rack_slow")) ? "are more than"
                                                                 : "are at most",
                pct, fc_json_str(same, "class"),
                json_number_value(json_object_get(same, "reference_gbps")),
                json_is_true(json_object_get(same, "rack_slow"))
                    ? ": each is judged against it" : "");
}

void fc_rules_pair(json_t *rec, json_t *lines)
{
    json_t *lat = json_object_get(rec, "latency_limit"), *z;
    size_t i;

    json_array_foreach(json_object_get(rec, "sizes"), i, z) {
        char size[48];

        fc_format_size((uint64_t)json_integer_value(json_object_get(z, "bytes")), size,
                       sizeof(size) - 2);
        strcat(size, ": ");
        fc_rules_figures(lines, size, json_object_get(z, "min_bw_gbps")
                         ? json_number_value(json_object_get(z, "min_bw_gbps")) : -1, -1,
                         (long)json_integer_value(json_object_get(z, "limit_line")),
                         json_object_get(z, "relative"),
                         json_object_get(z, "rules_not_applied"), "bandwidth");
        fc_rules_same_rack(lines, size, json_object_get(z, "same_rack_rule"));
    }
    if (json_is_object(lat) && json_number_value(json_object_get(lat, "max_latency_us")) >= 0)
        fc_rule_add(lines, 1, "latency <= %.0f us (profile line %lld)",
                    json_number_value(json_object_get(lat, "max_latency_us")),
                    (long long)json_integer_value(json_object_get(lat, "line")));
}

/* ---- limits -------------------------------------------------------------- */

/* Does a pair's figure at size entry z (its bandwidth) or, with
 * judge_lat, its latency lat_us (with the record's latency_limit; -1: not
 * there, which fails) fail? */
static int fc_pair_fails_limit(json_t *rec, json_t *z, double bw, int judge_lat,
                               double lat_us, char *why, size_t len)
{
    double min_bw = fc_rule_num(z, "min_bw_gbps");
    json_t *ll = json_object_get(rec, "latency_limit");

    if (min_bw >= 0 && bw < min_bw) {
        if (why)
            snprintf(why, len, "at %lld bytes %.4f GB/s per direction is below min_bw_gbps "
                     "%g (profile line %lld)",
                     (long long)json_integer_value(json_object_get(z, "bytes")), bw, min_bw,
                     (long long)json_integer_value(json_object_get(z, "limit_line")));
        return 1;
    }
    if (judge_lat && fc_rule_num(ll, "max_latency_us") >= 0 &&
        !(lat_us >= 0 && lat_us <= fc_rule_num(ll, "max_latency_us"))) {
        if (why && lat_us < 0)
            snprintf(why, len, "no latency, under max_latency_us %g (profile line %lld)",
                     fc_rule_num(ll, "max_latency_us"),
                     (long long)json_integer_value(json_object_get(ll, "line")));
        else if (why)
            snprintf(why, len, "latency %.1f us is above max_latency_us %g (profile line "
                     "%lld)", lat_us, fc_rule_num(ll, "max_latency_us"),
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
                     fc_pair_fails_limit(rec, mine, fc_rule_num(z, "bw_gbps"), k == 0,
                                         fc_rule_num(z, "latency_us"), NULL, 0);
        }
        slow[n++] = fails;
    }
    return n > 0 && fc_confirm_decide(slow, n) == FC_CONFIRM_CLEARED;
}

/* Each size against its limit and the latency against the record's,
 * unless the confirmation alone cleared it (a rail's pair: the same). */
int fc_limits_pair(json_t *rec, char *why, size_t len)
{
    json_t *z;
    size_t i;

    json_array_foreach(json_object_get(rec, "sizes"), i, z)
        if (fc_pair_fails_limit(rec, z, fc_rule_num(z, "bw_gbps"), i == 0,
                                fc_rule_num(rec, "latency_us"), why, len))
            return !fc_pair_cleared(rec);
    return 0;
}
