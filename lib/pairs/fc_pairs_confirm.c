/*
 * fc_pairs_confirm.c - see fc_pairs_confirm.h. Every probe goes through
 * fc_confirm_probe(), which caches by unordered pair (a pair is never
 * probed twice), takes the measurements the confirmation rule asks for
 * (lib/engine/fc_confirm_rule.h) and enforces the budget in measurements.
 */
#include "fc_pairs_confirm.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

typedef struct fc_confirm_run {
    fc_pairs_confirm_t *c;
    const int *rack, *a, *b, *slow;
    int *slowc;                 /* slow tournament pairs per node */
    int *order;                 /* nodes, least slow first */
    fc_pairs_probe_func_t probe;
    fc_pairs_contradicts_func_t contradicts;
    void *arg;
} fc_confirm_run_t;

const char *fc_pair_verdict_name(fc_pair_verdict_t v)
{
    switch (v) {
    case FC_PAIR_V_OK: return "ok";
    case FC_PAIR_V_NOT_REPRODUCED: return "not_reproduced";
    case FC_PAIR_V_NODE_A: return "node_a";
    case FC_PAIR_V_NODE_B: return "node_b";
    case FC_PAIR_V_UPLINK: return "uplink";
    case FC_PAIR_V_SPINE: return "spine";
    case FC_PAIR_V_PATH: return "path";
    case FC_PAIR_V_UNPLACED: return "unplaced";
    case FC_PAIR_V_UNCONFIRMED: return "unconfirmed";
    case FC_PAIR_V_SWITCH: return "switch";
    case FC_PAIR_V_UNDECIDED: return "undecided";
    }
    return "?";
}

/* One series of alone measurements of pr by the rule (fc_confirm_rule.h):
 * two, a third when they disagree; its decision as a judgement
 * (FC_CONFIRM_MEAS_*). */
static int fc_confirm_series(fc_confirm_run_t *run, fc_pairs_probe_t *pr)
{
    fc_pairs_confirm_t *c = run->c;
    int from = pr->nmeasures;
    fc_confirm_decision_t d;

    do {
        pr->meas[pr->nmeasures++] = run->probe(run->arg, pr->x, pr->y);
        c->nmeasures++;
        d = fc_confirm_decide(pr->meas + from, pr->nmeasures - from);
    } while (d == FC_CONFIRM_MORE && pr->nmeasures - from < FC_CONFIRM_MAX_MEASURES);
    return d == FC_CONFIRM_SLOW ? FC_CONFIRM_MEAS_SLOW :
           d == FC_CONFIRM_CLEARED ? FC_CONFIRM_MEAS_FAST :
           d == FC_CONFIRM_UNDECIDED ? FC_CONFIRM_MEAS_UNDECIDED : FC_CONFIRM_MEAS_UNMEASURED;
}

/* The index of the probe x <-> y, probing it if it was not yet: alone
 * twice, a third time when the two disagree; slow alone where the rounds
 * measured the pair faster (run->contradicts), the same again (a second series: fast, the
 * probe is fast; otherwise it disagrees with the rounds). -1 when its
 * three measurements no longer fit in the budget. */
static int fc_confirm_probe(fc_confirm_run_t *run, int x, int y)
{
    fc_pairs_confirm_t *c = run->c;
    fc_pairs_probe_t *pr;

    for (int i = 0; i < c->nprobes; ++i)
        if ((c->probes[i].x == x && c->probes[i].y == y) ||
            (c->probes[i].x == y && c->probes[i].y == x))
            return i;
    if (c->nmeasures + FC_CONFIRM_MAX_MEASURES > c->max_measures) {
        c->exhausted = 1;
        return -1;
    }
    pr = &c->probes[c->nprobes];
    memset(pr, 0, sizeof(*pr));
    pr->x = x;
    pr->y = y;
    pr->first = c->nmeasures;
    pr->slow = pr->first_slow = fc_confirm_series(run, pr);
    if (pr->slow == FC_CONFIRM_MEAS_SLOW && run->contradicts != NULL &&
        run->contradicts(run->arg, x, y, pr->first, pr->nmeasures)) {
        /* fast in its round, slow alone: the evidence contradicts itself,
         * measured again (when the budget holds it) before it is used */
        pr->again = pr->nmeasures;
        if (c->nmeasures + FC_CONFIRM_MAX_MEASURES > c->max_measures)
            c->exhausted = 1;
        else if (fc_confirm_series(run, pr) == FC_CONFIRM_MEAS_FAST) {
            pr->slow = FC_CONFIRM_MEAS_FAST;
            return c->nprobes++;
        }
        pr->slow = FC_PROBE_DISAGREES;
    }
    return c->nprobes++;
}

static int fc_probe_slow(const fc_pairs_confirm_t *c, int i)
{
    return i >= 0 && c->probes[i].slow == FC_CONFIRM_MEAS_SLOW;
}

static int fc_probe_fast(const fc_pairs_confirm_t *c, int i)
{
    return i >= 0 && c->probes[i].slow == FC_CONFIRM_MEAS_FAST;
}

/* The least slow node that is not in `not` (count entries), not a
 * confirmed bad link, not across a confirmed bad uplink from node `from`
 * (when from >= 0: a probe through that uplink says nothing of either end)
 * and (want_rack >= 0) in rack want_rack or (want_rack < -1) not in rack
 * -want_rack-2; -1 when none. */
static int fc_confirm_pick(const fc_confirm_run_t *run, int from, const int *not,
                           int count, int want_rack)
{
    const fc_pairs_confirm_t *c = run->c;

    for (int i = 0; i < c->n; ++i) {
        int g = run->order[i], skip = c->link[g];

        for (int k = 0; k < count && !skip; ++k)
            skip = not[k] == g;
        if (skip)
            continue;
        if (from >= 0 && run->rack[g] != run->rack[from] &&
            (c->uplink[run->rack[g]] || c->uplink[run->rack[from]]))
            continue;
        if (want_rack >= 0 && run->rack[g] != want_rack)
            continue;
        if (want_rack < -1 && run->rack[g] == -want_rack - 2)
            continue;
        return g;
    }
    return -1;
}

/* Slow tournament pairs of v not yet explained, leaving out those whose
 * other end was slow alone with every partner it was probed with: they
 * are that node's evidence, not v's. */
static int fc_confirm_open(const fc_confirm_run_t *run, int v)
{
    int open = 0;

    for (int k = 0; k < run->c->npairs; ++k) {
        int other = run->a[k] == v ? run->b[k] : run->b[k] == v ? run->a[k] : -1;

        open += other >= 0 && run->slow[k] && run->c->verdict[k] == FC_PAIR_V_UNCONFIRMED &&
                !run->c->slow_all[other];
    }
    return open;
}

static void fc_confirm_order(fc_confirm_run_t *run)
{
    int n = run->c->n;

    for (int i = 0; i < n; ++i)
        run->order[i] = i;
    for (int i = 1; i < n; ++i)         /* insertion sort: stable, small n */
        for (int j = i; j > 0 && run->slowc[run->order[j]] < run->slowc[run->order[j - 1]]; --j) {
            int t = run->order[j];

            run->order[j] = run->order[j - 1];
            run->order[j - 1] = t;
        }
}

static int fc_rack_nodes(const fc_confirm_run_t *run, int r)
{
    int nodes = 0;

    for (int v = 0; v < run->c->n; ++v)
        nodes += run->rack[v] == r;
    return nodes;
}

/* A node to vouch for w, the partner across the spine of rack r's uplink
 * test: with three racks or more, one in neither r nor w's rack (so w's
 * link and w's rack's uplink are both shown good); with two, one in w's
 * rack (its link alone: the uplinks are in series anyway). Not across a
 * confirmed uplink from w, not a confirmed link; -1 when none. */
static int fc_confirm_uplink_voucher(const fc_confirm_run_t *run, int w, int r, int u)
{
    const fc_pairs_confirm_t *c = run->c;

    for (int i = 0; i < c->n; ++i) {
        int h = run->order[i], rh = run->rack[h];

        if (h == w || h == u || c->link[h] || rh == r)
            continue;
        if (c->nracks >= 3 ? rh == run->rack[w] : rh != run->rack[w])
            continue;
        if (rh != run->rack[w] && (c->uplink[rh] || c->uplink[run->rack[w]]))
            continue;
        return h;
    }
    return -1;
}

/* Step 1: rack uplinks. A rack R (two nodes or more) whose every pair to
 * another rack was slow is confirmed alone: one of its nodes slow with a
 * node outside it that is itself shown good (fast with a third rack's
 * node), and fast with one of its own (so a slow pair inside R in its
 * round, noise, does not hide the uplink, and a bad node outside R does
 * not pass for R's uplink). Two partners outside are tried. With two
 * racks in all the two uplinks (and, when the other rack has one node,
 * that node's link) are in series and cannot be told apart: both racks
 * are marked, as the spine between them. */
static void fc_confirm_uplinks(fc_confirm_run_t *run)
{
    fc_pairs_confirm_t *c = run->c;

    if (c->nracks < 2)
        return;
    for (int r = 0; r < c->nracks; ++r) {
        int cross = 0, cross_slow = 0, nodes = fc_rack_nodes(run, r), tried[2], ntried = 0;

        for (int k = 0; k < c->npairs; ++k) {
            int ia = run->rack[run->a[k]] == r, ib = run->rack[run->b[k]] == r;

            if (ia != ib) {
                ++cross;
                cross_slow += run->slow[k];
            }
        }
        if (nodes < 2 || cross < 2 || cross_slow != cross || c->uplink[r])
            continue;
        int u = fc_confirm_pick(run, -1, NULL, 0, r);
        int u2 = u < 0 ? -1 : fc_confirm_pick(run, -1, &u, 1, r);

        while (u2 >= 0 && ntried < 2) {
            int w = fc_confirm_pick(run, u, tried, ntried, -r - 2), h;

            if (w < 0)
                break;
            tried[ntried++] = w;
            c->uplink_probe[r][0] = fc_confirm_probe(run, u, w);
            if (!fc_probe_slow(c, c->uplink_probe[r][0]))
                break;          /* fast alone (or unmeasured): no uplink fault */
            /* two racks, w alone in its own: w's link is in series with
             * the uplinks, said so as the spine between them */
            if (c->nracks > 2 || fc_rack_nodes(run, run->rack[w]) > 1) {
                if ((h = fc_confirm_uplink_voucher(run, w, r, u)) < 0)
                    continue;
                c->uplink_probe[r][2] = fc_confirm_probe(run, w, h);
                if (!fc_probe_fast(c, c->uplink_probe[r][2]))
                    continue;   /* w is suspect itself: another partner */
            }
            c->uplink_probe[r][1] = fc_confirm_probe(run, u, u2);
            c->uplink[r] = fc_probe_fast(c, c->uplink_probe[r][1]);
            break;
        }
        if (c->uplink[r] && c->nracks == 2) {
            int other = 1 - r;

            c->uplink[other] = 1;
            c->spine_pair = 1;
            memcpy(c->uplink_probe[other], c->uplink_probe[r], sizeof(c->uplink_probe[r]));
        }
    }
    for (int k = 0; k < c->npairs; ++k) {
        int ra = run->rack[run->a[k]], rb = run->rack[run->b[k]];

        if (run->slow[k] && ra != rb && (c->uplink[ra] || c->uplink[rb]) &&
            c->verdict[k] == FC_PAIR_V_UNCONFIRMED)
            c->verdict[k] = FC_PAIR_V_UPLINK;
    }
}

/* Step 2b, after the nodes: two racks A and B of two nodes or more whose
 * every pair between them is slow and still unexplained, a node of each
 * fast with one of its own rack, and slow with each other alone: the
 * spine between them (A's uplink or B's), when no third rack's node was
 * there to tell which (its only nodes were themselves slow, say). */
static void fc_confirm_spines(fc_confirm_run_t *run)
{
    fc_pairs_confirm_t *c = run->c;

    for (int ra = 0; ra < c->nracks; ++ra)
        for (int rb = ra + 1; rb < c->nracks; ++rb) {
            int between = 0, open = 1, u, u2, w, w2, p[3];

            for (int k = 0; k < c->npairs && open; ++k) {
                int a = run->rack[run->a[k]], b = run->rack[run->b[k]];

                if ((a == ra && b == rb) || (a == rb && b == ra)) {
                    ++between;
                    open = run->slow[k] && c->verdict[k] == FC_PAIR_V_UNCONFIRMED;
                }
            }
            if (!open || between < 2 || c->uplink[ra] || c->uplink[rb])
                continue;
            u = fc_confirm_pick(run, -1, NULL, 0, ra);
            u2 = u < 0 ? -1 : fc_confirm_pick(run, -1, &u, 1, ra);
            w = fc_confirm_pick(run, -1, NULL, 0, rb);
            w2 = w < 0 ? -1 : fc_confirm_pick(run, -1, &w, 1, rb);
            if (u2 < 0 || w2 < 0)
                continue;
            if (!fc_probe_slow(c, p[0] = fc_confirm_probe(run, u, w)) ||
                !fc_probe_fast(c, p[1] = fc_confirm_probe(run, u, u2)) ||
                !fc_probe_fast(c, p[2] = fc_confirm_probe(run, w, w2)))
                continue;
            for (int k = 0; k < c->npairs; ++k) {
                int a = run->rack[run->a[k]], b = run->rack[run->b[k]];

                if ((a == ra && b == rb) || (a == rb && b == ra)) {
                    c->verdict[k] = FC_PAIR_V_SPINE;
                    memcpy(c->spine_probe[k], p, sizeof(p));
                }
            }
        }
}

/* Step 2 for node v: slow alone with every known-good partner? The
 * FC_CONFIRM_PARTNERS partners (one in its own rack, one across the
 * spine) are probed until one is fast; where one was undecided (no
 * evidence either way) and the other slow, a partner of the same kind
 * (its own rack, or across) is probed in its place, FC_CONFIRM_PARTNER_TRIES
 * in all: an undecided probe inside the rack is never made up for by
 * one across, or a slow uplink would read as v's link. Confirmed by
 * FC_CONFIRM_PARTNERS slow probes, each partner vouched for. */
static void fc_confirm_node(fc_confirm_run_t *run, int v)
{
    fc_pairs_confirm_t *c = run->c;
    int partners[FC_CONFIRM_PARTNER_TRIES], np = 0, nslow = 0, stop = 0, undecided = -1;

    c->probed[v] = 1;
    partners[np] = fc_confirm_pick(run, v, &v, 1, run->rack[v]);       /* own rack */
    np += partners[np] >= 0;
    partners[np] = fc_confirm_pick(run, v, &v, 1, -run->rack[v] - 2);  /* across */
    np += partners[np] >= 0;
    while (np < FC_CONFIRM_PARTNERS) {
        int not[FC_CONFIRM_PARTNERS + 1] = { v };
        int g;

        memcpy(not + 1, partners, (size_t)np * sizeof(int));
        if ((g = fc_confirm_pick(run, v, not, np + 1, -1)) < 0)
            break;
        partners[np++] = g;
    }
    c->alone_in_rack[v] = 1;      /* a replacement is of the same kind */
    for (int k = 0; k < np; ++k)
        if (run->rack[partners[k]] == run->rack[v])
            c->alone_in_rack[v] = 0;
    /* every partner, until one is fast (v cleared): a probe that
     * disagrees with the rounds neither stops nor confirms, and is not
     * replaced (the dispute stands) */
    for (int k = 0; k < np; ++k) {
        int i = c->partner_probe[v][k] = fc_confirm_probe(run, v, partners[k]);

        if (fc_probe_fast(c, i))
            return;
        nslow += fc_probe_slow(c, i);
        if (i >= 0 && c->probes[i].slow == FC_CONFIRM_MEAS_UNDECIDED)
            undecided = undecided < 0 ? k : undecided;
        else
            stop |= !fc_probe_slow(c, i);
    }
    if (!stop && undecided >= 0 && nslow + 1 == FC_CONFIRM_PARTNERS &&
        np < FC_CONFIRM_PARTNER_TRIES) {
        int u = partners[undecided], not[FC_CONFIRM_PARTNER_TRIES + 1] = { v };
        int g, i;

        memcpy(not + 1, partners, (size_t)np * sizeof(int));
        g = fc_confirm_pick(run, v, not, np + 1, run->rack[u] == run->rack[v]
                            ? run->rack[v] : -run->rack[v] - 2);
        if (g >= 0) {
            partners[np] = g;
            i = c->partner_probe[v][np] = fc_confirm_probe(run, v, g);
            ++np;
            if (fc_probe_fast(c, i))
                return;
            nslow += fc_probe_slow(c, i);
        }
    }
    if (stop || nslow < FC_CONFIRM_PARTNERS)
        return;
    c->slow_all[v] = 1;
    /* each partner it was slow with known good: fast alone with a third
     * node (a second one tried when the first probe was slow: one noisy
     * probe, or a third node that is slow itself, does not unvouch a good
     * partner) */
    for (int k = 0; k < np; ++k) {
        int not[3] = { v, partners[k], -1 };

        if (!fc_probe_slow(c, c->partner_probe[v][k]))
            continue;
        for (int tries = 0; tries < 2; ++tries) {
            int h = fc_confirm_pick(run, partners[k], not, 2 + tries, -1);

            c->vouch_probe[v][k] = h < 0 ? -1 : fc_confirm_probe(run, partners[k], h);
            if (h < 0 || fc_probe_fast(c, c->vouch_probe[v][k]))
                break;
            not[2] = h;
        }
        if (!fc_probe_fast(c, c->vouch_probe[v][k]))
            return;
    }
    c->link[v] = 1;
    for (int k = 0; k < c->npairs; ++k)
        if (run->slow[k] && c->verdict[k] == FC_PAIR_V_UNCONFIRMED &&
            (run->a[k] == v || run->b[k] == v))
            c->verdict[k] = run->a[k] == v ? FC_PAIR_V_NODE_A : FC_PAIR_V_NODE_B;
}

/* Node v was fast alone with one of its partners at least: its own link
 * is not what slows a pair of it. */
int fc_confirm_clear(const fc_pairs_confirm_t *c, int v)
{
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k)
        if (fc_probe_fast(c, c->partner_probe[v][k]))
            return 1;
    return 0;
}

int fc_confirm_clear_toward(const fc_pairs_confirm_t *c, const int *rack, int x, int y)
{
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k) {
        int i = c->partner_probe[x][k];
        int partner = i < 0 ? -1 : c->probes[i].x == x ? c->probes[i].y : c->probes[i].x;

        if (fc_probe_fast(c, i) && (rack[y] == rack[x] || rack[partner] != rack[x]))
            return 1;
    }
    return 0;
}

int fc_confirm_disputed(const fc_pairs_confirm_t *c, int v)
{
    if (!c->probed[v] || c->link[v] || fc_confirm_clear(c, v))
        return -1;
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k) {
        int i = c->partner_probe[v][k], j = c->vouch_probe[v][k];

        if (i >= 0 && c->probes[i].slow == FC_PROBE_DISAGREES)
            return i;
        if (j >= 0 && c->probes[j].slow == FC_PROBE_DISAGREES)
            return j;
    }
    return -1;
}

/* A probe of v fast alone with a node outside rack r, or -1. */
static int fc_confirm_fast_outside(const fc_confirm_run_t *run, int v, int r)
{
    const fc_pairs_confirm_t *c = run->c;

    for (int i = 0; i < c->nprobes; ++i) {
        const fc_pairs_probe_t *pr = &c->probes[i];
        int other = pr->x == v ? pr->y : pr->y == v ? pr->x : -1;

        if (other >= 0 && run->rack[other] != r && pr->slow == 0)
            return i;
    }
    return -1;
}

/* Step 4: rack r's switch. Every pair inside r (three nodes or more) was
 * slow in its round and slow alone (step 3 made it a path or left it
 * unplaced: no confirmed link explains it); each node of r is then shown
 * fast alone with a node outside r, from the probes made so far or one
 * more (the least slow node outside r: a fast probe shows both ends and
 * what lies between good, no vouching needed). All shown: the switch, and
 * the pairs inside are its. Otherwise the first node not shown is kept in
 * tor_unshown (its link, or the whole rack, is slow too: the switch is
 * not told apart). */
static void fc_confirm_switches(fc_confirm_run_t *run)
{
    fc_pairs_confirm_t *c = run->c;

    for (int r = 0; r < c->nracks; ++r) {
        int inside = 0, all_slow = 1;

        if (fc_rack_nodes(run, r) < 3)
            continue;
        for (int k = 0; k < c->npairs; ++k) {
            if (run->rack[run->a[k]] != r || run->rack[run->b[k]] != r)
                continue;
            ++inside;
            all_slow &= run->slow[k] && (c->verdict[k] == FC_PAIR_V_PATH ||
                                         c->verdict[k] == FC_PAIR_V_UNPLACED);
        }
        if (inside == 0 || !all_slow)
            continue;
        for (int v = 0; v < c->n && c->tor_unshown[r] < 0; ++v) {
            if (run->rack[v] != r)
                continue;
            if ((c->outside_probe[v] = fc_confirm_fast_outside(run, v, r)) < 0) {
                int w = fc_confirm_pick(run, v, &v, 1, -r - 2);

                if (w >= 0 && fc_probe_fast(c, fc_confirm_probe(run, v, w)))
                    c->outside_probe[v] = fc_confirm_fast_outside(run, v, r);
            }
            if (c->outside_probe[v] < 0)
                c->tor_unshown[r] = v;
        }
        if (c->tor_unshown[r] >= 0)
            continue;
        c->tor[r] = 1;
        for (int k = 0; k < c->npairs; ++k)
            if (run->rack[run->a[k]] == r && run->rack[run->b[k]] == r)
                c->verdict[k] = FC_PAIR_V_SWITCH;
    }
}

static void fc_confirm_alloc(int n, int nracks, int npairs, int max_measures,
                             fc_pairs_confirm_t *c)
{
    memset(c, 0, sizeof(*c));
    c->n = n;
    c->nracks = nracks;
    c->npairs = npairs;
    c->max_measures = max_measures;
    c->probes = fc_xcalloc((size_t)max_measures / FC_CONFIRM_MIN_MEASURES + 1,
                           sizeof(*c->probes), "the alone probes");
    c->link = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes' confirmed links");
    c->alone_in_rack = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes alone in a rack");
    c->probed = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes probed");
    c->slow_all = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes slow with every partner");
    c->partner_probe = fc_xcalloc((size_t)n + 1, sizeof(*c->partner_probe),
                                  "the nodes' partner probes");
    c->vouch_probe = fc_xcalloc((size_t)n + 1, sizeof(*c->vouch_probe),
                                "the nodes' vouching probes");
    c->uplink = fc_xcalloc((size_t)nracks + 1, sizeof(int), "the racks' confirmed uplinks");
    c->uplink_probe = fc_xcalloc((size_t)nracks + 1, sizeof(*c->uplink_probe),
                                 "the racks' uplink probes");
    c->tor = fc_xcalloc((size_t)nracks + 1, sizeof(int), "the racks' confirmed switches");
    c->tor_unshown = fc_xcalloc((size_t)nracks + 1, sizeof(int),
                                "the racks' nodes not shown fast outside");
    c->outside_probe = fc_xcalloc((size_t)n + 1, sizeof(int),
                                  "the nodes' probes outside their rack");
    c->verdict = fc_xcalloc((size_t)npairs + 1, sizeof(*c->verdict), "the pairs' verdicts");
    c->alone_probe = fc_xcalloc((size_t)npairs + 1, sizeof(int), "the pairs' alone probes");
    c->spine_probe = fc_xcalloc((size_t)npairs + 1, sizeof(*c->spine_probe),
                                "the pairs' spine probes");
    for (int v = 0; v < n; ++v) {
        for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k)
            c->partner_probe[v][k] = c->vouch_probe[v][k] = -1;
        c->outside_probe[v] = -1;
    }
    for (int r = 0; r < nracks; ++r) {
        c->uplink_probe[r][0] = c->uplink_probe[r][1] = c->uplink_probe[r][2] = -1;
        c->tor_unshown[r] = -1;
    }
    for (int k = 0; k < npairs; ++k)
        c->alone_probe[k] = c->spine_probe[k][0] = c->spine_probe[k][1] =
            c->spine_probe[k][2] = -1;
}

/* The node at an end of every pair judged a path, when there are two or
 * more: a link that was slow in those pairs and fast in its own probes
 * (a lossy link drops now and then) is a likelier fault than two paths. */
static void fc_confirm_common(fc_pairs_confirm_t *c, int npairs, const int *a, const int *b)
{
    int npaths = 0, cand[2] = { -1, -1 };

    c->common_node = -1;
    for (int k = 0; k < npairs; ++k) {
        if (c->verdict[k] != FC_PAIR_V_PATH)
            continue;
        if (npaths++ == 0) {
            cand[0] = a[k];
            cand[1] = b[k];
            continue;
        }
        for (int i = 0; i < 2; ++i)
            if (cand[i] != a[k] && cand[i] != b[k])
                cand[i] = -1;
    }
    if (npaths >= 2)
        c->common_node = cand[0] >= 0 ? cand[0] : cand[1];
}

void fc_pairs_confirm(int n, const int *rack, int nracks, int npairs, const int *a,
                      const int *b, const int *slow, int max_measures,
                      fc_pairs_probe_func_t probe, fc_pairs_contradicts_func_t contradicts,
                      void *arg, fc_pairs_confirm_t *c)
{
    fc_confirm_run_t run = { c, rack, a, b, slow, NULL, NULL, probe, contradicts, arg };

    fc_confirm_alloc(n, nracks, npairs, max_measures < 0 ? 0 : max_measures, c);
    run.slowc = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes' slow pairs");
    run.order = fc_xcalloc((size_t)n + 1, sizeof(int), "the nodes' order");
    for (int k = 0; k < npairs; ++k) {
        c->verdict[k] = slow[k] ? FC_PAIR_V_UNCONFIRMED : FC_PAIR_V_OK;
        run.slowc[a[k]] += slow[k] != 0;
        run.slowc[b[k]] += slow[k] != 0;
    }
    fc_confirm_order(&run);
    fc_confirm_uplinks(&run);
    /* step 2: the node with the most open suspicion first, counted again
     * after each (ties: the most slow in the rounds), so the culprit
     * explains its partners' pairs before they make a suspect of them */
    for (;;) {
        int v = -1, most = 0;

        for (int i = n - 1; i >= 0; --i) {
            int w = run.order[i], open = c->probed[w] ? 0 : fc_confirm_open(&run, w);

            if (open > most) {
                most = open;
                v = w;
            }
        }
        if (v < 0)
            break;
        fc_confirm_node(&run, v);
    }
    /* step 2b: uplinks again, with the nodes confirmed since set aside
     * as partners and vouchers; then the spine between two racks */
    fc_confirm_uplinks(&run);
    fc_confirm_spines(&run);
    /* step 3: what is left, alone */
    for (int k = 0; k < npairs; ++k) {
        if (c->verdict[k] != FC_PAIR_V_UNCONFIRMED)
            continue;
        c->alone_probe[k] = fc_confirm_probe(&run, a[k], b[k]);
        if (fc_probe_slow(c, c->alone_probe[k]))
            c->verdict[k] = fc_confirm_clear(c, a[k]) && fc_confirm_clear(c, b[k])
                            ? FC_PAIR_V_PATH : FC_PAIR_V_UNPLACED;
        else if (fc_probe_fast(c, c->alone_probe[k]))
            c->verdict[k] = FC_PAIR_V_NOT_REPRODUCED;
        else if (c->alone_probe[k] >= 0 &&
                 c->probes[c->alone_probe[k]].slow == FC_CONFIRM_MEAS_UNDECIDED)
            c->verdict[k] = FC_PAIR_V_UNDECIDED;
    }
    /* step 4: a rack whose pairs inside are all slow alone */
    fc_confirm_switches(&run);
    fc_confirm_common(c, npairs, a, b);
    free(run.slowc);
    free(run.order);
}

void fc_pairs_confirm_free(fc_pairs_confirm_t *c)
{
    free(c->probes);
    free(c->link);
    free(c->alone_in_rack);
    free(c->probed);
    free(c->slow_all);
    free(c->partner_probe);
    free(c->vouch_probe);
    free(c->uplink);
    free(c->uplink_probe);
    free(c->verdict);
    free(c->alone_probe);
    free(c->spine_probe);
    free(c->tor);
    free(c->tor_unshown);
    free(c->outside_probe);
}
