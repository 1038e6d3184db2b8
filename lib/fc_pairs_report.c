/*
 * fc_pairs_report.c - the pairs stage's judgement (rank 0; see
 * fc_pairs_stage.h). Each pair is judged against the profile's absolute
 * limits (collective "sendrecv": min_busbw_gbps is the bandwidth of one
 * direction; max_latency_us the 8-byte half round trip, matched at 8
 * bytes, the size of that message) and against the upper median of the
 * pairs of its path kind (lib/fc_peers.h) and, across the spine with three
 * racks or more, by rack (fc_pairs_rack_rule). What a round found slow is only
 * a suspicion: the confirmation (lib/fc_pairs_confirm.h, measured alone)
 * decides what each pair and node record says, and only a node it
 * confirms is quarantined. Wrong data is placed from the pairs' own
 * checked exchanges (lib/fc_localise.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_localise.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_pairs_stage.h"
#include "fc_peers.h"
#include "fc_stats.h"

static void fc_pair_fail(fc_pair_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fc_pair_fail(fc_pair_t *p, const char *fmt, ...)
{
    va_list ap;

    if (p->nreasons == 3)
        return;
    va_start(ap, fmt);
    vsnprintf(p->reasons[p->nreasons++], FC_REASON_MAX, fmt, ap);
    va_end(ap);
}

fc_pair_t *fc_pairs_find(const fc_pairs_run_t *run, int a, int b, int z)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;

    for (int q = 0; q < run->npairs; ++q)
        if (run->pairs[q].a == lo && run->pairs[q].b == hi && run->pairs[q].size_index == z)
            return &run->pairs[q];
    return NULL;
}

/* The relative rule's reference of every pair measured at size z: the
 * upper median of its peer class (same rack, or across the spine), so
 * that up to half the pairs of a class being slow does not drag the
 * reference down. Returns 0 when out of memory. */
static int fc_pairs_reference(fc_pairs_run_t *run, int z)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int n = run->npairs, k = 0, *idx = calloc((size_t)n + 1, sizeof(int));
    int *has = calloc((size_t)n + 1, sizeof(int));
    double *bw = calloc((size_t)n + 1, sizeof(double));
    fc_peer_shape_t *shapes = calloc((size_t)n + 1, sizeof(*shapes));
    fc_peer_ref_t *refs = calloc((size_t)n + 1, sizeof(*refs));
    int ok = idx && has && bw && shapes && refs;

    for (int q = 0; ok && q < n; ++q) {
        const fc_pair_t *p = &run->pairs[q];

        if (p->size_index != z)
            continue;
        shapes[k] = (fc_peer_shape_t){ 2, 2, fc_peer_pair_path(run->node_racks[p->a],
                                                               run->node_racks[p->b]) };
        bw[k] = p->bw_gbps;
        has[k] = 1;
        idx[k++] = q;
    }
    if (ok)
        fc_peers_reference(shapes, bw, has, k, FC_PEER_UPPER_MEDIAN, "pair", refs);
    for (int i = 0; ok && i < k; ++i) {
        fc_pair_t *p = &run->pairs[idx[i]];

        p->rel = sp->max_below_median_pct < 0 ? FC_PAIR_REL_OFF :
                 sp->sizes[z] < sp->relative_min_bytes ? FC_PAIR_REL_SMALL :
                 refs[i].applies ? FC_PAIR_REL_APPLIED : FC_PAIR_REL_ALONE;
        p->ref = refs[i].applies ? refs[i].reference : -1;
        p->ref_members = refs[i].members;
    }
    free(idx); free(has); free(bw); free(shapes); free(refs);
    return ok;
}

/* The median bandwidth of the pairs at size z between racks ra and rb
 * (ra != rb), into *median_p; returns how many there are. */
static int fc_pairs_between(const fc_pairs_run_t *run, int z, int ra, int rb, double *scratch,
                            double *median_p)
{
    int n = 0;

    for (int k = 0; k < run->npairs; ++k) {
        const fc_pair_t *p = &run->pairs[k];
        int a = run->node_racks[p->a], b = run->node_racks[p->b];

        if (p->size_index == z && ((a == ra && b == rb) || (a == rb && b == ra)))
            scratch[n++] = p->bw_gbps;
    }
    *median_p = n > 0 ? fc_stats_median(scratch, (size_t)n) : 0;
    return n;
}

/* The rack rule at size z (three racks or more), over pairs of racks:
 * the median of the pairs between each two racks, and for each rack R the
 * fastest such median among the pairs of racks without R (a slow uplink
 * only slows; the fastest pair of racks is the fabric as it should be,
 * however many other uplinks are slow). A rack whose every pair of racks
 * is more than the allowed percentage below that reference puts its pairs
 * across the spine under it (rack_ref), which a pair measured alone is
 * judged by too: one bad uplink slowing most pairs across the spine no
 * longer sets their class's upper median, nor do two bad uplinks of four
 * racks hide each other. With two racks every pair across the spine
 * leaves both: there is no other pair of racks to compare with, and a
 * slowness of the whole spine is judged on the absolute limits alone
 * (docs/DECISIONS.md). */
static void fc_pairs_rack_rule(fc_pairs_run_t *run, int z)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int nracks = run->ctx->inv.nracks, n = run->npairs;
    double *scratch = calloc((size_t)n + 1, sizeof(double));
    double keep = 1.0 - sp->max_below_median_pct / 100.0;

    for (int k = 0; k < n; ++k)
        if (run->pairs[k].size_index == z)
            run->pairs[k].rack_rule_rack = -1;
    if (scratch == NULL || nracks < 3 || sp->max_below_median_pct < 0 ||
        sp->sizes[z] < sp->relative_min_bytes) {
        free(scratch);
        return;
    }
    for (int r = 0; r < nracks; ++r) {
        double ref = -1, m, mine_max = -1;
        int ref_n = 0, ref_a = -1, ref_b = -1, mine = 0, cnt;

        for (int a = 0; a < nracks; ++a)
            for (int b = a + 1; b < nracks; ++b) {
                if ((cnt = fc_pairs_between(run, z, a, b, scratch, &m)) == 0)
                    continue;
                if (a == r || b == r) {
                    ++mine;
                    mine_max = m > mine_max ? m : mine_max;
                } else if (m > ref) {
                    ref = m;
                    ref_n = cnt;
                    ref_a = a;
                    ref_b = b;
                }
            }
        /* every pair of racks with r slow beside the fastest without it */
        if (mine == 0 || ref <= 0 || mine_max >= ref * keep)
            continue;
        for (int k = 0; k < n; ++k) {
            fc_pair_t *p = &run->pairs[k];
            int ra = run->node_racks[p->a], rb = run->node_racks[p->b];

            if (p->size_index != z || ra == rb || (ra != r && rb != r))
                continue;
            if (p->rack_rule_rack >= 0 && p->rack_median <= mine_max)
                continue;       /* leaves two such racks: the slower one */
            p->rack_rule_rack = r;
            p->rack_median = mine_max;
            p->rack_ref = ref;
            p->rack_ref_members = ref_n;
            p->rack_ref_a = ref_a;
            p->rack_ref_b = ref_b;
        }
    }
    free(scratch);
}

/* "upper median of 13 pairs in the same rack" */
static void fc_pairs_class_text(const fc_pairs_run_t *run, const fc_pair_t *p,
                                int members, char *buf, size_t len)
{
    fc_peer_shape_t shape = { 2, 2, fc_peer_pair_path(run->node_racks[p->a],
                                                      run->node_racks[p->b]) };

    fc_peer_class_text(&shape, members, "pair", buf, len);
}

/* The limits and the relative rule on p (its rel and ref already set). */
static void fc_pairs_judge_timing(const fc_pairs_run_t *run, fc_pair_t *p)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int z = p->size_index;
    const fc_limit_rule_t *rule = fc_profile_find_limit(
        sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE, sp->sizes[z]);
    const fc_limit_rule_t *lat_rule = fc_profile_find_limit(
        sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE, FC_PAIRS_LAT_BYTES);

    p->limit_bw = rule ? rule->min_busbw_gbps : -1;
    p->limit_line = rule ? rule->line : 0;
    p->limit_lat = lat_rule ? lat_rule->max_latency_us : -1;
    p->lat_line = lat_rule ? lat_rule->line : 0;
    if (rule && rule->min_busbw_gbps >= 0 && p->bw_gbps < rule->min_busbw_gbps) {
        p->slow = 1;
        fc_pair_fail(p, "bandwidth %.4f GB/s per direction is below the "
                     "limit %.4f GB/s (profile line %d)", p->bw_gbps,
                     rule->min_busbw_gbps, rule->line);
    }
    if (z == 0 && lat_rule && lat_rule->max_latency_us >= 0 &&
        p->lat_us > lat_rule->max_latency_us) {
        p->slow = 1;
        fc_pair_fail(p, "latency %.1f us is above the limit %.1f us "
                     "(profile line %d)", p->lat_us,
                     lat_rule->max_latency_us, lat_rule->line);
    }
    if (p->rel == FC_PAIR_REL_APPLIED &&
        p->bw_gbps < p->ref * (1.0 - sp->max_below_median_pct / 100.0)) {
        char peers[128];

        fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
        p->slow = 1;
        fc_pair_fail(p, "bandwidth %.4f GB/s is %.0f%% below the upper median "
                     "of %s (%.4f GB/s; allowed %.0f%%)",
                     p->bw_gbps, 100.0 * (1.0 - p->bw_gbps / p->ref), peers,
                     p->ref, sp->max_below_median_pct);
    }
    if (p->rack_rule_rack >= 0 &&
        p->bw_gbps < p->rack_ref * (1.0 - sp->max_below_median_pct / 100.0)) {
        p->slow = 1;
        fc_pair_fail(p, "bandwidth %.4f GB/s is %.0f%% below the median of the %d "
                     "pairs between rack %s and rack %s, the fastest pair of racks without "
                     "rack %s (%.4f GB/s; allowed %.0f%%), where every pair of racks with "
                     "rack %s has a median of %.4f GB/s or less", p->bw_gbps,
                     100.0 * (1.0 - p->bw_gbps / p->rack_ref), p->rack_ref_members,
                     run->ctx->inv.racks[p->rack_ref_a], run->ctx->inv.racks[p->rack_ref_b],
                     run->ctx->inv.racks[p->rack_rule_rack], p->rack_ref,
                     sp->max_below_median_pct, run->ctx->inv.racks[p->rack_rule_rack],
                     p->rack_median);
    }
}

void fc_pairs_judge_alone(const fc_pairs_run_t *run, fc_pair_t *p)
{
    const fc_pair_t *t = fc_pairs_find(run, p->a, p->b, p->size_index);

    p->slow = 0;
    p->nreasons = 0;
    p->rel = t ? t->rel : FC_PAIR_REL_OFF;
    p->ref = t ? t->ref : -1;
    p->ref_members = t ? t->ref_members : 0;
    p->rack_rule_rack = t ? t->rack_rule_rack : -1;
    p->rack_median = t ? t->rack_median : 0;
    p->rack_ref = t ? t->rack_ref : 0;
    p->rack_ref_members = t ? t->rack_ref_members : 0;
    p->rack_ref_a = t ? t->rack_ref_a : 0;
    p->rack_ref_b = t ? t->rack_ref_b : 0;
    fc_pairs_judge_timing(run, p);
    p->ntiming = p->nreasons;
}

void fc_pairs_judge(fc_pairs_run_t *run)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;

    for (int z = 0; z < sp->nsizes; ++z) {
        if (!fc_pairs_reference(run, z))
            fc_error("out of memory: the relative rule of the pairs stage is not "
                     "applied at %llu bytes", (unsigned long long)sp->sizes[z]);
        fc_pairs_rack_rule(run, z);
        for (int k = 0; k < run->npairs; ++k) {
            fc_pair_t *p = &run->pairs[k];

            if (p->size_index != z)
                continue;
            fc_pairs_judge_timing(run, p);
            p->ntiming = p->nreasons;
            if (p->wrong > sp->max_wrong)
                fc_pair_fail(p, "%llu wrong elements received on %s (rank of "
                             "node %d) from %s, first at element %llu of iteration %d: "
                             "expected 0x%08llx, got 0x%08llx",
                             (unsigned long long)p->wrong,
                             run->node_hosts[p->bad_node], p->bad_node,
                             run->node_hosts[p->first.partner],
                             (unsigned long long)p->first.first_pos,
                             p->first.first_iter,
                             (unsigned long long)p->first.expected,
                             (unsigned long long)p->first.actual);
        }
    }
}

/* The relative rule as it met pair p, into its size entry: the reference
 * and its class, or why the rule did not apply. */
static void fc_pairs_relative_json(const fc_pairs_run_t *run, const fc_pair_t *p,
                                   json_t *entry)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    char peers[128], why[FC_REASON_MAX], size[32], from[32];

    if (p->rel == FC_PAIR_REL_OFF)
        return;
    if (p->rack_rule_rack >= 0)
        json_object_set_new(entry, "rack_rule", json_pack(
            "{s:s, s:f, s:f, s:[s,s], s:i}", "rack", run->ctx->inv.racks[p->rack_rule_rack],
            "rack_pairs_max_median_gbps", p->rack_median, "reference_gbps", p->rack_ref,
            "reference_racks", run->ctx->inv.racks[p->rack_ref_a],
            run->ctx->inv.racks[p->rack_ref_b], "reference_pairs", p->rack_ref_members));
    if (p->rel == FC_PAIR_REL_APPLIED) {
        fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
        json_object_set_new(entry, "relative", json_pack(
            "{s:f, s:f, s:s, s:i}", "peer_upper_median_gbps", p->ref,
            "max_below_median_pct", sp->max_below_median_pct, "class", peers,
            "peers", p->ref_members));
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
    json_object_set_new(entry, "rules_not_applied", json_pack("[s]", why));
}

/* Which node's data is wrong, from the pairs' checked exchanges (both
 * directions of every pair, over every size): lib/fc_localise.h, one rank
 * per node. */
static void fc_pairs_blame_data(const fc_pairs_run_t *run, int npairs, const int *a,
                                const int *b, fc_blame_t *blame)
{
    fc_exchange_t *ex = calloc((size_t)npairs * 2 + 1, sizeof(*ex));
    int *host = calloc((size_t)run->nnodes + 1, sizeof(int));

    for (int v = 0; v < run->nnodes && host; ++v)
        host[v] = v;
    for (int v = 0; v < run->nnodes; ++v)
        blame[v] = FC_BLAME_NONE;
    if (ex == NULL || host == NULL) {
        free(ex);
        free(host);
        return;
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

/* ---- the confirmation in the records --------------------------------- */

static const char *fc_host(const fc_pairs_run_t *run, int v)
{
    return run->node_hosts[v];
}

static const char *fc_rack_of(const fc_pairs_run_t *run, int v)
{
    return run->ctx->inv.racks[run->node_racks[v]];
}

/* The slowest size of measurement m (its figure in the texts). */
static const fc_pair_t *fc_measure_figure(const fc_pairs_run_t *run, int m)
{
    const fc_pair_t *worst = NULL;
    int nz = run->ctx->sp.nsizes;

    for (int z = 0; z < nz; ++z) {
        const fc_pair_t *p = &run->alone[m * nz + z];

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
    int other, nslow;

    if (i < 0 || i >= run->confirm.nprobes || run->confirm.probes[i].slow < 0)
        return (size_t)snprintf(buf, len, "not measured");
    pr = &run->confirm.probes[i];
    for (int k = 0; k < pr->nmeasures; ++k) {
        p = fc_measure_figure(run, pr->first + k);
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%.4f", k ? ", " : "",
                               p->bw_gbps);
    }
    other = pr->x == v ? pr->y : pr->x;
    nslow = fc_confirm_slow_count(pr->meas, pr->nmeasures);
    if (nslow > 0)
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s (slow %d of %d) with",
                               nslow, pr->nmeasures);
    else
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " GB/s with");
    return at + (size_t)snprintf(buf + at, at < len ? len - at : 0, " %s (%s)",
                                 fc_host(run, other),
                                 run->node_racks[other] == run->node_racks[v]
                                     ? "same rack" : "across the spine");
}

/* Probe i as JSON: both hosts, the decision, and every alone measurement
 * (every size, slow or not). */
static json_t *fc_probe_json(const fc_pairs_run_t *run, int i)
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
            const fc_pair_t *p = &run->alone[(pr->first + k) * nz + z];

            json_array_append_new(sizes, json_pack(
                "{s:I, s:f, s:f, s:b, s:s}", "bytes", (json_int_t)run->ctx->sp.sizes[z],
                "bw_gbps", p->bw_gbps, "latency_us", p->lat_us, "slow", p->slow,
                "reason", p->nreasons ? p->reasons[0] : ""));
        }
        json_array_append_new(measurements, json_pack(
            "{s:s, s:o}", "result", pr->meas[k] < 0 ? "not measured" :
            pr->meas[k] ? "slow" : "fast", "sizes", sizes));
    }
    return json_pack("{s:s, s:s, s:s, s:i, s:o}", "host_a", fc_host(run, pr->x), "host_b",
                     fc_host(run, pr->y), "result", pr->slow < 0 ? "not measured" :
                     pr->slow ? "slow" : "fast", "slow_measurements",
                     fc_confirm_slow_count(pr->meas, pr->nmeasures), "measurements",
                     measurements);
}

/* What the confirmation learnt of node v's own link, for a pair of it it
 * could not place: "b1 is fast alone with c1", "b1 is slow alone with
 * every partner tried (...), none of which could be shown good", "b1 has
 * no other partner to try". */
static void fc_end_text(const fc_pairs_run_t *run, int v, char *buf, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    size_t at;

    if (fc_confirm_clear(c, v)) {
        for (int k = 0; k < FC_CONFIRM_PARTNERS; ++k) {
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
                 c->exhausted ? " (the probes ran out)" : " that is not itself suspect");
        return;
    }
    at = (size_t)snprintf(buf, len, "%s is slow alone with every partner tried too (",
                          fc_host(run, v));
    for (int k = 0; k < FC_CONFIRM_PARTNERS && at < len; ++k) {
        if (c->partner_probe[v][k] < 0)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s", k ? ", " : "");
        if (at < len)
            at += fc_probe_text(run, c->partner_probe[v][k], v, buf + at, len - at);
    }
    if (at < len)
        snprintf(buf + at, len - at, "), and they could not all be shown good: more than "
                 "one link is slow");
}

/* The node's alone evidence: "confirmed alone: 0.0002 GB/s with b1 (same
 * rack), 0.0003 GB/s with c1 (across the spine); each partner fast alone
 * with a third node (b1: 0.9 GB/s with a2 ...)" */
static void fc_node_evidence_text(const fc_pairs_run_t *run, int v, char *buf, size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    size_t at = 0;

    for (int k = 0; k < FC_CONFIRM_PARTNERS && at < len; ++k) {
        if (c->partner_probe[v][k] < 0)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s", at ? ", " : "");
        if (at < len)
            at += fc_probe_text(run, c->partner_probe[v][k], v, buf + at, len - at);
    }
    for (int k = 0; k < FC_CONFIRM_PARTNERS && at < len && c->link[v]; ++k) {
        const fc_pairs_probe_t *pr;
        int i = c->vouch_probe[v][k];

        if (i < 0 || (k > 0 && i == c->vouch_probe[v][0]))
            continue;           /* the two partners vouched for each other */
        pr = &c->probes[i];
        at += (size_t)snprintf(buf + at, len - at, "%s%s fast with %s%s", k ? "; " :
                               "; each partner known good: ", fc_host(run, pr->x),
                               fc_host(run, pr->y),
                               k == 0 && FC_CONFIRM_PARTNERS > 1 && c->vouch_probe[v][1] == i
                                   ? " (each vouching for the other)" : "");
    }
}

static json_t *fc_node_confirmation_json(const fc_pairs_run_t *run, int v)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    json_t *partners = json_array(), *vouch = json_array();

    for (int k = 0; k < FC_CONFIRM_PARTNERS; ++k) {
        if (c->partner_probe[v][k] >= 0)
            json_array_append_new(partners, fc_probe_json(run, c->partner_probe[v][k]));
        if (c->vouch_probe[v][k] >= 0)
            json_array_append_new(vouch, fc_probe_json(run, c->vouch_probe[v][k]));
    }
    return json_pack("{s:b, s:b, s:o, s:o}", "confirmed", c->link[v], "alone_in_rack",
                     c->alone_in_rack[v], "partners", partners, "partners_known_good",
                     vouch);
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

/* A slow pair's verdict after confirmation: its implicates (or NULL for a
 * pass) and the first reason, into why. */
static json_t *fc_pair_slow_verdict(const fc_pairs_run_t *run, int k, int a, int b,
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
    case FC_PAIR_V_NODE_B:
        snprintf(why, len, "explained by %s's link, confirmed alone with known-good "
                 "partners", fc_host(run, culprit));
        return json_pack("{s:s, s:s, s:s, s:b}", "part", "link", "host",
                         fc_host(run, culprit), "rack", fc_rack_of(run, culprit),
                         "quarantine", 0);
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
    case FC_PAIR_V_PATH:
        snprintf(why, len, "slow in its round (%s), alone too (%s); %s and %s are each "
                 "fast alone with another partner: the path between them", round, alone,
                 fc_host(run, a),
                 fc_host(run, b));
        return json_pack("{s:s, s:[s,s], s:[s,s], s:b}", "part", "path", "hosts",
                         fc_host(run, a), fc_host(run, b), "racks", fc_rack_of(run, a),
                         fc_rack_of(run, b), "quarantine", 0);
    case FC_PAIR_V_UNPLACED: {
        char ends[2][384];

        fc_end_text(run, a, ends[0], sizeof(ends[0]));
        fc_end_text(run, b, ends[1], sizeof(ends[1]));
        snprintf(why, len, "slow in its round (%s), alone too (%s), not placed: %s; %s",
                 round, alone, ends[0], ends[1]);
        /* not "localised": false, which asks the runner for a retest: the
         * confirmation has measured all a retest could */
        return json_pack("{s:s, s:s, s:[s,s], s:[s,s], s:b}", "part", "group",
                         "group", "the pair's two nodes", "hosts", fc_host(run, a),
                         fc_host(run, b), "racks", fc_rack_of(run, a), fc_rack_of(run, b),
                         "quarantine", 0);
    }
    case FC_PAIR_V_NOT_REPRODUCED:
        snprintf(why, len, "slow in its round beside other pairs (%s), not reproduced "
                 "alone (%s): not judged a fault", round, alone);
        return NULL;
    default:
        snprintf(why, len, "slow in its round; not confirmed alone (%s): the pair's "
                 "nodes are not blamed and not passed", c->exhausted ?
                 "the confirmation's probes ran out" : "it could not be measured");
        return json_pack("{s:s, s:[s,s], s:[s,s], s:b, s:b}", "part", "path", "hosts",
                         fc_host(run, a), fc_host(run, b), "racks", fc_rack_of(run, a),
                         fc_rack_of(run, b), "quarantine", 0, "confirmed", 0);
    }
}

/* One pair record (every size), its TAP point; returns 1 when it fails. */
static int fc_pairs_report_pair(fc_pairs_run_t *run, int k, int a, int b,
                                const int *slow, const fc_blame_t *blame)
{
    fc_stage_ctx_t *ctx = run->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    fc_pair_verdict_t v = !slow[k] ? FC_PAIR_V_OK :
                          run->confirmed ? run->confirm.verdict[k] : FC_PAIR_V_UNCONFIRMED;
    const char *ha = fc_host(run, a), *hb = fc_host(run, b);
    json_t *rec = fc_stage_record(ctx, "pair"), *sizes = json_array();
    json_t *reasons = json_array(), *round_reasons = json_array(), *impl = json_null();
    int bad = 0, wrong_node = -1;
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

        fc_pairs_relative_json(run, p, entry);
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
        impl = fc_pair_slow_verdict(run, k, a, b, v, verdict_why, sizeof(verdict_why));
        bad |= impl != NULL;
        if (impl != NULL)
            json_array_insert_new(reasons, 0, json_string(verdict_why));
        json_object_set_new(rec, "confirmation", json_pack(
            "{s:s, s:s, s:o, s:o}", "verdict", fc_pair_verdict_name(v), "text", verdict_why,
            "round_reasons", round_reasons, "alone", run->confirmed
                ? fc_probe_json(run, run->confirm.alone_probe[k]) : json_null()));
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
                     fc_host(run, w), run->nnodes - 1);
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
    json_object_set_new(rec, "latency_us", json_real(lat));
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "implicates", impl);
    json_object_set_new(rec, "verdict", json_string(bad ? "FAIL" : "PASS"));
    snprintf(first_reason, sizeof(first_reason), "%s",
             bad ? json_string_value(json_array_get(reasons, 0)) : "");
    fc_results_append(&ctx->results, rec);     /* takes rec */
    if (bad)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "pair %s <-> %s: %s", ha, hb, first_reason);
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

/* One pairs_node record; returns 1 when it fails. */
static int fc_pairs_report_node(fc_pairs_run_t *run, int v, const fc_blame_t *blame,
                                int node_slow, int node_partners)
{
    fc_stage_ctx_t *ctx = run->ctx;
    json_t *rec = fc_stage_record(ctx, "pairs_node");
    const fc_pairs_confirm_t *c = &run->confirm;
    int fail = 0;
    char why[FC_REASON_MAX * 2], evidence[FC_REASON_MAX] = "";

    json_object_set_new(rec, "host", json_string(fc_host(run, v)));
    json_object_set_new(rec, "rack", json_string(fc_rack_of(run, v)));
    json_object_set_new(rec, "slow_partners", json_integer(node_slow));
    json_object_set_new(rec, "partners", json_integer(node_partners));
    if (run->confirmed && c->probed[v]) {
        fc_node_evidence_text(run, v, evidence, sizeof(evidence));
        json_object_set_new(rec, "confirmation", fc_node_confirmation_json(run, v));
    }
    if (blame[v] != FC_BLAME_NONE) {
        snprintf(why, sizeof(why), "%s wrong data with every partner (%d, both "
                 "directions checked): the node (its NIC or memory) is implicated",
                 blame[v] == FC_BLAME_SENDS ? "sent" : "received", run->nnodes - 1);
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:s, s:b}", "part", "node", "host", fc_host(run, v), "rack",
            fc_rack_of(run, v), "quarantine", 1));
        fail = 1;
    } else if (run->confirmed && c->link[v]) {
        snprintf(why, sizeof(why), "slow with %d of its %d partners in the rounds, and "
                 "confirmed alone: %s: its NIC or link is implicated", node_slow,
                 node_partners, evidence);
        if (c->alone_in_rack[v])
            snprintf(why + strlen(why), sizeof(why) - strlen(why), " (it is alone in "
                     "rack %s: its link and the rack's uplink are in series)",
                     fc_rack_of(run, v));
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:s, s:b}", "part", "link", "host", fc_host(run, v), "rack",
            fc_rack_of(run, v), "quarantine", 1));
        fail = 1;
    } else {
        if (run->confirmed && c->probed[v])
            snprintf(why, sizeof(why), "slow with %d of its %d partners in the rounds; "
                     "alone: %s: its link is not at fault", node_slow, node_partners,
                     evidence);
        else
            snprintf(why, sizeof(why), "slow with %d of its %d partners", node_slow,
                     node_partners);
        json_object_set_new(rec, "implicates", json_null());
    }
    json_object_set_new(rec, "reasons", fail ? json_pack("[s]", why) : json_array());
    if (!fail && node_slow > 0)
        json_object_set_new(rec, "note", json_string(why));
    json_object_set_new(rec, "verdict", json_string(fail ? "FAIL" : "PASS"));
    if (fail)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "node %s %s: %s", fc_host(run, v),
                     blame[v] != FC_BLAME_NONE ? "data" : "link", why);
    else
        fc_tap_point(&ctx->tap, FC_OK, "node %s link (%s)", fc_host(run, v), why);
    fc_results_append(&ctx->results, rec);
    return fail;
}

int fc_pairs_report(fc_pairs_run_t *run)
{
    int n = run->nnodes, npairs = n * (n - 1) / 2, failed = 0, k = 0;
    int *a = calloc((size_t)npairs + 1, sizeof(int));
    int *b = calloc((size_t)npairs + 1, sizeof(int));
    int *slow = calloc((size_t)npairs + 1, sizeof(int));
    int *node_bad = calloc((size_t)n, sizeof(int));
    int *node_slow = calloc((size_t)n, sizeof(int));
    int *node_partners = calloc((size_t)n, sizeof(int));
    fc_pair_part_t *part = calloc((size_t)npairs + 1, sizeof(*part));
    fc_blame_t *blame = calloc((size_t)n, sizeof(*blame));

    if (!a || !b || !slow || !node_bad || !node_slow || !node_partners || !part || !blame) {
        fc_error("out of memory reporting %d pairs", npairs);
        failed = npairs + n;
        goto out;
    }
    /* one entry per pair of nodes: slow at any size */
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j, ++k) {
            a[k] = i;
            b[k] = j;
            for (int q = 0; q < run->npairs; ++q)
                if (run->pairs[q].a == i && run->pairs[q].b == j && run->pairs[q].slow)
                    slow[k] = 1;
        }
    /* the rounds' counts, for the texts; the blame is the confirmation's */
    fc_pairs_localise(n, npairs, a, b, slow, node_bad, node_slow, node_partners, part);
    fc_pairs_blame_data(run, npairs, a, b, blame);
    for (k = 0; k < npairs; ++k)
        failed += fc_pairs_report_pair(run, k, a[k], b[k], slow, blame);
    for (int v = 0; v < n; ++v)
        failed += fc_pairs_report_node(run, v, blame, node_slow[v], node_partners[v]);
out:
    free(a); free(b); free(slow); free(node_bad); free(node_slow);
    free(node_partners); free(part); free(blame);
    return failed;
}
