/*
 * scale_gen.c - a synthetic run of a large cluster, for timing the reports
 * and the runner's own work at a size no machine here can run: an output
 * directory (results.jsonl and the frozen profile.yaml) of NODES hosts in
 * RACKS racks, every stage of the virtual cluster's profile plus a soak
 * (node, pairs, rack, cluster, soak), with planted faults.
 *
 * The records are not invented: each is a record of a real run (the golden
 * fixtures tests/golden/report/{clean,slow-link,soak-flap}, made on the
 * virtual cluster) with its hosts, racks, groups and counts rewritten, so
 * the reports meet the shapes the stages write. Each stage's stage_start
 * lists the ranks of its healthy hosts and its stage_end the counts its
 * records hold, so the verdict is the one a real run with these findings
 * would get:
 *
 *   - pairs: the full tournament (n-1 rounds) or the sampled plan
 *     (the stage's own schedule, lib/stage/fc_pairs_schedule.h, with K = 2 +
 *     INTER: 2 rounds inside racks, INTER across; the frozen profile's
 *     pairs stage says mode: sampled and partners: K, so the report holds
 *     the records to that plan), a pairs_round record per round;
 *   - planted: two slow NICs (every pair of theirs slow, the node
 *     quarantined after the pairs stage and left out of the later stages),
 *     one slow path between two nodes of two other racks (sampled: the
 *     first pair the plan meets across racks from rack 6), and one link whose error
 *     counters rose over the soak (quarantined after it). Their racks
 *     FAIL; every other rack PASSes.
 *
 * usage: scale_gen NODES RACKS full|sampled INTER TEMPLATES_DIR OUT_DIR
 * Prints the planted racks (the racks that must FAIL) on stdout.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_pairs.h"
#include "fc_pairs_sample.h"
#include "fc_pairs_schedule.h"
#include "fc_profile.h"
#include "fc_results.h"
#include "fc_stage.h"

#define RUN_ID "1796400000-4096"
#define PPN 2

typedef struct gen {
    int n, racks, per_rack;
    char (*host)[16];
    char (*rack)[16];
    int *healthy;
    json_t *tpl[3];             /* clean, slow-link, soak-flap records */
    const fc_profile_t *prof;   /* the profile the plan freezes */
    json_t *overrides;          /* ... and the overrides it records */
    char sha[65], name[128];
    FILE *out;
    long records;
} gen_t;

/* The index-th record of a template of this type (and stage, if given). */
static json_t *tpl(gen_t *g, int fx, const char *type, const char *stage, int index)
{
    json_t *rec;
    size_t i;

    json_array_foreach(g->tpl[fx], i, rec)
        if (strcmp(json_string_value(json_object_get(rec, "type")), type) == 0 &&
            (!stage || strcmp(json_string_value(json_object_get(rec, "stage")), stage) == 0) &&
            index-- == 0)
            return json_deep_copy(rec);
    fprintf(stderr, "scale_gen: no %s record of stage %s in the templates\n", type,
            stage ? stage : "any");
    exit(2);
}

/* The first template record of a type, not copied. */
static json_t *tpl_peek(gen_t *g, int fx, const char *type)
{
    json_t *rec;
    size_t i;

    json_array_foreach(g->tpl[fx], i, rec)
        if (strcmp(json_string_value(json_object_get(rec, "type")), type) == 0)
            return rec;
    return NULL;
}

/* A template file's records, one JSON object a line. */
static json_t *load_records(const char *path)
{
    char *text = NULL, *save = NULL;
    json_t *all = json_array();

    if (fc_input_read(path, "results", FC_INPUT_RESULTS_MAX, &text, NULL) != FC_OK)
        exit(2);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *rec = json_loads(line, 0, NULL);

        if (!json_is_object(rec)) {
            fprintf(stderr, "scale_gen: %s: a line that is not a record\n", path);
            exit(2);
        }
        json_array_append_new(all, rec);
    }
    free(text);
    return all;
}

static void emit(gen_t *g, json_t *rec)
{
    char *text;

    json_object_set_new(rec, "run_id", json_string(RUN_ID));
    if (json_object_get(rec, "profile_sha256")) {
        json_object_set_new(rec, "profile_sha256", json_string(g->sha));
        json_object_set_new(rec, "profile", json_string(g->name));
    }
    text = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
    fprintf(g->out, "%s\n", text);
    free(text);
    json_decref(rec);
    ++g->records;
}

static json_t *rank_hosts(gen_t *g, int per_node)
{
    json_t *a = json_array();

    for (int h = 0; h < g->n; ++h)
        for (int k = 0; k < per_node && g->healthy[h]; ++k)
            json_array_append_new(a, json_string(g->host[h]));
    return a;
}

static void stage_start(gen_t *g, const char *stage, int fx, int per_node, json_t *work)
{
    json_t *r = tpl(g, fx, "stage_start", stage, 0);

    json_object_set_new(r, "rank_hosts", rank_hosts(g, per_node));
    json_object_set_new(r, "ranks", json_integer((json_int_t)json_array_size(
                                                 json_object_get(r, "rank_hosts"))));
    json_object_set_new(r, "work", work);
    emit(g, r);
}

static void stage_end(gen_t *g, const char *stage, int fx, long points, long judged,
                      long not_pass)
{
    json_t *r = tpl(g, fx, "stage_end", stage, 0);

    json_object_set_new(r, "points", json_integer(points));
    json_object_set_new(r, "judged_records", json_integer(judged));
    json_object_set_new(r, "judged_not_pass", json_integer(not_pass));
    json_object_set_new(r, "failed_points", json_integer(not_pass));
    json_object_set_new(r, "status", json_string(not_pass ? "fail" : "ok"));
    json_object_set_new(r, "verdict", json_string(not_pass ? "FAIL" : "PASS"));
    emit(g, r);
}

static void quarantine(gen_t *g, int fx, const char *stage, int h)
{
    json_t *r = tpl(g, fx, "quarantine", stage, 0);

    json_object_set_new(r, "host", json_string(g->host[h]));
    json_object_set_new(r, "rack", json_string(g->rack[h / g->per_rack]));
    emit(g, r);
    g->healthy[h] = 0;
}

/* The sweep stages: npoints point templates per group. */
static void sweep(gen_t *g, const char *stage, int by)   /* 0 node, 1 rack, 2 cluster */
{
    int ngroups = by == 0 ? g->n : by == 1 ? g->racks : 1, points = 4;
    long judged = 0;

    stage_start(g, stage, 0, PPN, json_pack("{s:s, s:i}", "unit", "points", "total", points));
    for (int p = 0; p < points; ++p)
        for (int gr = 0; gr < ngroups; ++gr) {
            json_t *r = tpl(g, 0, "point", stage, by == 0 ? p * 4 : by == 1 ? p * 2 : p);
            int first = -1, hosts = 0;

            for (int h = 0; h < g->n; ++h)
                if (g->healthy[h] && (by == 2 || (by == 0 ? h == gr : h / g->per_rack == gr))) {
                    hosts++;
                    if (first < 0)
                        first = h;
                }
            if (first < 0) {
                json_decref(r);
                continue;
            }
            json_object_set_new(r, "group", json_string(by == 0 ? g->host[first] :
                                                        by == 1 ? g->rack[gr] : "cluster"));
            json_object_set_new(r, "host", json_string(g->host[first]));
            json_object_set_new(r, "rack", json_string(by == 2 ? "" : g->rack[first / g->per_rack]));
            json_object_set_new(r, "hosts", json_integer(hosts));
            json_object_set_new(r, "ranks", json_integer(hosts * PPN));
            emit(g, r);
            ++judged;
        }
    stage_end(g, stage, 0, points, judged, 0);
}

static int is_bad(const int *bad, int nbad, int h)
{
    for (int k = 0; k < nbad; ++k)
        if (bad[k] == h)
            return 1;
    return 0;
}

static void pairs(gen_t *g, int full, int inter, const int *bad, int nbad, int path[2])
{
    fc_pairs_schedule_t sched;
    int *labels = fc_xcalloc((size_t)g->n, sizeof(int), "the nodes' racks"), rounds;
    char why[160];
    long judged = 0, not_pass = 0, npairs = 0;

    for (int v = 0; v < g->n; ++v)
        labels[v] = v / g->per_rack;
    if (fc_pairs_schedule_init(&sched, g->n, labels, full ? FC_PAIRS_MODE_FULL
                               : FC_PAIRS_MODE_SAMPLED, 2 + inter, why, sizeof(why)) != 0) {
        fprintf(stderr, "scale_gen: %s\n", why);
        exit(2);
    }
    free(labels);
    rounds = sched.rounds;
    int *partners = fc_xcalloc((size_t)g->n, sizeof(int), "the nodes' partner counts");
    int *slow = fc_xcalloc((size_t)g->n, sizeof(int), "the nodes' slow partner counts");

    stage_start(g, "pairs", 0, 1, json_pack("{s:s, s:i}", "unit", "rounds", "total", rounds));
    for (int r = 0; r < rounds; ++r) {
        json_t *pr = tpl(g, 0, "pairs_schedule", "pairs", 0);

        for (int a = 0; a < g->n; ++a) {
            int b = fc_pairs_schedule_partner(&sched, r, a);
            int nic, on_path;
            json_t *rec;

            if (b <= a)
                continue;
            if (!full && path[0] < 0 && a / g->per_rack != b / g->per_rack &&
                !is_bad(bad, nbad, a) && !is_bad(bad, nbad, b) && a / g->per_rack == 5)
                path[0] = a, path[1] = b;   /* a sampled pair across two racks */
            nic = is_bad(bad, nbad, a) ? a : is_bad(bad, nbad, b) ? b : -1;
            on_path = (a == path[0] && b == path[1]);
            rec = tpl(g, nic >= 0 || on_path ? 1 : 0, "pair", "pairs", 0);
            if (nic >= 0 || on_path) {
                /* a slow pair's figures at the sizes the plan's sweep has
                 * (the clean run's): the report holds pairs to them */
                json_t *want = json_object_get(tpl_peek(g, 0, "pair"), "sizes"), *z;
                size_t k;

                json_array_foreach(json_object_get(rec, "sizes"), k, z)
                    json_object_set(z, "bytes", json_object_get(json_array_get(want, k),
                                                                "bytes"));
            }
            json_object_set_new(rec, "host_a", json_string(g->host[a]));
            json_object_set_new(rec, "host_b", json_string(g->host[b]));
            json_object_set_new(rec, "mode", json_string(full ? "full" : "sampled"));
            json_object_set_new(rec, "rack_a", json_string(g->rack[a / g->per_rack]));
            json_object_set_new(rec, "rack_b", json_string(g->rack[b / g->per_rack]));
            if (nic >= 0)
                json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:b, s:s}", "host",
                                    g->host[nic], "part", "link", "quarantine", 0, "rack",
                                    g->rack[nic / g->per_rack]));
            else if (on_path)
                json_object_set_new(rec, "implicates", json_pack(
                    "{s:s, s:[s,s], s:[s,s], s:b}", "part", "path", "hosts", g->host[a],
                    g->host[b], "racks", g->rack[a / g->per_rack], g->rack[b / g->per_rack],
                    "quarantine", 0));
            partners[a]++, partners[b]++;
            if (nic >= 0 || on_path) {
                slow[a]++, slow[b]++;
                ++not_pass;
            }
            emit(g, rec);
            ++judged;
            ++npairs;
        }
        json_object_del(pr, "nodes");
        json_object_del(pr, "pairs");
        json_object_set_new(pr, "type", json_string("pairs_round"));
        json_object_set_new(pr, "round", json_integer(r + 1));
        json_object_set_new(pr, "rounds", json_integer(rounds));
        emit(g, pr);
    }
    {
        json_t *s = tpl(g, 0, "pairs_schedule", "pairs", 0);

        json_object_set_new(s, "nodes", json_integer(g->n));
        json_object_set_new(s, "rounds", json_integer(rounds));
        json_object_set_new(s, "pairs", json_integer(npairs));
        json_object_set_new(s, "mode", json_string(full ? "full" : "sampled"));
        json_object_set_new(s, "partners", json_integer(sched.partners));
        emit(g, s);
    }
    fc_pairs_schedule_free(&sched);
    for (int h = 0; h < g->n; ++h) {
        json_t *rec = tpl(g, 1, "pairs_node", "pairs", is_bad(bad, nbad, h) ? 1 : 0);

        json_object_set_new(rec, "host", json_string(g->host[h]));
        json_object_set_new(rec, "rack", json_string(g->rack[h / g->per_rack]));
        json_object_set_new(rec, "partners", json_integer(partners[h]));
        json_object_set_new(rec, "slow_partners", json_integer(slow[h]));
        if (is_bad(bad, nbad, h)) {
            json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:b, s:s}", "host",
                                g->host[h], "part", "link", "quarantine", 1, "rack",
                                g->rack[h / g->per_rack]));
            ++not_pass;
        }
        emit(g, rec);
        ++judged;
    }
    stage_end(g, "pairs", 0, judged, judged, not_pass);
    for (int k = 0; k < nbad; ++k)
        quarantine(g, 1, "pairs", bad[k]);
    free(partners);
    free(slow);
}

static void soak(gen_t *g, int flap)
{
    long judged = 0, not_pass = 0;

    stage_start(g, "soak", 2, PPN, json_pack("{s:s, s:f}", "unit", "seconds", "total", 8.0));
    for (int w = 0; w < 10; ++w) {
        json_t *r = tpl(g, 2, "soak_window", "soak", w % 5);

        json_object_set_new(r, "window", json_integer(w));
        emit(g, r);
    }
    {
        /* a point record per point of the soak's planned sweep (the
         * profile with the plan's overrides, derived as the stage does),
         * each the template's figures */
        static const char *const keys[] = { "--sizes", "--iters", "--warmup", "--collectives",
                                            "--dtypes", "--ops" };
        char *argv[2 * sizeof(keys) / sizeof(keys[0]) + 2];
        int argc = 0, npoints = 0, first = 0, hosts = 0;
        fc_test_point_t *points = NULL;
        fc_stage_profile_t sp;

        argv[argc++] = "scale_gen";
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); ++k)
            if (json_is_string(json_object_get(g->overrides, keys[k]))) {
                argv[argc++] = (char *)keys[k];
                argv[argc++] = (char *)json_string_value(json_object_get(g->overrides, keys[k]));
            }
        argv[argc] = NULL;
        if (fc_stage_sweep_plan(g->prof, FC_STAGE_SOAK, argc, argv, &sp, &points, &npoints))
            exit(2);
        for (int h = g->n - 1; h >= 0; --h)
            if (g->healthy[h])
                first = h, hosts++;
        for (int k = 0; k < npoints; ++k) {
            json_t *p = tpl(g, 2, "point", "soak", 0);

            json_object_set_new(p, "collective", json_string(fc_coll_desc(points[k].coll)->name));
            json_object_set_new(p, "dtype", json_string(fc_dtype_info(points[k].dtype)->name));
            json_object_set_new(p, "op", json_string(fc_op_name(points[k].op)));
            json_object_set_new(p, "bytes", json_integer((json_int_t)points[k].bytes));
            json_object_set_new(p, "requested_bytes", json_integer((json_int_t)points[k].bytes));
            json_object_set_new(p, "iters", json_integer(points[k].iters));
            json_object_set_new(p, "warmup", json_integer(points[k].warmup));
            json_object_set_new(p, "host", json_string(g->host[first]));
            json_object_set_new(p, "hosts", json_integer(hosts));
            json_object_set_new(p, "ranks", json_integer(hosts * PPN));
            emit(g, p);
            ++judged;
        }
        free(points);
    }
    for (int h = 0; h < g->n; ++h) {
        json_t *r;

        if (!g->healthy[h])
            continue;
        r = tpl(g, 2, "soak_counters", "soak", h == flap ? 1 : 0);
        json_object_set_new(r, "host", json_string(g->host[h]));
        json_object_set_new(r, "rack", json_string(g->rack[h / g->per_rack]));
        if (h == flap) {
            json_object_set_new(r, "implicates", json_pack("{s:s, s:s, s:b, s:s}", "host",
                                g->host[h], "part", "link", "quarantine", 1, "rack",
                                g->rack[h / g->per_rack]));
            ++not_pass;
        }
        emit(g, r);
        ++judged;
    }
    stage_end(g, "soak", 2, judged, judged, not_pass);
    quarantine(g, 2, "soak", flap);
}

int main(int argc, char **argv)
{
    gen_t g = { 0 };
    static const char *const fx[3] = { "clean", "slow-link", "soak-flap" };
    char path[4096], *text = NULL, *soak_text = NULL;
    int full, inter, bad[2], path_pair[2] = { -1, -1 }, flap;
    fc_profile_t prof;
    json_t *plan, *hosts, *racks, *stages;

    if (argc != 7 || (strcmp(argv[3], "full") && strcmp(argv[3], "sampled"))) {
        fprintf(stderr, "usage: scale_gen NODES RACKS full|sampled INTER TEMPLATES_DIR OUT_DIR\n");
        return 2;
    }
    g.n = atoi(argv[1]);
    g.racks = atoi(argv[2]);
    full = strcmp(argv[3], "full") == 0;
    inter = atoi(argv[4]);
    if (g.racks < 16 || g.n % g.racks || (g.per_rack = g.n / g.racks) < 4) {
        fprintf(stderr, "scale_gen: NODES a multiple of RACKS, 16 racks or more, 4 nodes each\n");
        return 2;
    }
    for (int k = 0; k < 3; ++k) {
        snprintf(path, sizeof(path), "%s/%s/results.jsonl", argv[5], fx[k]);
        g.tpl[k] = load_records(path);
    }
    /* the profile: the virtual cluster's stages and the fixture's soak */
    snprintf(path, sizeof(path), "%s/clean/profile.yaml", argv[5]);
    if (fc_input_read(path, "profile", FC_INPUT_PROFILE_MAX, &text, NULL) != FC_OK)
        return 2;
    snprintf(path, sizeof(path), "%s/soak-flap/profile.yaml", argv[5]);
    if (fc_input_read(path, "profile", FC_INPUT_PROFILE_MAX, &soak_text, NULL) != FC_OK || !strstr(soak_text, "\n  soak:"))
        return 2;
    fc_mkdir_p(argv[6]);
    snprintf(path, sizeof(path), "%s/profile.yaml", argv[6]);
    {
        FILE *f = fopen(path, "w");
        /* sampled: the pairs stage's schedule, as a profile says it */
        char *at = strstr(text, "\n  pairs:\n"), extra[96] = "";
        int head = at ? (int)(at - text) + (int)strlen("\n  pairs:\n") : (int)strlen(text);

        if (!full)
            snprintf(extra, sizeof(extra), "    mode: sampled\n    partners: %d\n", 2 + inter);
        if (f == NULL || fprintf(f, "%.*s%s%s\n%s", head, text, extra, text + head,
                                 strstr(soak_text, "\n  soak:") + 1) < 0 ||
            fclose(f) != 0) {
            perror(path);
            return 2;
        }
    }
    if (fc_profile_load(path, &prof) != FC_OK)
        return 2;
    snprintf(g.sha, sizeof(g.sha), "%s", prof.sha256);
    snprintf(g.name, sizeof(g.name), "%s", prof.name);
    g.host = fc_xcalloc((size_t)g.n, sizeof(*g.host), "the synthetic hosts' names");
    g.rack = fc_xcalloc((size_t)g.racks, sizeof(*g.rack), "the synthetic racks' names");
    g.healthy = fc_xcalloc((size_t)g.n, sizeof(int), "the hosts' health");
    hosts = json_array();
    racks = json_array();
    for (int r = 0; r < g.racks; ++r) {
        snprintf(g.rack[r], sizeof(g.rack[r]), "r%03d", r + 1);
        json_array_append_new(racks, json_string(g.rack[r]));
    }
    for (int h = 0; h < g.n; ++h) {
        snprintf(g.host[h], sizeof(g.host[h]), "n%04d", h + 1);
        g.healthy[h] = 1;
        json_array_append_new(hosts, json_pack("{s:s, s:s}", "host", g.host[h], "rack",
                                               g.rack[h / g.per_rack]));
    }
    /* the frozen inventory a run leaves beside its records (the report
     * checks the plan's against it): one host per line, "HOST RACK" */
    for (int k = 0; k < 2; ++k) {
        FILE *inv;

        snprintf(path, sizeof(path), "%s/%s", argv[6], k ? "racks" : "hosts");
        if ((inv = fopen(path, "w")) == NULL) {
            perror(path);
            return 2;
        }
        for (int h = 0; h < g.n; ++h)
            fprintf(inv, k ? "%s %s\n" : "%s\n", g.host[h], g.rack[h / g.per_rack]);
        fclose(inv);
    }
    snprintf(path, sizeof(path), "%s/results.jsonl", argv[6]);
    if ((g.out = fopen(path, "w")) == NULL) {
        perror(path);
        return 2;
    }
    plan = tpl(&g, 0, "plan", NULL, 0);
    g.prof = &prof;
    g.overrides = json_deep_copy(json_object_get(plan, "overrides"));
    stages = json_array();
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (prof.stages[s].present)
            json_array_append_new(stages, json_pack("{s:s, s:b, s:f, s:b}", "name",
                fc_stage_name((fc_stage_id_t)s), "required", prof.stages[s].required,
                "timeout_s", prof.stages[s].timeout_s, "selected", 1));
    json_object_set_new(plan, "stages", stages);
    json_object_set_new(plan, "inventory", json_pack("{s:o, s:o, s:[], s:s, s:s}", "hosts",
                        hosts, "racks", racks, "left_out", "hosts_file", "hosts", "racks_file",
                        "racks"));
    json_object_set_new(plan, "profile_sha256", json_string(g.sha));
    emit(&g, plan);
    bad[0] = g.per_rack * 1 + 3;                /* a NIC in rack 2 */
    bad[1] = g.per_rack * (g.racks - 2) + 7;    /* one in the rack before last */
    if (full)
        path_pair[0] = g.per_rack * 5 + 1, path_pair[1] = g.per_rack * 9 + 2;
    sweep(&g, "node", 0);
    pairs(&g, full, inter, bad, 2, path_pair);
    sweep(&g, "rack", 1);
    sweep(&g, "cluster", 2);
    flap = g.per_rack * (3 * g.racks / 4) + 2;  /* a link of a rack three quarters in */
    soak(&g, flap);
    fclose(g.out);
    /* the racks that must FAIL, one per line; the record count last */
    printf("%s\n%s\n%s\n%s\n%s\n", g.rack[bad[0] / g.per_rack], g.rack[bad[1] / g.per_rack],
           g.rack[path_pair[0] / g.per_rack], g.rack[path_pair[1] / g.per_rack],
           g.rack[flap / g.per_rack]);
    fprintf(stderr, "scale_gen: %ld records\n", g.records);
    return 0;
}
