/*
 * fc_html_cell.c - see fc_html_cell.h. Numbers are read as the stages
 * write them; a figure that is absent reads as 0, and the certificate
 * beside the page has it as null.
 */
#include "fc_html_cell.h"

#include <math.h>

#include "fc_counters_interval.h"
#include "fc_html_escape.h"
#include "fc_json.h"

void fc_cell_point(FILE *f, json_t *rec)
{
    json_t *soak = json_object_get(rec, "soak");

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
    if (json_is_object(soak)) {
        fprintf(f, "; %lld runs in %zu windows",
                (long long)json_integer_value(json_object_get(soak, "runs")),
                json_array_size(json_object_get(soak, "windows")));
        if (json_is_number(json_object_get(soak, "extended_s")) &&
            json_number_value(json_object_get(soak, "extended_s")) > 0 &&
            (long long)json_array_size(json_object_get(soak, "windows")) >
            (long long)json_integer_value(json_object_get(soak, "nominal_windows")))
            fprintf(f, " (%.1f s past its duration: %lld window(s) to settle the drift)",
                    json_number_value(json_object_get(soak, "extended_s")),
                    (long long)json_array_size(json_object_get(soak, "windows")) -
                    (long long)json_integer_value(json_object_get(soak, "nominal_windows")));
        if (json_is_number(json_object_get(soak, "drift_pct")) &&
            json_is_number(json_object_get(soak, "tolerance_pct")))
            fprintf(f, ", drift %.1f%% (tolerance %.1f%%: limit %.1f%%, the windows' noise "
                    "floor %.1f%%%s)", json_number_value(json_object_get(soak, "drift_pct")),
                    json_number_value(json_object_get(soak, "tolerance_pct")),
                    json_number_value(json_object_get(soak, "max_drift_pct")),
                    json_number_value(json_object_get(soak, "noise_floor_pct")),
                    json_is_true(json_object_get(soak, "tolerance_widened"))
                    ? ", wider than the limit" : "");
        else if (json_is_number(json_object_get(soak, "drift_pct")))
            fprintf(f, ", drift %.1f%% (limit %.1f%%)",
                    json_number_value(json_object_get(soak, "drift_pct")),
                    json_number_value(json_object_get(soak, "max_drift_pct")));
        if (json_is_object(json_object_get(soak, "confirmation"))) {
            json_t *c = json_object_get(soak, "confirmation");
            json_t *first = json_object_get(c, "first"), *last = json_object_get(c, "last");

            fprintf(f, "; a drift seen ");
            if (json_is_object(first))
                fprintf(f, "over %lld windows (%.1f%%) ",
                        (long long)json_integer_value(json_object_get(first, "windows")),
                        json_number_value(json_object_get(first, "drift_pct")));
            fprintf(f, "was ");
            fc_html_escape(f, fc_json_str(c, "outcome"));
            fprintf(f, " over %lld (%.1f%%)",
                    (long long)json_integer_value(json_object_get(last, "windows")),
                    json_number_value(json_object_get(last, "drift_pct")));
        }
        if (json_is_number(json_object_get(soak, "intermittent_pct")))
            fprintf(f, ", intermittent %.1f%% (the slowest %lld windows)",
                    json_number_value(json_object_get(soak, "intermittent_pct")),
                    (long long)json_integer_value(json_object_get(soak,
                                                                  "intermittent_windows")));
    }
}

void fc_cell_soak_counters(FILE *f, json_t *rec)
{
    json_t *links = json_object_get(rec, "links"), *c, *cv;
    const char *link, *name;
    int moved = 0;

    json_object_foreach(links, link, c)
        json_object_foreach(c, name, cv)
            if (json_integer_value(cv) != 0) {
                fprintf(f, "%s", moved++ ? "; " : "");
                fc_html_escape(f, link);
                fprintf(f, " %s %+lld", name, (long long)json_integer_value(cv));
            }
    if (!moved)
        fprintf(f, "no counter of %zu link(s) moved", json_object_size(links));
}

void fc_cell_soak_gpu(FILE *f, json_t *rec)
{
    json_t *burn = json_object_get(rec, "burn"), *health = json_object_get(rec, "health"), *k;
    const char *name;
    size_t i;
    int n = 0;

    json_object_foreach(json_object_get(burn, "kinds"), name, k)
        fprintf(f, "%s%s %.4g TFLOPS (%lld GEMMs, %s)", n++ ? ", " : "burn: ", name,
                json_number_value(json_object_get(k, "tflops_median")),
                (long long)json_integer_value(json_object_get(k, "iterations")),
                fc_json_str(k, "verdict"));
    if (n == 0) {
        fprintf(f, "no burn");
        if (json_is_string(json_object_get(burn, "why"))) {
            fprintf(f, " (");
            fc_html_escape(f, fc_json_str(burn, "why"));
            fprintf(f, ")");
        }
    }
    if (!json_is_true(json_object_get(health, "read"))) {
        fprintf(f, "; health not read (");
        fc_html_escape(f, fc_json_str(health, "why"));
        fprintf(f, ")");
        return;
    }
    fprintf(f, "; health read in %lld window(s)",
            (long long)json_integer_value(json_object_get(health, "windows_judged")));
    json_array_foreach(json_object_get(rec, "evidence"), i, k)
        if (json_is_string(json_object_get(k, "counter")) && json_object_get(k, "after")) {
            fprintf(f, "; ");
            fc_html_escape(f, fc_json_str(k, "counter"));
            fprintf(f, " %lld to %lld", (long long)json_integer_value(json_object_get(k, "before")),
                    (long long)json_integer_value(json_object_get(k, "after")));
            if (json_is_integer(json_object_get(k, "window")))
                fprintf(f, " in window %lld",
                        (long long)json_integer_value(json_object_get(k, "window")));
        }
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
