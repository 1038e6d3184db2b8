/*
 * fc_compare.c - `fabcert compare` (fc_compare.h): the two runs read, each
 * measurement of BEFORE matched with AFTER's, the statistics, the findings
 * (a slowdown placed on a node when every one of its pairs, or its points
 * in the node stage, is slower, else on the pair, rack or cluster that
 * measured it) and each rack's verdict. Nothing here depends on where the
 * inputs lie or when compare ran: the same two results.jsonl give the
 * same bytes out (the bootstrap is seeded from each measurement's key).
 */
#include "fc_compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_record.h"
#include "fc_sign.h"
#include "fc_verdict_plan.h"

static fc_status_t fc_cmp_load(const char *dir, fc_cmp_input_t *in)
{
    char path[4200];
    json_t *hosts, *h;
    size_t i;

    in->dir = dir;
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if (fc_sha256_file(path, "results file", in->sha256) != FC_OK ||
        fc_results_load(path, 0, &in->records, &in->bad_lines) != FC_OK)
        return FC_ERR_INVALID;
    if (fc_verdict_of_dir(dir, in->records, in->bad_lines, &in->v) != FC_OK) {
        fprintf(stderr, "fabcert: %s: not a run that can be compared (above)\n", path);
        json_decref(in->records);
        in->records = NULL;
        return FC_ERR_INVALID;
    }
    in->rack_of = json_object();
    hosts = json_object_get(json_object_get(in->v.plan, "inventory"), "hosts");
    json_array_foreach(hosts, i, h)
        json_object_set_new(in->rack_of, fc_json_str(h, "host"),
                            json_string(fc_json_str(h, "rack")));
    return FC_OK;
}

static void fc_cmp_input_free(fc_cmp_input_t *in)
{
    if (in->records == NULL)
        return;
    fc_verdict_free(&in->v);
    json_decref(in->records);
    json_decref(in->rack_of);
}

/* The stages whose points are compared: sweeps measured once per group. */
static int fc_cmp_point_stage(json_t *rec)
{
    const char *s = fc_json_str(rec, "stage");

    return fc_record_id(rec) == FC_RECORD_POINT && !json_object_get(rec, "soak") &&
           (!strcmp(s, "node") || !strcmp(s, "rack") || !strcmp(s, "cluster"));
}

/* The size a point's sweep asked for (records before requested_bytes
 * have only the bytes moved). */
static json_int_t fc_cmp_requested(json_t *rec)
{
    json_t *v = json_object_get(rec, "requested_bytes");

    return json_integer_value(v ? v : json_object_get(rec, "bytes"));
}

/* A measurement's key: what makes two runs' records the same measurement. */
static void fc_cmp_point_key(json_t *rec, char *key, size_t len)
{
    snprintf(key, len, "%s|%s|%s|%s|%lld|%s", fc_json_str(rec, "stage"),
             fc_json_str(rec, "collective"), fc_json_str(rec, "dtype"),
             fc_json_str(rec, "op"), (long long)fc_cmp_requested(rec),
             fc_json_str(rec, "group"));
}

static void fc_cmp_pair_hosts(json_t *rec, const char **a, const char **b)
{
    *a = fc_json_str(rec, "host_a");
    *b = fc_json_str(rec, "host_b");
    if (strcmp(*a, *b) > 0) {
        const char *t = *a;

        *a = *b;
        *b = t;
    }
}

static void fc_cmp_pair_key(json_t *rec, json_t *size, char *key, size_t len)
{
    const char *a, *b;

    fc_cmp_pair_hosts(rec, &a, &b);
    snprintf(key, len, "pairs|%s|%s|%lld", a, b,
             (long long)json_integer_value(json_object_get(size, "bytes")));
}

static fc_cmp_item_t *fc_cmp_new_item(fc_compare_t *c)
{
    if (c->nitems == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->items = fc_xrealloc(c->items, (size_t)c->cap, sizeof(*c->items),
                               "the compared measurements");
    }
    memset(&c->items[c->nitems], 0, sizeof(c->items[0]));
    return &c->items[c->nitems++];
}

/* One side's samples (the member holding them: a point record, a pair's
 * size entry). */
static void fc_cmp_read_side(json_t *m, double *us, int *n_p)
{
    *n_p = fc_samples_read(json_object_get(m, "samples"), us, FC_SAMPLES_MAX);
}

static void fc_cmp_add_point(fc_compare_t *c, json_t *index, json_t *rec)
{
    char key[400], size[32];
    fc_cmp_item_t *it;
    const char *group = fc_json_str(rec, "group"), *stage = fc_json_str(rec, "stage");
    json_t *seen = NULL;

    fc_cmp_point_key(rec, key, sizeof(key));
    if ((seen = json_object_get(index, key)) != NULL) {  /* a later attempt's */
        it = &c->items[json_integer_value(seen)];
    } else {
        it = fc_cmp_new_item(c);
        json_object_set_new(index, key, json_integer(c->nitems - 1));
    }
    fc_format_size((uint64_t)fc_cmp_requested(rec), size, sizeof(size));
    snprintf(it->label, sizeof(it->label), "%s: %s %s%s%s %s on %s", stage,
             fc_json_str(rec, "collective"), fc_json_str(rec, "dtype"),
             strcmp(fc_json_str(rec, "op"), "none") ? " " : "",
             strcmp(fc_json_str(rec, "op"), "none") ? fc_json_str(rec, "op") : "", size, group);
    snprintf(it->stage, sizeof(it->stage), "%s", stage);
    snprintf(it->part, sizeof(it->part), "%s", !strcmp(stage, "node") ? "node" :
             !strcmp(stage, "rack") ? "rack" : "cluster");
    if (!strcmp(stage, "node"))
        snprintf(it->host_a, sizeof(it->host_a), "%s", fc_json_str(rec, "host"));
    snprintf(it->rack_a, sizeof(it->rack_a), "%s", fc_json_str(rec, "rack"));
    fc_cmp_read_side(rec, it->us_b, &it->nb);
}

static void fc_cmp_add_pair(fc_compare_t *c, json_t *index, json_t *rec)
{
    json_t *z;
    size_t i;

    json_array_foreach(json_object_get(rec, "sizes"), i, z) {
        char key[400], size[32];
        const char *a, *b;
        json_t *seen;
        fc_cmp_item_t *it;

        fc_cmp_pair_key(rec, z, key, sizeof(key));
        if ((seen = json_object_get(index, key)) != NULL) {
            it = &c->items[json_integer_value(seen)];
        } else {
            it = fc_cmp_new_item(c);
            json_object_set_new(index, key, json_integer(c->nitems - 1));
        }
        fc_cmp_pair_hosts(rec, &a, &b);
        fc_format_size((uint64_t)json_integer_value(json_object_get(z, "bytes")), size,
                       sizeof(size));
        snprintf(it->label, sizeof(it->label), "pairs: pair %s <-> %s %s", a, b, size);
        snprintf(it->stage, sizeof(it->stage), "pairs");
        snprintf(it->part, sizeof(it->part), "pair");
        snprintf(it->host_a, sizeof(it->host_a), "%s", a);
        snprintf(it->host_b, sizeof(it->host_b), "%s", b);
        snprintf(it->rack_a, sizeof(it->rack_a), "%s", fc_json_str(rec, "rack_a"));
        snprintf(it->rack_b, sizeof(it->rack_b), "%s", fc_json_str(rec, "rack_b"));
        fc_cmp_read_side(z, it->us_b, &it->nb);
    }
}

/* AFTER's records: each fills the item of its key, or counts as a
 * measurement BEFORE did not make. */
static void fc_cmp_match_after(fc_compare_t *c, json_t *index)
{
    json_t *rec, *z, *seen;
    size_t i, k;
    char key[400];

    json_array_foreach(c->in[1].records, i, rec) {
        if (fc_cmp_point_stage(rec)) {
            fc_cmp_point_key(rec, key, sizeof(key));
            if ((seen = json_object_get(index, key)) == NULL) {
                c->only_after++;
                continue;
            }
            fc_cmp_item_t *it = &c->items[json_integer_value(seen)];

            it->in_after = 1;
            fc_cmp_read_side(rec, it->us_a, &it->na);
        } else if (fc_record_id(rec) == FC_RECORD_PAIR) {
            json_array_foreach(json_object_get(rec, "sizes"), k, z) {
                fc_cmp_pair_key(rec, z, key, sizeof(key));
                if ((seen = json_object_get(index, key)) == NULL) {
                    c->only_after++;
                    continue;
                }
                c->items[json_integer_value(seen)].in_after = 1;
                fc_cmp_read_side(z, c->items[json_integer_value(seen)].us_a,
                                 &c->items[json_integer_value(seen)].na);
            }
        }
    }
}

/* FNV-1a of the label: each measurement's bootstrap has its own stream,
 * the same on every run. */
static uint64_t fc_cmp_seed(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void fc_cmp_test_items(fc_compare_t *c)
{
    const fc_compare_opts_t *o = c->o;
    double *p = fc_xcalloc((size_t)c->nitems + 1, sizeof(*p), "the measurements' p-values");
    int *rej = fc_xcalloc((size_t)c->nitems + 1, sizeof(*rej), "the Holm rejections"), m = 0;

    for (int k = 0; k < c->nitems; ++k) {
        fc_cmp_item_t *it = &c->items[k];

        p[k] = 1;
        if (!it->in_after)
            snprintf(it->why, sizeof(it->why), "AFTER did not measure it");
        else if (it->nb < 0 || it->na < 0)
            snprintf(it->why, sizeof(it->why), "the samples of %s are malformed",
                     it->nb < 0 ? "BEFORE" : "AFTER");
        else if (it->nb < FC_CMP_MIN_SAMPLES || it->na < FC_CMP_MIN_SAMPLES)
            snprintf(it->why, sizeof(it->why), "the test could not run for lack of samples "
                     "(%s has %d; %d needed: a record of an older fabcert, or a "
                     "measurement that did not run)", it->nb < FC_CMP_MIN_SAMPLES
                     ? "BEFORE" : "AFTER", it->nb < FC_CMP_MIN_SAMPLES ? it->nb : it->na,
                     FC_CMP_MIN_SAMPLES);
        else if (fc_cmp_samples(it->us_b, it->nb, it->us_a, it->na, o->alpha, o->power,
                                fc_cmp_seed(it->label), &it->r) != 0)
            snprintf(it->why, sizeof(it->why), "a sample is not a positive time");
        else {
            it->compared = 1;
            p[k] = it->r.p;
            ++m;
        }
    }
    c->ncompared = m;
    fc_holm(p, c->nitems, o->alpha, rej);
    for (int k = 0; k < c->nitems; ++k) {
        fc_cmp_item_t *it = &c->items[k];

        if (!it->compared)
            continue;
        it->rejected = rej[k];
        it->slower = rej[k] && it->r.ci_lo > 1 + o->min_slowdown;
        it->detectable = (1 + o->min_slowdown) *
                         (1 + fc_cmp_mds(it->r.noise, it->nb, it->na, o->alpha / m, o->power)) - 1;
    }
    free(p);
    free(rej);
}

int fc_cmp_item_in_rack(const fc_cmp_item_t *it, const char *rack)
{
    return (!it->rack_a[0] && !it->rack_b[0]) || !strcmp(it->rack_a, rack) ||
           !strcmp(it->rack_b, rack);
}

int fc_cmp_item_fails_rack(const fc_cmp_item_t *it, const char *rack)
{
    if (!it->slower || !fc_cmp_item_in_rack(it, rack))
        return 0;
    return !it->explained || !it->placed_rack[0] || !strcmp(it->placed_rack, rack);
}

int fc_cmp_finding_in_rack(const fc_cmp_finding_t *f, const char *rack)
{
    return (!f->rack_a[0] && !f->rack_b[0]) || !strcmp(f->rack_a, rack) ||
           !strcmp(f->rack_b, rack);
}

void fc_cmp_item_text(const fc_cmp_item_t *it, char *buf, size_t len)
{
    snprintf(buf, len, "%.1f%% %s (CI %.1f%% to %.1f%%; median %.4g us, was %.4g us)",
             100 * fabs(it->r.ratio - 1), it->r.ratio >= 1 ? "slower" : "faster",
             100 * (it->r.ci_lo - 1), 100 * (it->r.ci_hi - 1), it->r.median_a,
             it->r.median_b);
}

static void fc_cmp_rack_reason(fc_cmp_rack_t *r, const char *fmt, const char *a,
                               const char *b)
{
    char text[600];

    snprintf(text, sizeof(text), fmt, a, b);
    if (!fc_json_has_string(r->reasons, text))
        json_array_append_new(r->reasons, json_string(text));
}

/* The rack's own verdict in run side (0 BEFORE, 1 AFTER), or -1 when the
 * run has no such rack. */
static int fc_cmp_own_verdict(const fc_cmp_input_t *in, const char *rack)
{
    for (int k = 0; k < in->v.nracks; ++k)
        if (!strcmp(in->v.racks[k].rack, rack))
            return (int)in->v.racks[k].verdict;
    return -1;
}

static void fc_cmp_judge_rack(fc_compare_t *c, fc_cmp_rack_t *r)
{
    static const char *const side[2] = { "BEFORE", "AFTER" };

    r->least = -1;
    r->reasons = json_array();
    for (int k = 0; k < c->nitems; ++k) {
        const fc_cmp_item_t *it = &c->items[k];

        if (!fc_cmp_item_in_rack(it, r->rack))
            continue;
        if (!it->compared) {
            ++r->not_compared;
            continue;
        }
        ++r->compared;
        r->slower += fc_cmp_item_fails_rack(it, r->rack);
        if (r->least < 0 || it->detectable > r->detectable) {
            r->least = k;
            r->detectable = it->detectable;
        }
    }
    for (int s = 0; s < 2; ++s) {
        int own = fc_cmp_own_verdict(&c->in[s], r->rack);

        if (own < 0)
            fc_cmp_rack_reason(r, "the rack is not in %s's run: nothing to compare it %s",
                               side[s], s ? "by" : "with");
        else if (own != FC_VERDICT_PASS)
            fc_cmp_rack_reason(r, "%s's own verdict on the rack is %s: a comparison stands "
                               "on two runs that each PASSed (see its certificate)", side[s],
                               fc_verdict_name((fc_verdict_t)own));
        if (c->in[s].bad_lines > 0)
            fc_cmp_rack_reason(r, "a record of %s could not be read: a measurement may be "
                               "missing from the comparison%s", side[s], "");
    }
    if (r->not_compared > 0) {
        char n[32];

        snprintf(n, sizeof(n), "%d", r->not_compared);
        fc_cmp_rack_reason(r, "%s measurement(s) of BEFORE could not be compared%s", n,
                           " (each says why)");
    }
    if (r->compared == 0 && r->not_compared == 0)
        fc_cmp_rack_reason(r, "no measurement of BEFORE concerns the rack%s%s", "", "");
    r->verdict = r->slower > 0 ? FC_VERDICT_FAIL : json_array_size(r->reasons) > 0
                 ? FC_VERDICT_INCOMPLETE : FC_VERDICT_PASS;
}

void fc_cmp_rack_statement(const fc_compare_t *c, const fc_cmp_rack_t *r, char *buf,
                           size_t len)
{
    double conf = 100 * (1 - c->o->alpha);

    if (r->slower > 0)
        snprintf(buf, len, "%d of %d comparisons slower beyond the noise (%.0f%% confidence) "
                 "and by more than %.4g%%", r->slower, r->compared, conf,
                 100 * c->o->min_slowdown);
    else if (r->compared > 0)
        snprintf(buf, len, "no regression above %.1f%% at %.0f%% confidence (%d comparisons; "
                 "the least sensitive: %s)", 100 * r->detectable, conf, r->compared,
                 c->items[r->least].label);
    else
        snprintf(buf, len, "nothing compared: no measurement of the rack has samples in "
                 "both runs");
}

/* Racks: BEFORE's, in its inventory's order, then AFTER's others. */
static void fc_cmp_racks(fc_compare_t *c)
{
    int cap = c->in[0].v.nracks + c->in[1].v.nracks + 1;

    c->racks = fc_xcalloc((size_t)cap, sizeof(*c->racks), "the compared racks");
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < c->in[s].v.nracks; ++k) {
            const char *name = c->in[s].v.racks[k].rack;
            int seen = 0;

            for (int q = 0; q < c->nracks && !seen; ++q)
                seen = !strcmp(c->racks[q].rack, name);
            if (!seen)
                snprintf(c->racks[c->nracks++].rack, FC_VERDICT_NAME, "%s", name);
        }
    c->overall = FC_VERDICT_PASS;
    for (int q = 0; q < c->nracks; ++q) {
        fc_cmp_judge_rack(c, &c->racks[q]);
        if (c->racks[q].verdict > c->overall)
            c->overall = c->racks[q].verdict;
    }
}

static void fc_cmp_free(fc_compare_t *c)
{
    for (int s = 0; s < 2; ++s)
        fc_cmp_input_free(&c->in[s]);
    for (int q = 0; q < c->nracks; ++q)
        json_decref(c->racks[q].reasons);
    free(c->racks);
    free(c->items);
    free(c->findings);
}

fc_status_t fc_compare_dirs(const char *before, const char *after,
                            const fc_compare_opts_t *o, fc_verdict_t *overall_p)
{
    unsigned char sk[64], *key = NULL;
    fc_compare_t c;
    json_t *index, *rec;
    fc_status_t st = FC_ERR_INVALID;
    size_t i;

    memset(&c, 0, sizeof(c));
    c.o = o;
    if (o->sign_key) {
        if (fc_key_load(o->sign_key, 1, sk, sizeof(sk)) != FC_OK)
            return FC_ERR_INVALID;
        key = sk;
    }
    if (fc_cmp_load(before, &c.in[0]) != FC_OK || fc_cmp_load(after, &c.in[1]) != FC_OK)
        goto out;
    /* a run against itself (the same directory, or a copy) is no
     * comparison: every measurement "not slower", a PASS of nothing */
    if ((c.in[0].v.run_id[0] && strcmp(c.in[0].v.run_id, c.in[1].v.run_id) == 0) ||
        strcmp(c.in[0].sha256, c.in[1].sha256) == 0) {
        fprintf(stderr, "fabcert: compare %s %s: BEFORE and AFTER are the same run (%s %s): "
                "a run compared with itself shows no regression, whatever it holds; give "
                "two runs\n", before, after,
                strcmp(c.in[0].sha256, c.in[1].sha256) == 0 ? "results.jsonl sha256"
                                                           : "run id",
                strcmp(c.in[0].sha256, c.in[1].sha256) == 0 ? c.in[0].sha256
                                                           : c.in[0].v.run_id);
        goto out;
    }
    index = json_object();
    json_array_foreach(c.in[0].records, i, rec) {
        if (fc_cmp_point_stage(rec))
            fc_cmp_add_point(&c, index, rec);
        else if (fc_record_id(rec) == FC_RECORD_PAIR)
            fc_cmp_add_pair(&c, index, rec);
    }
    fc_cmp_match_after(&c, index);
    json_decref(index);
    fc_cmp_test_items(&c);
    fc_cmp_findings(&c);
    fc_cmp_racks(&c);
    st = fc_compare_write(&c, key);
    if (st == FC_OK)
        fc_compare_summary(stdout, &c);
    *overall_p = c.overall;
out:
    memset(sk, 0, sizeof(sk));
    fc_cmp_free(&c);
    return st;
}
