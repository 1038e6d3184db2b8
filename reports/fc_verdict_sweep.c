/*
 * fc_verdict_sweep.c - what was measured against what the plan says. A
 * stage's records say what it measured; the plan says what it was to
 * measure: the frozen profile (profile.yaml, whose hash the plan records)
 * with the overrides the plan records. A launcher that quietly added
 * `--iters 1 --sizes 1` to the stage's command line, or a results.jsonl
 * whose failing points were deleted and its end record recounted, gives
 * records that agree with themselves and with their end record, and not
 * with the plan. So, for each finished attempt of a stage that sweeps
 * (the stage table's sweep_check), the sweep is derived again by the
 * stage programs' own function (fc_stage_sweep_plan, lib/stage/fc_stage_opts.c:
 * the same option parser and the same loop) and the attempt's records are
 * held to it:
 *
 *   - points (node, rack, cluster, soak): one point record per planned
 *     point and per group of the attempt's ranks (a node, a rack, or the
 *     whole job, as its stage_start's rank_hosts give them), each with the
 *     planned iters and warmup, none twice and none the plan does not have;
 *   - pairs: one pair record per pair of the attempt's hosts that the
 *     stage's schedule meets (lib/stage/fc_pairs_schedule.h, derived again from
 *     the profile's mode and partners, the attempt's hosts in rank order
 *     and their racks in the plan's inventory: every pair under mode full,
 *     the sampled plan's pairs under sampled), none the schedule does not
 *     meet, each with exactly the planned sizes, iters and warmup, and the
 *     schedule's mode;
 *   - rails: the same per rail, the full tournament (one rail_pair record
 *     per pair of hosts on each rail, the rails being the ranks per host);
 *   - kinds (contention): one record per planned point, background kind
 *     (the profile's kinds, and "all" when there are two or more) and
 *     group (each rack with a host that measures, under scope: rack; the
 *     whole job otherwise), none twice and none the plan does not have;
 *   - sizes (overlap, which measures one kind of collective whatever the
 *     profile lists): one record of the stage's sweep_record type per
 *     planned size and group, with the planned iters and warmup, no other;
 *   - series (scaling): one record per planned point and per node count
 *     of the series over the attempt's hosts (fc_stage_series_counts, the
 *     stage's own), with the planned iters and warmup, no other.
 *
 * Anything else leaves the stage INCOMPLETE on the racks it concerns,
 * naming what is missing or different ("planned 252 points on node vm, 1
 * judged"; "iters 1 where the plan says 10").
 */
#include "fc_verdict_sweep_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_contention_role.h"
#include "fc_stage.h"

/* The overrides the plan records that shape a stage's sweep, as the
 * runner gave them to every stage program (runners/fc_run_opts.c). */
static const char *const fc_sweep_options[] = {
    "--sizes", "--iters", "--warmup", "--collectives", "--dtypes", "--ops", "--soak-duration",
};

static void fc_point_key(const char *coll, const char *dtype, const char *op,
                         long long bytes, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %s %lld", coll, dtype, op, bytes);
}

/* Cells per group: each planned point under each background kind. */
static size_t fc_sweep_slots(const struct fc_sweep_result *sw)
{
    return (size_t)sw->npoints * (size_t)sw->nkinds;
}

/* The sweep stage s was to measure, from the profile and the plan's
 * overrides; 0, or -1 with the reason (a problem for every rack). */
static int fc_sweep_derive(const fc_run_verdict_t *out, const fc_profile_t *profile,
                           fc_stage_id_t s, struct fc_sweep_result *sw)
{
    json_t *ov = json_object_get(out->plan, "overrides");
    char *argv[2 * sizeof(fc_sweep_options) / sizeof(fc_sweep_options[0]) + 2];
    int argc = 0;
    fc_stage_profile_t sp;
    char text[FC_VERDICT_TEXT];

    argv[argc++] = (char *)"fabcert-report";
    for (size_t k = 0; k < sizeof(fc_sweep_options) / sizeof(fc_sweep_options[0]); ++k) {
        json_t *v = json_object_get(ov, fc_sweep_options[k]);

        if (v == NULL)
            continue;
        if (!json_is_string(v)) {
            snprintf(text, sizeof(text), "the plan's override %s is not a string: the "
                     "sweep the %s stage was to measure cannot be derived",
                     fc_sweep_options[k], fc_stage_name(s));
            fc_sweep_problem(sw, NULL, "plan", text);
            return -1;
        }
        argv[argc++] = (char *)fc_sweep_options[k];
        argv[argc++] = (char *)json_string_value(v);
    }
    argv[argc] = NULL;
    if (fc_stage_sweep_plan(profile, s, argc, argv, &sp, &sw->points, &sw->npoints) != FC_OK) {
        snprintf(text, sizeof(text), "the plan's overrides do not parse as the %s stage "
                 "program's options (the error is above): the sweep it was to measure "
                 "cannot be derived", fc_stage_name(s));
        fc_sweep_problem(sw, NULL, "plan", text);
        return -1;
    }
    sw->iters = sp.iters;
    sw->warmup = sp.warmup;
    sw->pairs_mode = sp.pairs_mode;
    sw->pairs_partners = sp.pairs_partners;
    sw->nrails = 1;
    sw->nkinds = 1;
    sw->kind_names[0][0] = '\0';
    if (sw->check == FC_SWEEP_CHECK_KINDS) {
        /* each kind alone, then all of them together (suites/contention.c) */
        sw->nkinds = 0;
        sw->cont = sp.cont;
        for (int k = 0; k < FC_BG_KINDS; ++k)
            if (sp.cont.kinds[k].enabled)
                snprintf(sw->kind_names[sw->nkinds++], sizeof(sw->kind_names[0]), "%s",
                         fc_bg_kind_name(k));
        if (sw->nkinds > 1)
            snprintf(sw->kind_names[sw->nkinds++], sizeof(sw->kind_names[0]), "all");
    }
    if (FC_BY_HOST(sw) || sw->check == FC_SWEEP_CHECK_SIZES) {
        /* a pair's sizes are the sweep's sizes (sendrecv int32, whatever
         * the profile lists), and so are a sizes stage's points */
        free(sw->points);
        sw->points = fc_xcalloc((size_t)sp.nsizes + 1, sizeof(*sw->points), "the pairs' sizes");
        for (int z = 0; z < sp.nsizes; ++z)
            sw->points[z].bytes = sp.sizes[z];
        sw->npoints = sp.nsizes;
    }
    return 0;
}

/* The groups of an attempt's ranks, as its stage groups them: a node,
 * a rack (the plan's inventory), the whole job; the hosts (pairs); the
 * racks of the hosts that measure, or the whole job, by the contention
 * scope (kinds). */
static void fc_sweep_groups(const fc_run_verdict_t *out, const fc_attempt_t *a,
                            fc_stage_id_t s, struct fc_sweep_result *sw)
{
    const char *g = fc_stage_desc(s)->group;
    json_t *inv = json_object_get(json_object_get(out->plan, "inventory"), "hosts"), *h, *e;
    json_t *rack_of = NULL;
    size_t i, k;

    if (sw->check == FC_SWEEP_CHECK_SERIES) {
        /* the node counts of the series: its hosts, and the fewest ranks
         * on one of them */
        json_t *per_host = json_object();
        const char *key;
        json_t *v;
        int counts[64], n, fewest = 0;

        json_array_foreach(a->hosts, i, h)
            if (json_is_string(h))
                json_object_set_new(per_host, json_string_value(h), json_integer(
                    json_integer_value(json_object_get(per_host, json_string_value(h))) + 1));
        json_object_foreach(per_host, key, v)
            if (fewest == 0 || json_integer_value(v) < fewest)
                fewest = (int)json_integer_value(v);
        n = fc_stage_series_counts((int)json_object_size(per_host), fewest, counts, 64);
        json_decref(per_host);
        for (int c = 0; c < n; ++c) {
            char name[32];

            snprintf(name, sizeof(name), "%d nodes", counts[c]);
            json_object_set_new(sw->groups, name, json_integer(sw->ngroups++));
            json_array_append_new(sw->names, json_string(name));
        }
        return;
    }
    if (sw->check == FC_SWEEP_CHECK_RAILS) {
        /* a rail per rank on a host: the fewest ranks on one (the stage
         * runs only when every host has as many) */
        json_t *per_host = json_object(), *v;
        const char *key;

        json_array_foreach(a->hosts, i, h)
            if (json_is_string(h))
                json_object_set_new(per_host, json_string_value(h), json_integer(
                    json_integer_value(json_object_get(per_host, json_string_value(h))) + 1));
        sw->nrails = 0;
        json_object_foreach(per_host, key, v)
            if (sw->nrails == 0 || json_integer_value(v) < sw->nrails)
                sw->nrails = (int)json_integer_value(v);
        if (sw->nrails < 1)
            sw->nrails = 1;
        json_decref(per_host);
    }
    json_array_foreach(a->hosts, i, h) {
        const char *name = json_string_value(h);

        if (name == NULL)
            continue;
        if (sw->check == FC_SWEEP_CHECK_KINDS) {
            /* the rack of a host that measures (its rank's place on its
             * host, as the stage decides it), or the whole job */
            int local = 0;

            for (size_t j = 0; j < i; ++j)
                local += json_is_string(json_array_get(a->hosts, j)) &&
                         strcmp(json_string_value(json_array_get(a->hosts, j)), name) == 0;
            if (fc_contention_role(&sw->cont, name, local) != FC_ROLE_FG)
                continue;
            g = sw->cont.scope_rack ? "rack" : NULL;
        }
        if (!FC_BY_HOST(sw) && g == NULL)
            name = "cluster";
        else if (!FC_BY_HOST(sw) && strcmp(g, "rack") == 0) {
            json_t *rack;

            if (rack_of == NULL) {
                /* host -> rack once (the last entry, as a scan would):
                 * a scan per rank was 33 million compares at 4,096 nodes */
                rack_of = json_object();
                json_array_foreach(inv, k, e)
                    json_object_set(rack_of, fc_json_str(e, "host"), json_object_get(e, "rack"));
            }
            rack = json_object_get(rack_of, name);
            name = json_is_string(rack) ? json_string_value(rack) : "";
        }
        if (json_object_get(sw->groups, name) == NULL) {
            json_object_set_new(sw->groups, name, json_integer(sw->ngroups++));
            json_array_append_new(sw->names, json_string(name));
        }
    }
    json_decref(rack_of);
}

/* A record's requested size: requested_bytes, or bytes in records written
 * before it was (their sizes are the bytes moved, the same on these). */
static long long fc_sweep_requested(json_t *rec)
{
    json_t *v = json_object_get(rec, "requested_bytes");

    return (long long)json_integer_value(v ? v : json_object_get(rec, "bytes"));
}

/* A point or contention record against the planned points: its group
 * one the stage ran, its point a planned one, not met before, and its
 * iterations as planned (checked on every record, planned or not: a
 * launcher that shrank the sweep shrank them too). */
static void fc_sweep_point_record(struct fc_sweep_result *sw, json_t *rec)
{
    char key[160], label[256], text[FC_VERDICT_TEXT];
    json_t *gi, *pi, *hosts = json_array();
    int g;

    if (sw->check == FC_SWEEP_CHECK_SIZES)
        snprintf(key, sizeof(key), "%lld", fc_sweep_requested(rec));
    else
        fc_point_key(fc_json_str(rec, "collective"), fc_json_str(rec, "dtype"),
                     fc_json_str(rec, "op"), fc_sweep_requested(rec), key, sizeof(key));
    if (sw->check == FC_SWEEP_CHECK_KINDS)     /* and its background kind */
        snprintf(key + strlen(key), sizeof(key) - strlen(key), " %.40s",
                 fc_json_str(rec, "kind"));
    fc_check_label(rec, label, sizeof(label));
    /* the hosts a record of a node or a rack concerns: its group's (a
     * record of the whole job concerns every rack of the attempt) */
    if (fc_json_str(rec, "rack")[0] && fc_json_str(rec, "host")[0])
        json_array_append_new(hosts, json_string(fc_json_str(rec, "host")));
    if (sw->check == FC_SWEEP_CHECK_KINDS && fc_json_str(rec, "rack")[0] &&
        json_is_array(json_object_get(rec, "measured_hosts")))
        json_array_extend(hosts, json_object_get(rec, "measured_hosts"));
    if (sw->check != FC_SWEEP_CHECK_KINDS) {
        json_int_t it = json_integer_value(json_object_get(rec, "iters"));
        json_int_t wu = json_integer_value(json_object_get(rec, "warmup"));

        if (!json_is_integer(json_object_get(rec, "iters")) || it != sw->iters) {
            snprintf(text, sizeof(text), "iters %lld where the plan says %d (%.200s)",
                     (long long)it, sw->iters, label);
            fc_sweep_problem(sw, json_incref(hosts), "iters", text);
        }
        if (!json_is_integer(json_object_get(rec, "warmup")) || wu != sw->warmup) {
            snprintf(text, sizeof(text), "warmup %lld where the plan says %d (%.200s)",
                     (long long)wu, sw->warmup, label);
            fc_sweep_problem(sw, json_incref(hosts), "warmup", text);
        }
    }
    gi = json_object_get(sw->groups, fc_json_str(rec, "group"));
    if (gi == NULL) {
        snprintf(text, sizeof(text), "%.200s: group '%.60s' is none the stage ran", label,
                 fc_json_str(rec, "group"));
        fc_sweep_problem(sw, NULL, "group", text);
        json_decref(hosts);
        return;
    }
    g = (int)json_integer_value(gi);
    if ((pi = json_object_get(sw->index, key)) == NULL) {
        fc_sweep_problem(sw, hosts, "extra", label);
        return;
    }
    {
        size_t cell = (size_t)g * fc_sweep_slots(sw) + (size_t)json_integer_value(pi);

        if (sw->seen[cell])
            fc_sweep_problem(sw, json_incref(hosts), "twice", label);
        sw->seen[cell] = 1;
    }
    json_decref(hosts);
}



/* One finished attempt of stage s. */
static struct fc_sweep_result *fc_sweep_attempt(json_t *records, const fc_run_verdict_t *out,
                                                const fc_profile_t *profile,
                                                const fc_verdict_scan_t *scan, fc_stage_id_t s,
                                                const fc_attempt_t *a)
{
    struct fc_sweep_result *sw = fc_xcalloc(1, sizeof(*sw), "a stage's sweep check");
    fc_record_id_t type = FC_RECORD_POINT;
    size_t cells;

    sw->check = fc_stage_desc(s)->sweep_check;
    sw->index = json_object();
    sw->groups = json_object();
    sw->names = json_array();
    sw->problems = json_array();
    if (fc_sweep_derive(out, profile, s, sw) != 0)
        return sw;
    fc_sweep_groups(out, a, s, sw);
    for (int p = 0; p < sw->npoints && !FC_BY_HOST(sw); ++p) {
        char key[160];

        if (sw->check == FC_SWEEP_CHECK_SIZES) {
            snprintf(key, sizeof(key), "%lld", (long long)sw->points[p].bytes);
            json_object_set_new(sw->index, key, json_integer(p));
            continue;
        }
        fc_point_key(fc_coll_desc(sw->points[p].coll)->name,
                     fc_dtype_info(sw->points[p].dtype)->name, fc_op_name(sw->points[p].op),
                     (long long)sw->points[p].bytes, key, sizeof(key));
        if (sw->check != FC_SWEEP_CHECK_KINDS) {
            json_object_set_new(sw->index, key, json_integer(p));
            continue;
        }
        for (int k = 0; k < sw->nkinds; ++k) {
            char kkey[200];

            snprintf(kkey, sizeof(kkey), "%s %s", key, sw->kind_names[k]);
            json_object_set_new(sw->index, kkey, json_integer(p * sw->nkinds + k));
        }
    }
    cells = FC_BY_HOST(sw) ? (size_t)sw->nrails * (size_t)sw->ngroups * (size_t)sw->ngroups
                           : (size_t)sw->ngroups * fc_sweep_slots(sw);
    sw->seen = fc_xcalloc(cells + 1, 1, "the planned points met");
    if (sw->check == FC_SWEEP_CHECK_PAIRS && fc_sweep_pairs_plan(out, sw) != 0)
        return sw;
    if (sw->check == FC_SWEEP_CHECK_PAIRS)
        type = FC_RECORD_PAIR;
    else if (sw->check == FC_SWEEP_CHECK_KINDS)
        type = FC_RECORD_CONTENTION;
    if (fc_stage_desc(s)->sweep_record != NULL)
        type = fc_record_type_named(fc_stage_desc(s)->sweep_record)->id;
    for (size_t i = a->first + 1; i < a->end && i < json_array_size(records); ++i) {
        json_t *rec = json_array_get(records, i);

        if (scan->stage[i] != (int)s || scan->ignored[i] || scan->other_run[i] ||
            scan->type[i]->id != type)
            continue;
        if (FC_BY_HOST(sw))
            fc_sweep_pair_record(sw, rec);
        else
            fc_sweep_point_record(sw, rec);
    }
    if (sw->check == FC_SWEEP_CHECK_RAILS)
        fc_sweep_rail_nodes(records, a, scan, s, sw);
    return sw;
}

void fc_verdict_sweep_scan(json_t *records, const fc_run_verdict_t *out,
                           const fc_profile_t *profile, fc_verdict_scan_t *scan)
{
    if (profile == NULL)
        return;         /* no frozen profile: the plan check says why */
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        if (!fc_stage_desc((fc_stage_id_t)s)->sweep_check || !profile->stages[s].present ||
            !out->planned[s])
            continue;
        for (int k = 0; k < scan->att[s].n; ++k) {
            fc_attempt_t *a = &scan->att[s].a[k];

            if (a->ended && !a->skipped)
                a->sweep = fc_sweep_attempt(records, out, profile, scan, (fc_stage_id_t)s, a);
        }
    }
}

void fc_verdict_sweep_free(fc_verdict_scan_t *scan)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        for (int k = 0; k < scan->att[s].n; ++k) {
            struct fc_sweep_result *sw = scan->att[s].a[k].sweep;

            if (sw == NULL)
                continue;
            free(sw->points);
            free(sw->seen);
            free(sw->planned);
            json_decref(sw->index);
            json_decref(sw->groups);
            json_decref(sw->names);
            json_decref(sw->problems);
            free(sw);
        }
}

/* Does group g of the attempt concern rack r? A node or a pair's host is
 * one of its hosts; a rack is it; the whole job and "the stage" concern
 * every rack of the attempt (the caller's). */
static int fc_sweep_group_of_rack(const struct fc_sweep_result *sw, const fc_rack_verdict_t *r,
                                  fc_stage_id_t s, const char *name)
{
    const char *g = fc_stage_desc(s)->group;

    if (sw->check == FC_SWEEP_CHECK_KINDS)
        g = sw->cont.scope_rack ? "rack" : NULL;
    if (!FC_BY_HOST(sw) && g == NULL)
        return 1;
    if (!FC_BY_HOST(sw) && strcmp(g, "rack") == 0)
        return strcmp(name, r->rack) == 0;
    return fc_rack_has_host(r, name);
}

/* A planned point as its record would be labelled ("all_reduce float32
 * sum 4 KiB on fcv01"; without a group, the point alone). */
static void fc_sweep_point_label(const fc_test_point_t *pt, const char *group, char *buf,
                                 size_t len)
{
    json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s}", "type", "point", "collective",
                            fc_coll_desc(pt->coll)->name, "dtype",
                            fc_dtype_info(pt->dtype)->name, "op", fc_op_name(pt->op),
                            "bytes", (json_int_t)pt->bytes, "group", group ? group : "");
    char *on;

    fc_check_label(rec, buf, len);
    if (group == NULL && (on = strstr(buf, " on ")) != NULL && on[4] == '\0')
        *on = '\0';
    json_decref(rec);
}

/* Planned and judged of the groups (or pairs) that concern rack r, and
 * the first planned one missing. */
static void fc_sweep_count(const struct fc_sweep_result *sw, const fc_rack_verdict_t *r,
                           fc_stage_id_t s, long *planned, long *judged, int *ngroups,
                           const char **group_p, char *first, size_t len)
{
    int n = sw->ngroups;

    *planned = *judged = 0;
    *ngroups = 0;
    *group_p = "";
    first[0] = '\0';
    for (int g = 0; g < n; ++g) {
        const char *name = json_string_value(json_array_get(sw->names, (size_t)g));

        if (!fc_sweep_group_of_rack(sw, r, s, name))
            continue;
        if (++*ngroups == 1)
            *group_p = name;
        if (FC_BY_HOST(sw)) {
            /* each pair once (on each rail): both in the rack when g < h,
             * else from g */
            for (int k = 0; k < sw->nrails; ++k)
                for (int h = 0; h < n; ++h) {
                    const char *other = json_string_value(json_array_get(sw->names, (size_t)h));
                    int a = g < h ? g : h, b = g < h ? h : g;
                    size_t base = (size_t)k * (size_t)n * (size_t)n;

                    if (h == g || (fc_rack_has_host(r, other) && h < g) ||
                        (sw->planned != NULL && !sw->planned[(size_t)a * (size_t)n + (size_t)b]))
                        continue;
                    ++*planned;
                    if (sw->seen[base + (size_t)a * (size_t)n + (size_t)b])
                        ++*judged;
                    else if (!first[0] && sw->check == FC_SWEEP_CHECK_RAILS)
                        snprintf(first, len, "rail %d pair %s <-> %s", k,
                                 json_string_value(json_array_get(sw->names, (size_t)a)),
                                 json_string_value(json_array_get(sw->names, (size_t)b)));
                    else if (!first[0])
                        snprintf(first, len, "pair %s <-> %s",
                                 json_string_value(json_array_get(sw->names, (size_t)a)),
                                 json_string_value(json_array_get(sw->names, (size_t)b)));
                }
            continue;
        }
        for (size_t c = 0; c < fc_sweep_slots(sw); ++c) {
            int p = (int)(c / (size_t)sw->nkinds);

            ++*planned;
            if (sw->seen[(size_t)g * fc_sweep_slots(sw) + c]) {
                ++*judged;
            } else if (!first[0] && sw->check == FC_SWEEP_CHECK_SIZES) {
                char size[32];

                fc_format_size(sw->points[p].bytes, size, sizeof(size));
                snprintf(first, len, "size %s on %s", size, name);
            } else if (!first[0]) {
                fc_sweep_point_label(&sw->points[p], sw->check == FC_SWEEP_CHECK_KINDS &&
                                     !sw->cont.scope_rack ? NULL : name, first, len);
                if (sw->check == FC_SWEEP_CHECK_KINDS)
                    snprintf(first + strlen(first), len - strlen(first), " under %s",
                             sw->kind_names[c % (size_t)sw->nkinds]);
            }
        }
    }
}

void fc_verdict_sweep_findings(fc_rack_verdict_t *r, fc_stage_id_t s, const fc_attempt_t *last)
{
    static const char *const kinds[] = { "plan", "group", "extra", "twice", "sizes", "iters",
                                         "warmup", "mode" };
    static const char *const says[] = {
        "%s", "%d record(s) of a group the stage did not run (first: %s)",
        "%d record(s) of what the plan does not have (first: %s)",
        "%d record(s) of a point measured twice (first: %s)",
        "%d pair record(s) with other sizes than planned (first: %s)",
        "%d record(s) with %s", "%d record(s) with %s",
        "%d pair record(s) under another schedule than planned (first: %s)",
    };
    const struct fc_sweep_result *sw = last ? last->sweep : NULL;
    char text[FC_VERDICT_TEXT], first[200], what[FC_VERDICT_TEXT];
    const char *noun;
    long planned, judged;
    int ngroups, found = 0;
    size_t used;

    if (sw == NULL)
        return;
    fc_sweep_pairs_coverage((struct fc_sweep_result *)sw, r, s);
    noun = FC_BY_HOST(sw) ? "pairs"
           : sw->check == FC_SWEEP_CHECK_SIZES ? "sizes" : "points";
    used = (size_t)snprintf(text, sizeof(text), "stage %s did not measure what the plan says "
                            "(the frozen profile with the plan's overrides): ",
                            fc_stage_name(s));
    if (sw->points != NULL) {
        const char *group, *g = !FC_BY_HOST(sw) && fc_stage_desc(s)->group
                                    ? fc_stage_group_noun(s) : NULL;

        fc_sweep_count(sw, r, s, &planned, &judged, &ngroups, &group, first, sizeof(first));
        if (judged < planned && g && ngroups == 1)
            used += (size_t)snprintf(text + used, sizeof(text) - used, "planned %d %s on %s "
                                     "%s, %ld judged (first missing: %s)", sw->npoints, noun,
                                     g, group, judged, first);
        else if (judged < planned && g)
            used += (size_t)snprintf(text + used, sizeof(text) - used, "planned %ld %s (%d on "
                                     "each of this rack's %d %ss), %ld judged (first missing: "
                                     "%s)", planned, noun, sw->npoints, ngroups, g, judged,
                                     first);
        else if (judged < planned)
            used += (size_t)snprintf(text + used, sizeof(text) - used, "planned %ld %s, %ld "
                                     "judged (first missing: %s)", planned, noun, judged, first);
        found = judged < planned;
    }
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k) {
        int n = 0;
        const char *one = NULL;
        json_t *p, *h;
        size_t i, j;

        json_array_foreach(sw->problems, i, p) {
            int mine = json_array_size(json_object_get(p, "hosts")) == 0;

            if (strcmp(fc_json_str(p, "kind"), kinds[k]) != 0)
                continue;
            json_array_foreach(json_object_get(p, "hosts"), j, h)
                mine |= fc_rack_has_host(r, json_string_value(h));
            if (mine && n++ == 0)
                one = fc_json_str(p, "text");
        }
        if (n == 0 || used + 40 >= sizeof(text))
            continue;
        if (k == 0)
            snprintf(what, sizeof(what), says[k], one);
        else
            snprintf(what, sizeof(what), says[k], n, one);
        used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", found ? "; " : "",
                                 what);
        found = 1;
    }
    if (!found)
        return;
    fc_add_finding(r, FC_VERDICT_INCOMPLETE, fc_stage_name(s), "sweep", "", text, 0);
    if (r->stages[s].verdict != FC_VERDICT_FAIL)
        r->stages[s].verdict = FC_VERDICT_INCOMPLETE;
}
