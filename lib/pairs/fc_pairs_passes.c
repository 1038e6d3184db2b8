/*
 * fc_pairs_passes.c - see fc_pairs_passes.h: the stored measurements, their
 * replay by the confirmation's numbering, and the passes.
 */
#include "fc_pairs_passes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_peers.h"
#include "fc_quiet.h"
#include "fc_stats.h"

typedef struct fc_passes {
    fc_pairs_run_t *run;
    int *judged;                /* each stored measurement's judgement */
    int capacity;               /* measurements run->alone holds */
    int replay_only;            /* this pass measures nothing new */
    fc_pairs_measure_func_t measure;
    void *arg;
    int *suspect;               /* per node: 2 every pair of it was slow in the
                                 * rounds, 1 most of those with nodes not so,
                                 * 0 neither (controls avoid suspects) */
    unsigned char *is_control;  /* per stored measurement: 1 a control (judged
                                 * with the measurement it controls, never as
                                 * a probe's: never replayed as one) */
} fc_passes_t;

/* A measurement whose side waited for a CPU this share of its time or
 * more is looked at again without that wait (below it, noise) ... */
#define FC_CPU_WAIT_LOOKED_AT 0.05
/* ... and a figure is made at most this many times better by it */
#define FC_CPU_WAIT_MOST_FASTER 20.0
/* a measurement so held is measured again, at most this many times */
#define FC_CPU_HELD_AGAIN 4
/* ... the pauses before those (fc_passes_measured) take at most this share
 * of the stage's timeout in all: the other probes keep their time */
#define FC_CPU_AGAIN_PAUSE_SHARE 0.1

/* ... and, measured again and held again, it is held only where the side
 * that waited did so this share of the time more than its partner: a CPU
 * held one side (measured: 98-100% against 11-17%), not both alike, as a
 * slow link makes both sides of a spinning, yielding pair wait (a 50 Mbit/s
 * link beside a CPU hog: 57% and 54%, 65% and 59%) */
#define FC_CPU_UNALIKE 0.30
/* ... except where both sides waited this share or more, as a side a hog
 * holds does: two busy hosts, not a link */
#define FC_CPU_HOG_WAIT 0.90

/* ... a judgement on the exchanges calm on both sides (neither waited
 * for a CPU: their times are the fabric's) needs this many of them; the
 * others count against what it concludes (the CPU picks which exchanges
 * are calm, and a long exchange is more likely to be interrupted than a
 * short one, so the calm ones alone would favour fast) */
#define FC_CPU_CALM_MIN 2

/* p judged again (fc_pairs_judge_alone) at bandwidth bw, its directions
 * scaled alike, and latency lat_us, into *q. */
static void fc_passes_judge_at(const fc_pairs_run_t *run, const fc_pair_t *p, double bw,
                               double lat_us, fc_pair_t *q)
{
    double k = bw / p->bw_gbps;

    *q = *p;
    q->bw_gbps = bw;
    q->lat_us = lat_us;
    for (int d = 0; d < 2; ++d)
        q->dir_gbps[d] = p->dir_gbps[d] * k;
    fc_pairs_judge_alone(run, q);
}

/* Slow alone measurement p, whose side waited for a CPU a share of its
 * time worth looking at (in its exchanges and the gaps before them),
 * judged again by the same limits and references, in two steps:
 *   1. its bandwidth on the exchanges calm on both sides (at least
 *      FC_CPU_CALM_MIN of them; fc_pairs_calm_figure), those not calm
 *      counted against the conclusion: counted the slowest and still not
 *      slow (most exchanges calm and fast), the host's processors held
 *      the others and the pair is not slow (cpu_cleared); counted the
 *      fastest and still slow (most calm and slow), the fabric's, even
 *      where the estimate below would say held. Measured, not estimated;
 *   2. else each part by its times less its side's waits (free_bw_gbps,
 *      free_lat_us; at most FC_CPU_WAIT_MOST_FASTER times better). Still
 *      slow: the fabric's. Not slow: the host's processors held the
 *      exchanges, not the fabric, so p is undecided (cpu_held), never a
 *      confirmation, and says so with both figures. A link slower than
 *      its waits can explain stays slow; one slow by less than what its
 *      side waited reads as held (a spinning rank waits for its core
 *      while the link holds it too): undecided, never a pass.
 * Where a side could not say how long it waited (wait_unknown), its waits
 * say nothing and p stands as measured. */
static void fc_passes_cpu_held(const fc_pairs_run_t *run, fc_pair_t *p)
{
    int bw_look = !p->wait_unknown && p->cpu_wait >= FC_CPU_WAIT_LOOKED_AT;
    int lat_look = !p->wait_unknown && p->lat_cpu_wait >= FC_CPU_WAIT_LOOKED_AT;
    int lat_free = lat_look && p->free_lat_us >= 0 && p->free_lat_us < p->lat_us;
    int bw_calm, bw_free;
    size_t at = strlen(p->reasons[0]);
    /* the round trips are always estimated: step 1 judges the bandwidth
     * beside the latency step 2 would give (a held latency must not keep
     * calm fast exchanges from clearing, nor confirm them) */
    double lat_est = lat_free ? fmax(p->free_lat_us, p->lat_us / FC_CPU_WAIT_MOST_FASTER)
                              : p->lat_us;
    double k;
    fc_pair_t q;

    p->cpu_held = p->cpu_cleared = p->waits_alike = 0;
    p->held_node = -1;
    p->calm_looked = 0;
    if (!p->slow || (!bw_look && !lat_look))
        return;
    p->calm_looked = bw_look;
    bw_calm = 0;
    if (bw_look && p->calm_n >= FC_CPU_CALM_MIN) {     /* 1. its calm exchanges */
        if (p->calm_bw_gbps > 0) {
            fc_passes_judge_at(run, p, p->calm_bw_gbps, lat_est, &q);
            if (!q.slow) {
                p->slow = 0;
                p->undecided = q.undecided;
                p->cpu_cleared = 1;
                for (int d = 0; d < 2; ++d)
                    p->dir_slow[d] = q.dir_slow[d];
                snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; but %s's side "
                         "waited for a CPU %.0f%% of the exchanges' time: on its %d of %d "
                         "exchanges kept that neither side waited in, %.4f GB/s (the others "
                         "counted the slowest), not slow: the host's processors held the "
                         "others, not the fabric", run->node_hosts[p->cpu_wait_node],
                         100 * p->cpu_wait, p->calm_n, p->calm_of, p->calm_bw_gbps);
                return;
            }
        }
        if (p->calm_slow_gbps > 0) {
            fc_passes_judge_at(run, p, p->calm_slow_gbps, lat_est, &q);
            bw_calm = q.slow;
        }
    }
    q = *p;
    bw_free = bw_look && !bw_calm && p->free_bw_gbps > p->bw_gbps;
    if (bw_free) {      /* 2. the estimates, for what step 1 did not measure */
        k = fmin(p->free_bw_gbps / p->bw_gbps, FC_CPU_WAIT_MOST_FASTER);
        q.bw_gbps = p->bw_gbps * k;
        for (int d = 0; d < 2; ++d)
            q.dir_gbps[d] = p->dir_gbps[d] * k;
    }
    q.lat_us = lat_est;
    if (bw_free || lat_free)
        fc_pairs_judge_alone(run, &q);
    if (bw_calm)
        snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; slow too on the %d of "
                 "%d exchanges kept that neither side waited for a CPU in (%.4f GB/s, the "
                 "others counted the fastest): the fabric's", p->calm_n, p->calm_of,
                 p->calm_slow_gbps);
    if ((!bw_free && !lat_free) || q.slow)
        return;
    if (p->held_last) {
        /* measured again and held every time: the waits must single out
         * the side that waited, or they explain nothing; unless both
         * sides waited as much as a hog holds one (two busy hosts) */
        const double *w = bw_free ? p->side_cpu_wait : p->side_lat_cpu_wait;

        if (w[0] >= 0 && w[1] >= 0 && fabs(w[0] - w[1]) < FC_CPU_UNALIKE &&
            fmin(w[0], w[1]) < FC_CPU_HOG_WAIT) {
            p->waits_alike = 1;
            snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; its sides waited "
                     "for a CPU alike (%s %.0f%%, %s %.0f%% of the %s' time), measured "
                     "again and alike again: a wait both sides share does not single out a "
                     "host's CPU, the slowness is the fabric's", run->node_hosts[p->a],
                     100 * w[0], run->node_hosts[p->b], 100 * w[1],
                     bw_free ? "exchanges" : "round trips");
            return;
        }
    }
    p->slow = 0;
    p->undecided = 1;
    p->cpu_held = 1;
    p->held_node = bw_free ? p->cpu_wait_node : p->lat_wait_node;
    for (int d = 0; d < 2; ++d)
        p->dir_slow[d] = q.dir_slow[d];
    snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; but %s's side waited for a "
             "CPU %.0f%% of the exchanges' time (%s's %.0f%% of the round trips'): without "
             "those waits %.4f GB/s, and %.1f us, not slow: the host's processors, not the fabric: "
             "undecided", run->node_hosts[bw_free ? p->cpu_wait_node : p->lat_wait_node],
             100 * (bw_free ? p->cpu_wait : p->lat_cpu_wait),
             run->node_hosts[lat_free ? p->lat_wait_node : p->cpu_wait_node],
             100 * (lat_free ? p->lat_cpu_wait : p->cpu_wait), q.bw_gbps, q.lat_us);
}

/* The thresholds of that judgement, for the records. */
json_t *fc_pairs_cpu_wait_rule_json(void)
{
    return json_pack("{s:f, s:f, s:i, s:f, s:i, s:s, s:f, s:f}", "looked_at_pct",
                     100 * FC_CPU_WAIT_LOOKED_AT, "most_faster", FC_CPU_WAIT_MOST_FASTER,
                     "measured_again_at_most", FC_CPU_HELD_AGAIN, "calm_wait_pct",
                     100 * FC_PAIRS_CALM_WAIT, "calm_at_least", FC_CPU_CALM_MIN,
                     "others_counted", "against the conclusion", "held_again_unalike_pct",
                     100 * FC_CPU_UNALIKE, "held_again_both_over_pct", 100 * FC_CPU_HOG_WAIT);
}

/* The highest reference a slow alone measurement p was judged by (its
 * class's upper median, its nodes' pairs across the spine for a pair
 * inside a rack, the same-rack, two-racks and rack rules'): a control
 * slow against it is no healthy pair, whichever rule found p slow (the
 * class's median is the one two slow links make slow); -1 none. */
static double fc_passes_ref(const fc_pair_t *p)
{
    double ref = p->rel == FC_PAIR_REL_APPLIED ? p->ref : -1;

    if (p->across_ref > 0)
        ref = fmax(ref, p->across_ref);
    if (p->same == FC_PAIR_SAME_APPLIED)
        ref = fmax(ref, p->same_ref);
    if (p->two == FC_PAIR_TWO_APPLIED && p->two_members > 0)
        ref = fmax(ref, p->two_ref);
    if (p->rack_rule_rack >= 0)
        ref = fmax(ref, p->rack_ref);
    return ref;
}

/* Stored measurement m judged at every size by the pass's tolerance:
 * FC_CONFIRM_MEAS_SLOW when slow at any size, else _UNDECIDED when no
 * honest reference judged a size (fc_pairs_judge_alone), else _FAST. Its
 * control, measured right after it, judges the moment: a size slow only
 * by the relative rules (the rounds' references, measured at another
 * moment) within the tolerance of its control is not slow; a size that
 * fails a limit its control fails too is undecided (the limit's failure
 * stands in the pair's record; it singles out nobody). A size still slow
 * is judged again without the time its ranks waited for a CPU
 * (fc_passes_cpu_held). */
static int fc_passes_judge(fc_pairs_run_t *run, int m)
{
    int nz = run->ctx->sp.nsizes, slow = 0, undecided = 0;

    for (int z = 0; z < nz; ++z) {
        fc_pair_t *p = &run->alone[(size_t)m * nz + z];

        fc_pairs_judge_alone(run, p);
        p->control_cleared = 0;
        if (p->slow && p->control >= 0) {
            const fc_pair_t *c = &run->alone[(size_t)p->control * nz + z];
            const fc_pair_t *c_round = fc_pairs_find(run, c->a, c->b, z);
            double pct = p->allowed_pct > 0 ? p->allowed_pct : 0;
            double ref = fc_passes_ref(p);
            int c_fails = (p->limit_bw >= 0 && c->bw_gbps < p->limit_bw) ||
                          (z == 0 && p->limit_lat >= 0 && c->lat_us > p->limit_lat);
            /* a control slow in its own round at this size, by the
             * reference p is judged by, is not a healthy pair: it says
             * nothing of the moment (the rounds' relative rules can pass
             * a slow pair where most of its kind are slow: two slow
             * links, each the other's control) */
            int c_slow_too = c_round != NULL && ref > 0 &&
                             c_round->bw_gbps < ref * (1.0 - pct / 100.0);
            size_t at = strlen(p->reasons[0]);

            if (!p->slow_abs && c_slow_too && c->bw_gbps > 0 &&
                p->bw_gbps >= c->bw_gbps * (1.0 - pct / 100.0)) {
                snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; its control %s "
                         "<-> %s, measured right after it (%.4f GB/s), was slow in its own "
                         "round too (%.4f GB/s against %.4f): not a healthy pair, it does "
                         "not judge the moment", run->node_hosts[c->a], run->node_hosts[c->b],
                         c->bw_gbps, c_round->bw_gbps, ref);
            } else if (!p->slow_abs && c->bw_gbps > 0 &&
                       p->bw_gbps >= c->bw_gbps * (1.0 - pct / 100.0)) {
                p->slow = 0;
                p->control_cleared = 1;
                snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; but within "
                         "%.0f%% of its control %s <-> %s measured right after it (%.4f "
                         "GB/s): the moment's, not the pair's", pct, run->node_hosts[c->a],
                         run->node_hosts[c->b], c->bw_gbps);
            } else if (p->slow_abs && c_fails) {
                /* the limit stands, but the moment failed it for the
                 * control too: nothing singles this pair out */
                p->slow = 0;
                p->undecided = 1;
                p->control_cleared = 2;
                snprintf(p->reasons[0] + at, sizeof(p->reasons[0]) - at, "; its control %s "
                         "<-> %s, measured right after it, fails the limit too (%.4f GB/s, "
                         "%.1f us): undecided, the moment's as much as the pair's",
                         run->node_hosts[c->a], run->node_hosts[c->b], c->bw_gbps, c->lat_us);
            }
        }
        fc_passes_cpu_held(run, p);
        slow |= p->slow;
        undecided |= p->undecided;
    }
    return slow ? FC_CONFIRM_MEAS_SLOW : undecided ? FC_CONFIRM_MEAS_UNDECIDED
                                                   : FC_CONFIRM_MEAS_FAST;
}

/* The stored measurement that replays the pass's measurement number m of
 * x <-> y (the pair's k-th of this pass, k its earlier ones), or -1. A
 * control stored for another pair is not one: it was never judged as a
 * probe (read so, its unset judgement said "fast": a slow node's pair,
 * stored as a control of another slow pair, cleared the node). */
static int fc_passes_replay(const fc_passes_t *ps, int x, int y, int m)
{
    const fc_pairs_run_t *run = ps->run;
    int nz = run->ctx->sp.nsizes, lo = x < y ? x : y, hi = x < y ? y : x, k = 0;

    for (int i = 0; i < m; ++i) {
        const fc_pair_t *p = &run->alone[(size_t)run->alone_of[i] * nz];

        k += p->a == lo && p->b == hi;
    }
    for (int s = 0; s < run->nalone; ++s) {
        const fc_pair_t *p = &run->alone[(size_t)s * nz];

        if (!ps->is_control[s] && p->a == lo && p->b == hi && k-- == 0)
            return s;
    }
    return -1;
}

/* A control for x <-> y: a pair of the rounds that touches neither, whose
 * figure at the first size is nearest the reference ref (the highest when
 * ref < 0), into *q_p and *r_p; 0, or -1 when none. Of its path kind and
 * touching no suspect (ps->suspect: 2) first; then of the other kind;
 * then touching no node every pair of which was slow (1), of its kind and
 * then of the other (the record names the control). A pair judged by the
 * rack rule or the same-rack rule suspects a part of its rack (its uplink,
 * its switch): avoid_rack is that rack, and no control touches it, or the
 * control would share the slow part and clear the pair. */
static int fc_passes_control(const fc_passes_t *ps, int x, int y, double ref, int avoid_rack,
                             int *q_p, int *r_p)
{
    const fc_pairs_run_t *run = ps->run;
    fc_peer_path_t path = fc_peer_pair_path(run->node_racks[x], run->node_racks[y]);
    int found = -1;
    double best = 0;

    for (int level = 0; level < 4 && found < 0; ++level)
        for (int k = 0; k < run->npairs; ++k) {
            const fc_pair_t *q = &run->pairs[k];
            double d = ref >= 0 ? fabs(q->bw_gbps - ref) : -q->bw_gbps;   /* smaller: better */
            int worst = level < 2 ? 1 : 2;  /* suspicion allowed: 0, then 1 */

            if (q->size_index != 0 || q->a == x || q->a == y || q->b == x || q->b == y ||
                (avoid_rack >= 0 && (run->node_racks[q->a] == avoid_rack ||
                                     run->node_racks[q->b] == avoid_rack)) ||
                ps->suspect[q->a] >= worst || ps->suspect[q->b] >= worst ||
                (fc_peer_pair_path(run->node_racks[q->a], run->node_racks[q->b]) == path) ==
                    level % 2)
                continue;
            if (found < 0 || d < best) {
                found = k;
                best = d;
            }
        }
    if (found < 0)
        return -1;
    *q_p = run->pairs[found].a;
    *r_p = run->pairs[found].b;
    return 0;
}

/* Measurement s, slow: measure its control right after it (when the
 * store holds it and the time allows), keep it as s's control, and judge
 * s again. */
static int fc_passes_add_control(fc_passes_t *ps, int s, int judged)
{
    fc_pairs_run_t *run = ps->run;
    int nz = run->ctx->sp.nsizes, q, r, slow_size = 0, avoid = -1;
    const fc_pair_t *p = &run->alone[(size_t)s * nz];
    double ref = p->rel == FC_PAIR_REL_APPLIED ? p->ref : -1;

    for (int z = 0; z < nz; ++z)
        slow_size |= p[z].slow;
    if (p->rack_rule_rack >= 0) {       /* its rack's uplink suspected */
        avoid = p->rack_rule_rack;
        ref = p->rack_ref;
    } else if (p->same == FC_PAIR_SAME_APPLIED) {   /* its rack's switch */
        avoid = run->node_racks[p->a];
        ref = p->same_ref;
    }
    if (judged != FC_CONFIRM_MEAS_SLOW || !slow_size || run->nalone >= ps->capacity ||
        fc_passes_control(ps, p->a, p->b, ref, avoid, &q, &r) != 0 ||
        ps->measure(ps->arg, run, q, r, run->nalone) != 0)
        return judged;
    for (int z = 0; z < nz; ++z) {
        run->alone[(size_t)run->nalone * nz + z].control = -1;
        run->alone[(size_t)s * nz + z].control = run->nalone;
    }
    ps->is_control[run->nalone] = 1;
    run->nalone++;
    return fc_passes_judge(run, s);
}

/* The node whose CPU held stored measurement s at a size (its ranks'
 * waits, not the fabric, made it slow: fc_passes_cpu_held), or -1. */
static int fc_passes_held_by(const fc_pairs_run_t *run, int s)
{
    int nz = run->ctx->sp.nsizes;

    for (int z = 0; z < nz; ++z)
        if (run->alone[(size_t)s * nz + z].cpu_held)
            return run->alone[(size_t)s * nz + z].held_node;
    return -1;
}

/* Stored measurement s of x <-> y, just measured: judged; one a host's
 * CPU held is measured again in its place, up to FC_CPU_HELD_AGAIN times
 * (while the stage's time allows), each after a pause (run's
 * cpu_again_pause_s, doubling: every rank of the stage idle meanwhile, so
 * the scheduler may move the busy process off the pair's cores; measured
 * again at once, a rank sharing a core with a CPU-bound process was held
 * three times running): a measurement its waits do not hold judges the
 * fabric. Each size records how many times and whose CPU held the one
 * replaced. */
static int fc_passes_measured(fc_passes_t *ps, int x, int y, int s)
{
    fc_pairs_run_t *run = ps->run;
    int nz = run->ctx->sp.nsizes, again = 0, held = -1, judged;

    for (;;) {
        for (int z = 0; z < nz; ++z) {
            run->alone[(size_t)s * nz + z].control = -1;
            run->alone[(size_t)s * nz + z].held_last = again > 0;
        }
        judged = fc_passes_judge(run, s);
        for (int z = 0; z < nz; ++z) {
            run->alone[(size_t)s * nz + z].cpu_again = again;
            run->alone[(size_t)s * nz + z].cpu_again_node = held;
        }
        double pause = run->cpu_again_pause_s * (double)(1 << again);

        if (again == FC_CPU_HELD_AGAIN || (held = fc_passes_held_by(run, s)) < 0 ||
            run->confirm_out_of_time ||
            (pause > 0 && run->cpu_again_paused_s + pause >
                              FC_CPU_AGAIN_PAUSE_SHARE * run->ctx->sp.timeout_s))
            return judged;
        fc_quiet_sleep(pause);
        run->cpu_again_paused_s += pause;
        if (ps->measure(ps->arg, run, x, y, s) != 0)
            return judged;
        ++again;
    }
}

/* The confirmation's probe (fc_pairs_probe_func_t): replayed, or measured
 * (with its control when it is slow) and stored. */
static int fc_passes_probe(void *arg, int x, int y)
{
    fc_passes_t *ps = arg;
    fc_pairs_run_t *run = ps->run;
    int m = run->confirm.nmeasures, s = fc_passes_replay(ps, x, y, m);

    if (s >= 0) {
        run->alone_of[m] = s;
        return ps->judged[s];
    }
    if (ps->replay_only || run->nalone >= ps->capacity ||
        ps->measure(ps->arg, run, x, y, run->nalone) != 0) {
        run->confirm.max_measures = run->confirm.nmeasures;     /* no probe starts */
        return FC_CONFIRM_MEAS_UNMEASURED;
    }
    s = run->nalone++;
    run->alone_of[m] = s;
    return ps->judged[s] = fc_passes_add_control(ps, s, fc_passes_measured(ps, x, y, s));
}

static int fc_passes_contradicts(void *arg, int x, int y, int first, int n)
{
    return fc_pairs_alone_contradicts(((fc_passes_t *)arg)->run, x, y, first, n);
}

void fc_pairs_confirm_passes(fc_pairs_run_t *run, int npairs, const int *a, const int *b,
                             const int *slow, int max_measures, fc_pairs_measure_func_t measure,
                             void *arg)
{
    fc_passes_t ps = { run, NULL, 3 * max_measures, 0, measure, arg, NULL, NULL };
    double pct = run->ctx->sp.max_below_median_pct;
    int n = run->nnodes;
    int *pairs_of = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes' pairs");
    int *slow_of = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes' slow pairs");

    /* suspects, never in a control: a node every pair of which was slow,
     * and one most of whose pairs with the others were */
    ps.suspect = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes' suspicion");
    for (int pass = 0; pass < 2; ++pass) {
        memset(pairs_of, 0, (size_t)n * sizeof(int));
        memset(slow_of, 0, (size_t)n * sizeof(int));
        for (int k = 0; k < npairs; ++k) {
            if (pass == 1 && (ps.suspect[a[k]] || ps.suspect[b[k]]))
                continue;
            pairs_of[a[k]]++;
            pairs_of[b[k]]++;
            slow_of[a[k]] += slow[k] != 0;
            slow_of[b[k]] += slow[k] != 0;
        }
        for (int v = 0; v < n; ++v)
            if (pass == 0)
                ps.suspect[v] = pairs_of[v] > 0 && slow_of[v] == pairs_of[v] ? 2 : 0;
            else if (ps.suspect[v] == 0)
                ps.suspect[v] = 2 * slow_of[v] > pairs_of[v];
    }
    free(pairs_of);
    free(slow_of);

    run->alone = fc_xcalloc((size_t)ps.capacity * (size_t)run->ctx->sp.nsizes + 1,
                            sizeof(*run->alone), "the alone measurements");
    run->alone_of = fc_xcalloc((size_t)max_measures + 1, sizeof(int),
                               "the confirmation's measurements");
    ps.judged = fc_xcalloc((size_t)ps.capacity + 1, sizeof(int),
                           "the alone measurements' judgements");
    ps.is_control = fc_xcalloc((size_t)ps.capacity + 1, 1, "the alone measurements' kinds");
    run->nalone = 0;
    run->alone_widened = 0;
    for (int pass = 0; pass < FC_PAIRS_PASSES; ++pass) {
        ps.replay_only = pass == FC_PAIRS_PASSES - 1;
        for (int s = 0; s < run->nalone; ++s)
            ps.judged[s] = fc_passes_judge(run, s);
        fc_pairs_confirm(run->nnodes, run->node_racks, run->ctx->inv.nracks, npairs, a, b,
                         slow, max_measures, fc_passes_probe, fc_passes_contradicts, &ps,
                         &run->confirm);
        run->alone_passes = pass + 1;
        if (pct < 0 || fc_pairs_alone_spread(run) <= fc_confirm_tolerance(
                           pct, run->alone_widened ? run->alone_pct : pct))
            break;
        if (pass + 1 < FC_PAIRS_PASSES)
            fc_pairs_confirm_free(&run->confirm);
        run->alone_widened = 1;
        run->alone_pct = fc_confirm_tolerance(pct, run->alone_spread_pct);
    }
    free(ps.judged);
    free(ps.is_control);
    free(ps.suspect);
}
