/*
 * fc_pairs_records.c - labels, certificate figures, HTML cells and rules
 * of the pairs stage's records (see fc_pairs_records.h). A pair's rules
 * are one set per size (its limit, the relative rule, the same-rack rule
 * for a pair inside a rack), then its latency limit.
 */
#include "fc_pairs_records.h"

#include <stdint.h>
#include <string.h>

#include "fc_cert_figure.h"
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
