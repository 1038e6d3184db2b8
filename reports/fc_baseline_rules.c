/*
 * fc_baseline_rules.c - the limits `fabcert baseline` derives (the rule
 * in fc_baseline.h): each derived stage's figures gathered into buckets,
 * one per limit rule (the finest grouping the profile's limit table
 * holds), each bucket's margin from --margin, the spread across groups
 * and runs, the run-to-run difference and the iteration noise, and the
 * relative rule from the worst group below its peers; each rule written
 * with the comment that says where it came from.
 */
#include "fc_baseline_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_record.h"
#include "fc_samples.h"
#include "fc_stats.h"
#include "fc_stats_compare.h"

/* One figure: [run, median time us, bandwidth GB/s or 0, se of the
 * median's log or 0]. */
static void fc_bl_add(json_t *buckets, json_t *meta, const char *key, json_t *m, int run,
                      double t, double b, double se)
{
    json_t *obs = json_object_get(buckets, key);

    if (obs == NULL) {
        obs = json_array();
        json_object_set_new(buckets, key, obs);
        json_object_set_new(meta, key, m);
    } else {
        json_decref(m);
    }
    json_array_append_new(obs, json_pack("[i, f, f, f]", run, t, b, se));
}

/* The standard error of a median's log from its samples (1.2533 sd /
 * sqrt(n)), 0 without samples. */
static double fc_bl_se(json_t *samples)
{
    double us[FC_SAMPLES_MAX];
    int n = fc_samples_read(samples, us, FC_SAMPLES_MAX);

    return n >= FC_CMP_MIN_SAMPLES ? 1.2533 * fc_robust_sd_log(us, n) / sqrt(n) : 0;
}

/* The rule key of a point at a level: 0 collective, type, op and size; 1
 * collective and size; 2 size. */
static void fc_bl_key(json_t *rec, int level, char *key, size_t len, json_t **meta_p)
{
    const char *c = fc_json_str(rec, "collective"), *d = fc_json_str(rec, "dtype");
    const char *o = fc_json_str(rec, "op");
    json_int_t z = fc_bl_requested(rec);

    snprintf(key, len, "%s|%s|%s|%lld", level < 2 ? c : "", level < 1 ? d : "",
             level < 1 ? o : "", (long long)z);
    *meta_p = json_pack("{s:s, s:s, s:s, s:I}", "collective", level < 2 ? c : "",
                        "dtype", level < 1 ? d : "", "op", level < 1 && strcmp(o, "none")
                        ? o : "", "bytes", z);
}

/* Gather a point stage's figures into rule buckets at the finest level
 * that fits the profile's limit table. */
static int fc_bl_point_buckets(const fc_baseline_t *bl, int s, json_t *buckets, json_t *meta)
{
    json_t *rec, *m, *probe;
    size_t i;
    char key[400];
    int level = 0;

    for (; level < 2; ++level) {
        probe = json_object();
        for (int r = 0; r < bl->nruns; ++r)
            json_array_foreach(bl->runs[r].records, i, rec)
                if (fc_bl_point_of(rec, s)) {
                    fc_bl_key(rec, level, key, sizeof(key), &m);
                    json_decref(m);
                    json_object_set_new(probe, key, json_true());
                }
        size_t n = json_object_size(probe);

        json_decref(probe);
        if (n <= FC_PROFILE_MAX_LIMITS)
            break;
    }
    for (int r = 0; r < bl->nruns; ++r)
        json_array_foreach(bl->runs[r].records, i, rec) {
            double busbw = json_number_value(json_object_get(rec, "busbw_gbps"));

            if (!fc_bl_point_of(rec, s))
                continue;
            fc_bl_key(rec, level, key, sizeof(key), &m);
            fc_bl_add(buckets, meta, key, m, r,
                      json_number_value(json_object_get(json_object_get(rec, "time_us"),
                                                        "median")),
                      busbw > 0 ? busbw : 0, fc_bl_se(json_object_get(rec, "samples")));
        }
    return level;
}

/* The pairs stage: a rule per size (bandwidth), and one at 8 bytes for
 * the latency. */
static void fc_bl_pair_buckets(const fc_baseline_t *bl, json_t *buckets, json_t *meta)
{
    json_t *rec, *z;
    size_t i, k;
    char key[64];

    for (int r = 0; r < bl->nruns; ++r)
        json_array_foreach(bl->runs[r].records, i, rec) {
            if (fc_record_id(rec) != FC_RECORD_PAIR)
                continue;
            json_array_foreach(json_object_get(rec, "sizes"), k, z) {
                json_int_t bytes = json_integer_value(json_object_get(z, "bytes"));
                double bw = json_number_value(json_object_get(z, "bw_gbps"));

                if (!(bw > 0))
                    continue;
                snprintf(key, sizeof(key), "bw|%lld", (long long)bytes);
                fc_bl_add(buckets, meta, key, json_pack("{s:s, s:I}", "kind", "bw", "bytes",
                          bytes), r, bytes / bw / 1e3, bw, fc_bl_se(json_object_get(z,
                                                                                "samples")));
            }
            if (json_number_value(json_object_get(rec, "latency_us")) > 0)
                fc_bl_add(buckets, meta, "lat|8", json_pack("{s:s, s:I}", "kind", "latency",
                          "bytes", (json_int_t)8), r,
                          json_number_value(json_object_get(rec, "latency_us")), 0, 0);
        }
}

typedef struct fc_bl_rule {
    int n, nruns;
    double t_lo, t_hi, b_lo, b_hi;  /* the figures' range */
    int b_void;                 /* a figure without a bandwidth (one rank) */
    double s, d, q, m;          /* the terms of the margin, and the margin (logs) */
    const char *set_by;         /* the term that set it */
} fc_bl_rule_t;

static int fc_bl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void fc_bl_margin(const fc_baseline_t *bl, json_t *obs, fc_bl_rule_t *r)
{
    size_t n = json_array_size(obs), i;
    double *t = fc_xcalloc(n + 1, sizeof(*t), "a rule's figures"), all;
    double *tr = fc_xcalloc(n + 1, sizeof(*tr), "a rule's figures of one run");
    json_t *o;
    double terms[4];
    static const char *const names[4] = {
        "--margin", "3 x the spread across groups", "2 x the run-to-run difference",
        "4 x the iteration noise of a median"
    };

    memset(r, 0, sizeof(*r));
    r->t_lo = r->b_lo = INFINITY;
    r->t_hi = r->b_hi = 0;
    json_array_foreach(obs, i, o) {
        double tt = json_number_value(json_array_get(o, 1));
        double bb = json_number_value(json_array_get(o, 2));

        t[i] = tt;
        r->t_lo = fmin(r->t_lo, tt);
        r->t_hi = fmax(r->t_hi, tt);
        r->b_void |= !(bb > 0);
        if (bb > 0) {
            r->b_lo = fmin(r->b_lo, bb);
            r->b_hi = fmax(r->b_hi, bb);
        }
        r->q = fmax(r->q, json_number_value(json_array_get(o, 3)));
    }
    r->n = (int)n;
    all = fc_stats_median(t, n);
    /* the run-to-run difference from each run's median, and the spread
     * across groups as each figure against its own run's median: one
     * run's general level is the first term's, not the second's */
    for (int run = 0; run < bl->nruns; ++run) {
        size_t k = 0;
        double mr;

        json_array_foreach(obs, i, o)
            if (json_integer_value(json_array_get(o, 0)) == run)
                tr[k++] = json_number_value(json_array_get(o, 1));
        if (k == 0)
            continue;
        ++r->nruns;
        mr = fc_stats_median(tr, k);
        r->d = fmax(r->d, fabs(log(mr / all)));
        json_array_foreach(obs, i, o)
            if (json_integer_value(json_array_get(o, 0)) == run)
                t[i] = json_number_value(json_array_get(o, 1)) / mr;
    }
    r->s = fc_robust_sd_log(t, (int)n);
    terms[0] = log(1 + bl->margin);
    terms[1] = 3 * r->s;
    terms[2] = 2 * r->d;
    terms[3] = 4 * r->q;
    r->m = terms[0];
    r->set_by = names[0];
    for (int k = 1; k < 4; ++k)
        if (terms[k] > r->m) {
            r->m = terms[k];
            r->set_by = names[k];
        }
    free(t);
    free(tr);
}

/* x rounded to 4 significant digits, up or down: a limit is never
 * tighter than the rule's figure. */
static double fc_bl_round(double x, int up)
{
    double step;

    if (!(x > 0) || !isfinite(x))
        return x;
    step = pow(10, floor(log10(x)) - 3);
    return (up ? ceil(x / step - 1e-9) : floor(x / step + 1e-9)) * step;
}

static void fc_bl_rule_comment(FILE *f, const char *what, const fc_bl_rule_t *r, int bw)
{
    fprintf(f, "      # %s: %d figure(s) from %d run(s): median %.4g to %.4g us", what, r->n,
            r->nruns, r->t_lo, r->t_hi);
    if (bw && !r->b_void)
        fprintf(f, ", %.4g to %.4g GB/s", r->b_lo, r->b_hi);
    fprintf(f, ";\n      # spread %.1f%%, run-to-run %.1f%%, median's noise %.1f%%: margin "
            "%.1f%% (%s)\n", 100 * r->s, 100 * r->d, 100 * r->q, 100 * expm1(r->m), r->set_by);
}

/* The deviation below the reference (the median of the others, or their
 * upper median) of each member of one class at one point; the worst. */
static double fc_bl_worst_dev(const double *x, int n, int upper, int *who_p)
{
    double worst = -INFINITY, *o = fc_xcalloc((size_t)n + 1, sizeof(*o), "a class's others");

    *who_p = -1;
    for (int g = 0; g < n; ++g) {
        int k = 0;
        double ref;

        for (int h = 0; h < n; ++h)
            if (h != g)
                o[k++] = x[h];
        qsort(o, (size_t)k, sizeof(*o), fc_bl_cmp);
        ref = upper ? o[k / 2] : (k % 2 ? o[k / 2] : 0.5 * (o[k / 2 - 1] + o[k / 2]));
        if (ref > 0 && 1 - x[g] / ref > worst) {
            worst = 1 - x[g] / ref;
            *who_p = g;
        }
    }
    free(o);
    return worst;
}

/* The worst deviation of any group below its class at any point from
 * min_bytes up, in any run (-inf when no class has two members); what
 * it was, into where. */
double fc_bl_relative(const fc_baseline_t *bl, int s, char *where, size_t len)
{
    double worst = -INFINITY;
    uint64_t from = bl->src.stages[s].relative_min_bytes;
    json_t *classes = json_object(), *rec, *z, *members;
    const char *key;
    size_t i, k;
    char ck[600];

    for (int r = 0; r < bl->nruns; ++r)
        json_array_foreach(bl->runs[r].records, i, rec) {
            if (fc_bl_pairs(s) && fc_record_id(rec) == FC_RECORD_PAIR) {
                json_array_foreach(json_object_get(rec, "sizes"), k, z) {
                    if ((uint64_t)json_integer_value(json_object_get(z, "bytes")) < from)
                        continue;
                    snprintf(ck, sizeof(ck), "%d|%lld|%s", r, (long long)json_integer_value(
                             json_object_get(z, "bytes")), strcmp(fc_json_str(rec, "rack_a"),
                             fc_json_str(rec, "rack_b")) ? "across the spine" : "same rack");
                    if (!json_object_get(classes, ck))
                        json_object_set_new(classes, ck, json_array());
                    json_array_append_new(json_object_get(classes, ck), json_pack(
                        "[f, s++]", json_number_value(json_object_get(z, "bw_gbps")),
                        fc_json_str(rec, "host_a"), " <-> ", fc_json_str(rec, "host_b")));
                }
            } else if (!fc_bl_pairs(s) && fc_bl_point_of(rec, s) &&
                       (uint64_t)fc_bl_requested(rec) >= from) {
                double b = json_number_value(json_object_get(rec, "busbw_gbps"));

                snprintf(ck, sizeof(ck), "%d|%s %s %s %lld|%lld ranks on %lld hosts", r,
                         fc_json_str(rec, "collective"), fc_json_str(rec, "dtype"),
                         fc_json_str(rec, "op"), (long long)fc_bl_requested(rec),
                         (long long)json_integer_value(json_object_get(rec, "ranks")),
                         (long long)json_integer_value(json_object_get(rec, "hosts")));
                if (!json_object_get(classes, ck))
                    json_object_set_new(classes, ck, json_array());
                json_array_append_new(json_object_get(classes, ck), json_pack(
                    "[f, s]", b > 0 ? b : json_number_value(json_object_get(rec, "algbw_gbps")),
                    fc_json_str(rec, "group")));
            }
        }
    json_object_foreach(classes, key, members) {
        int n = (int)json_array_size(members), who;
        double *x = fc_xcalloc((size_t)n + 1, sizeof(*x), "a class's figures"), dev;

        for (int g = 0; g < n; ++g)
            x[g] = json_number_value(json_array_get(json_array_get(members, (size_t)g), 0));
        if (n >= 2 && (dev = fc_bl_worst_dev(x, n, fc_bl_pairs(s), &who)) > worst) {
            worst = dev;
            snprintf(where, len, "%s %.1f%% below the %s of the others (%s, run %s)",
                     json_string_value(json_array_get(json_array_get(members, (size_t)who), 1)),
                     100 * dev, fc_bl_pairs(s) ? "upper median" : "median",
                     strchr(key, '|') + 1, bl->runs[atoi(key)].run_id);
        }
        free(x);
    }
    json_decref(classes);
    return worst;
}

void fc_bl_limits(const fc_baseline_t *bl, int s, FILE *f)
{
    json_t *buckets = json_object(), *meta = json_object(), *obs;
    const char *key;
    int level = 2;
    static const char *const levels[] = {
        "one rule per collective, type, op and size",
        "one rule per collective and size (per type and op would be more than the profile's "
        "limit table holds; each rule takes the slowest of them)",
        "one rule per size (each rule takes the slowest collective, type and op)",
    };

    if (fc_bl_pairs(s))
        fc_bl_pair_buckets(bl, buckets, meta);
    else
        level = fc_bl_point_buckets(bl, s, buckets, meta);
    fprintf(f, "    limits:                 # %s\n", fc_bl_pairs(s) ? "one rule per "
            "size (each pair's bandwidth), one at 8 bytes (its latency)" : levels[level]);
    json_object_foreach(buckets, key, obs) {
        json_t *m = json_object_get(meta, key);
        fc_bl_rule_t r;
        char what[200], size[32];
        int lat = !strcmp(fc_json_str(m, "kind"), "latency");
        json_int_t bytes = json_integer_value(json_object_get(m, "bytes"));

        fc_bl_margin(bl, obs, &r);
        fc_format_size((uint64_t)bytes, size, sizeof(size));
        if (fc_bl_pairs(s))
            snprintf(what, sizeof(what), "%s at %s", lat ? "latency (half round trip)"
                     : "bandwidth", lat ? "8 bytes" : size);
        else
            snprintf(what, sizeof(what), "%s%s%s%s%s %s", fc_json_str(m, "collective")[0]
                     ? fc_json_str(m, "collective") : "any collective",
                     fc_json_str(m, "dtype")[0] ? " " : "", fc_json_str(m, "dtype"),
                     fc_json_str(m, "op")[0] ? " " : "", fc_json_str(m, "op"), size);
        fc_bl_rule_comment(f, what, &r, !lat);
        fprintf(f, "      - collective: %s\n", fc_json_str(m, "collective")[0]
                ? fc_json_str(m, "collective") : "any");
        if (fc_json_str(m, "dtype")[0])
            fprintf(f, "        dtype: %s\n", fc_json_str(m, "dtype"));
        if (fc_json_str(m, "op")[0])
            fprintf(f, "        op: %s\n", fc_json_str(m, "op"));
        fc_bl_size((uint64_t)bytes, size, sizeof(size));
        fprintf(f, "        min_bytes: %s\n        max_bytes: %s\n", size, size);
        if (!lat && !r.b_void)
            fprintf(f, "        min_busbw_gbps: %.6g\n", fc_bl_round(r.b_lo / exp(r.m), 0));
        if (!fc_bl_pairs(s) || lat)
            fprintf(f, "        max_latency_us: %.6g\n", fc_bl_round(r.t_hi * exp(r.m), 1));
    }
    json_decref(buckets);
    json_decref(meta);
}
