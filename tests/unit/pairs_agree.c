/*
 * pairs_agree.c - unit tests of the pairs confirmation's evidence rules on
 * fixture records, no MPI: a run as rank 0 holds it after its rounds
 * (tests/lib/fc_test_pairs.h, every figure planted), confirmed in passes
 * (lib/pairs/fc_pairs_passes.c) with each alone measurement planted by the
 * fixture, then written by the stage's report (lib/pairs/fc_pairs_report.c)
 * into a scratch results.jsonl and read back. The rules:
 *
 *  - evidence must agree: a healthy node fast with its partners in the
 *    rounds, slow with them alone (a busy machine) is measured again;
 *    slow again, its pairs_node record is INCOMPLETE with both figures,
 *    nobody quarantined; fast again, it passes;
 *  - the noise floor: under a 1% tolerance, alone measurements that
 *    spread 20% confirm nothing: the tolerance is widened to the spread,
 *    and the records say so and why;
 *  - a control: a pair slow alone at a moment the whole machine was slow
 *    (its control, measured right after it, as slow) is not reproduced;
 *    beside a fast control it is its path's;
 *  - direction: a node slow only in what it sends is named for that
 *    direction and quarantined; its partners are not named;
 *  - the host's CPU: a node slow alone only while its ranks waited for a
 *    CPU (a busy process sharing their core) is not confirmed: its pairs
 *    are INCOMPLETE naming its CPU, nobody quarantined; a slow link
 *    beside the same wait is still confirmed and quarantined.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_pairs_agree.h"
#include "fc_pairs_passes.h"
#include "fc_tap.h"
#include "fc_test_pairs.h"

static fc_tap_t tap;
static char dir[] = "/tmp/fc_pairs_agree.XXXXXX";

/* What each pair moves when measured alone. */
typedef struct fixture {
    matrix_t m;
    int slow_node;              /* its pairs move 0.001 GB/s (-1: none) ... */
    int sends_only;             /* ... in what it sends only */
    int slow_node2;             /* its pairs move 0.002 GB/s (-1: none) */
    int noisy_node;             /* its pairs but noisy_spared's move 0.01 */
    int noisy_spared;
    const char *noisy_seq;      /* ... by measurement: 'S' 0.01, 'F' as usual */
    double wobble;              /* every other measurement of a pair is
                                 * this much lower (0.2: 20%) */
    int busy_to;                /* stored measurements 0 .. busy_to - 1 move
                                 * 0.01 GB/s, whatever the pair (a busy
                                 * machine) */
    int path_a, path_b;         /* this pair moves 0.01 GB/s alone */
    int cpu_node;               /* its side waited cpu_wait of the time for a
                                 * CPU alone, without which its pairs move
                                 * cpu_free_gbps; they move cpu_gbps (0: as
                                 * the rest of the fixture says) */
    double cpu_gbps, cpu_wait, cpu_free_gbps;
    double cpu_partner_wait;    /* ... while its partner's side waited this
                                 * (a CPU held on one host: 0.12, as measured
                                 * beside a pinned CPU hog) */
    int cpu_first_only;         /* ... in each pair's first alone measurement */
    int cpu_first_spared;       /* ... in every one but each pair's first */
    int cpu_calm;               /* ... of its 5 exchanges, this many (the first)
                                 * calm on both sides, at cpu_calm_gbps */
    double cpu_calm_gbps;
    int count[MAXN][MAXN];      /* measurements made of each pair */
} fixture_t;

static double nominal(const fixture_t *f, int x, int y)
{
    return f->m.node_racks[x] == f->m.node_racks[y] ? 1.0 : 0.5;
}

/* fc_pairs_measure_func_t: the planted figures of the k-th measurement */
static int measure(void *arg, fc_pairs_run_t *run, int x, int y, int s)
{
    fixture_t *f = arg;
    fc_pair_t *p = &run->alone[(size_t)s * (size_t)run->ctx->sp.nsizes];   /* one size */
    int lo = x < y ? x : y, hi = x < y ? y : x, k = f->count[lo][hi]++;
    double bw = nominal(f, lo, hi) * (k % 2 ? 1.0 - f->wobble : 1.0);

    memset(p, 0, sizeof(*p));
    p->a = lo;
    p->b = hi;
    p->bad_node = -1;
    p->lat_us = 20;
    p->dir_gbps[0] = p->dir_gbps[1] = bw;
    if ((lo == f->noisy_node || hi == f->noisy_node) && lo != f->noisy_spared &&
        hi != f->noisy_spared && f->noisy_seq[k < (int)strlen(f->noisy_seq) ? k : 0] == 'S')
        p->dir_gbps[0] = p->dir_gbps[1] = 0.01;
    if (s < f->busy_to || (lo == f->path_a && hi == f->path_b))
        p->dir_gbps[0] = p->dir_gbps[1] = 0.01;
    if (lo == f->slow_node2 || hi == f->slow_node2)
        p->dir_gbps[0] = p->dir_gbps[1] = 0.002;
    if (lo == f->slow_node || hi == f->slow_node) {
        p->dir_gbps[lo == f->slow_node ? 0 : 1] = 0.001;       /* what it sends */
        if (!f->sends_only)
            p->dir_gbps[lo == f->slow_node ? 1 : 0] = 0.001;
    }
    p->cpu_wait_node = p->lat_wait_node = -1;
    p->free_bw_gbps = p->free_lat_us = -1;
    p->side_cpu_wait[0] = p->side_cpu_wait[1] = -1;
    p->side_lat_cpu_wait[0] = p->side_lat_cpu_wait[1] = -1;
    if ((lo == f->cpu_node || hi == f->cpu_node) && !(f->cpu_first_only && k > 0) &&
        !(f->cpu_first_spared && k == 0)) {
        if (f->cpu_gbps > 0)
            p->dir_gbps[0] = p->dir_gbps[1] = f->cpu_gbps;
        p->cpu_wait = p->lat_cpu_wait = f->cpu_wait;
        p->cpu_wait_node = p->lat_wait_node = f->cpu_node;
        p->side_cpu_wait[lo == f->cpu_node ? 0 : 1] = f->cpu_wait;
        p->side_cpu_wait[lo == f->cpu_node ? 1 : 0] = f->cpu_partner_wait;
        p->side_lat_cpu_wait[0] = p->side_cpu_wait[0];
        p->side_lat_cpu_wait[1] = p->side_cpu_wait[1];
        p->free_bw_gbps = f->cpu_free_gbps;
        p->free_lat_us = p->lat_us * (1 - f->cpu_wait);
        /* both sides' samples, through fc_pairs_calm_figure as the
         * stage gives them: the calm ones at cpu_calm_gbps, the rest as
         * measured */
        {
            fc_pair_side_t sa, sb;

            memset(&sa, 0, sizeof(sa));
            sa.samples.n = sa.samples.of = 5;
            for (int i = 0; i < 5; ++i)
                sa.samples.s[i] = (double)run->ctx->sp.sizes[0] / 1e9 /
                                  (i < f->cpu_calm ? f->cpu_calm_gbps
                                                   : (f->cpu_gbps > 0 ? f->cpu_gbps : bw));
            sa.calm = f->cpu_calm > 0 ? ((uint64_t)1 << f->cpu_calm) - 1 : 0;
            sb = sa;
            fc_pairs_calm_figure(p, &sa, &sb, run->ctx->sp.sizes[0]);
        }
    }
    p->bw_gbps = p->dir_gbps[0] < p->dir_gbps[1] ? p->dir_gbps[0] : p->dir_gbps[1];
    return 0;
}

/* Racks of 2, 3 and 1, pct% allowed: the rounds' figures exact (no
 * wobble) but what plant() sets; then confirmed, reported, read back. */
static void fixture_make(fixture_t *f, double pct)
{
    static const int racks[3] = { 2, 3, 1 };

    memset(f, 0, sizeof(*f));
    matrix_make(&f->m, racks, 3, pct, 1.0, 0.5);
    f->slow_node = f->noisy_node = f->noisy_spared = f->path_a = f->path_b = f->cpu_node = -1;
    f->slow_node2 = -1;
    f->cpu_partner_wait = 0.12;
    f->noisy_seq = "";
    for (int k = 0; k < f->m.run.npairs; ++k) {
        fc_pair_t *p = &f->m.pairs[k];

        p->bw_gbps = p->dir_gbps[0] = p->dir_gbps[1] = nominal(f, p->a, p->b);
    }
}

/* Pair (x, y) of the rounds moves bw (into x's direction to y: out). */
static void plant(fixture_t *f, int x, int y, double out, double back)
{
    fc_pair_t *p = fc_pairs_find(&f->m.run, x, y, 0);

    p->dir_gbps[p->a == x ? 0 : 1] = out;
    p->dir_gbps[p->a == x ? 1 : 0] = back;
    p->bw_gbps = out < back ? out : back;
}

/* Judge, confirm and report; the records into *records_p. */
static void fixture_run(fixture_t *f, json_t **records_p)
{
    fc_pairs_run_t *run = &f->m.run;
    int *a, *b, *slow, npairs;
    FILE *null = fopen("/dev/null", "w"), *in;
    char path[4200], line[1 << 16];

    fc_pairs_judge(run);
    npairs = fc_pairs_measured(run, &a, &b);
    slow = calloc((size_t)npairs + 1, sizeof(int));
    for (int k = 0; k < npairs; ++k)
        slow[k] = fc_pairs_find(run, a[k], b[k], 0)->slow;
    fc_pairs_confirm_passes(run, npairs, a, b, slow, FC_CONFIRM_MAX_MEASURES * (4 * 6 + 8),
                            measure, f);
    run->confirmed = 1;
    f->m.ctx.stage = FC_STAGE_PAIRS;
    fc_tap_init(&f->m.ctx.tap, null, 0);
    if (fc_results_open(dir, &f->m.ctx.results) != FC_OK)
        fc_tap_bail(&tap, "cannot open %s", dir);
    fc_pairs_report(run);
    fc_results_close(&f->m.ctx.results);
    fclose(null);
    *records_p = json_array();
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if ((in = fopen(path, "r")) != NULL) {
        while (fgets(line, sizeof(line), in))
            json_array_append_new(*records_p, json_loads(line, 0, NULL));
        fclose(in);
    }
    unlink(path);
    free(a);
    free(b);
    free(slow);
}

static void fixture_free(fixture_t *f, json_t *records)
{
    fc_pairs_confirm_free(&f->m.run.confirm);
    free(f->m.run.alone);
    free(f->m.run.alone_of);
    json_decref(records);
}

/* The pairs_node record of host, or NULL. */
static json_t *node_record(json_t *records, const char *host)
{
    json_t *r;
    size_t i;

    json_array_foreach(records, i, r)
        if (!strcmp(json_string_value(json_object_get(r, "type")), "pairs_node") &&
            !strcmp(json_string_value(json_object_get(r, "host")), host))
            return r;
    return NULL;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "";
}

/* Records that quarantine a host, and into *others_p the FAILs that do not
 * implicate host (any, when host is NULL). */
static int count_blamed(json_t *records, const char *host, int *others_p)
{
    json_t *r;
    size_t i;
    int q = 0;

    *others_p = 0;
    json_array_foreach(records, i, r) {
        json_t *imp = json_object_get(r, "implicates");

        q += json_is_true(json_object_get(imp, "quarantine"));
        *others_p += !strcmp(str(r, "verdict"), "FAIL") && strcmp(str(imp, "host"), host ? host : "");
    }
    return q;
}

/* n03 slow with n01 in its round only; alone, its pairs with every other
 * partner (fast with all of them in their rounds) move as seq says, by
 * measurement ('S' slow), with n01 fast; run, and n03's pairs_node record. */
static json_t *run_noisy(fixture_t *f, const char *seq, json_t **records_p)
{
    fixture_make(f, 80);
    plant(f, 2, 0, 0.01, 0.01);
    f->noisy_node = 2;
    f->noisy_spared = 0;
    f->noisy_seq = seq;
    fixture_run(f, records_p);
    return node_record(*records_p, "n03");
}

static void test_disagreeing_evidence(void)
{
    static fixture_t f;
    json_t *records, *n03, *agree;
    int q, others;
    const char *why;

    n03 = run_noisy(&f, "S", &records);
    why = json_string_value(json_array_get(json_object_get(n03, "reasons"), 0));
    agree = json_object_get(json_object_get(json_object_get(n03, "confirmation"), "disputed"),
                            "agreement");
    q = count_blamed(records, "n03", &others);
    fc_tap_ok(&tap, n03 != NULL,
              "a healthy node slow alone with partners it was fast with in the rounds, "
              "measured again and slow again: INCOMPLETE with both figures, nobody "
              "quarantined, no FAIL (%s)", why ? why : "no record");
    fc_tap_is_str(&tap, str(n03, "verdict"), "INCOMPLETE",
                  "a healthy node slow alone with partners it was fast with in the rounds, "
                  "measured again and slow again: INCOMPLETE with both figures, nobody "
                  "quarantined, no FAIL (%s)"
                  " [str(n03, \"verdict\")]", why ? why : "no record");
    fc_tap_ok(&tap, json_is_null(json_object_get(n03, "implicates")),
              "a healthy node slow alone with partners it was fast with in the rounds, "
              "measured again and slow again: INCOMPLETE with both figures, nobody "
              "quarantined, no FAIL (%s)"
              " [json_is_null(json_object_get(n03, \"implicates\"))]", why ? why : "no record");
    fc_tap_is_int(&tap, q, 0,
                  "a healthy node slow alone with partners it was fast with in the rounds, "
                  "measured again and slow again: INCOMPLETE with both figures, nobody "
                  "quarantined, no FAIL (%s)"
                  " [q]", why ? why : "no record");
    fc_tap_is_int(&tap, others, 0,
                  "a healthy node slow alone with partners it was fast with in the rounds, "
                  "measured again and slow again: INCOMPLETE with both figures, nobody "
                  "quarantined, no FAIL (%s)"
                  " [others]", why ? why : "no record");
    fc_tap_is_int(&tap, f.m.run.confirm.link[2], 0, "... its link is not confirmed");
    fc_tap_ok(&tap, why &&
              strstr(why, "0.0100, 0.0100 GB/s alone (slow 2 of 2) against 1.0000 GB/s in its "
                     "round, measured again: 0.0100, 0.0100 GB/s (slow again: the evidence "
                     "disagrees with the round) with n04 (same rack)"),
              "... its reason gives both series against the round's figure");
    fc_tap_ok(&tap, why && strstr(why, "neither confirms nor clears its link (not quarantined, "
                                  "not certified)"),
              "... and says they neither confirm nor clear its link");
    fc_tap_is_double(&tap, json_number_value(json_object_get(agree, "round_gbps")), 1.0, 0,
                     "its record holds the round's figure, the alone series and the series "
                     "measured again, and that they disagree");
    fc_tap_is_int(&tap, json_array_size(json_object_get(agree, "alone_gbps")), 2,
                  "its record holds the round's figure, the alone series and the series "
                  "measured again, and that they disagree"
                  " [json_array_size(json_object_get(agree, \"alone_gbps\"))]");
    fc_tap_is_int(&tap, json_array_size(json_object_get(agree, "measured_again_gbps")), 2,
                  "its record holds the round's figure, the alone series and the series "
                  "measured again, and that they disagree"
                  " [json_array_size(json_object_get(agree, \"measured_again_gb...]");
    fc_tap_ok(&tap, json_is_false(json_object_get(agree, "agrees")),
              "its record holds the round's figure, the alone series and the series measured "
              "again, and that they disagree"
              " [json_is_false(json_object_get(agree, \"agrees\"))]");
    fc_tap_is_str(&tap,
                  str(json_object_get(json_object_get(n03, "confirmation"), "disputed"),
                      "result"), "disagrees",
                  "its record holds the round's figure, the alone series and the series "
                  "measured again, and that they disagree"
                  " [str(json_object_get(json_object_get(n03, \"confirmation\"),...]");
    fixture_free(&f, records);

    /* the same, but fast when measured again: the first series was noise */
    n03 = run_noisy(&f, "SSFF", &records);
    q = count_blamed(records, NULL, &others);
    fc_tap_ok(&tap, n03 != NULL,
              "fast when measured again: the node is cleared, every record PASSes (%s)",
              str(n03, "note"));
    fc_tap_is_str(&tap, str(n03, "verdict"), "PASS",
                  "fast when measured again: the node is cleared, every record PASSes (%s)"
                  " [str(n03, \"verdict\")]", str(n03, "note"));
    fc_tap_is_int(&tap, q, 0,
                  "fast when measured again: the node is cleared, every record PASSes (%s)"
                  " [q]", str(n03, "note"));
    fc_tap_is_int(&tap, others, 0,
                  "fast when measured again: the node is cleared, every record PASSes (%s)"
                  " [others]", str(n03, "note"));
    fc_tap_ok(&tap, fc_confirm_clear(&f.m.run.confirm, 2),
              "fast when measured again: the node is cleared, every record PASSes (%s)"
              " [fc_confirm_clear(&f.m.run.confirm, 2)]", str(n03, "note"));
    fixture_free(&f, records);
}

static void test_noise_floor(void)
{
    static fixture_t f;
    json_t *records, *r, *tol = NULL;
    size_t i;
    int q, others, confirmed = 0;

    /* a 1% tolerance; three pairs 2% slow in their rounds; every pair's
     * second alone measurement 20% below its first */
    fixture_make(&f, 1);
    plant(&f, 0, 2, 0.49, 0.49);
    plant(&f, 2, 3, 0.98, 0.98);
    plant(&f, 3, 5, 0.49, 0.49);
    f.wobble = 0.2;
    fixture_run(&f, &records);
    q = count_blamed(records, NULL, &others);
    json_array_foreach(records, i, r) {
        json_t *c = json_object_get(r, "confirmation");

        if (tol == NULL && json_is_object(json_object_get(c, "tolerance")))
            tol = json_object_get(c, "tolerance");
        confirmed += json_is_true(json_object_get(c, "confirmed"));
    }
    fc_tap_is_int(&tap, q, 0,
                  "a 1%% tolerance under alone measurements that spread 20%%: widened to 20%% "
                  "(%d passes), nothing confirmed, every record PASSes; the records say why: "
                  "%s",
                  f.m.run.alone_passes, str(tol, "why"));
    fc_tap_is_int(&tap, others, 0,
                  "a 1%% tolerance under alone measurements that spread 20%%: widened to 20%% "
                  "(%d passes), nothing confirmed, every record PASSes; the records say why: %s"
                  " [others]", f.m.run.alone_passes, str(tol, "why"));
    fc_tap_is_int(&tap, confirmed, 0,
                  "a 1%% tolerance under alone measurements that spread 20%%: widened to 20%% "
                  "(%d passes), nothing confirmed, every record PASSes; the records say why: %s"
                  " [confirmed]", f.m.run.alone_passes, str(tol, "why"));
    fc_tap_ok(&tap, f.m.run.alone_widened, "... the alone judgement's tolerance is widened");
    fc_tap_ok(&tap, f.m.run.alone_passes >= 2, "... in 2 passes or more (%d)",
              f.m.run.alone_passes);
    fc_tap_ok(&tap, json_is_true(json_object_get(tol, "widened")),
              "... and the records say it was widened");
    fc_tap_is_double(&tap, json_number_value(json_object_get(tol, "profile_pct")), 1, 0,
                     "a 1%% tolerance under alone measurements that spread 20%%: widened to "
                     "20%% (%d passes), nothing confirmed, every record PASSes; the records "
                     "say why: %s"
                     " [json_number_value(json_object_get(tol, \"profile_pct\"))]",
                     f.m.run.alone_passes, str(tol, "why"));
    /* within 0.099, not 0.1: inside the (19.9, 20.1) it must be in */
    fc_tap_is_double(&tap, json_number_value(json_object_get(tol, "used_pct")), 20, 0.099,
                     "... the tolerance used: 20%%");
    fc_tap_ok(&tap, strstr(str(tol, "why"), "spread 20% as their upper median") != NULL,
              "... why: the measurements spread 20%% as their upper median");
    fc_tap_ok(&tap, strstr(str(tol, "why"), "so the alone judgement allowed 20% below, not the "
                           "profile's 1%") != NULL,
              "... so 20%% below was allowed, not the profile's 1%%");
    fixture_free(&f, records);

    /* the same tolerance without the wobble: nothing to widen */
    fixture_make(&f, 1);
    plant(&f, 0, 2, 0.49, 0.49);
    fixture_run(&f, &records);
    fc_tap_ok(&tap, !f.m.run.alone_widened,
              "alone measurements that agree leave the profile's 1%% as it is");
    fc_tap_is_int(&tap, f.m.run.alone_passes, 1,
                  "alone measurements that agree leave the profile's 1%% as it is"
                  " [f.m.run.alone_passes]");
    fixture_free(&f, records);
}

/* A pair slow in its round and slow alone, at a moment the whole machine
 * was slow (its control, measured right after it, as slow): not the
 * pair's; the same pair slow alone beside a fast control: its path. */
static void test_control(void)
{
    static fixture_t f;
    json_t *records, *r;
    size_t i;
    int q, others, path = 0, cleared = 0;

    fixture_make(&f, 80);
    plant(&f, 0, 2, 0.01, 0.01);
    f.busy_to = 4;
    fixture_run(&f, &records);
    q = count_blamed(records, NULL, &others);
    json_array_foreach(records, i, r) {
        char *text = json_dumps(r, JSON_COMPACT);

        cleared += strstr(text, "\"cleared\":true") != NULL;
        free(text);
    }
    fc_tap_is_int(&tap, q, 0,
                  "pairs slow alone while the machine was (each control, measured right "
                  "after, as slow): cleared by their controls (%d records say so), nobody "
                  "blamed, every record PASSes", cleared);
    fc_tap_is_int(&tap, others, 0,
                  "pairs slow alone while the machine was (each control, measured right "
                  "after, as slow): cleared by their controls (%d records say so), nobody "
                  "blamed, every record PASSes"
                  " [others]", cleared);
    fc_tap_ok(&tap, cleared > 0,
              "pairs slow alone while the machine was (each control, measured right after, "
              "as slow): cleared by their controls (%d records say so), nobody blamed, every "
              "record PASSes"
              " [cleared > 0]", cleared);
    fixture_free(&f, records);

    fixture_make(&f, 80);
    plant(&f, 0, 2, 0.01, 0.01);
    f.path_a = 0;
    f.path_b = 2;
    fixture_run(&f, &records);
    json_array_foreach(records, i, r)
        path += !strcmp(str(json_object_get(r, "implicates"), "part"), "path") &&
                !strcmp(str(r, "verdict"), "FAIL");
    fc_tap_is_int(&tap, path, 1,
                  "the same pair slow alone beside a fast control: its path FAILs, nobody "
                  "quarantined");
    fc_tap_is_int(&tap, count_blamed(records, NULL, &others), 0,
                  "the same pair slow alone beside a fast control: its path FAILs, nobody "
                  "quarantined"
                  " [count_blamed(records, NULL, &others)]");
    fixture_free(&f, records);
}

/* A limit of 0.05 GB/s; n03's pairs fail it in their rounds, and alone
 * at a moment the whole machine does (each control fails it too): the
 * limit stands in the pairs' records, nobody is quarantined. The same
 * limit with only n03 slow (its controls fast): n03 is quarantined. */
static void test_control_limit(void)
{
    static fixture_t f;
    fc_limit_rule_t lim = { FC_ANY, FC_ANY, FC_ANY, 0, UINT64_MAX, 0.05, -1, 7, 1 };
    json_t *records, *r;
    size_t i;
    int q, others, undecided = 0, failed = 0;

    for (int busy = 1; busy >= 0; --busy) {
        fixture_make(&f, 80);
        f.m.ctx.sp.limits[0] = lim;
        f.m.ctx.sp.nlimits = 1;
        for (int v = 0; v < f.m.run.nnodes; ++v)
            if (v != 2)
                plant(&f, 2, v, 0.01, 0.01);
        f.slow_node = busy ? -1 : 2;
        f.busy_to = busy ? 1000 : 0;
        fixture_run(&f, &records);
        q = count_blamed(records, busy ? NULL : "n03", &others);
        json_array_foreach(records, i, r) {
            char *text = json_dumps(r, JSON_COMPACT);

            undecided += busy && strstr(text, "\"undecided\":true") != NULL;
            failed += busy && !strcmp(str(r, "type"), "pair") && !strcmp(str(r, "verdict"), "FAIL");
            free(text);
        }
        if (busy) {
            fc_tap_is_int(&tap, q, 0,
                          "a limit failed alone by n03's pairs and by their controls alike (a "
                          "busy machine): its 5 pairs still FAIL the limit, nobody is "
                          "quarantined (%d records undecided)", undecided);
            fc_tap_is_int(&tap, failed, 5,
                          "a limit failed alone by n03's pairs and by their controls alike (a "
                          "busy machine): its 5 pairs still FAIL the limit, nobody is "
                          "quarantined (%d records undecided) [failed]", undecided);
            fc_tap_ok(&tap, undecided > 0, "... records say undecided (%d)", undecided);
            fc_tap_is_int(&tap, f.m.run.confirm.link[2], 0, "... and n03's link is not "
                          "confirmed");
        } else {
            fc_tap_is_int(&tap, q, 1,
                          "the same limit failed by n03 alone, its controls fast: n03 "
                          "quarantined");
            fc_tap_is_int(&tap, others, 0,
                          "the same limit failed by n03 alone, its controls fast: n03 "
                          "quarantined [others]");
            fc_tap_ok(&tap, f.m.run.confirm.link[2],
                      "the same limit failed by n03 alone, its controls fast: n03 quarantined "
                      "[f.m.run.confirm.link[2]]");
        }
        fixture_free(&f, records);
    }
}

static void test_direction(void)
{
    static fixture_t f;
    json_t *records, *n04, *r;
    size_t i;
    int q, others, named_other = 0, sends = 0;
    const char *why;

    /* n04 sends at 0.001 GB/s to everyone and receives at full speed */
    fixture_make(&f, 80);
    for (int v = 0; v < f.m.run.nnodes; ++v)
        if (v != 3)
            plant(&f, 3, v, 0.001, nominal(&f, 3, v));
    f.slow_node = 3;
    f.sends_only = 1;
    fixture_run(&f, &records);
    n04 = node_record(records, "n04");
    why = json_string_value(json_array_get(json_object_get(n04, "reasons"), 0));
    q = count_blamed(records, "n04", &others);
    json_array_foreach(records, i, r) {
        json_t *imp = json_object_get(r, "implicates");

        named_other += json_is_object(imp) && strcmp(str(imp, "host"), "n04") != 0;
        sends += !strcmp(str(r, "type"), "pair") && !strcmp(str(imp, "direction"), "sends") &&
                 strstr(str(json_object_get(r, "confirmation"), "text"),
                        "explained by n04's link (what it sends)") != NULL;
    }
    fc_tap_ok(&tap, n04 != NULL,
              "a node slow only in what it sends: quarantined and named for that direction, "
              "no partner named (%s)", why ? why : "no record");
    fc_tap_is_str(&tap, str(n04, "verdict"), "FAIL",
                  "a node slow only in what it sends: quarantined and named for that "
                  "direction, no partner named (%s)"
                  " [str(n04, \"verdict\")]", why ? why : "no record");
    fc_tap_is_int(&tap, q, 1,
                  "a node slow only in what it sends: quarantined and named for that "
                  "direction, no partner named (%s)"
                  " [q]", why ? why : "no record");
    fc_tap_is_int(&tap, others, 0,
                  "a node slow only in what it sends: quarantined and named for that "
                  "direction, no partner named (%s)"
                  " [others]", why ? why : "no record");
    fc_tap_is_int(&tap, named_other, 0,
                  "a node slow only in what it sends: quarantined and named for that "
                  "direction, no partner named (%s)"
                  " [named_other]", why ? why : "no record");
    fc_tap_is_str(&tap, str(json_object_get(n04, "implicates"), "direction"), "sends",
                  "a node slow only in what it sends: quarantined and named for that "
                  "direction, no partner named (%s)"
                  " [str(json_object_get(n04, \"implicates\"), \"direction\")]",
                  why ? why : "no record");
    fc_tap_ok(&tap, why && strstr(why, "in what it sends only (alone, 0.0010 GB/s at the "
                                  "slowest from it to its partners"),
              "a node slow only in what it sends: quarantined and named for that direction, "
              "no partner named (%s)"
              " [why && strstr(why, \"in what it sends only (alone, 0.0010...]",
              why ? why : "no record");
    fc_tap_is_int(&tap, fc_pairs_node_direction(&f.m.run, 3), FC_PAIRS_DIR_SENDS,
                  "a node slow only in what it sends: quarantined and named for that "
                  "direction, no partner named (%s)"
                  " [fc_pairs_node_direction(&f.m.run, 3)]", why ? why : "no record");
    fc_tap_is_int(&tap, sends, 5, "each of its 5 pairs is explained by what it sends (%d)",
                  sends);
    fixture_free(&f, records);

    /* both ways: named for both */
    fixture_make(&f, 80);
    for (int v = 0; v < f.m.run.nnodes; ++v)
        if (v != 3)
            plant(&f, 3, v, 0.001, 0.001);
    f.slow_node = 3;
    fixture_run(&f, &records);
    n04 = node_record(records, "n04");
    fc_tap_is_str(&tap, str(json_object_get(n04, "implicates"), "direction"), "both",
                  "a node slow both ways: named for both");
    fixture_free(&f, records);
}

/* n03's pairs at gbps in the rounds and alone, its side waiting `wait`
 * of the time for a CPU alone (in each pair's first alone measurement
 * only: first_only 1; in every one but the first: first_only 2), without
 * which they move free_gbps; calm of their 5 exchanges calm on both
 * sides at calm_gbps; run. */
static void run_cpu_calm(fixture_t *f, double gbps, double wait, double free_gbps,
                         int first_only, int calm, double calm_gbps, json_t **records_p)
{
    fixture_make(f, 80);
    for (int v = 0; v < 6; ++v)
        if (v != 2)
            plant(f, 2, v, gbps, gbps);
    f->cpu_node = 2;
    f->cpu_gbps = gbps;
    f->cpu_wait = wait;
    f->cpu_free_gbps = free_gbps;
    f->cpu_first_only = first_only == 1;
    f->cpu_first_spared = first_only == 2;
    f->cpu_calm = calm;
    f->cpu_calm_gbps = calm_gbps;
    fixture_run(f, records_p);
}

static void run_cpu(fixture_t *f, double gbps, double wait, double free_gbps, int first_only,
                    json_t **records_p)
{
    run_cpu_calm(f, gbps, wait, free_gbps, first_only, 0, 0, records_p);
}

/* n03's pairs 20 times slow, as fast as the others without the waits,
 * its side waiting `wait` and each partner's `partner_wait`; run. */
static void run_cpu_sides(fixture_t *f, double wait, double partner_wait, json_t **records_p)
{
    fixture_make(f, 80);
    f->cpu_partner_wait = partner_wait;
    for (int v = 0; v < 6; ++v)
        if (v != 2)
            plant(f, 2, v, 0.025, 0.025);
    f->cpu_node = 2;
    f->cpu_gbps = 0.025;
    f->cpu_wait = wait;
    f->cpu_free_gbps = 1.0;
    fixture_run(f, records_p);
}

/* fc_pairs_calm_figure: the samples calm on both sides, the slower
 * side's median over them; nothing when the samples do not align */
static void test_calm_figure(void)
{
    fc_pair_side_t a, b;
    fc_pair_t p;

    memset(&a, 0, sizeof(a));
    a.samples.n = a.samples.of = 6;
    for (int i = 0; i < 6; ++i)
        a.samples.s[i] = 1e-3 * (i + 1);         /* 1 .. 6 ms */
    b = a;
    for (int i = 0; i < 6; ++i)
        b.samples.s[i] = 2e-3 * (i + 1);         /* the slower side: 2 .. 12 ms */
    a.calm = 0x3f & ~(uint64_t)0x01;             /* a waited in sample 0 */
    b.calm = 0x3f & ~(uint64_t)0x20;             /* b in sample 5 */
    fc_pairs_calm_figure(&p, &a, &b, 1000000);
    fc_tap_is_int(&tap, p.calm_n, 4, "calm on both sides: samples 1-4 of 6 (%d of %d)",
                  p.calm_n, p.calm_of);
    /* the slower side b: 4, 6, 8, 10 ms calm; with the two others
     * counted the slowest its median is 9 ms (1 MB in 9 ms), counted the
     * fastest 5 ms: each bound counts them against its conclusion */
    fc_tap_is_double(&tap, p.calm_bw_gbps, 1e6 / 9e-3 / 1e9, 1e-9,
                     "the slower side's median, the others counted the slowest");
    fc_tap_is_double(&tap, p.calm_slow_gbps, 1e6 / 5e-3 / 1e9, 1e-9,
                     "... and counted the fastest");
    a.calm = b.calm = 0x07;                      /* 3 of 6: not most */
    fc_pairs_calm_figure(&p, &a, &b, 1000000);
    fc_tap_is_int(&tap, p.calm_n, 3, "half the samples calm (of %d)", p.calm_of);
    fc_tap_is_double(&tap, p.calm_bw_gbps, -1, 0, "... not most: no figure (-1) counted the "
                     "others the slowest");
    fc_tap_is_double(&tap, p.calm_slow_gbps, -1, 0, "... nor counted the fastest");
    a.samples.n = b.samples.n = a.samples.of = b.samples.of = 5;
    a.calm = b.calm = 0x1c;                      /* 3 of 5: most, the slowest three */
    fc_pairs_calm_figure(&p, &a, &b, 1000000);
    /* b: 6, 8, 10 ms calm, 2 and 4 not: slowest-counted [6 8 10 inf inf]
     * gives 10 ms; fastest-counted [0 0 6 8 10] gives 6 ms */
    fc_tap_is_double(&tap, p.calm_bw_gbps, 1e6 / 10e-3 / 1e9, 1e-9,
                     "3 of 5 calm: the others counted the slowest, the largest calm time");
    fc_tap_is_double(&tap, p.calm_slow_gbps, 1e6 / 6e-3 / 1e9, 1e-9,
                     "... counted the fastest, the smallest");
    a.samples.n = b.samples.n = a.samples.of = b.samples.of = 6;
    b.samples.of = 7;
    fc_pairs_calm_figure(&p, &a, &b, 1000000);
    fc_tap_is_int(&tap, p.calm_n, 0, "samples of different iterations: nothing calm");
    fc_tap_is_int(&tap, p.calm_of, 0, "... of nothing aligned");
    fc_tap_is_double(&tap, p.calm_bw_gbps, -1, 0, "... no figure (-1) counted the others the "
                     "slowest");
    fc_tap_is_double(&tap, p.calm_slow_gbps, -1, 0, "... nor counted the fastest");
    a.samples.n = b.samples.n = a.samples.of = b.samples.of = FC_SAMPLES_MAX;
    a.calm = b.calm = ~(uint64_t)0;
    fc_pairs_calm_figure(&p, &a, &b, 1000000);
    fc_tap_is_int(&tap, p.calm_n, FC_SAMPLES_MAX, "all %d samples calm on both sides",
                  FC_SAMPLES_MAX);
}

/* The cpu_wait of the first alone measurement in records, and into
 * *not_pass_p the records that are not PASS. */
static json_t *first_cpu_wait(json_t *records, int *not_pass_p)
{
    json_t *r, *first = NULL;
    size_t i;

    *not_pass_p = 0;
    json_array_foreach(records, i, r) {
        json_t *m = json_object_get(json_object_get(json_object_get(r, "confirmation"),
                                                    "alone"), "measurements");

        *not_pass_p += strcmp(str(r, "verdict"), "PASS") != 0;
        if (first == NULL && json_array_size(m) > 0)
            first = json_object_get(json_array_get(json_object_get(json_array_get(m, 0),
                                                                   "sizes"), 0), "cpu_wait");
    }
    return first;
}

/* The first cpu_wait object anywhere under j whose waits_alike is true,
 * or NULL. */
static json_t *alike_cpu_wait(json_t *j)
{
    json_t *v, *found = NULL;
    const char *key;
    size_t i;

    if (json_is_object(j)) {
        v = json_object_get(j, "cpu_wait");
        if (json_is_true(json_object_get(v, "waits_alike")))
            return v;
        json_object_foreach(j, key, v)
            if (found == NULL)
                found = alike_cpu_wait(v);
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
            if (found == NULL)
                found = alike_cpu_wait(v);
    }
    return found;
}

static void test_cpu_held(void)
{
    static fixture_t f;
    json_t *records, *r, *held = NULL, *n03;
    int q, others, incomplete = 0, cpu_named = 0;
    size_t i;

    /* 20 times slow alone, 96% of it waiting for a CPU: as fast as the
     * others without the waits */
    run_cpu(&f, 0.025, 0.96, 1.0, 0, &records);
    q = count_blamed(records, NULL, &others);
    json_array_foreach(records, i, r) {
        json_t *imp = json_object_get(r, "implicates");

        if (strcmp(str(r, "type"), "pair") || strcmp(str(r, "verdict"), "INCOMPLETE"))
            continue;
        incomplete++;
        cpu_named += !strcmp(str(imp, "part"), "cpu") && !strcmp(str(imp, "host"), "n03");
        if (held == NULL)
            held = json_object_get(json_array_get(json_object_get(json_array_get(
                json_object_get(json_object_get(json_object_get(r, "confirmation"), "alone"),
                                "measurements"), 0), "sizes"), 0), "cpu_wait");
    }
    n03 = node_record(records, "n03");
    fc_tap_is_int(&tap, q, 0, "a node slow alone while its ranks waited 96%% of the time for "
                  "a CPU: nobody quarantined");
    fc_tap_is_int(&tap, others, 0, "... and no record FAILs");
    fc_tap_ok(&tap, incomplete > 0, "... its slow pairs are INCOMPLETE (%d)", incomplete);
    fc_tap_is_int(&tap, cpu_named, incomplete, "... each naming n03's CPU");
    fc_tap_ok(&tap, json_is_true(json_object_get(held, "held")),
              "... the alone measurement's record says the wait held the pair");
    fc_tap_is_str(&tap, str(held, "host"), "n03", "... the host that waited");
    fc_tap_is_str(&tap, str(held, "exchanges_host"), "n03", "... and the host of the "
                  "exchanges' wait");
    fc_tap_is_double(&tap, json_number_value(json_object_get(held, "exchanges_pct")), 96, 1e-6,
                     "... with the share of the exchanges' time");
    fc_tap_is_double(&tap, json_number_value(json_object_get(held, "without_wait_gbps")), 1.0,
                     1e-9, "... and the figure without the waits");
    fc_tap_is_str(&tap, str(n03, "verdict"), "INCOMPLETE", "n03's own record is not a pass: "
                  "INCOMPLETE (%s)", json_string_value(json_array_get(json_object_get(n03,
                  "reasons"), 0)));
    fc_tap_is_str(&tap, str(json_object_get(n03, "confirmation"), "verdict"), "undecided",
                  "... its confirmation undecided");
    fc_tap_is_str(&tap, str(json_object_get(n03, "implicates"), "part"), "cpu",
                  "... naming its CPU, not its link");
    fixture_free(&f, records);

    /* held in its first measurement alone only: measured again in its
     * place, fast, not reproduced: every record PASSes */
    run_cpu(&f, 0.025, 0.96, 1.0, 1, &records);
    q = count_blamed(records, NULL, &others);
    held = first_cpu_wait(records, &incomplete);
    fc_tap_is_int(&tap, q, 0, "held by n03's CPU in its first measurement alone only: "
                  "measured again, fast: nobody quarantined");
    fc_tap_is_int(&tap, others, 0, "... no record FAILs");
    fc_tap_is_int(&tap, incomplete, 0, "... every record PASSes");
    fc_tap_is_int(&tap, json_integer_value(json_object_get(held, "measured_again")), 1,
                  "... its record says it was measured again once");
    fc_tap_is_str(&tap, str(held, "held_before_by"), "n03", "... in place of one n03's CPU held");
    fc_tap_ok(&tap, json_is_false(json_object_get(held, "held")), "... and not held itself");
    fixture_free(&f, records);

    /* fast in its first measurement alone, held by n03's CPU in every
     * later one (measured again each time): no measurement slow, so no
     * evidence against the fabric: INCOMPLETE naming the CPU, never a
     * FAIL of an unjudged path (seen in a tally: both racks failed so) */
    run_cpu(&f, 0.025, 0.96, 1.0, 2, &records);
    q = count_blamed(records, NULL, &others);
    cpu_named = incomplete = 0;
    json_array_foreach(records, i, r) {
        if (strcmp(str(r, "type"), "pair") || strcmp(str(r, "verdict"), "PASS") == 0)
            continue;
        incomplete += !strcmp(str(r, "verdict"), "INCOMPLETE");
        cpu_named += !strcmp(str(json_object_get(r, "implicates"), "part"), "cpu");
    }
    fc_tap_is_int(&tap, q, 0, "fast alone once, then held by n03's CPU every time: nobody "
                  "quarantined");
    fc_tap_is_int(&tap, others, 0, "... no FAIL");
    fc_tap_ok(&tap, incomplete > 0, "... pairs INCOMPLETE (%d)", incomplete);
    fc_tap_is_int(&tap, cpu_named, incomplete, "... each naming the CPU");
    fixture_free(&f, records);

    /* 20 times slow alone, both sides waiting alike (57% and 54%, as a
     * 50 Mbit/s link beside a CPU hog made them: each side spins and
     * yields while the link holds it), as fast as the others without
     * the waits: held once, measured again and held again alike, the
     * fabric's: n03's link confirmed */
    run_cpu_sides(&f, 0.57, 0.54, &records);
    q = count_blamed(records, "n03", &others);
    held = alike_cpu_wait(records);
    fc_tap_is_int(&tap, q, 1, "slow alone, both sides waiting alike for a CPU (57%%, 54%%), "
                  "measured again and alike again: the fabric's, n03 quarantined");
    fc_tap_is_int(&tap, others, 0, "... and nobody else is blamed");
    fc_tap_ok(&tap, held != NULL, "... its record says the sides waited alike");
    fc_tap_ok(&tap, json_is_false(json_object_get(held, "held")), "... not held");
    fc_tap_is_int(&tap, json_integer_value(json_object_get(held, "measured_again")), 1,
                  "... measured again once");
    fc_tap_ok(&tap, json_is_object(json_object_get(json_object_get(held, "sides"), "n03")),
              "... with each side's share");
    fixture_free(&f, records);

    /* the same with both sides waiting as a hog holds one (98%, 97%: two
     * busy hosts): still held, INCOMPLETE on a CPU, nobody quarantined */
    run_cpu_sides(&f, 0.98, 0.97, &records);
    q = count_blamed(records, NULL, &others);
    fc_tap_is_int(&tap, q, 0, "both sides waiting 98%% and 97%% (two busy hosts): held, not "
                  "the fabric's: nobody quarantined");
    fc_tap_is_int(&tap, others, 0, "... no FAIL");
    fc_tap_ok(&tap, alike_cpu_wait(records) == NULL, "... no record says the sides waited "
              "alike");
    fixture_free(&f, records);

    /* a slow link (1000 times slow) beside a 50% wait: still the link's */
    run_cpu(&f, 0.001, 0.5, 0.002, 0, &records);
    q = count_blamed(records, "n03", &others);
    fc_tap_is_int(&tap, q, 1, "a slow link beside a 50%% wait for a CPU: still confirmed, "
                  "n03 quarantined");
    fc_tap_is_int(&tap, others, 0, "... and nobody else is blamed");
    fixture_free(&f, records);

    /* n04's link slow (1000 times), n03 (its partner) waiting 96% for a
     * CPU: n04-n03 is still slow without n03's waits (what it waited on
     * was n04's link), n04 quarantined */
    fixture_make(&f, 80);
    for (int v = 0; v < 6; ++v)
        if (v != 3)
            plant(&f, 3, v, 0.001, 0.001);
    f.slow_node = 3;
    f.cpu_node = 2;
    f.cpu_wait = 0.96;
    f.cpu_free_gbps = 0.001 / 0.04;
    fixture_run(&f, &records);
    q = count_blamed(records, "n04", &others);
    fc_tap_is_int(&tap, q, 1, "a slow node whose partner waited for a CPU: still confirmed "
                  "and quarantined");
    fc_tap_is_int(&tap, others, 0, "... and nobody else is blamed");
    fixture_free(&f, records);

    /* the 96% wait again, 3 of the 5 exchanges calm on both sides and as
     * fast as the others: measured not slow, so cleared (not held) */
    run_cpu_calm(&f, 0.025, 0.96, 1.0, 0, 3, 1.0, &records);
    q = count_blamed(records, NULL, &others);
    held = first_cpu_wait(records, &incomplete);
    fc_tap_is_int(&tap, q, 0, "slow alone while waiting 96%% for a CPU, fast on the 3 of 5 "
                  "exchanges neither side waited in: nobody quarantined");
    fc_tap_is_int(&tap, others, 0, "... no FAIL");
    fc_tap_is_int(&tap, incomplete, 0, "... every record PASSes");
    fc_tap_ok(&tap, json_is_true(json_object_get(held, "cleared")),
              "... its alone measurement is cleared by its calm exchanges");
    fc_tap_ok(&tap, json_is_false(json_object_get(held, "held")), "... not held");
    fc_tap_is_int(&tap, (int)json_integer_value(json_object_get(json_object_get(held,
                  "calm_exchanges"), "calm")), 3, "... and its record counts them");
    fixture_free(&f, records);

    /* the same wait, its figure without the waits fast (the estimate a
     * link slower than its waits explain fools), but its 3 calm exchanges
     * slow: measured slow, the link's, n03 quarantined */
    run_cpu_calm(&f, 0.001, 0.96, 1.0, 0, 3, 0.001, &records);
    q = count_blamed(records, "n03", &others);
    fc_tap_is_int(&tap, q, 1, "slow on its calm exchanges too, though fast by the estimate "
                  "without its waits: confirmed, n03 quarantined");
    fc_tap_is_int(&tap, others, 0, "... and nobody else is blamed");
    fixture_free(&f, records);

    /* 2 calm exchanges only: too few to judge on; the estimate holds it */
    run_cpu_calm(&f, 0.025, 0.96, 1.0, 0, 2, 1.0, &records);
    q = count_blamed(records, NULL, &others);
    cpu_named = 0;
    json_array_foreach(records, i, r)
        cpu_named += !strcmp(str(r, "type"), "pair") && !strcmp(str(r, "verdict"), "INCOMPLETE") &&
                     !strcmp(str(json_object_get(r, "implicates"), "part"), "cpu");
    fc_tap_is_int(&tap, q, 0, "2 calm exchanges of 5: too few, held as before: nobody "
                  "quarantined");
    fc_tap_is_int(&tap, others, 0, "... no FAIL");
    fc_tap_ok(&tap, cpu_named > 0, "... pairs INCOMPLETE naming the CPU (%d)", cpu_named);
    fixture_free(&f, records);
}

/* Two slow nodes, n01 (rack1) and n04 (rack2), of racks of 2, 3 and 1:
 * 9 of the 15 pairs. Both are confirmed and quarantined, nobody else.
 * (On the virtual cluster, links of 50 and 100 Mbit/s, a pair of n04's
 * was stored as the control of a probe of n01's; n04's own probe then
 * replayed it as its measurement, read "fast" (a control is never judged
 * as a probe), and n04 was never confirmed. Here the controls avoid both
 * suspects, so this case does not reach that replay: that one is
 * tests/attack/two_links.) */
static void test_two_slow_nodes(void)
{
    static fixture_t f;
    json_t *records, *n01, *n04, *r;
    int quarantined = 0, others = 0;
    size_t i;

    fixture_make(&f, 80);
    for (int v = 0; v < f.m.run.nnodes; ++v) {
        if (v != 0)
            plant(&f, 0, v, 0.001, 0.001);
        if (v != 3 && v != 0)
            plant(&f, 3, v, 0.002, 0.002);
    }
    f.slow_node = 0;
    f.slow_node2 = 3;
    fixture_run(&f, &records);
    n01 = node_record(records, "n01");
    n04 = node_record(records, "n04");
    json_array_foreach(records, i, r) {
        json_t *imp = json_object_get(r, "implicates");
        const char *h = str(imp, "host");
        int ours = !strcmp(h, "n01") || !strcmp(h, "n04");

        quarantined += json_is_true(json_object_get(imp, "quarantine")) && ours;
        others += !strcmp(str(r, "verdict"), "FAIL") && !ours;
    }
    fc_tap_is_str(&tap, str(n01, "verdict"), "FAIL", "two slow nodes: n01 confirmed");
    fc_tap_is_str(&tap, str(n04, "verdict"), "FAIL", "two slow nodes: n04 confirmed too");
    fc_tap_is_int(&tap, quarantined, 2, "both quarantined");
    fc_tap_is_int(&tap, others, 0, "no other FAIL");
    fixture_free(&f, records);
}

int main(void)
{
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 115);
    if (mkdtemp(dir) == NULL)
        fc_tap_bail(&tap, "cannot make a scratch directory");
    test_disagreeing_evidence();
    test_noise_floor();
    test_control();
    test_control_limit();
    test_direction();
    test_two_slow_nodes();
    test_cpu_held();
    test_calm_figure();
    rmdir(dir);
    return fc_tap_done(&tap);
}
