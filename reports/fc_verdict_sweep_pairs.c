/*
 * fc_verdict_sweep_pairs.c - the pairs stage's records against its plan
 * (see fc_verdict_sweep.c): the schedule the stage ran, derived again by
 * the stage's own lib/stage/fc_pairs_schedule.c from the frozen profile's mode
 * and partners, the attempt's hosts in rank order (the stage's node
 * numbering) and their racks in the plan's inventory; each pair record a
 * pair of it (one the schedule does not meet is not counted), with the
 * planned sizes, iterations and mode; and what a sampled run measured.
 * The rails stage's pairs go through the same check per rail, and each
 * of its NICs must have its rail_node record (fc_sweep_rail_nodes).
 */
#include "fc_verdict_sweep_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_pairs_schedule.h"

/* A pair record (or a rail's: rail_pair, on one of the rails): a pair of
 * the attempt's hosts, met once (on its rail), with exactly the planned
 * sizes. */
void fc_sweep_pair_record(struct fc_sweep_result *sw, json_t *rec)
{
    const char *ha = fc_json_str(rec, "host_a"), *hb = fc_json_str(rec, "host_b");
    json_t *ia = json_object_get(sw->groups, ha), *ib = json_object_get(sw->groups, hb);
    json_t *sizes = json_object_get(rec, "sizes"), *z;
    char label[256], text[FC_VERDICT_TEXT];
    int ok = 1;
    size_t i, a, b, base = 0;
    json_t *rail = json_object_get(rec, "rail");

    fc_check_label(rec, label, sizeof(label));
    if (sw->check == FC_SWEEP_CHECK_RAILS) {
        if (!json_is_integer(rail) || json_integer_value(rail) < 0 ||
            json_integer_value(rail) >= sw->nrails) {
            snprintf(text, sizeof(text), "%.200s: not a rail the stage ran (%d)", label,
                     sw->nrails);
            fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "extra", text);
            return;
        }
        base = (size_t)json_integer_value(rail) * (size_t)sw->ngroups * (size_t)sw->ngroups;
    }
    /* its iterations, as the point records' (fc_sweep_point_record) */
    if (!json_is_integer(json_object_get(rec, "iters")) ||
        json_integer_value(json_object_get(rec, "iters")) != sw->iters) {
        snprintf(text, sizeof(text), "iters %lld where the plan says %d (%.200s)",
                 (long long)json_integer_value(json_object_get(rec, "iters")), sw->iters, label);
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "iters", text);
    }
    if (!json_is_integer(json_object_get(rec, "warmup")) ||
        json_integer_value(json_object_get(rec, "warmup")) != sw->warmup) {
        snprintf(text, sizeof(text), "warmup %lld where the plan says %d (%.200s)",
                 (long long)json_integer_value(json_object_get(rec, "warmup")), sw->warmup,
                 label);
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "warmup", text);
    }
    if (strcmp(fc_json_str(rec, "mode"), sw->sampled ? "sampled" : "full") != 0) {
        snprintf(text, sizeof(text), "%.200s: mode '%.20s' where the plan's schedule is %s",
                 label, fc_json_str(rec, "mode"), sw->sampled ? "sampled" : "full");
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "mode", text);
    }
    if (ia == NULL || ib == NULL || ia == ib) {
        snprintf(text, sizeof(text), "%.200s: not a pair of the hosts the stage ran", label);
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "extra", text);
        return;
    }
    a = (size_t)json_integer_value(ia);
    b = (size_t)json_integer_value(ib);
    if (a > b) {
        size_t t = a;

        a = b;
        b = t;
    }
    if (sw->planned != NULL && !sw->planned[a * (size_t)sw->ngroups + b]) {
        /* measured, but not a pair of the sampled plan: not counted */
        snprintf(text, sizeof(text), "%.200s: not a pair of the sampled schedule", label);
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "extra", text);
        return;
    }
    ok = json_array_size(sizes) == (size_t)sw->npoints;
    for (int p = 0; p < sw->npoints && ok; ++p) {
        int found = 0;

        json_array_foreach(sizes, i, z)
            found |= (uint64_t)json_integer_value(json_object_get(z, "bytes")) ==
                     sw->points[p].bytes;
        ok = found;
    }
    if (!ok) {
        char *got = json_dumps(sizes, JSON_COMPACT | JSON_ENCODE_ANY);
        size_t used = 0;
        char want[160] = "";

        for (int p = 0; p < sw->npoints && used + 24 < sizeof(want); ++p)
            used += (size_t)snprintf(want + used, sizeof(want) - used, "%s%llu", p ? ", " : "",
                                     (unsigned long long)sw->points[p].bytes);
        snprintf(text, sizeof(text), "%.120s measured other sizes than the plan's (%s bytes): "
                 "%.150s", label, want, got ? got : "none");
        free(got);
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "sizes", text);
    }
    if (sw->seen[base + a * (size_t)sw->ngroups + b]) {
        snprintf(text, sizeof(text), "%.200s", label);
        fc_sweep_problem(sw, json_pack("[s,s]", ha, hb), "twice", text);
    }
    if (ok)
        sw->seen[base + a * (size_t)sw->ngroups + b] = 1;
}

/* The pairs the stage's schedule meets over the attempt's hosts (sw's
 * groups, in rank order, as the stage numbers its nodes), their racks
 * from the plan's inventory: sw->planned; 0, or -1 with the reason. */
int fc_sweep_pairs_plan(const fc_run_verdict_t *out, struct fc_sweep_result *sw)
{
    json_t *inv = json_object_get(json_object_get(out->plan, "inventory"), "hosts"), *e;
    json_t *labels = json_object(), *rack_of = json_object();
    int n = sw->ngroups, *rack = fc_xcalloc((size_t)n + 1, sizeof(int), "the hosts' racks");
    fc_pairs_schedule_t s;
    char why[160], text[FC_VERDICT_TEXT];
    size_t k;

    sw->planned = fc_xcalloc((size_t)n * (size_t)n + 1, 1, "the planned pairs");
    json_array_foreach(inv, k, e)       /* host -> rack (the last entry, as a scan would) */
        json_object_set(rack_of, fc_json_str(e, "host"), json_object_get(e, "rack"));
    for (int g = 0; g < n; ++g) {
        const char *host = json_string_value(json_array_get(sw->names, (size_t)g)), *r;
        json_t *l;

        r = json_is_string(json_object_get(rack_of, host))
                ? json_string_value(json_object_get(rack_of, host)) : "";
        if ((l = json_object_get(labels, r)) == NULL)
            json_object_set_new(labels, r, l = json_integer((json_int_t)json_object_size(labels)));
        rack[g] = (int)json_integer_value(l);
    }
    json_decref(labels);
    json_decref(rack_of);
    if (n < 2) {
        free(rack);
        return 0;       /* no pair: nothing planned */
    }
    if (fc_pairs_schedule_init(&s, n, rack, sw->pairs_mode, sw->pairs_partners, why,
                               sizeof(why)) != 0) {
        snprintf(text, sizeof(text), "the pairs stage's schedule cannot be derived: %s", why);
        fc_sweep_problem(sw, NULL, "plan", text);
        free(sw->points);
        sw->points = NULL;
        free(rack);
        return -1;
    }
    sw->sampled = s.sampled;
    sw->partners = s.partners;
    sw->measured = -1;
    fc_pairs_schedule_pairs(&s, sw->planned);
    fc_pairs_schedule_free(&s);
    free(rack);
    return 0;
}

void fc_sweep_pairs_coverage(struct fc_sweep_result *sw, fc_rack_verdict_t *r,
                             fc_stage_id_t s)
{
    long all = (long)sw->ngroups * (sw->ngroups - 1) / 2;

    if (sw->check != FC_SWEEP_CHECK_PAIRS || !sw->sampled || sw->planned == NULL)
        return;
    /* what a sampled run measured, so that nobody reads it as the full
     * matrix: the planned pairs met, of every pair of the hosts (counted
     * once: n x n cells for every rack was minutes at 4,096 nodes) */
    if (sw->measured < 0) {
        sw->measured = 0;
        for (size_t c = 0; c < (size_t)sw->ngroups * (size_t)sw->ngroups; ++c)
            sw->measured += sw->seen[c] && sw->planned[c];
    }
    snprintf(r->stages[s].coverage, sizeof(r->stages[s].coverage), "sampled: %d partners "
             "per node, %ld of %ld pairs measured", sw->partners, sw->measured, all);
}

/* Rails: every NIC of the attempt's hosts (a host's ranks, one per rail)
 * has its rail_node record, its figures for the certificate; a NIC
 * without one is a problem of its host (a deleted record was a PASS with
 * that NIC missing from the certificate's list). */
void fc_sweep_rail_nodes(json_t *records, const fc_attempt_t *a,
                                const fc_verdict_scan_t *scan, fc_stage_id_t s,
                                struct fc_sweep_result *sw)
{
    size_t cells = (size_t)sw->ngroups * (size_t)sw->nrails;
    unsigned char *had = fc_xcalloc(cells + 1, 1, "the NICs' records");
    const fc_record_type_t *node = fc_record_type_named("rail_node");
    char text[FC_VERDICT_TEXT];

    for (size_t i = a->first + 1; i < a->end && i < json_array_size(records); ++i) {
        json_t *rec = json_array_get(records, i), *g, *rail;

        if (scan->stage[i] != (int)s || scan->ignored[i] || scan->other_run[i] ||
            node == NULL || scan->type[i]->id != node->id)
            continue;
        g = json_object_get(sw->groups, fc_json_str(rec, "host"));
        rail = json_object_get(rec, "rail");
        if (json_is_integer(g) && json_is_integer(rail) && json_integer_value(rail) >= 0 &&
            json_integer_value(rail) < sw->nrails)
            had[(size_t)json_integer_value(rail) * (size_t)sw->ngroups +
                (size_t)json_integer_value(g)] = 1;
    }
    for (int k = 0; k < sw->nrails; ++k)
        for (int g = 0; g < sw->ngroups; ++g) {
            const char *host = json_string_value(json_array_get(sw->names, (size_t)g));

            if (had[(size_t)k * (size_t)sw->ngroups + (size_t)g])
                continue;
            snprintf(text, sizeof(text), "no rail_node record of host %s's NIC on rail %d: "
                     "its figures are not in the results", host, k);
            fc_sweep_problem(sw, json_pack("[s]", host), "plan", text);
        }
    free(had);
}
