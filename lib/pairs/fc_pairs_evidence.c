/*
 * fc_pairs_evidence.c - the pairs confirmation's findings as people and
 * programs read them (rank 0; see fc_pairs_evidence.h): each probe
 * measured alone as a figure ("0.0002 GB/s with b1 (same rack)") and as
 * JSON, what was learnt of a node's own link, and a slow pair's verdict
 * after confirmation (a node's link, a rack's uplink, the spine between
 * two racks, a rack's switch, the path between two nodes, not placed, not
 * reproduced, undecided, not confirmed) with the part it implicates and the sentence
 * that says why.
 * lib/pairs/fc_pairs_report.c puts them into the pair and pairs_node records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_pairs_evidence.h"

#include "fc_pairs_agree.h"
#include "fc_pairs_passes.h"

/* The slowest size of measurement m (its figure in the texts). */
static const fc_pair_t *fc_measure_figure(const fc_pairs_run_t *run, int m)
{
    const fc_pair_t *worst = NULL;
    int nz = run->ctx->sp.nsizes;

    for (int z = 0; z < nz; ++z) {
        const fc_pair_t *p = fc_pairs_alone_at(run, m, z);

        if (worst == NULL || (p->slow && !worst->slow) ||
            (p->slow == worst->slow && p->bw_gbps < worst->bw_gbps))
            worst = p;
    }
    return worst;
}

/* "0.0002, 0.0003 GB/s (slow 2 of 2) with b1 (same rack)" for probe i
 * seen from node v: every alone measurement's figure, in order */
static size_t fc_probe_text(const fc_pairs_run_t *run, int i, int v, char *buf, size_t len)
{
    const fc_pairs_probe_t *pr;
    const fc_pair_t *p = NULL;
    size_t at = 0;
    int other, nslow, held;

    if (i < 0 || i >= run->confirm.nprobes || run->confirm.probes[i].slow < 0)
        return (size_t)snprintf(buf, len, "not measured");
    pr = &run->confirm.probes[i];
    other = pr->x == v ? pr->y : pr->x;
    if (pr->again > 0) {
        /* both series and the round's figure they were measured against */
        at = fc_pairs_series_text(run, pr, 0, pr->again, buf, len);
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s alone (slow %d of %d) "
                               "against %.4f GB/s in its round, measured again: ",
                               fc_confirm_slow_count(pr->meas, pr->again), pr->again,
                               fc_pairs_round_gbps(run, pr->x, pr->y));
        at += fc_pairs_series_text(run, pr, pr->again, pr->nmeasures, buf + at,
                                   at < len ? len - at : 0);
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s (%s) with",
                               pr->slow == FC_CONFIRM_MEAS_FAST ? "fast: the first was noise"
                               : pr->slow == FC_PROBE_DISAGREES ? "slow again: the evidence "
                               "disagrees with the round" : "not decided");
        return at + (size_t)snprintf(buf + at, at < len ? len - at : 0, " %s (%s)",
                                     fc_host(run, other),
                                     run->node_racks[other] == run->node_racks[v]
                                         ? "same rack" : "across the spine");
    }
    for (int k = 0; k < pr->nmeasures; ++k) {
        p = fc_measure_figure(run, pr->first + k);
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%.4f", k ? ", " : "",
                               p->bw_gbps);
    }
    nslow = fc_confirm_slow_count(pr->meas, pr->nmeasures);
    held = fc_pairs_probe_cpu_held(run, i);
    if (pr->slow == FC_CONFIRM_MEAS_UNDECIDED && held >= 0)
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s (undecided: held "
                               "by %s's CPU) with", fc_host(run, held));
    else if (pr->slow == FC_CONFIRM_MEAS_UNDECIDED)
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s (undecided: no "
                               "reference its two nodes do not set) with");
    else if (nslow > 0)
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s (slow %d of %d) with",
                               nslow, pr->nmeasures);
    else
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s with");
    return at + (size_t)snprintf(buf + at, at < len ? len - at : 0, " %s (%s)",
                                 fc_host(run, other),
                                 run->node_racks[other] == run->node_racks[v]
                                     ? "same rack" : "across the spine");
}

/* "slow", "fast", "undecided", "not measured" for a judgement. */
static const char *fc_probe_result_name(int judgement)
{
    switch (judgement) {
    case FC_CONFIRM_MEAS_SLOW: return "slow";
    case FC_CONFIRM_MEAS_FAST: return "fast";
    case FC_CONFIRM_MEAS_UNDECIDED: return "undecided";
    case FC_PROBE_DISAGREES: return "disagrees";
    default: return "not measured";
    }
}

json_t *fc_pairs_directions_json(const fc_pairs_run_t *run, const fc_pair_t *p)
{
    char ab[2 * FC_HOST_MAX + 8], ba[2 * FC_HOST_MAX + 8];

    snprintf(ab, sizeof(ab), "%s -> %s", fc_host(run, p->a), fc_host(run, p->b));
    snprintf(ba, sizeof(ba), "%s -> %s", fc_host(run, p->b), fc_host(run, p->a));
    return json_pack("[{s:s, s:f}, {s:s, s:f}]", "direction", ab, "bw_gbps", p->dir_gbps[0],
                     "direction", ba, "bw_gbps", p->dir_gbps[1]);
}

/* Probe i as JSON: both hosts, the decision, and every alone measurement
 * (every size, slow or not, with the references it was judged against). */
/* An alone measurement's waits for a CPU: each part's share and the
 * side that waited, the iterations neither side waited in and their
 * figures, the figures without the waits, whether they held it or
 * cleared it, and the rule's thresholds. */
static json_t *fc_cpu_wait_json(const fc_pairs_run_t *run, const fc_pair_t *p)
{
    json_t *o = json_pack("{s:f, s:f, s:b, s:b, s:o}", "exchanges_pct", 100 * p->cpu_wait,
                          "round_trips_pct", 100 * p->lat_cpu_wait, "held", p->cpu_held,
                          "known", !p->wait_unknown, "rule", fc_pairs_cpu_wait_rule_json());

    json_object_set_new(o, "exchanges_host", p->cpu_wait > 0 && p->cpu_wait_node >= 0
                        ? json_string(fc_host(run, p->cpu_wait_node)) : json_null());
    json_object_set_new(o, "round_trips_host", p->lat_cpu_wait > 0 && p->lat_wait_node >= 0
                        ? json_string(fc_host(run, p->lat_wait_node)) : json_null());
    /* each side's own shares, keyed by host: how alike the two waited */
    json_t *sides = json_object();

    for (int k = 0; k < 2; ++k)
        json_object_set_new(sides, fc_host(run, k ? p->b : p->a),
                            p->side_cpu_wait[k] < 0 ? json_null()
                            : json_pack("{s:f, s:o}", "exchanges_pct", 100 * p->side_cpu_wait[k],
                                        "round_trips_pct", p->side_lat_cpu_wait[k] < 0
                                            ? json_null()
                                            : json_real(100 * p->side_lat_cpu_wait[k])));
    json_object_set_new(o, "sides", sides);
    json_object_set_new(o, "host", p->cpu_held && p->held_node >= 0
                        ? json_string(fc_host(run, p->held_node)) : json_null());
    json_object_set_new(o, "without_wait_gbps", p->free_bw_gbps > 0
                        ? json_real(p->free_bw_gbps) : json_null());
    json_object_set_new(o, "without_wait_latency_us", p->free_lat_us >= 0
                        ? json_real(p->free_lat_us) : json_null());
    /* the exchanges calm on both sides, when looked at */
    json_object_set_new(o, "calm_exchanges", p->calm_looked
                        ? json_pack("{s:i, s:i, s:i, s:o, s:o}", "calm", p->calm_n,
                                    "of_samples", p->calm_of, "iterations", p->samples.of,
                                    "gbps_others_slowest", p->calm_bw_gbps > 0
                                        ? json_real(p->calm_bw_gbps) : json_null(),
                                    "gbps_others_fastest", p->calm_slow_gbps > 0
                                        ? json_real(p->calm_slow_gbps) : json_null())
                        : json_null());
    json_object_set_new(o, "cleared", json_boolean(p->cpu_cleared));
    json_object_set_new(o, "waits_alike", json_boolean(p->waits_alike));
    /* measured again in place of one a host's CPU held */
    json_object_set_new(o, "measured_again", json_integer(p->cpu_again));
    json_object_set_new(o, "held_before_by", p->cpu_again > 0 && p->cpu_again_node >= 0
                        ? json_string(fc_host(run, p->cpu_again_node)) : json_null());
    return o;
}

json_t *fc_pairs_probe_json(const fc_pairs_run_t *run, int i)
{
    int nz = run->ctx->sp.nsizes;
    json_t *measurements = json_array();
    const fc_pairs_probe_t *pr;

    if (i < 0 || i >= run->confirm.nprobes)
        return json_null();
    pr = &run->confirm.probes[i];
    for (int k = 0; k < pr->nmeasures; ++k) {
        json_t *sizes = json_array();

        for (int z = 0; pr->meas[k] >= 0 && z < nz; ++z) {
            const fc_pair_t *p = fc_pairs_alone_at(run, pr->first + k, z);

            char ref[640];

            fc_pairs_alone_reference_text(run, p, ref, sizeof(ref));
            json_t *entry = json_pack(
                "{s:I, s:f, s:f, s:b, s:b, s:s, s:s}", "bytes",
                (json_int_t)run->ctx->sp.sizes[z], "bw_gbps", p->bw_gbps, "latency_us",
                p->lat_us, "slow", p->slow, "undecided", p->undecided, "reason",
                p->nreasons ? p->reasons[0] : "", "judged_against", ref);

            if (p->dir_gbps[0] > 0 && p->dir_gbps[1] > 0)
                json_object_set_new(entry, "directions", fc_pairs_directions_json(run, p));
            /* how long its ranks waited for a CPU (fc_runq.h), and whether
             * that, not the fabric, made it slow */
            if (p->cpu_wait > 0 || p->lat_cpu_wait > 0 || p->cpu_again > 0)
                json_object_set_new(entry, "cpu_wait", fc_cpu_wait_json(run, p));
            if (run->alone_of != NULL && p->control >= 0) {
                const fc_pair_t *c = &run->alone[(size_t)p->control * nz + z];

                /* the pair measured right after it, its moment's reference */
                json_object_set_new(entry, "control", json_pack(
                    "{s:s, s:s, s:f, s:f, s:b, s:b}", "host_a", fc_host(run, c->a),
                    "host_b", fc_host(run, c->b), "bw_gbps", c->bw_gbps, "latency_us",
                    c->lat_us, "cleared", p->control_cleared == 1, "undecided",
                    p->control_cleared == 2));
            }
            json_array_append_new(sizes, entry);
        }
        json_array_append_new(measurements, json_pack(
            "{s:s, s:o}", "result", fc_probe_result_name(pr->meas[k]), "sizes", sizes));
    }
    return json_pack("{s:s, s:s, s:s, s:i, s:o, s:o}", "host_a", fc_host(run, pr->x), "host_b",
                     fc_host(run, pr->y), "result", fc_probe_result_name(pr->slow),
                     "slow_measurements", fc_confirm_slow_count(pr->meas, pr->nmeasures),
                     "measurements", measurements, "agreement",
                     fc_pairs_agreement_json(run, pr));
}

/* What the confirmation learnt of node v's own link, for a pair of it it
 * could not place: "b1 is fast alone with c1", "b1 is slow alone with
 * every partner tried (...), none of which could be shown good", "b1 has
 * no other partner to try". */
static void fc_end_text(const fc_pairs_run_t *run, int v, char *buf, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    size_t at;
    int undecided = 0;

    if (fc_confirm_clear(c, v)) {
        for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k) {
            int i = c->partner_probe[v][k];

            if (i >= 0 && c->probes[i].slow == 0) {
                at = (size_t)snprintf(buf, len, "%s is fast alone (", fc_host(run, v));
                if (at < len)
                    at += fc_probe_text(run, i, v, buf + at, len - at);
                if (at < len)
                    snprintf(buf + at, len - at, ")");
                return;
            }
        }
    }
    if (c->partner_probe[v][0] < 0) {
        snprintf(buf, len, "%s has no other partner to try%s", fc_host(run, v),
                 c->out_of_time ? " (the stage's time ran out)" : c->exhausted ? " (the probes ran out)"
                 : " that is not itself suspect");
        return;
    }
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k)
        undecided |= c->partner_probe[v][k] >= 0 &&
                     c->probes[c->partner_probe[v][k]].slow == FC_CONFIRM_MEAS_UNDECIDED;
    at = (size_t)snprintf(buf, len, "%s is %s alone with every partner tried too (",
                          fc_host(run, v), undecided ? "slow or undecided" : "slow");
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES && at < len; ++k) {
        if (c->partner_probe[v][k] < 0)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s", k ? ", " : "");
        if (at < len)
            at += fc_probe_text(run, c->partner_probe[v][k], v, buf + at, len - at);
    }
    if (at < len)
        snprintf(buf + at, len - at, undecided ? "): its own link is neither shown good nor "
                 "confirmed" : "), and they could not all be shown good: more than one "
                 "link is slow");
}

/* The node's alone evidence: "confirmed alone: 0.0002 GB/s with b1 (same
 * rack), 0.0003 GB/s with c1 (across the spine); each partner fast alone
 * with a third node (b1: 0.9 GB/s with a2 ...)" */
void fc_pairs_node_evidence_text(const fc_pairs_run_t *run, int v, char *buf, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    size_t at = 0;
    int vouched = 0;

    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES && at < len; ++k) {
        if (c->partner_probe[v][k] < 0)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s", at ? ", " : "");
        if (at < len)
            at += fc_probe_text(run, c->partner_probe[v][k], v, buf + at, len - at);
    }
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES && at < len && c->link[v]; ++k) {
        const fc_pairs_probe_t *pr;
        int i = c->vouch_probe[v][k], told = 0, shared = 0;

        for (int j = 0; j < FC_CONFIRM_PARTNER_TRIES; ++j) {
            told |= j < k && c->vouch_probe[v][j] == i;
            shared |= j > k && c->vouch_probe[v][j] == i;
        }
        if (i < 0 || told)
            continue;           /* two partners vouched for each other */
        pr = &c->probes[i];
        at += (size_t)snprintf(buf + at, len - at, "%s%s fast with %s%s", vouched++ ? "; " :
                               "; each partner known good: ", fc_host(run, pr->x),
                               fc_host(run, pr->y),
                               shared ? " (each vouching for the other)" : "");
    }
}

json_t *fc_pairs_node_confirmation_json(const fc_pairs_run_t *run, int v)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    json_t *partners = json_array(), *vouch = json_array();

    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k) {
        if (c->partner_probe[v][k] >= 0)
            json_array_append_new(partners, fc_pairs_probe_json(run, c->partner_probe[v][k]));
        if (c->vouch_probe[v][k] >= 0)
            json_array_append_new(vouch, fc_pairs_probe_json(run, c->vouch_probe[v][k]));
    }
    return json_pack("{s:b, s:b, s:o, s:o, s:s, s:o, s:o}", "confirmed", c->link[v],
                     "alone_in_rack", c->alone_in_rack[v], "partners", partners,
                     "partners_known_good", vouch, "direction",
                     c->link[v] && fc_pairs_node_direction(run, v) != FC_PAIRS_DIR_UNKNOWN
                         ? fc_pairs_dir_name(fc_pairs_node_direction(run, v)) : "",
                     "disputed", fc_pairs_probe_json(run, fc_confirm_disputed(c, v)),
                     "tolerance", fc_pairs_alone_tolerance_json(run));
}

/* The racks whose uplink explains pair (a, b). */
static json_t *fc_uplink_racks(const fc_pairs_run_t *run, int a, int b)
{
    json_t *racks = json_array();

    if (run->confirm.uplink[run->node_racks[a]])
        json_array_append_new(racks, json_string(fc_rack_of(run, a)));
    if (run->confirm.uplink[run->node_racks[b]])
        json_array_append_new(racks, json_string(fc_rack_of(run, b)));
    return racks;
}

/* "0.0003 GB/s": the tournament's figure of pair (a, b), its slowest size
 * that was slow (the concurrent measurement beside the alone ones). */
static void fc_round_text(const fc_pairs_run_t *run, int a, int b, char *buf, size_t len)
{
    const fc_pair_t *worst = NULL;

    for (int z = 0; z < run->ctx->sp.nsizes; ++z) {
        const fc_pair_t *p = fc_pairs_find(run, a, b, z);

        if (p != NULL && (worst == NULL || (p->slow && !worst->slow) ||
                          (p->slow == worst->slow && p->bw_gbps < worst->bw_gbps)))
            worst = p;
    }
    if (worst == NULL)
        snprintf(buf, len, "not measured");
    else
        snprintf(buf, len, "%.4f GB/s", worst->bw_gbps);
}

/* Rack r's switch: "fcu01 0.9 GB/s with fcu06, fcu02 ..." (each node's
 * fast probe outside the rack) and how many pairs inside it, into buf. */
static void fc_switch_text(const fc_pairs_run_t *run, int r, char *buf, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    size_t at = 0;
    int nodes = 0;

    for (int v = 0; v < run->nnodes; ++v)
        nodes += run->node_racks[v] == r;
    at = (size_t)snprintf(buf, len, "explained by the switch of rack %s (top of rack): "
                          "every pair inside it (%d) was slow in its round and alone too, "
                          "while each of its %d nodes is fast alone with a node outside "
                          "the rack (", run->ctx->inv.racks[r], nodes * (nodes - 1) / 2,
                          nodes);
    for (int v = 0; v < run->nnodes && at < len; ++v) {
        const fc_pairs_probe_t *pr;

        if (run->node_racks[v] != r || c->outside_probe[v] < 0)
            continue;
        pr = &c->probes[c->outside_probe[v]];
        at += (size_t)snprintf(buf + at, len - at, "%s%s with %s", at && buf[at - 1] != '('
                               ? ", " : "", fc_host(run, v),
                               fc_host(run, pr->x == v ? pr->y : pr->x));
    }
    if (at < len)
        snprintf(buf + at, len - at, "): their links and the rack's uplink carry fast "
                 "traffic, the switch between them does not");
}

/* A pair inside rack r whose every pair is slow alone, its switch not
 * shown (c->tor_unshown): the sentence that says why, appended to buf. */
static void fc_switch_unshown_text(const fc_pairs_run_t *run, int r, char *buf, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    size_t at = strlen(buf);
    int v = c->tor_unshown[r], other = -1;
    char seen[256] = "";

    for (int i = 0; i < c->nprobes && other < 0; ++i) {
        const fc_pairs_probe_t *pr = &c->probes[i];
        int w = pr->x == v ? pr->y : pr->y == v ? pr->x : -1;

        if (w >= 0 && run->node_racks[w] != r && pr->slow == 1) {
            other = w;
            fc_probe_text(run, i, v, seen, sizeof(seen));
        }
    }
    if (at >= len)
        return;
    if (other >= 0)
        snprintf(buf + at, len - at, "; every pair inside rack %s was slow alone too, which "
                 "its switch would explain, but %s is slow alone with a node outside the rack "
                 "too (%s): the switch is not told apart from the rack's links or its uplink",
                 run->ctx->inv.racks[r], fc_host(run, v), seen);
    else
        snprintf(buf + at, len - at, "; every pair inside rack %s was slow alone too, which "
                 "its switch would explain, but %s could not be measured alone with a node "
                 "outside the rack (%s): the switch is not told apart from its link",
                 run->ctx->inv.racks[r], fc_host(run, v),
                 c->out_of_time ? "the stage's time ran out" : c->exhausted ? "the probes ran out"
                 : "no such node could be a partner");
}

int fc_pairs_probe_cpu_held(const fc_pairs_run_t *run, int i)
{
    int nz = run->ctx->sp.nsizes, node = -1;
    const fc_pairs_probe_t *pr;

    if (!run->confirmed || run->alone_of == NULL || i < 0 || i >= run->confirm.nprobes ||
        run->confirm.probes[i].slow != FC_CONFIRM_MEAS_UNDECIDED)
        return -1;
    /* held when no measurement made was slow and each undecided one was
     * undecided for its waits alone: fast, held, held is no evidence
     * against the fabric, and was written as an unjudged path that failed
     * both racks (a size undecided for want of a reference, or a slow
     * measurement, leaves the probe's own verdict) */
    pr = &run->confirm.probes[i];
    for (int k = 0; k < pr->nmeasures; ++k) {
        int held = 0;

        if (pr->meas[k] == FC_CONFIRM_MEAS_UNMEASURED || pr->meas[k] == FC_CONFIRM_MEAS_FAST)
            continue;
        if (pr->meas[k] != FC_CONFIRM_MEAS_UNDECIDED)
            return -1;
        for (int z = 0; z < nz; ++z) {
            const fc_pair_t *p = fc_pairs_alone_at(run, pr->first + k, z);

            if (p->undecided && !p->cpu_held)
                return -1;
            if (p->cpu_held && !held) {
                held = 1;
                if (node < 0)
                    node = p->held_node;
            }
        }
        if (!held)
            return -1;
    }
    return node;
}

/* A pair across the spine, neither placed nor passed, one end of which
 * was fast alone toward the other (its link and its rack's uplink shown
 * good: fc_confirm_clear_toward): the other end, against whose rack alone
 * the pair counts (a bystander's rack is not failed for a neighbour's
 * link); -1 when neither or both ends were, or inside one rack. */
static int fc_pair_one_side(const fc_pairs_run_t *run, int a, int b)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    int good_a = fc_confirm_clear_toward(c, run->node_racks, a, b);
    int good_b = fc_confirm_clear_toward(c, run->node_racks, b, a);

    if (run->node_racks[a] == run->node_racks[b] || good_a == good_b)
        return -1;
    return good_a ? b : a;
}

/* The racks such a pair counts against: one's alone, or both ends'. */
static json_t *fc_pair_racks(const fc_pairs_run_t *run, int a, int b, int one)
{
    return one >= 0 ? json_pack("[s]", fc_rack_of(run, one))
                    : json_pack("[s,s]", fc_rack_of(run, a), fc_rack_of(run, b));
}

static void fc_one_side_text(const fc_pairs_run_t *run, int a, int b, int one, char *why,
                             size_t len)
{
    size_t at = strlen(why);

    if (one >= 0 && at < len)
        snprintf(why + at, len - at, "; %s was fast alone toward it (its link and its "
                 "rack's uplink shown good), so the pair counts against rack %s alone",
                 fc_host(run, one == a ? b : a), fc_rack_of(run, one));
}

/* A slow pair's verdict after confirmation: its implicates (or NULL for a
 * pass) and the first reason, into why. */
json_t *fc_pairs_slow_verdict(const fc_pairs_run_t *run, int k, int a, int b,
                              fc_pair_verdict_t v, char *why, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    char alone[256] = "", round[64];
    int culprit = v == FC_PAIR_V_NODE_A ? a : b;

    if (run->confirmed && c->alone_probe[k] >= 0)
        fc_probe_text(run, c->alone_probe[k], a, alone, sizeof(alone));
    fc_round_text(run, a, b, round, sizeof(round));
    switch (v) {
    case FC_PAIR_V_NODE_A:
    case FC_PAIR_V_NODE_B: {
        fc_pairs_dir_t d = fc_pairs_node_direction(run, culprit);

        snprintf(why, len, "explained by %s's link%s, confirmed alone with known-good "
                 "partners", fc_host(run, culprit), d == FC_PAIRS_DIR_SENDS
                 ? " (what it sends)" : d == FC_PAIRS_DIR_RECEIVES ? " (what it receives)" : "");
        if (d == FC_PAIRS_DIR_UNKNOWN)      /* the directions not timed apart */
            return json_pack("{s:s, s:s, s:s, s:b}", "part", "link", "host",
                             fc_host(run, culprit), "rack", fc_rack_of(run, culprit),
                             "quarantine", 0);
        return json_pack("{s:s, s:s, s:s, s:s, s:b}", "part", "link", "host",
                         fc_host(run, culprit), "rack", fc_rack_of(run, culprit),
                         "direction", fc_pairs_dir_name(d), "quarantine", 0);
    }
    case FC_PAIR_V_UPLINK: {
        json_t *racks = fc_uplink_racks(run, a, b);
        int lone = -1;

        if (c->spine_pair) {
            /* two racks: the rack of one node has its node's link in series */
            for (int x = 0; x < run->nnodes; ++x) {
                int single = 1;

                for (int w = 0; w < run->nnodes; ++w)
                    single &= w == x || run->node_racks[w] != run->node_racks[x];
                if (single)
                    lone = x;
            }
            snprintf(why, len, "explained by the spine between rack %s and rack %s: every "
                     "pair between them was slow, alone too, while the pairs inside a rack "
                     "were fast; %s's uplink, %s's uplink%s%s%s are in series and cannot be "
                     "told apart", json_string_value(json_array_get(racks, 0)),
                     json_string_value(json_array_get(racks, 1)),
                     json_string_value(json_array_get(racks, 0)),
                     json_string_value(json_array_get(racks, 1)),
                     lone >= 0 ? " and the link of " : "", lone >= 0 ? fc_host(run, lone) : "",
                     lone >= 0 ? " (alone in its rack)" : "");
        } else {
            if (json_array_size(racks) > 1)
                snprintf(why, len, "explained by the uplinks of rack %s and rack %s, each "
                         "confirmed: every pair leaving either was slow, alone too, while "
                         "the pairs inside each were fast",
                         json_string_value(json_array_get(racks, 0)),
                         json_string_value(json_array_get(racks, 1)));
            else
                snprintf(why, len, "explained by the uplink of rack %s: every pair leaving "
                         "it was slow, alone too, while the pairs inside it were fast",
                         json_string_value(json_array_get(racks, 0)));
        }
        return json_pack("{s:s, s:s, s:s, s:o, s:b}", "part", "uplink", "host", "", "rack",
                         json_string_value(json_array_get(racks, 0)), "racks", racks,
                         "quarantine", 0);
    }
    case FC_PAIR_V_SPINE: {
        char across[200], in_a[200], in_b[200];
        const int *p = c->spine_probe[k];

        fc_probe_text(run, p[0], c->probes[p[0]].x, across, sizeof(across));
        fc_probe_text(run, p[1], c->probes[p[1]].x, in_a, sizeof(in_a));
        fc_probe_text(run, p[2], c->probes[p[2]].x, in_b, sizeof(in_b));
        snprintf(why, len, "explained by the spine between rack %s and rack %s: every pair "
                 "between them was slow; alone, %s %s, while %s %s and %s %s; rack %s's "
                 "uplink and rack %s's cannot be told apart (no node of a third rack could "
                 "vouch for either)", fc_rack_of(run, a), fc_rack_of(run, b),
                 fc_host(run, c->probes[p[0]].x), across, fc_host(run, c->probes[p[1]].x),
                 in_a, fc_host(run, c->probes[p[2]].x), in_b, fc_rack_of(run, a),
                 fc_rack_of(run, b));
        return json_pack("{s:s, s:s, s:s, s:[s,s], s:b}", "part", "uplink", "host", "", "rack",
                         fc_rack_of(run, a), "racks", fc_rack_of(run, a), fc_rack_of(run, b),
                         "quarantine", 0);
    }
    case FC_PAIR_V_SWITCH:
        fc_switch_text(run, run->node_racks[a], why, len);
        return json_pack("{s:s, s:s, s:s, s:b}", "part", "switch", "host", "", "rack",
                         fc_rack_of(run, a), "quarantine", 0);
    case FC_PAIR_V_PATH:
        snprintf(why, len, "slow in its round (%s), alone too (%s); %s and %s are each "
                 "fast alone with another partner: the path between them", round, alone,
                 fc_host(run, a), fc_host(run, b));
        if (run->node_racks[a] == run->node_racks[b] && c->tor_unshown[run->node_racks[a]] >= 0)
            fc_switch_unshown_text(run, run->node_racks[a], why, len);
        if (c->common_node >= 0)
            snprintf(why + strlen(why), len - strlen(why), "; but %s is at an end of every "
                     "pair judged a path: its link, slow now and then (a lossy link), is "
                     "the likelier fault; its own probes did not confirm it, so it is not "
                     "quarantined", fc_host(run, c->common_node));
        return json_pack("{s:s, s:[s,s], s:[s,s], s:b}", "part", "path", "hosts",
                         fc_host(run, a), fc_host(run, b), "racks", fc_rack_of(run, a),
                         fc_rack_of(run, b), "quarantine", 0);
    case FC_PAIR_V_UNPLACED: {
        char ends[2][384];
        int one = fc_pair_one_side(run, a, b);

        fc_end_text(run, a, ends[0], sizeof(ends[0]));
        fc_end_text(run, b, ends[1], sizeof(ends[1]));
        snprintf(why, len, "slow in its round (%s), alone too (%s), not placed: %s; %s",
                 round, alone, ends[0], ends[1]);
        if (run->node_racks[a] == run->node_racks[b] && c->tor_unshown[run->node_racks[a]] >= 0)
            fc_switch_unshown_text(run, run->node_racks[a], why, len);
        fc_one_side_text(run, a, b, one, why, len);
        /* not "localised": false, which asks the runner for a retest: the
         * confirmation has measured all a retest could */
        return json_pack("{s:s, s:s, s:[s,s], s:o, s:b}", "part", "group",
                         "group", "the pair's two nodes", "hosts", fc_host(run, a),
                         fc_host(run, b), "racks", fc_pair_racks(run, a, b, one),
                         "quarantine", 0);
    }
    case FC_PAIR_V_UNDECIDED: {
        int held = fc_pairs_probe_cpu_held(run, c->alone_probe[k]);

        if (held >= 0) {
            snprintf(why, len, "slow in its round (%s); alone (%s) its ranks waited for a "
                     "CPU most of the time, on %s's side, and without that wait it is not "
                     "slow: the host's processors held it (another process on %s's cores), "
                     "not the fabric: not judged, nobody blamed", round, alone,
                     fc_host(run, held), fc_host(run, held));
            return json_pack("{s:s, s:s, s:s, s:[s,s], s:b, s:b}", "part", "cpu", "host",
                             fc_host(run, held), "rack", fc_rack_of(run, held), "hosts",
                             fc_host(run, a), fc_host(run, b), "quarantine", 0, "confirmed",
                             0);
        }
        int one = fc_pair_one_side(run, a, b);

        snprintf(why, len, "slow in its round (%s); alone (%s) no reference its two nodes do "
                 "not set could judge it (no other pair of its kind, none of its nodes' "
                 "pairs across the spine): undecided, the pair's nodes are not blamed and "
                 "not passed", round, alone);
        fc_one_side_text(run, a, b, one, why, len);
        return json_pack("{s:s, s:[s,s], s:o, s:b, s:b}", "part", "path", "hosts",
                         fc_host(run, a), fc_host(run, b), "racks", fc_pair_racks(run, a, b, one),
                         "quarantine", 0, "confirmed", 0);
    }
    case FC_PAIR_V_NOT_REPRODUCED:
        snprintf(why, len, "slow in its round beside other pairs (%s), not reproduced "
                 "alone (%s): not judged a fault", round, alone);
        return NULL;
    default:
        snprintf(why, len, "slow in its round; not confirmed alone (%s): the pair's "
                 "nodes are not blamed and not passed", c->out_of_time ?
                 "the stage's time ran out before its probe could be made" : c->exhausted ?
                 "the confirmation's probes ran out" : "it could not be measured");
        return json_pack("{s:s, s:[s,s], s:[s,s], s:b, s:b}", "part", "path", "hosts",
                         fc_host(run, a), fc_host(run, b), "racks", fc_rack_of(run, a),
                         fc_rack_of(run, b), "quarantine", 0, "confirmed", 0);
    }
}

