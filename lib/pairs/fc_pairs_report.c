/*
 * fc_pairs_report.c - the pairs stage's records and TAP (rank 0; see
 * fc_pairs_stage.h): one `pair` record per pair of nodes its rounds
 * measured (every pair, or the sampled plan's: `mode` says which; with
 * `iters` and `warmup`, which the report holds to the plan; every size with
 * its limits and how the relative and rack rules met it, the round's
 * reasons, the confirmation's verdict and evidence, what it implicates)
 * and one `pairs_node` record per node. The judgement is
 * lib/pairs/fc_pairs_judge.c's, the confirmation's sentences
 * lib/pairs/fc_pairs_evidence.c's: a round's slowness stands only when the
 * confirmation (lib/pairs/fc_pairs_confirm.h, measured alone) upholds it, and
 * only a node it confirms is quarantined. Wrong data is placed from the
 * pairs' own checked exchanges (lib/retest/fc_localise.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_json.h"
#include "fc_localise.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_pairs_agree.h"
#include "fc_pairs_evidence.h"
#include "fc_sensitivity.h"

/* The same-rack rule as it met pair p (inside a rack, its class's rule
 * applied), into its size entry: "same_rack_rule" (its rack's median, the
 * reference and its pairs, and rack_slow: whether that median was below
 * the allowed percentage, which puts each pair of the rack under the
 * reference), or a note that no other rack had pairs to compare with. */
static void fc_pairs_same_rack_json(const fc_pairs_run_t *run, const fc_pair_t *p,
                                    json_t *entry)
{
    const char *rack = run->ctx->inv.racks[run->node_racks[p->a]];
    char ref[160], why[FC_REASON_MAX];

    if (p->same == FC_PAIR_SAME_NONE) {
        snprintf(why, sizeof(why), "same-rack rule not applied: no other rack has two "
                 "nodes or more in this stage, so the pairs inside rack %s are compared "
                 "only with each other (a slowness they all share, such as their switch's, "
                 "is judged on the absolute limits alone)", rack);
        json_object_set_new(entry, "rules_not_applied", json_pack("[s]", why));
        return;
    }
    if (p->same != FC_PAIR_SAME_CLEAR && p->same != FC_PAIR_SAME_APPLIED)
        return;
    fc_pairs_same_rack_text(run, p, ref, sizeof(ref));
    json_object_set_new(entry, "same_rack_rule", json_pack(
        "{s:s, s:f, s:f, s:s, s:i, s:i, s:f, s:b}", "rack", rack, "rack_pairs_median_gbps",
        p->same_median, "reference_gbps", p->same_ref, "class", ref, "reference_pairs",
        p->same_ref_members, "reference_racks", p->same_ref_racks, "max_below_median_pct",
        run->ctx->sp.max_below_median_pct, "rack_slow", p->same == FC_PAIR_SAME_APPLIED));
}

/* Append why to entry's rules_not_applied. */
static void fc_pairs_not_applied(json_t *entry, const char *why)
{
    json_t *list = json_object_get(entry, "rules_not_applied");

    if (list == NULL) {
        list = json_array();
        json_object_set_new(entry, "rules_not_applied", list);
    }
    json_array_append_new(list, json_string(why));
}

/* The two-racks rule as it met pair p (across the spine, two racks). */
static void fc_pairs_two_racks_json(const fc_pairs_run_t *run, const fc_pair_t *p,
                                    json_t *entry)
{
    char ref[160], why[FC_REASON_MAX];

    if (p->two == FC_PAIR_TWO_OFF)
        return;
    if (p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0) {
        fc_pairs_two_racks_text(run, p, ref, sizeof(ref));
        json_object_set_new(entry, "two_racks_rule", json_pack(
            "{s:s, s:f, s:i, s:s, s:s, s:f}", "rack", run->ctx->inv.racks[p->two_rack],
            "reference_gbps", p->two_ref, "reference_pairs", p->two_members, "class", ref,
            "lone_host", run->node_hosts[p->two_lone], "max_below_median_pct",
            run->ctx->sp.max_below_median_pct));
    }
    snprintf(why, sizeof(why), "rack rule not applied: two racks (it compares a pair of "
             "racks with the pairs of racks without it, which needs three)%s%s",
             p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0 ? "; judged instead by "
             "the two-racks rule, against the " : "",
             p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0 ? ref :
             p->two == FC_PAIR_TWO_SHARED ? "; the class of the pairs across the spine "
             "judges them, and a slowness they all share (the spine, both uplinks) is "
             "judged on the absolute limits alone" : p->two == FC_PAIR_TWO_NONE ?
             "; both racks are one node, there is no pair inside a rack to compare with: "
             "the pair across the spine is judged on the absolute limits alone" : "");
    fc_pairs_not_applied(entry, why);
}

/* The relative rule as it met pair p, into its size entry: the reference
 * and its class, or why the rule did not apply. */
static void fc_pairs_relative_json(const fc_pairs_run_t *run, const fc_pair_t *p,
                                   json_t *entry)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    char peers[160 + FC_HOST_MAX], why[FC_REASON_MAX], size[32], from[32];

    if (p->rel == FC_PAIR_REL_OFF)
        return;
    if (p->rack_rule_rack >= 0)
        json_object_set_new(entry, "rack_rule", json_pack(
            "{s:s, s:f, s:f, s:[s,s], s:i}", "rack", run->ctx->inv.racks[p->rack_rule_rack],
            "rack_pairs_max_median_gbps", p->rack_median, "reference_gbps", p->rack_ref,
            "reference_racks", run->ctx->inv.racks[p->rack_ref_a],
            run->ctx->inv.racks[p->rack_ref_b], "reference_pairs", p->rack_ref_members));
    if (p->rel == FC_PAIR_REL_APPLIED) {
        json_t *rel;

        /* the whole class; where a node's own pairs were left out of the
         * reference (fc_pairs_judge.c), which node and how many are left */
        fc_pairs_class_text(run, p, p->class_members > 0 ? p->class_members : p->ref_members,
                            peers, sizeof(peers));
        if (p->ref_without >= 0)
            snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), ", the %d not "
                     "touching %s", p->ref_members, run->node_hosts[p->ref_without]);
        rel = json_pack("{s:f, s:f, s:s, s:i}", "peer_upper_median_gbps", p->ref,
                        "max_below_median_pct", sp->max_below_median_pct, "class", peers,
                        "peers", p->ref_members);
        if (p->ref_without >= 0)
            json_object_set_new(rel, "without_host",
                                json_string(run->node_hosts[p->ref_without]));
        json_object_set_new(entry, "relative", rel);
        fc_pairs_same_rack_json(run, p, entry);
        fc_pairs_two_racks_json(run, p, entry);
        return;
    }
    fc_format_size(sp->sizes[p->size_index], size, sizeof(size));
    fc_format_size(sp->relative_min_bytes, from, sizeof(from));
    fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
    if (p->rel == FC_PAIR_REL_SMALL)
        snprintf(why, sizeof(why), "relative rule not applied: %s is below "
                 "relative.min_bytes (%s)", size, from);
    else
        snprintf(why, sizeof(why), "relative rule not applied: no peer of its path "
                 "kind (%s); %s", peers, p->limit_bw >= 0 ? "judged on the absolute "
                 "limits alone" : "no bandwidth limit covers it either: only its bits "
                 "were judged");
    fc_pairs_not_applied(entry, why);
    fc_pairs_two_racks_json(run, p, entry);
}

/* Which node's data is wrong, from the pairs' checked exchanges (both
 * directions of every pair, over every size): lib/retest/fc_localise.h, one rank
 * per node. */
static void fc_pairs_blame_data(const fc_pairs_run_t *run, int npairs, const int *a,
                                const int *b, fc_blame_t *blame)
{
    fc_exchange_t *ex = fc_xcalloc((size_t)npairs * 2 + 1, sizeof(*ex), "the pairs' exchanges");
    int *host = fc_xcalloc((size_t)run->nnodes + 1, sizeof(int), "the nodes' host indices");

    for (int v = 0; v < run->nnodes; ++v) {
        host[v] = v;
        blame[v] = FC_BLAME_NONE;
    }
    for (int k = 0; k < npairs; ++k) {
        ex[2 * k] = (fc_exchange_t){ .sender = a[k], .receiver = b[k], .iters = 1 };
        ex[2 * k + 1] = (fc_exchange_t){ .sender = b[k], .receiver = a[k], .iters = 1 };
        for (int q = 0; q < run->npairs; ++q)
            if (run->pairs[q].a == a[k] && run->pairs[q].b == b[k]) {
                ex[2 * k].wrong += run->pairs[q].wrong_at[1];
                ex[2 * k + 1].wrong += run->pairs[q].wrong_at[0];
            }
    }
    /* a placement that leaves a wrong exchange unexplained is no placement:
     * nobody is blamed, the pairs stay with the runner's retest */
    if (fc_localise(run->nnodes, host, npairs * 2, ex, blame) != 0)
        for (int v = 0; v < run->nnodes; ++v)
            blame[v] = FC_BLAME_NONE;
    free(ex);
    free(host);
}

/* Wrong data between nodes a and b: the node the exchanges confirm
 * (quarantined), else both, pending the runner's retest. */
static json_t *fc_pairs_wrong_implicates(const fc_pairs_run_t *run, int a, int b,
                                         const fc_blame_t *blame)
{
    const char *ra = run->ctx->inv.racks[run->node_racks[a]];
    const char *rb = run->ctx->inv.racks[run->node_racks[b]];
    int v = blame[a] != FC_BLAME_NONE ? a : blame[b] != FC_BLAME_NONE ? b : -1;
    char group[2 * FC_HOST_MAX + 16];

    if (v >= 0)
        return json_pack("{s:s, s:s, s:s, s:b}", "part", "node", "host",
                         run->node_hosts[v], "rack",
                         run->ctx->inv.racks[run->node_racks[v]], "quarantine", 1);
    snprintf(group, sizeof(group), "pair %s <-> %s", run->node_hosts[a], run->node_hosts[b]);
    return json_pack("{s:s, s:s, s:s, s:s, s:[s,s], s:o, s:b, s:b}", "part", "group",
                     "host", "", "rack", "", "group", group, "hosts", run->node_hosts[a],
                     run->node_hosts[b], "racks", strcmp(ra, rb) ? json_pack("[s,s]", ra, rb)
                                                                 : json_pack("[s]", ra),
                     "quarantine", 0, "localised", 0);
}


/* One pair record (every size), its TAP point; returns 1 when it fails. */
static int fc_pairs_report_pair(fc_pairs_run_t *run, int k, int a, int b,
                                const int *slow, const fc_blame_t *blame,
                                const int *node_partners)
{
    fc_stage_ctx_t *ctx = run->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    fc_pair_verdict_t v = !slow[k] ? FC_PAIR_V_OK :
                          run->confirmed ? run->confirm.verdict[k] : FC_PAIR_V_UNCONFIRMED;
    const char *ha = fc_host(run, a), *hb = fc_host(run, b);
    json_t *rec = fc_stage_record(ctx, "pair"), *sizes = json_array();
    json_t *reasons = json_array(), *round_reasons = json_array(), *impl = json_null();
    int bad = 0, wrong_node = -1, cpu_held = 0;
    uint64_t wrong_at[2] = { 0, 0 };    /* received by a, by b */
    char first_reason[FC_REASON_MAX + 40], verdict_why[FC_REASON_MAX * 3] = "";
    double lat = 0;

    for (int q = 0; q < run->npairs; ++q) {
        const fc_pair_t *p = &run->pairs[q];
        char size[32];

        if (p->a != a || p->b != b)
            continue;
        json_t *entry = json_pack(
            "{s:I, s:f, s:f, s:i, s:I}", "bytes",
            (json_int_t)sp->sizes[p->size_index], "bw_gbps", p->bw_gbps,
            "min_bw_gbps", p->limit_bw, "limit_line", p->limit_line,
            "wrong", (json_int_t)p->wrong);

        if (p->dir_gbps[0] > 0 && p->dir_gbps[1] > 0)
            json_object_set_new(entry, "directions", fc_pairs_directions_json(run, p));
        fc_pairs_relative_json(run, p, entry);
        if (p->samples.n > 0)   /* for compare and baseline (fc_samples.h) */
            json_object_set_new(entry, "samples", fc_samples_json(&p->samples));
        json_array_append_new(sizes, entry);
        fc_format_size(sp->sizes[p->size_index], size, sizeof(size));
        for (int r = 0; r < p->nreasons; ++r) {
            char msg[FC_REASON_MAX + 40];

            snprintf(msg, sizeof(msg), "%s: %s", size, p->reasons[r]);
            if (r >= p->ntiming) {                  /* wrong data */
                json_array_append_new(reasons, json_string(msg));
                continue;
            }
            /* what the round saw stands only when the confirmation upholds it */
            json_array_append_new(round_reasons, json_string(msg));
            if (v != FC_PAIR_V_NOT_REPRODUCED)
                json_array_append_new(reasons, json_string(msg));
        }
        if (p->wrong > 0) {
            wrong_node = p->bad_node;
            bad = 1;
        }
        wrong_at[0] += p->wrong_at[0];
        wrong_at[1] += p->wrong_at[1];
        if (p->size_index == 0) {
            lat = p->lat_us;
            json_object_set_new(rec, "latency_limit", p->limit_lat >= 0 ? json_pack(
                "{s:f, s:i, s:I}", "max_latency_us", p->limit_lat, "line", p->lat_line,
                "bytes", (json_int_t)FC_PAIRS_LAT_BYTES) : json_null());
            json_object_set_new(rec, "rules_not_applied", p->limit_lat >= 0 ? json_array() :
                json_pack("[s]", "latency not judged: no limit of the profile covers 8 bytes "
                          "(the latency message's size; limits match the size measured)"));
        }
    }
    if (slow[k]) {
        impl = fc_pairs_slow_verdict(run, k, a, b, v, verdict_why, sizeof(verdict_why));
        bad |= impl != NULL;
        /* held by a host's processors, not the fabric: measured, but not
         * what the stage measures (INCOMPLETE, as a point whose background
         * load was not applied), unless its data was wrong */
        cpu_held = impl != NULL && strcmp(fc_json_str(impl, "part"), "cpu") == 0;
        if (impl != NULL)
            json_array_insert_new(reasons, 0, json_string(verdict_why));
        json_object_set_new(rec, "confirmation", json_pack(
            "{s:s, s:s, s:o, s:o, s:o}", "verdict", fc_pair_verdict_name(v), "text", verdict_why,
            "round_reasons", round_reasons, "alone", run->confirmed
                ? fc_pairs_probe_json(run, run->confirm.alone_probe[k]) : json_null(),
            "tolerance", run->confirmed ? fc_pairs_alone_tolerance_json(run) : json_null()));
        round_reasons = NULL;
    }
    json_decref(round_reasons);
    if (wrong_node >= 0) {
        json_decref(impl);
        impl = fc_pairs_wrong_implicates(run, a, b, blame);
        if (json_is_true(json_object_get(impl, "quarantine"))) {
            int w = blame[a] != FC_BLAME_NONE ? a : b;
            char why[FC_REASON_MAX];

            snprintf(why, sizeof(why), "wrong data %s %s, confirmed with every one of "
                     "its %d partners (both directions checked)",
                     blame[w] == FC_BLAME_SENDS ? "sent by" : "received by",
                     fc_host(run, w), node_partners[w]);
            json_array_insert_new(reasons, 0, json_string(why));
        }
    }
    if (impl == NULL)
        impl = json_null();
    json_object_set_new(rec, "host_a", json_string(ha));
    json_object_set_new(rec, "host_b", json_string(hb));
    json_object_set_new(rec, "rack_a", json_string(fc_rack_of(run, a)));
    json_object_set_new(rec, "rack_b", json_string(fc_rack_of(run, b)));
    json_object_set_new(rec, "sizes", sizes);
    /* which receiver saw wrong bits from which sender (both directions
     * checked, every size): what the runner intersects across stages */
    json_object_set_new(rec, "exchanges", json_pack(
        "[{s:s, s:s, s:I, s:s}, {s:s, s:s, s:I, s:s}]", "sender_host", hb, "receiver_host", ha,
        "wrong", (json_int_t)wrong_at[0], "verdict", wrong_at[0] ? "wrong" : "right",
        "sender_host", ha, "receiver_host", hb, "wrong", (json_int_t)wrong_at[1], "verdict",
        wrong_at[1] ? "wrong" : "right"));
    /* what the report holds to the plan: the schedule the pair was met
     * under, and the iterations of each of its exchanges */
    json_object_set_new(rec, "mode", json_string(run->sampled ? "sampled" : "full"));
    json_object_set_new(rec, "iters", json_integer(sp->iters));
    json_object_set_new(rec, "warmup", json_integer(sp->warmup));
    json_object_set_new(rec, "latency_us", json_real(lat));
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "implicates", impl);
    cpu_held &= wrong_node < 0;
    json_object_set_new(rec, "verdict",
                        json_string(cpu_held ? "INCOMPLETE" : bad ? "FAIL" : "PASS"));
    /* the smallest loss its limits would have caught (fc_sensitivity.h) */
    json_object_set_new(rec, "sensitivity", fc_sensitivity_of(rec));
    snprintf(first_reason, sizeof(first_reason), "%s",
             bad ? json_string_value(json_array_get(reasons, 0)) : "");
    fc_results_append(&ctx->results, rec);     /* takes rec */
    if (bad)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "pair %s <-> %s: %s%s", ha, hb,
                     cpu_held ? "INCOMPLETE: " : "", first_reason);
    else
        fc_tap_point(&ctx->tap, FC_OK, "pair %s <-> %s%s", ha, hb,
                     v == FC_PAIR_V_NOT_REPRODUCED ? " (slow in its round, fast alone)" : "");
    fc_tap_yaml_begin(&ctx->tap);
    fc_tap_yaml_line(&ctx->tap, "latency_us: %.2f", lat);
    for (int q = 0; q < run->npairs; ++q)
        if (run->pairs[q].a == a && run->pairs[q].b == b)
            fc_tap_yaml_line(&ctx->tap, "bw_gbps_%llu: %.4f",
                             (unsigned long long)sp->sizes[run->pairs[q].size_index],
                             run->pairs[q].bw_gbps);
    if (slow[k])
        fc_tap_yaml_line(&ctx->tap, "confirmation: %s", fc_pair_verdict_name(v));
    fc_tap_yaml_end(&ctx->tap);
    return bad;
}

/* The node whose CPU held a probe of node v (fc_pairs_probe_cpu_held),
 * or -1. */
static int fc_node_cpu_held(const fc_pairs_run_t *run, int v)
{
    for (int i = 0; run->confirmed && i < run->confirm.nprobes; ++i) {
        int held;

        if ((run->confirm.probes[i].x == v || run->confirm.probes[i].y == v) &&
            (held = fc_pairs_probe_cpu_held(run, i)) >= 0)
            return held;
    }
    return -1;
}

/* One pairs_node record; returns 1 when it fails. */
static int fc_pairs_report_node(fc_pairs_run_t *run, int v, const fc_blame_t *blame,
                                int node_slow, int node_partners)
{
    fc_stage_ctx_t *ctx = run->ctx;
    json_t *rec = fc_stage_record(ctx, "pairs_node");
    const fc_pairs_confirm_t *c = &run->confirm;
    int fail = 0, disputed = run->confirmed ? fc_confirm_disputed(c, v) : -1, held = -1;
    char why[FC_REASON_MAX * 2], evidence[FC_REASON_MAX] = "";
    const char *verdict = "PASS";

    json_object_set_new(rec, "host", json_string(fc_host(run, v)));
    json_object_set_new(rec, "rack", json_string(fc_rack_of(run, v)));
    json_object_set_new(rec, "slow_partners", json_integer(node_slow));
    json_object_set_new(rec, "partners", json_integer(node_partners));
    if (run->confirmed && c->probed[v]) {
        fc_pairs_node_evidence_text(run, v, evidence, sizeof(evidence));
        json_object_set_new(rec, "confirmation", fc_pairs_node_confirmation_json(run, v));
    }
    if (blame[v] != FC_BLAME_NONE) {
        snprintf(why, sizeof(why), "%s wrong data with every partner (%d, both "
                 "directions checked): the node (its NIC or memory) is implicated",
                 blame[v] == FC_BLAME_SENDS ? "sent" : "received", node_partners);
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:s, s:b}", "part", "node", "host", fc_host(run, v), "rack",
            fc_rack_of(run, v), "quarantine", 1));
        fail = 1;
    } else if (run->confirmed && c->link[v]) {
        fc_pairs_dir_t d = fc_pairs_node_direction(run, v);
        char dir[FC_REASON_MAX];

        fc_pairs_dir_text(run, v, d, dir, sizeof(dir));
        snprintf(why, sizeof(why), "slow with %d of its %d partners in the rounds, and "
                 "confirmed alone: %s: its NIC or link is implicated%s", node_slow,
                 node_partners, evidence, dir);
        if (c->alone_in_rack[v])
            snprintf(why + strlen(why), sizeof(why) - strlen(why), " (it is alone in "
                     "rack %s: its link and the rack's uplink are in series)",
                     fc_rack_of(run, v));
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:s, s:b}", "part", "link", "host", fc_host(run, v), "rack",
            fc_rack_of(run, v), "quarantine", 1));
        if (d != FC_PAIRS_DIR_UNKNOWN)
            json_object_set_new(json_object_get(rec, "implicates"), "direction",
                                json_string(fc_pairs_dir_name(d)));
        fail = 1;
    } else if (disputed >= 0) {
        /* the evidence that would confirm it contradicts its own rounds:
         * not certified, nobody quarantined */
        snprintf(why, sizeof(why), "slow with %d of its %d partners in the rounds; alone: "
                 "%s: a probe of it was slow alone where its round measured the pair "
                 "faster, and slow again when measured again: evidence that disagrees with "
                 "itself neither confirms nor clears its link (not quarantined, not "
                 "certified)", node_slow, node_partners, evidence);
        json_object_set_new(rec, "implicates", json_null());
        verdict = "INCOMPLETE";
    } else if (node_slow > 0 && !(run->confirmed && fc_confirm_clear(c, v)) &&
               (held = fc_node_cpu_held(run, v)) >= 0) {
        /* measured alone, but a host's processors held the measurement:
         * neither its link's nor cleared; not certified, nobody blamed */
        snprintf(why, sizeof(why), "slow with %d of its %d partners in the rounds; alone: "
                 "%s: a probe of it was held by %s's CPU (its side waited for a core, and "
                 "without those waits the pair is not slow): its link is neither confirmed "
                 "nor cleared (not quarantined, not certified)", node_slow, node_partners,
                 evidence[0] ? evidence : "not measured", fc_host(run, held));
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:s, s:b}", "part", "cpu", "host", fc_host(run, held), "rack",
            fc_rack_of(run, held), "quarantine", 0));
        verdict = "INCOMPLETE";
    } else {
        if (run->confirmed && c->probed[v])
            snprintf(why, sizeof(why), "slow with %d of its %d partners in the rounds; "
                     "alone: %s: %s", node_slow, node_partners, evidence,
                     fc_confirm_clear(c, v) ? "its link is not at fault"
                                            : "its link is neither confirmed nor cleared");
        else
            snprintf(why, sizeof(why), "slow with %d of its %d partners", node_slow,
                     node_partners);
        json_object_set_new(rec, "implicates", json_null());
    }
    if (fail)
        verdict = "FAIL";
    json_object_set_new(rec, "reasons", strcmp(verdict, "PASS") ? json_pack("[s]", why)
                                                                 : json_array());
    /* what the confirmation made of the node, in words (the HTML's line) */
    if (json_is_object(json_object_get(rec, "confirmation")) && blame[v] == FC_BLAME_NONE) {
        json_t *conf = json_object_get(rec, "confirmation");

        json_object_set_new(conf, "verdict", json_string(
            fail ? "confirmed" : held >= 0 ? "undecided"
                 : strcmp(verdict, "PASS") ? "disputed" : "not_reproduced"));
        json_object_set_new(conf, "text", json_string(why));
    }
    if (!strcmp(verdict, "PASS") && node_slow > 0)
        json_object_set_new(rec, "note", json_string(why));
    json_object_set_new(rec, "verdict", json_string(verdict));
    if (fail)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "node %s %s: %s", fc_host(run, v),
                     blame[v] != FC_BLAME_NONE ? "data" : "link", why);
    else if (strcmp(verdict, "PASS"))
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "node %s link: INCOMPLETE: %s", fc_host(run, v),
                     why);
    else
        fc_tap_point(&ctx->tap, FC_OK, "node %s link (%s)", fc_host(run, v), why);
    fc_results_append(&ctx->results, rec);
    return strcmp(verdict, "PASS") != 0;
}

int fc_pairs_report(fc_pairs_run_t *run)
{
    int n = run->nnodes, failed = 0, k, *a, *b;
    /* the pairs the rounds measured, as the confirmation listed them:
     * every pair (full), the plan's (sampled) */
    int npairs = fc_pairs_measured(run, &a, &b);
    int *slow = fc_xcalloc((size_t)npairs + 1, sizeof(int), "the slow pairs");
    int *node_bad = fc_xcalloc((size_t)n, sizeof(int), "the nodes' bad pairs");
    int *node_slow = fc_xcalloc((size_t)n, sizeof(int), "the nodes' slow pairs");
    int *node_partners = fc_xcalloc((size_t)n, sizeof(int), "the nodes' partners");
    fc_pair_part_t *part = fc_xcalloc((size_t)npairs + 1, sizeof(*part), "the pairs' parts");
    fc_blame_t *blame = fc_xcalloc((size_t)n, sizeof(*blame), "the nodes' blame");

    /* one entry per pair of nodes measured: slow at any size */
    for (k = 0; k < npairs; ++k)
        for (int q = 0; q < run->npairs; ++q)
            if (run->pairs[q].a == a[k] && run->pairs[q].b == b[k] && run->pairs[q].slow)
                slow[k] = 1;
    /* the rounds' counts, for the texts; the blame is the confirmation's */
    fc_pairs_localise(n, npairs, a, b, slow, node_bad, node_slow, node_partners, part);
    fc_pairs_blame_data(run, npairs, a, b, blame);
    for (k = 0; k < npairs; ++k)
        failed += fc_pairs_report_pair(run, k, a[k], b[k], slow, blame, node_partners);
    for (int v = 0; v < n; ++v)
        failed += fc_pairs_report_node(run, v, blame, node_slow[v], node_partners[v]);
    free(a); free(b); free(slow); free(node_bad); free(node_slow);
    free(node_partners); free(part); free(blame);
    return failed;
}
