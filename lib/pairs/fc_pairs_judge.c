/*
 * fc_pairs_judge.c - the pairs stage's judgement of each pair (rank 0;
 * see fc_pairs_stage.h): the profile's absolute limits (collective
 * "sendrecv": min_busbw_gbps is the bandwidth of one direction;
 * max_latency_us the 8-byte half round trip, matched at 8 bytes, the size
 * of that message), the relative rule against the upper median of the
 * pairs of its path kind (lib/engine/fc_peers.h), across the spine with three
 * racks or more the rack rule (fc_pairs_rack_rule), inside a rack the
 * same-rack rule (fc_pairs_same_rack_rule: its rack's pairs against those
 * inside the other racks), and wrong data.
 * A pair measured alone by the confirmation is judged by the same limits
 * and the same references as its tournament entry. What a round finds
 * slow is only a suspicion: lib/pairs/fc_pairs_report.c writes what the
 * confirmation made of it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_log.h"
#include "fc_pairs_stage.h"
#include "fc_peers.h"
#include "fc_samples.h"
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

void fc_pairs_merge_side(const fc_pairs_run_t *run, fc_pair_t *p, const fc_pair_side_t *s)
{
    double bw = fc_stats_algbw(run->ctx->sp.sizes[s->size_index], s->median_s);

    if (bw < p->bw_gbps) {
        p->bw_gbps = bw;
        p->samples = s->samples;
    }
    if (s->lat_us > p->lat_us)
        p->lat_us = s->lat_us;
    /* the side that waited longer for a CPU speaks for the pair (a side
     * that could not say, -1, never does) */
    if (s->cpu_wait < 0)
        p->wait_unknown = 1;
    p->side_cpu_wait[s->node == p->a ? 0 : 1] = s->cpu_wait;
    p->side_lat_cpu_wait[s->node == p->a ? 0 : 1] = s->lat_cpu_wait;
    if (s->cpu_wait > p->cpu_wait) {
        p->cpu_wait = s->cpu_wait;
        p->cpu_wait_node = s->node;
        p->free_bw_gbps = s->free_median_s > 0
            ? fc_stats_algbw(run->ctx->sp.sizes[s->size_index], s->free_median_s) : -1;
    }
    if (s->lat_cpu_wait > p->lat_cpu_wait) {
        p->lat_cpu_wait = s->lat_cpu_wait;
        p->lat_wait_node = s->node;
        p->free_lat_us = s->free_lat_us;
    }
    if (s->wrong > 0 && p->wrong == 0) {
        p->bad_node = s->node;
        p->first = *s;
    }
    p->wrong += s->wrong;
    p->wrong_at[s->node == p->a ? 0 : 1] += s->wrong;
    /* the side of node a received b's data: direction b -> a */
    if (s->recv_median_s > 0)
        p->dir_gbps[s->node == p->a ? 1 : 0] =
            fc_stats_algbw(run->ctx->sp.sizes[s->size_index], s->recv_median_s);
}

void fc_pairs_pair_new(fc_pair_t *p, int x, int y, int z)
{
    memset(p, 0, sizeof(*p));
    p->a = x < y ? x : y;
    p->b = x < y ? y : x;
    p->size_index = z;
    p->bad_node = -1;
    p->bw_gbps = 1e300;
    p->cpu_wait_node = p->lat_wait_node = -1;
    p->free_bw_gbps = p->free_lat_us = -1;
    p->side_cpu_wait[0] = p->side_cpu_wait[1] = -1;
    p->side_lat_cpu_wait[0] = p->side_lat_cpu_wait[1] = -1;
    p->calm_bw_gbps = p->calm_slow_gbps = -1;
}

/* A time less its waits is at least this share of it: a side held all
 * the time (its waits, with the gap before, as long as the exchange)
 * reads as 100 times faster without them, never as no time at all, which
 * would say nothing (the passes cap the gain: fc_pairs_passes.c) */
#define FC_PAIRS_FREE_TIME_LEAST 0.01


void fc_pairs_free_time(const double *times, const double *waits, int n, double *share_p,
                        double *free_p)
{
    double *free_t = fc_xcalloc((size_t)n + 1, sizeof(double), "the times less their waits");
    double total = 0, waited = 0;

    *share_p = *free_p = -1;
    for (int i = 0; i < n; ++i) {
        double w;

        if (waits[i] < 0) {
            free(free_t);
            return;
        }
        w = waits[i] < times[i] ? waits[i] : times[i];
        total += times[i];
        waited += w;
        free_t[i] = fmax(times[i] - w, FC_PAIRS_FREE_TIME_LEAST * times[i]);
    }
    *share_p = total > 0 ? waited / total : 0;
    *free_p = fc_stats_median(free_t, (size_t)n);
    free(free_t);
}

/* Which of the n timed iterations kept as samples (fc_samples_keep's
 * rule: bit k for sample k) were calm on this side: its thread waited for
 * a CPU at most FC_PAIRS_CALM_WAIT of the iteration's time, counting the
 * gap since the last one ended (a side held off its core while it checks
 * the last buffer starts late, and its partner's time shows it); none
 * when a wait is not known. */
uint64_t fc_pairs_calm_bits(const double *times, const double *waits, int n)
{
    double *calm = fc_xcalloc((size_t)n + 1, sizeof(double), "the calm iterations");
    fc_samples_t kept;
    uint64_t bits = 0;

    for (int i = 0; i < n; ++i) {
        if (waits[i] < 0) {
            free(calm);
            return 0;
        }
        calm[i] = waits[i] <= FC_PAIRS_CALM_WAIT * times[i];
    }
    fc_samples_keep(calm, n, &kept);
    for (int k = 0; k < kept.n; ++k)
        if (kept.s[k] > 0)
            bits |= (uint64_t)1 << k;
    free(calm);
    return bits;
}

/* The median of smp's samples, each whose bit is not set in calm taken
 * as `other` (INFINITY: the slowest; 0: the fastest). */
static double fc_pairs_calm_median(const fc_samples_t *smp, uint64_t calm, double other)
{
    double t[FC_SAMPLES_MAX];

    for (int k = 0; k < smp->n; ++k)
        t[k] = calm >> k & 1 ? smp->s[k] : other;
    return fc_stats_median(t, (size_t)smp->n);
}

/* The slower side's median time as a bandwidth, -1 where the median is
 * not a calm sample's (infinite or 0). */
static double fc_pairs_calm_bound(const fc_pair_side_t *a, const fc_pair_side_t *b,
                                  uint64_t calm, double other, uint64_t bytes)
{
    double ma = fc_pairs_calm_median(&a->samples, calm, other);
    double mb = fc_pairs_calm_median(&b->samples, calm, other);
    double m = ma > mb ? ma : mb;

    return isfinite(m) && m > 0 ? fc_stats_algbw(bytes, m) : -1;
}

void fc_pairs_calm_figure(fc_pair_t *p, const fc_pair_side_t *a, const fc_pair_side_t *b,
                          uint64_t bytes)
{
    uint64_t calm = a->calm & b->calm;

    p->calm_n = p->calm_of = 0;
    p->calm_bw_gbps = p->calm_slow_gbps = -1;
    if (a->samples.n != b->samples.n || a->samples.of != b->samples.of ||
        a->samples.n <= 0 || a->samples.n > FC_SAMPLES_MAX)
        return;         /* not the same iterations: nothing aligned */
    if (a->samples.n < FC_SAMPLES_MAX)
        calm &= ((uint64_t)1 << a->samples.n) - 1;
    p->calm_of = a->samples.n;
    for (uint64_t c = calm; c != 0; c &= c - 1)
        ++p->calm_n;
    if (2 * p->calm_n <= p->calm_of)
        return;         /* most were not calm: they speak for nothing */
    /* each side's median, the slower of the two, as the pair's own
     * figure is made (fc_pairs_merge_side); the exchanges not calm
     * counted against the conclusion each bound can draw */
    p->calm_bw_gbps = fc_pairs_calm_bound(a, b, calm, INFINITY, bytes);
    p->calm_slow_gbps = fc_pairs_calm_bound(a, b, calm, 0, bytes);
}

int fc_pairs_measured(const fc_pairs_run_t *run, int **a_p, int **b_p)
{
    int n = run->nnodes, k = 0;
    unsigned char *met = fc_xcalloc((size_t)n * (size_t)n + 1, 1, "the pairs measured");

    for (int q = 0; q < run->npairs; ++q)
        if (!met[(size_t)run->pairs[q].a * (size_t)n + (size_t)run->pairs[q].b]++)
            ++k;
    *a_p = fc_xcalloc((size_t)k + 1, sizeof(int), "the pairs' first nodes");
    *b_p = fc_xcalloc((size_t)k + 1, sizeof(int), "the pairs' second nodes");
    k = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (met[(size_t)i * (size_t)n + (size_t)j]) {
                (*a_p)[k] = i;
                (*b_p)[k++] = j;
            }
    free(met);
    return k;
}

/* A node's own pairs do not vouch for it: the class's upper median over
 * the pairs that leave out one of a pair's two nodes, where higher, is
 * its reference (ref_without names the node), as a pair measured alone is
 * judged (fc_pairs_alone.c). Two slow nodes of six touch 9 of the 15
 * pairs, more than half of a class: its upper median was their own slow
 * figure, and the second node's pairs passed beside the first's. A
 * reference needs FC_PAIRS_WITHOUT_MIN pairs; for very large classes
 * (nodes x pairs above FC_PAIRS_WITHOUT_WORK) the whole class's stands. */
#define FC_PAIRS_WITHOUT_MIN 3
#define FC_PAIRS_WITHOUT_WORK 40000000.0

static int fc_pairs_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int fc_pairs_upper_of(const fc_pairs_run_t *run, int z, fc_peer_path_t path, int with,
                      int without, double *scratch, double *ref_p)
{
    int n = 0;

    for (int k = 0; k < run->npairs; ++k) {
        const fc_pair_t *q = &run->pairs[k];

        if (q->size_index != z ||
            fc_peer_pair_path(run->node_racks[q->a], run->node_racks[q->b]) != path)
            continue;
        if (with >= 0 && q->a != with && q->b != with)
            continue;
        if (without >= 0 && (q->a == without || q->b == without))
            continue;
        scratch[n++] = q->bw_gbps;
    }
    if (n > 0) {
        qsort(scratch, (size_t)n, sizeof(*scratch), fc_pairs_cmp_double);
        *ref_p = scratch[n / 2];
    }
    return n;
}

static void fc_pairs_reference_without(fc_pairs_run_t *run, int z, double *scratch, int k,
                                       const int *idx)
{
    int n = run->nnodes;
    /* [v * 3 + path]: the upper median of the pairs of that path leaving v out */
    double *ref;
    int *members;

    if (k < FC_PAIRS_WITHOUT_MIN + 1 || (double)n * (double)k > FC_PAIRS_WITHOUT_WORK)
        return;
    ref = fc_xcalloc((size_t)n * 3, sizeof(*ref), "the references without a node");
    members = fc_xcalloc((size_t)n * 3, sizeof(*members), "the references without a node");
    for (int v = 0; v < n; ++v)
        for (int path = FC_PEER_PATH_SAME_RACK; path <= FC_PEER_PATH_SPINE; ++path)
            members[v * 3 + path] = fc_pairs_upper_of(run, z, (fc_peer_path_t)path, -1, v,
                                                      scratch, &ref[v * 3 + path]);
    for (int i = 0; i < k; ++i) {
        fc_pair_t *p = &run->pairs[idx[i]];
        int path = (int)fc_peer_pair_path(run->node_racks[p->a], run->node_racks[p->b]);
        int ends[2] = { p->a, p->b };

        if (p->rel != FC_PAIR_REL_APPLIED)
            continue;
        for (int e = 0; e < 2; ++e) {
            int at = ends[e] * 3 + path;

            if (members[at] >= FC_PAIRS_WITHOUT_MIN && ref[at] > p->ref) {
                p->ref = ref[at];
                p->ref_members = members[at];
                p->ref_without = ends[e];
            }
        }
    }
    free(ref);
    free(members);
}

/* The relative rule's reference of every pair measured at size z: the
 * upper median of its peer class (same rack, or across the spine), so
 * that up to half the pairs of a class being slow does not drag the
 * reference down. */
static void fc_pairs_reference(fc_pairs_run_t *run, int z)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int n = run->npairs, k = 0;
    int *idx = fc_xcalloc((size_t)n + 1, sizeof(int), "the size's pairs");
    int *has = fc_xcalloc((size_t)n + 1, sizeof(int), "the pairs with a figure");
    double *bw = fc_xcalloc((size_t)n + 1, sizeof(double), "the pairs' bandwidths");
    fc_peer_shape_t *shapes = fc_xcalloc((size_t)n + 1, sizeof(*shapes), "the pairs' shapes");
    fc_peer_ref_t *refs = fc_xcalloc((size_t)n + 1, sizeof(*refs), "the pairs' references");

    for (int q = 0; q < n; ++q) {
        const fc_pair_t *p = &run->pairs[q];

        if (p->size_index != z)
            continue;
        shapes[k] = (fc_peer_shape_t){ 2, 2, fc_peer_pair_path(run->node_racks[p->a],
                                                               run->node_racks[p->b]) };
        bw[k] = p->bw_gbps;
        has[k] = 1;
        idx[k++] = q;
    }
    fc_peers_reference(shapes, bw, has, k, FC_PEER_UPPER_MEDIAN, "pair", refs);
    for (int i = 0; i < k; ++i) {
        fc_pair_t *p = &run->pairs[idx[i]];

        p->rel = sp->max_below_median_pct < 0 ? FC_PAIR_REL_OFF :
                 sp->sizes[z] < sp->relative_min_bytes ? FC_PAIR_REL_SMALL :
                 refs[i].applies ? FC_PAIR_REL_APPLIED : FC_PAIR_REL_ALONE;
        p->ref = refs[i].applies ? refs[i].reference : -1;
        p->ref_members = p->class_members = refs[i].members;
        p->ref_without = -1;    /* the whole class, in the rounds */
    }
    fc_pairs_reference_without(run, z, bw, k, idx);
    free(idx); free(has); free(bw); free(shapes); free(refs);
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
    double *scratch = fc_xcalloc((size_t)n + 1, sizeof(double), "the racks' pair figures");
    double keep = 1.0 - sp->max_below_median_pct / 100.0;

    for (int k = 0; k < n; ++k)
        if (run->pairs[k].size_index == z)
            run->pairs[k].rack_rule_rack = -1;
    if (nracks < 3 || sp->max_below_median_pct < 0 ||
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

/* The bandwidths at size z of the pairs inside rack r (r < 0: inside any
 * rack but -r-1), into scratch; returns how many, and into *nracks_p how
 * many racks they are in and into *only_p the rack when one (else -1). */
static int fc_pairs_inside(const fc_pairs_run_t *run, int z, int r, double *scratch,
                           int *nracks_p, int *only_p)
{
    int n = 0, nracks = run->ctx->inv.nracks, with = 0, only = -1;

    for (int q = 0; q < nracks; ++q) {
        int here = 0;

        if (r >= 0 ? q != r : q == -r - 1)
            continue;
        for (int k = 0; k < run->npairs; ++k) {
            const fc_pair_t *p = &run->pairs[k];

            if (p->size_index == z && run->node_racks[p->a] == q &&
                run->node_racks[p->b] == q) {
                scratch[n++] = p->bw_gbps;
                ++here;
            }
        }
        if (here > 0) {
            ++with;
            only = with == 1 ? q : -1;
        }
    }
    *nracks_p = with;
    *only_p = only;
    return n;
}

/* The same-rack rule at size z: the pairs inside a rack against the pairs
 * inside the other racks (leave one rack out), the counterpart of the rack
 * rule for the pairs of the same-rack class. A rack whose pairs inside it
 * have a median more than the allowed percentage below the upper median of
 * the pairs inside every other rack puts them under it (same_ref): a slow
 * switch of a rack that holds most of the same-rack pairs (racks of 5, 3
 * and 1: 10 of 13) sets their class's upper median to its own slow figure
 * and passed; judged by the other racks' pairs it fails. Gated on the
 * rack's median, like the rack rule, so one pair of a healthy rack that
 * a busy machine slowed is not judged by it (the class rule judges that
 * pair). A rack with pairs inside it when no other rack has any has
 * nothing to be compared with, and its records say so (FC_PAIR_SAME_NONE). */
static void fc_pairs_same_rack_rule(fc_pairs_run_t *run, int z)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int nracks = run->ctx->inv.nracks, n = run->npairs;
    double *scratch = fc_xcalloc((size_t)n + 1, sizeof(double), "the racks' pair figures");
    double keep = 1.0 - sp->max_below_median_pct / 100.0;

    for (int k = 0; k < n; ++k)
        if (run->pairs[k].size_index == z)
            run->pairs[k].same = FC_PAIR_SAME_OFF;
    if (sp->max_below_median_pct < 0 ||
        sp->sizes[z] < sp->relative_min_bytes) {
        free(scratch);
        return;
    }
    for (int r = 0; r < nracks; ++r) {
        int mine, others, with, only, unused;
        double median, ref = 0;
        fc_pair_same_t verdict;

        if ((mine = fc_pairs_inside(run, z, r, scratch, &unused, &unused)) == 0)
            continue;
        median = fc_stats_median(scratch, (size_t)mine);
        others = fc_pairs_inside(run, z, -r - 1, scratch, &with, &only);
        if (others > 0) {
            qsort(scratch, (size_t)others, sizeof(*scratch), fc_pairs_cmp_double);
            ref = scratch[others / 2];      /* the upper median, as the class's */
        }
        verdict = others == 0 ? FC_PAIR_SAME_NONE :
                  median < ref * keep ? FC_PAIR_SAME_APPLIED : FC_PAIR_SAME_CLEAR;
        for (int k = 0; k < n; ++k) {
            fc_pair_t *p = &run->pairs[k];

            if (p->size_index != z || run->node_racks[p->a] != r ||
                run->node_racks[p->b] != r)
                continue;
            p->same = verdict;
            p->same_median = median;
            p->same_ref = ref;
            p->same_ref_members = others;
            p->same_ref_racks = with;
            p->same_ref_rack = only;
        }
    }
    free(scratch);
}

void fc_pairs_same_rack_text(const fc_pairs_run_t *run, const fc_pair_t *p, char *buf,
                             size_t len)
{
    if (p->same_ref_rack >= 0)
        snprintf(buf, len, "upper median of the %d pair%s inside rack %s", p->same_ref_members,
                 p->same_ref_members == 1 ? "" : "s", run->ctx->inv.racks[p->same_ref_rack]);
    else
        snprintf(buf, len, "upper median of the %d pairs inside the other %d racks",
                 p->same_ref_members, p->same_ref_racks);
}

void fc_pairs_class_text(const fc_pairs_run_t *run, const fc_pair_t *p, int members,
                         char *buf, size_t len)
{
    fc_peer_shape_t shape = { 2, 2, fc_peer_pair_path(run->node_racks[p->a],
                                                      run->node_racks[p->b]) };

    fc_peer_class_text(&shape, members, "pair", buf, len);
}

/* A direction is slow against its reverse only below this share less
 * than it, whatever a tighter profile allows: the two directions of a
 * healthy pair on a busy machine differ by scheduling alone (alone, the
 * slower at 0.52 of the faster at worst in 55 measurements; in the
 * rounds, 0.27), and a tight tolerance would fail them all */
#define FC_PAIRS_REVERSE_FLOOR_PCT 80.0

void fc_pairs_judge_timing(const fc_pairs_run_t *run, fc_pair_t *p)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    double pct = p->allowed_pct, keep = 1.0 - pct / 100.0;
    int z = p->size_index, rel_said = 0;
    const fc_limit_rule_t *rule = fc_profile_find_limit(
        sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE, sp->sizes[z]);
    const fc_limit_rule_t *lat_rule = fc_profile_find_limit(
        sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE, FC_PAIRS_LAT_BYTES);

    p->slow_abs = 0;
    p->limit_bw = rule ? rule->min_busbw_gbps : -1;
    p->limit_line = rule ? rule->line : 0;
    p->limit_lat = lat_rule ? lat_rule->max_latency_us : -1;
    p->lat_line = lat_rule ? lat_rule->line : 0;
    if (rule && rule->min_busbw_gbps >= 0 && p->bw_gbps < rule->min_busbw_gbps) {
        p->slow = p->slow_abs = 1;
        fc_pair_fail(p, "bandwidth %.4f GB/s per direction is below the "
                     "limit %.4f GB/s (profile line %d)", p->bw_gbps,
                     rule->min_busbw_gbps, rule->line);
    }
    if (z == 0 && lat_rule && lat_rule->max_latency_us >= 0 &&
        p->lat_us > lat_rule->max_latency_us) {
        p->slow = p->slow_abs = 1;
        fc_pair_fail(p, "latency %.1f us is above the limit %.1f us "
                     "(profile line %d)", p->lat_us,
                     lat_rule->max_latency_us, lat_rule->line);
    }
    if (p->rel == FC_PAIR_REL_APPLIED && p->bw_gbps < p->ref * keep) {
        char peers[128 + FC_HOST_MAX];

        /* measured alone: the class's pairs of the rounds that leave out one
         * of its nodes ("the one pair across the spine of the rounds not
         * touching n01") */
        snprintf(peers, sizeof(peers), "%s", p->ref_without >= 0 && p->ref_members == 1
                 ? "the one " : "");
        fc_pairs_class_text(run, p, p->ref_members, peers + strlen(peers),
                            sizeof(peers) - strlen(peers));
        if (p->ref_without >= 0)
            snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers),
                     " of the rounds not touching %s", run->node_hosts[p->ref_without]);
        p->slow = 1;
        rel_said = 1;
        fc_pair_fail(p, "bandwidth %.4f GB/s is %.0f%% below the upper median "
                     "of %s (%.4f GB/s; allowed %.0f%%)",
                     p->bw_gbps, 100.0 * (1.0 - p->bw_gbps / p->ref), peers,
                     p->ref, pct);
    }
    if (p->across_ref > 0 && p->bw_gbps < p->across_ref * keep) {
        if (!rel_said)
            fc_pair_fail(p, "bandwidth %.4f GB/s inside rack %s is %.0f%% below the upper "
                         "median of %s's %d pair%s across the spine in the rounds (%.4f GB/s; "
                         "allowed %.0f%%): a pair inside a rack crosses fewer links than one "
                         "across the spine and must not be slower", p->bw_gbps,
                         run->ctx->inv.racks[run->node_racks[p->a]],
                         100.0 * (1.0 - p->bw_gbps / p->across_ref),
                         run->node_hosts[p->across_node], p->across_members,
                         p->across_members == 1 ? "" : "s", p->across_ref,
                         pct);
        p->slow = 1;
        rel_said = 1;
    }
    if (p->same == FC_PAIR_SAME_APPLIED && p->bw_gbps < p->same_ref * keep) {
        char ref[160];

        fc_pairs_same_rack_text(run, p, ref, sizeof(ref));
        /* a second sentence only when the class's rule did not say it */
        if (!rel_said)
            fc_pair_fail(p, "bandwidth %.4f GB/s is %.0f%% below the %s (%.4f GB/s; "
                         "allowed %.0f%%), where the pairs inside rack %s have a median of "
                         "%.4f GB/s", p->bw_gbps, 100.0 * (1.0 - p->bw_gbps / p->same_ref),
                         ref, p->same_ref, pct,
                         run->ctx->inv.racks[run->node_racks[p->a]], p->same_median);
        p->slow = 1;
    }
    if (p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0 && p->bw_gbps < p->two_ref * keep) {
        char ref[160];

        fc_pairs_two_racks_text(run, p, ref, sizeof(ref));
        if (!rel_said)
            fc_pair_fail(p, "bandwidth %.4f GB/s across the spine is %.0f%% below the %s "
                         "(%.4f GB/s; allowed %.0f%%): on two racks every pair across the "
                         "spine is %s's (alone in its rack), so their class cannot judge "
                         "them, and one with nothing beside it on the spine must not be "
                         "slower than a pair inside a rack", p->bw_gbps,
                         100.0 * (1.0 - p->bw_gbps / p->two_ref), ref, p->two_ref,
                         pct, run->node_hosts[p->two_lone]);
        p->slow = 1;
        rel_said = 1;
    }
    /* its own reverse direction, measured in the same exchanges, is a
     * reference no other pair sets: a direction slower than the other
     * by more than the tolerance is slow, however slow its class (two
     * slow links in a small cluster make the class's median slow; a
     * link slow one way only is then caught here) */
    double reverse = fmax(p->dir_gbps[0], p->dir_gbps[1]);
    double dir_pct = fmax(pct, FC_PAIRS_REVERSE_FLOOR_PCT);

    if ((p->rel == FC_PAIR_REL_APPLIED || p->rel == FC_PAIR_REL_ALONE) && pct >= 0 &&
        p->dir_gbps[0] > 0 && p->dir_gbps[1] > 0 &&
        p->bw_gbps < reverse * (1.0 - dir_pct / 100.0)) {
        int d = p->dir_gbps[0] < p->dir_gbps[1] ? 0 : 1;     /* dir_gbps[0]: a -> b */

        if (!p->slow)
            fc_pair_fail(p, "bandwidth %.4f GB/s from %s to %s is %.0f%% below its reverse "
                         "direction's in the same exchanges (%.4f GB/s; allowed %.0f%%): one "
                         "direction of the link is slow", p->bw_gbps,
                         run->node_hosts[d == 0 ? p->a : p->b],
                         run->node_hosts[d == 0 ? p->b : p->a],
                         100.0 * (1.0 - p->bw_gbps / reverse), reverse, dir_pct);
        p->slow = 1;
    }
    if (p->rack_rule_rack >= 0 &&
        p->bw_gbps < p->rack_ref * keep) {
        p->slow = 1;
        fc_pair_fail(p, "bandwidth %.4f GB/s is %.0f%% below the median of the %d "
                     "pairs between rack %s and rack %s, the fastest pair of racks without "
                     "rack %s (%.4f GB/s; allowed %.0f%%), where every pair of racks with "
                     "rack %s has a median of %.4f GB/s or less", p->bw_gbps,
                     100.0 * (1.0 - p->bw_gbps / p->rack_ref), p->rack_ref_members,
                     run->ctx->inv.racks[p->rack_ref_a], run->ctx->inv.racks[p->rack_ref_b],
                     run->ctx->inv.racks[p->rack_rule_rack], p->rack_ref,
                     pct, run->ctx->inv.racks[p->rack_rule_rack],
                     p->rack_median);
    }
}

void fc_pairs_judge(fc_pairs_run_t *run)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;

    for (int z = 0; z < sp->nsizes; ++z) {
        fc_pairs_reference(run, z);
        fc_pairs_rack_rule(run, z);
        fc_pairs_same_rack_rule(run, z);
        fc_pairs_two_racks_rule(run, z);
        for (int k = 0; k < run->npairs; ++k) {
            fc_pair_t *p = &run->pairs[k];

            if (p->size_index != z)
                continue;
            p->allowed_pct = sp->max_below_median_pct;
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

