/*
 * fc_sensitivity.c - see fc_sensitivity.h. Each rule that judged a
 * figure gives the slowdown factor k at which it would fail; the smallest
 * wins. Only what the record says is used: a limit it does not carry, or
 * a figure that is 0 (busbw of one rank), gives no k.
 */
#include "fc_sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fc_samples.h"
#include "fc_stats_compare.h"

typedef struct fc_sens_best {
    double k;               /* the smallest slowdown that fails it, or -1 */
    char by[240];           /* the rule */
    double noise;           /* of the samples of the figure it judged, or -1 */
} fc_sens_best_t;

static double fc_sens_num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_number(v) ? json_number_value(v) : -1;
}

/* 100 x the robust sd of the log-times of a "samples" member, or -1. */
static double fc_sens_noise(json_t *samples)
{
    double us[FC_SAMPLES_MAX];
    int n = fc_samples_read(samples, us, FC_SAMPLES_MAX);

    return n >= FC_CMP_MIN_SAMPLES ? 100 * fc_robust_sd_log(us, n) : -1;
}

static void fc_sens_consider(fc_sens_best_t *b, double k, double noise, const char *by)
{
    if (!(k > 0) || !isfinite(k) || (b->k > 0 && k >= b->k))
        return;
    b->k = k < 1 ? 1 : k;
    b->noise = noise;
    snprintf(b->by, sizeof(b->by), "%s", by);
}

/* An absolute limit: "min_busbw_gbps 0.01 (profile line 34)". */
static void fc_sens_limit(fc_sens_best_t *b, double k, double noise, const char *what,
                          double limit, int line)
{
    char by[200];

    if (line > 0)
        snprintf(by, sizeof(by), "%s %.6g (profile line %d)", what, limit, line);
    else
        snprintf(by, sizeof(by), "%s %.6g", what, limit);
    fc_sens_consider(b, k, noise, by);
}

/* The relative rule of a figure against reference with pct allowed:
 * "relative rule: busbw below 0.5 GB/s (its peers' median less 50%)". */
static void fc_sens_relative(fc_sens_best_t *b, double mine, double ref, double pct,
                             double noise, const char *rule, const char *figure,
                             const char *reference)
{
    char by[240];

    if (!(mine > 0 && ref > 0 && pct >= 0 && pct < 100))
        return;
    snprintf(by, sizeof(by), "%s: %s below %.6g GB/s (%s less %.4g%%)", rule, figure,
             ref * (1 - pct / 100), reference, pct);
    fc_sens_consider(b, mine / (ref * (1 - pct / 100)), noise, by);
}

static void fc_sens_point(json_t *rec, fc_sens_best_t *b)
{
    json_t *limit = json_object_get(rec, "limit"), *rel = json_object_get(rec, "relative");
    double busbw = fc_sens_num(rec, "busbw_gbps"), algbw = fc_sens_num(rec, "algbw_gbps");
    double med = fc_sens_num(json_object_get(rec, "time_us"), "median");
    double noise = fc_sens_noise(json_object_get(rec, "samples"));
    double min_bw = fc_sens_num(limit, "min_busbw_gbps"), max_lat = fc_sens_num(limit,
                                                                               "max_latency_us");
    int line = (int)json_integer_value(json_object_get(limit, "line"));
    int on_algbw = json_object_get(rel, "peer_median_algbw_gbps") != NULL;

    if (min_bw > 0 && busbw > 0)
        fc_sens_limit(b, busbw / min_bw, noise, "min_busbw_gbps", min_bw, line);
    if (max_lat > 0 && med > 0)
        fc_sens_limit(b, max_lat / med, noise, "max_latency_us", max_lat, line);
    fc_sens_relative(b, on_algbw ? algbw : busbw,
                     fc_sens_num(rel, on_algbw ? "peer_median_algbw_gbps"
                                               : "peer_median_busbw_gbps"),
                     fc_sens_num(rel, "max_below_median_pct"), noise, "relative rule",
                     on_algbw ? "algbw" : "busbw", "its peers' median");
}

static void fc_sens_pair(json_t *rec, fc_sens_best_t *b)
{
    json_t *z, *lat_limit = json_object_get(rec, "latency_limit");
    double lat = fc_sens_num(rec, "latency_us"), max_lat = fc_sens_num(lat_limit,
                                                                        "max_latency_us");
    size_t i;

    json_array_foreach(json_object_get(rec, "sizes"), i, z) {
        json_t *rel = json_object_get(z, "relative"), *same = json_object_get(z, "same_rack_rule");
        double bw = fc_sens_num(z, "bw_gbps"), min_bw = fc_sens_num(z, "min_bw_gbps");
        double noise = fc_sens_noise(json_object_get(z, "samples"));
        double pct = fc_sens_num(rel, "max_below_median_pct");
        char what[80];

        snprintf(what, sizeof(what), "min_bw_gbps at %lld bytes",
                 (long long)json_integer_value(json_object_get(z, "bytes")));
        snprintf(what, sizeof(what), "bandwidth at %lld bytes",
                 (long long)json_integer_value(json_object_get(z, "bytes")));
        if (min_bw > 0 && bw > 0) {
            char by[120];

            snprintf(by, sizeof(by), "min_bw_gbps at %lld bytes",
                     (long long)json_integer_value(json_object_get(z, "bytes")));
            fc_sens_limit(b, bw / min_bw, noise, by, min_bw,
                          (int)json_integer_value(json_object_get(z, "limit_line")));
        }
        fc_sens_relative(b, bw, fc_sens_num(rel, "peer_upper_median_gbps"), pct, noise,
                         "relative rule", what, "its class's upper median");
        if (json_is_true(json_object_get(same, "rack_slow")))
            fc_sens_relative(b, bw, fc_sens_num(same, "reference_gbps"),
                             fc_sens_num(same, "max_below_median_pct"), noise, "same-rack rule",
                             what, "the pairs inside the other racks");
        fc_sens_relative(b, bw, fc_sens_num(json_object_get(z, "rack_rule"), "reference_gbps"),
                         pct, noise, "rack rule", what,
                         "the fastest pair of racks without its rack");
    }
    if (max_lat > 0 && lat > 0)
        fc_sens_limit(b, max_lat / lat, -1, "max_latency_us at 8 bytes", max_lat,
                      (int)json_integer_value(json_object_get(lat_limit, "line")));
}

json_t *fc_sensitivity_of(json_t *rec)
{
    const char *type = json_string_value(json_object_get(rec, "type"));
    fc_sens_best_t b = { -1, "", -1 };
    double loss;
    const char *flag = NULL;

    if (type == NULL)
        return NULL;
    if (strcmp(type, "point") == 0)
        fc_sens_point(rec, &b);
    else if (strcmp(type, "pair") == 0)
        fc_sens_pair(rec, &b);
    else
        return NULL;
    if (b.k < 0)
        return json_pack("{s:n, s:s, s:n, s:n}", "catch_loss_pct", "by",
                         "no timing rule applied: a loss of any size passes", "noise_pct",
                         "flag");
    loss = 100 * (1 - 1 / b.k);
    if (b.noise >= 0 && loss > 0)
        flag = b.noise >= loss ? "inside_noise"
               : loss > FC_SENS_LOOSE * (b.noise > 1 ? b.noise : 1) ? "looser_than_noise"
               : NULL;
    return json_pack("{s:f, s:s, s:o, s:o}", "catch_loss_pct", loss, "by", b.by, "noise_pct",
                     b.noise >= 0 ? json_real(b.noise) : json_null(), "flag",
                     flag ? json_string(flag) : json_null());
}

/* The record's own sensitivity, or one computed from its figures. */
static json_t *fc_sens_get(json_t *rec)
{
    json_t *own = json_object_get(rec, "sensitivity");

    return json_is_object(own) ? json_incref(own) : fc_sensitivity_of(rec);
}

/* Fold one record's catch into its group (groups: name -> {k, by}). */
static void fc_sens_group(json_t *groups, const char *name, json_t *sens)
{
    json_t *g = json_object_get(groups, name), *loss = json_object_get(sens, "catch_loss_pct");

    if (g == NULL) {
        g = json_pack("{s:O, s:O}", "loss", loss, "by", json_object_get(sens, "by"));
        json_object_set_new(groups, name, g);
        return;
    }
    /* the group's catch: the smallest loss that fails any of its records;
     * a record without a timing rule changes nothing while another has one */
    if (json_is_number(loss) && (!json_is_number(json_object_get(g, "loss")) ||
                                 json_number_value(loss) <
                                     json_number_value(json_object_get(g, "loss")))) {
        json_object_set(g, "loss", loss);
        json_object_set(g, "by", json_object_get(sens, "by"));
    }
}

/* "12%", or for a loss near all of it "99.9986% (a 7265x slowdown)": a
 * loss never reads as 100%, which no finite slowdown reaches. */
static void fc_sens_loss_text(double loss, char *buf, size_t len)
{
    int decimals = 1;

    if (loss < 90) {
        snprintf(buf, len, "%.3g%%", loss);
        return;
    }
    while (decimals < 8 && 100 - loss < 2 * pow(10, -decimals))
        ++decimals;
    snprintf(buf, len, loss < 99 ? "%.*f%% (a %.3gx slowdown)" : "%.*f%% (a %.0fx slowdown)",
             decimals, loss, 1 / (1 - loss / 100));
}

json_t *fc_sensitivity_stage(json_t *recs, const char *kind)
{
    json_t *groups = json_object(), *rec, *g, *without = json_array(), *out;
    int judged = 0, loose = 0, inside = 0, unknown = 0;
    const char *least = NULL, *name, *least_by = "";
    double worst = -1;
    char statement[600], lt[64];
    size_t i;

    json_array_foreach(recs, i, rec) {
        json_t *sens = fc_sens_get(rec);
        const char *flag = json_string_value(json_object_get(sens, "flag"));
        const char *type = json_string_value(json_object_get(rec, "type"));

        if (sens == NULL)
            continue;
        ++judged;
        loose += flag && !strcmp(flag, "looser_than_noise");
        inside += flag && !strcmp(flag, "inside_noise");
        unknown += json_is_number(json_object_get(sens, "catch_loss_pct")) &&
                   !json_is_number(json_object_get(sens, "noise_pct"));
        if (type && !strcmp(type, "pair")) {
            fc_sens_group(groups, json_string_value(json_object_get(rec, "host_a"))
                          ? json_string_value(json_object_get(rec, "host_a")) : "", sens);
            fc_sens_group(groups, json_string_value(json_object_get(rec, "host_b"))
                          ? json_string_value(json_object_get(rec, "host_b")) : "", sens);
        } else {
            fc_sens_group(groups, json_string_value(json_object_get(rec, "group"))
                          ? json_string_value(json_object_get(rec, "group")) : "", sens);
        }
        json_decref(sens);
    }
    json_object_foreach(groups, name, g) {
        json_t *loss = json_object_get(g, "loss");

        if (!json_is_number(loss)) {
            json_array_append_new(without, json_string(name));
            continue;
        }
        /* ties go to the first name in sorted order: the same on every run */
        if (json_number_value(loss) > worst ||
            (json_number_value(loss) == worst && least && strcmp(name, least) < 0)) {
            worst = json_number_value(loss);
            least = name;
            least_by = json_string_value(json_object_get(g, "by"));
        }
    }
    if (judged == 0) {            /* no timed figure: preflight, contention, ... */
        json_decref(without);
        json_decref(groups);
        return json_null();
    }
    if (json_array_size(without) > 0)
        snprintf(statement, sizeof(statement), "a loss of any size on %s%s%s would have "
                 "passed this stage: no timing rule applied to it", strcmp(kind, "job")
                 ? kind : "the whole job", strcmp(kind, "job") ? " " : "", strcmp(kind, "job")
                 ? json_string_value(json_array_get(without, 0)) : "");
    else if (fc_sens_loss_text(worst, lt, sizeof(lt)), strcmp(kind, "job") == 0)
        snprintf(statement, sizeof(statement), "a %s throughput loss of the whole job "
                 "would have failed this stage (by %s)", lt, least_by);
    else
        snprintf(statement, sizeof(statement), "a %s throughput loss on any %s would have "
                 "failed this stage (the least covered: %s %s, by %s)", lt, kind, kind,
                 least, least_by);
    out = json_pack("{s:o, s:o, s:o, s:s, s:i, s:O, s:i, s:i, s:i, s:i}", "catch_loss_pct",
                    worst >= 0 && json_array_size(without) == 0 ? json_real(worst) : json_null(),
                    "least_covered", least && json_array_size(without) == 0
                    ? json_string(least) : json_null(), "by", least && json_array_size(without)
                    == 0 ? json_string(least_by) : json_null(), "statement", statement,
                    "groups", (int)json_object_size(groups), "groups_without_timing_rule",
                    without, "judged", judged, "looser_than_noise", loose, "inside_noise",
                    inside, "noise_unknown", unknown);
    json_decref(without);
    json_decref(groups);
    return out;
}
