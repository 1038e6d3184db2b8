/*
 * fc_pairs_alone.c - the judgement of a pair measured alone by the pairs
 * confirmation (rank 0; see fc_pairs_stage.h and lib/pairs/fc_pairs_confirm.h).
 * An alone probe decides whether a suspect node is confirmed (slow with
 * every known-good partner) or cleared (fast with one): a "fast" that
 * rests on a reference the suspect set itself clears the suspect. In the
 * rounds a pair is judged against the upper median of its whole class,
 * which on racks of 3 and 1 is the slow node's own figure (two of the
 * three pairs inside the rack are its), and on racks of 2 and 1 does not
 * exist (the rack's one pair has no peer): the slow node's partner probe
 * inside its rack came out "fast" on the absolute limit alone, and the
 * node went free while its pairs across the spine were called paths.
 *
 * So alone, a pair (x, y) is judged against references x and y do not
 * set:
 *  - its class's rule takes the upper median of the class's pairs of the
 *    rounds that leave out x, and of those that leave out y, and the
 *    higher of the two: slowness only lowers a figure, so the higher is
 *    clean of whichever of x and y is slow;
 *  - a pair inside a rack is also judged against its two nodes' pairs
 *    across the spine (the higher of their upper medians): it crosses
 *    fewer links than a pair across the spine and must not be slower by
 *    more than the allowed percentage;
 *  - the same-rack, rack and two-racks rules of its tournament entry,
 *    whose references are other racks' pairs (for the two-racks rule, the
 *    pairs inside the rack that is not the lone node's), as in the rounds.
 * A probe no such reference could judge, and that no limit finds slow,
 * is undecided: neither fast nor slow (lib/engine/fc_confirm_rule.h), so it
 * clears nobody and confirms nobody.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_pairs_stage.h"
#include "fc_peers.h"

/* p's references that its two nodes do not set (see the top of the file). */
static void fc_alone_references(const fc_pairs_run_t *run, fc_pair_t *p)
{
    fc_peer_path_t path = fc_peer_pair_path(run->node_racks[p->a], run->node_racks[p->b]);
    double *scratch = fc_xcalloc((size_t)run->npairs + 1, sizeof(double),
                                 "the pairs' figures for an alone reference");
    int ends[2] = { p->a, p->b }, n;
    double m, best = -1;

    for (int e = 0; e < 2; ++e)
        if ((n = fc_pairs_upper_of(run, p->size_index, path, -1, ends[e], scratch, &m)) > 0 &&
            m > best) {
            best = m;
            p->ref_members = n;
            p->ref_without = ends[e];
        }
    p->rel = best >= 0 ? FC_PAIR_REL_APPLIED : FC_PAIR_REL_ALONE;
    p->ref = best;
    for (int e = 0; e < 2 && path == FC_PEER_PATH_SAME_RACK; ++e)
        if ((n = fc_pairs_upper_of(run, p->size_index, FC_PEER_PATH_SPINE, ends[e], -1, scratch,
                                   &m)) > 0 && m > p->across_ref) {
            p->across_ref = m;
            p->across_node = ends[e];
            p->across_members = n;
        }
    free(scratch);
}

/* Each direction of p judged on its own: its figure in the pair's place,
 * the same limits and references, the latency left to the pair. */
static void fc_alone_directions(const fc_pairs_run_t *run, fc_pair_t *p)
{
    for (int d = 0; d < 2; ++d) {
        fc_pair_t q;

        p->dir_slow[d] = -1;
        if (!(p->dir_gbps[d] > 0))
            continue;
        q = *p;
        q.bw_gbps = p->dir_gbps[d];
        q.lat_us = 0;
        q.slow = 0;
        q.nreasons = 0;
        fc_pairs_judge_timing(run, &q);
        p->dir_slow[d] = q.slow;
    }
}

void fc_pairs_judge_alone(const fc_pairs_run_t *run, fc_pair_t *p)
{
    const fc_pair_t *t = fc_pairs_find(run, p->a, p->b, p->size_index);
    int relative;

    p->slow = 0;
    p->nreasons = 0;
    /* a pair the rounds did not measure (a partner the sampled plan did
     * not give it): the relative rule applies as the profile says, not
     * "off" (judged on the limits alone, a slow NIC would pass) */
    p->rel = t ? t->rel
               : run->ctx->sp.max_below_median_pct < 0 ? FC_PAIR_REL_OFF
               : run->ctx->sp.sizes[p->size_index] < run->ctx->sp.relative_min_bytes
                   ? FC_PAIR_REL_SMALL : FC_PAIR_REL_ALONE;
    p->ref = t ? t->ref : -1;
    p->ref_members = t ? t->ref_members : 0;
    p->ref_without = -1;
    p->across_ref = 0;
    p->across_node = -1;
    p->across_members = 0;
    p->undecided = 0;
    p->rack_rule_rack = t ? t->rack_rule_rack : -1;
    p->rack_median = t ? t->rack_median : 0;
    p->rack_ref = t ? t->rack_ref : 0;
    p->rack_ref_members = t ? t->rack_ref_members : 0;
    p->rack_ref_a = t ? t->rack_ref_a : 0;
    p->rack_ref_b = t ? t->rack_ref_b : 0;
    p->same = t ? t->same : FC_PAIR_SAME_OFF;
    p->same_median = t ? t->same_median : 0;
    p->same_ref = t ? t->same_ref : 0;
    p->same_ref_members = t ? t->same_ref_members : 0;
    p->same_ref_racks = t ? t->same_ref_racks : 0;
    p->same_ref_rack = t ? t->same_ref_rack : -1;
    p->two = t ? t->two : FC_PAIR_TWO_OFF;
    p->two_ref = t ? t->two_ref : 0;
    p->two_members = t ? t->two_members : 0;
    p->two_rack = t ? t->two_rack : -1;
    p->two_lone = t ? t->two_lone : -1;
    /* the relative rule judges this size (not off, not below min_bytes) */
    relative = p->rel == FC_PAIR_REL_APPLIED || p->rel == FC_PAIR_REL_ALONE;
    if (relative)
        fc_alone_references(run, p);
    p->allowed_pct = run->alone_widened ? run->alone_pct : run->ctx->sp.max_below_median_pct;
    fc_pairs_judge_timing(run, p);
    p->ntiming = p->nreasons;
    fc_alone_directions(run, p);
    p->undecided = relative && !p->slow && p->rel != FC_PAIR_REL_APPLIED &&
                   p->across_ref <= 0 && p->same != FC_PAIR_SAME_APPLIED &&
                   p->rack_rule_rack < 0 &&
                   !(p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0);
}

void fc_pairs_alone_reference_text(const fc_pairs_run_t *run, const fc_pair_t *p, char *buf,
                                   size_t len)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    size_t at = 0;

#define FC_ALONE_ADD(...) \
    do { if (at < len) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
    buf[0] = '\0';
    if (p->rel == FC_PAIR_REL_OFF || p->rel == FC_PAIR_REL_SMALL) {
        FC_ALONE_ADD("%s: the limits alone", p->rel == FC_PAIR_REL_OFF
                     ? "the profile has no relative rule" : "below relative.min_bytes");
        return;
    }
    if (p->rel == FC_PAIR_REL_APPLIED) {
        char peers[128];

        fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
        FC_ALONE_ADD("the upper median of %s%s of the rounds not touching %s (%.4f GB/s)",
                     p->ref_members == 1 ? "the one " : "", peers,
                     run->node_hosts[p->ref_without], p->ref);
    }
    if (p->across_ref > 0)
        FC_ALONE_ADD("%sthe upper median of %s's %d pair%s across the spine (%.4f GB/s)",
                     at ? "; " : "", run->node_hosts[p->across_node], p->across_members,
                     p->across_members == 1 ? "" : "s", p->across_ref);
    if (p->same == FC_PAIR_SAME_APPLIED) {
        char ref[160];

        fc_pairs_same_rack_text(run, p, ref, sizeof(ref));
        FC_ALONE_ADD("%sthe same-rack rule's %s (%.4f GB/s)", at ? "; " : "", ref, p->same_ref);
    }
    if (p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0) {
        char ref[160];

        fc_pairs_two_racks_text(run, p, ref, sizeof(ref));
        FC_ALONE_ADD("%sthe two-racks rule's %s (%.4f GB/s)", at ? "; " : "", ref, p->two_ref);
    }
    if (p->rack_rule_rack >= 0)
        FC_ALONE_ADD("%sthe rack rule's median of the pairs between rack %s and rack %s "
                     "(%.4f GB/s)", at ? "; " : "", run->ctx->inv.racks[p->rack_ref_a],
                     run->ctx->inv.racks[p->rack_ref_b], p->rack_ref);
    if (at == 0)
        FC_ALONE_ADD("no reference its two nodes do not set (no other pair of its path "
                     "kind%s): %s", fc_peer_pair_path(run->node_racks[p->a],
                                                      run->node_racks[p->b]) ==
                     FC_PEER_PATH_SAME_RACK ? ", no pair of its nodes across the spine" : "",
                     p->slow ? "the limits alone" : "undecided");
    else
        FC_ALONE_ADD(" (allowed %.0f%% below)", sp->max_below_median_pct);
#undef FC_ALONE_ADD
}

fc_pair_t *fc_pairs_alone_at(const fc_pairs_run_t *run, int m, int z)
{
    return &run->alone[(size_t)(run->alone_of ? run->alone_of[m] : m) *
                       (size_t)run->ctx->sp.nsizes + (size_t)z];
}

typedef struct fc_alone_spread {
    double pct, lo, hi;
    int a, b, z;
} fc_alone_spread_t;

static int fc_alone_cmp_spread(const void *x, const void *y)
{
    double p = ((const fc_alone_spread_t *)x)->pct, q = ((const fc_alone_spread_t *)y)->pct;

    return p < q ? -1 : p > q;
}

double fc_pairs_alone_spread(fc_pairs_run_t *run)
{
    int nz = run->ctx->sp.nsizes, n = 0;
    double *figs = fc_xcalloc((size_t)run->nalone + 1, sizeof(double),
                              "a pair's alone figures");
    fc_alone_spread_t *all = fc_xcalloc((size_t)run->nalone * (size_t)nz + 1, sizeof(*all),
                                        "the pairs' alone spreads");

    run->alone_spread_pct = 0;
    run->spread_a = run->spread_b = run->spread_size = -1;
    for (int i = 0; i < run->nalone; ++i)
        for (int z = 0; z < nz; ++z) {
            const fc_pair_t *p = &run->alone[(size_t)i * nz + z];
            fc_alone_spread_t *e = &all[n];
            int count = 0, first = 1;

            /* each pair of nodes once, from its first measurement */
            for (int j = 0; j < run->nalone; ++j) {
                const fc_pair_t *q = &run->alone[(size_t)j * nz + z];

                if (q->a != p->a || q->b != p->b)
                    continue;
                first &= j >= i;
                figs[count++] = q->bw_gbps;
            }
            if (!first || count < 2)
                continue;
            e->pct = fc_confirm_spread_pct(figs, count);
            e->a = p->a;
            e->b = p->b;
            e->z = z;
            e->lo = 1e300;
            e->hi = 0;
            for (int k = 0; k < count; ++k)
                if (figs[k] > 0 && figs[k] < 1e300) {
                    e->lo = figs[k] < e->lo ? figs[k] : e->lo;
                    e->hi = figs[k] > e->hi ? figs[k] : e->hi;
                }
            ++n;
        }
    if (n > 0) {
        /* the upper median: what the pairs measured alone again show as
         * a rule; one pair caught in a burst does not set it (the
         * controls and the agreement rule answer bursts) */
        qsort(all, (size_t)n, sizeof(*all), fc_alone_cmp_spread);
        run->alone_spread_pct = all[n / 2].pct;
        run->spread_a = all[n / 2].a;
        run->spread_b = all[n / 2].b;
        run->spread_size = all[n / 2].z;
        run->spread_lo = all[n / 2].lo;
        run->spread_hi = all[n / 2].hi;
        run->spread_pairs = n;
    }
    free(all);
    free(figs);
    return run->alone_spread_pct;
}

json_t *fc_pairs_alone_tolerance_json(const fc_pairs_run_t *run)
{
    double pct = run->ctx->sp.max_below_median_pct;
    char why[FC_REASON_MAX];

    if (pct < 0 || run->alone_passes == 0)     /* no relative rule; the rails' */
        return json_null();
    if (run->alone_widened)
        snprintf(why, sizeof(why), "the pairs measured alone more than once spread %.0f%% "
                 "as their upper median (%d of them; %s <-> %s: %.4f to %.4f GB/s): a "
                 "tolerance tighter than the probes' own spread cannot confirm anything, so "
                 "the alone judgement allowed %.0f%% below, not the profile's %.0f%%",
                 run->alone_spread_pct, run->spread_pairs, run->node_hosts[run->spread_a],
                 run->node_hosts[run->spread_b], run->spread_lo, run->spread_hi,
                 run->alone_pct, pct);
    else
        snprintf(why, sizeof(why), "the profile's %.0f%% is at least the spread of the "
                 "pairs measured alone more than once (%.0f%%, their upper median)", pct,
                 run->alone_spread_pct);
    return json_pack("{s:f, s:f, s:f, s:b, s:o, s:i, s:s}", "profile_pct", pct, "spread_pct",
                     run->alone_spread_pct, "used_pct",
                     run->alone_widened ? run->alone_pct : pct, "widened",
                     run->alone_widened, "spread_pair", run->spread_a >= 0
                         ? json_pack("[s,s]", run->node_hosts[run->spread_a],
                                     run->node_hosts[run->spread_b]) : json_null(),
                     "passes", run->alone_passes, "why", why);
}

int fc_pairs_alone_contradicts(const fc_pairs_run_t *run, int x, int y, int first, int n)
{
    int nz = run->ctx->sp.nsizes, nslow = 0;

    for (int m = first; m < first + n; ++m) {
        int against = 0, slow = 0;

        for (int z = 0; z < nz; ++z) {
            const fc_pair_t *p = fc_pairs_alone_at(run, m, z);
            const fc_pair_t *t = fc_pairs_find(run, x, y, z);

            if (!p->slow)
                continue;
            slow = 1;
            /* the round judged it fast, and measured it faster; without a
             * relative rule (a limit found it slow): any lower */
            against |= t != NULL && !t->slow && p->bw_gbps < t->bw_gbps *
                                                 (1.0 - (p->allowed_pct > 0 ? p->allowed_pct : 0) / 100.0);
        }
        if (slow && !against)
            return 0;
        nslow += slow;
    }
    return nslow > 0;
}
