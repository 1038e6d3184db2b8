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
