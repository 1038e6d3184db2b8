/*
 * fc_retest_slow.c - the retest's judgement of a confirmed slowness (see
 * fc_retest_records.h; rank 0 of suites/retest.c, no MPI here): which
 * unit, if any, it is placed on. A group whose collective was slow, alone
 * and again, is the group's fault until the retest places it on a unit (a
 * host, or a rank on a one-host job):
 *
 *   1. point to point: every exchange of the retest's tournament is timed
 *      (the median of its buffers); an exchange is slow when it took more
 *      than FC_SLOW_FACTOR times the lower quartile of them all. A unit (a rank, else
 *      a host) whose fastest exchange is that much slower than the others'
 *      stands apart and is placed: its NIC, its link or its own progress
 *      is slow. Once placed its exchanges leave the others' reference, so
 *      a second slow unit stands apart too (each is placed, with its own
 *      record); more than half the units standing apart is the group's
 *      slowness, not theirs;
 *   2. leave one out: the observed collective, checked and timed, among
 *      all the units but one, for each unit in turn. When the run without
 *      unit X is at least FC_SLOW_FACTOR times faster than every other
 *      run without one, X is what makes the collective slow (a slowness
 *      that follows the collective, not the point-to-point traffic); this
 *      needs three units or more (with two, each run is one host alone).
 *
 * When both place units the leave-one-out's must be among the point to
 * point's (every unit placed then has a record). Otherwise the slowness is the
 * group's as a whole (its switch, its uplinks, or more than one node):
 * every rack of the group fails and nobody is quarantined. The records
 * that say so, with every figure that decided, are written by
 * lib/retest/fc_retest_slow_records.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

#include "fc_retest_slow.h"

int fc_retest_group_is_slow(json_t *group)
{
    const char *k = json_string_value(json_object_get(group, "kind"));

    return k != NULL && strcmp(k, "slow") == 0;
}

static int fc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

const char *fc_slow_unit(const fc_slow_t *s, int u)
{
    return u >= 0 && u < s->nunits ? s->unit_names[u] : "?";
}

const char *fc_slow_rack(const fc_slow_t *s, const char *host)
{
    const char *r = json_string_value(json_object_get(
        json_object_get(s->in->groups, "host_racks"), host));

    return r ? r : "";
}

/* Units are the leave-one-out's (in->unit): ranks on a one-host job, else
 * hosts; named "rank 3" or by the host. */
static void fc_slow_setup(const fc_retest_input_t *in, fc_slow_t *s)
{
    memset(s, 0, sizeof(*s));
    s->in = in;
    s->loo_unit = s->loo_rank = -1;
    s->nunits = in->nunits;
    s->one_host = 1;
    for (int r = 1; r < in->nranks; ++r)
        s->one_host &= strcmp(in->rank_hosts[r], in->rank_hosts[0]) == 0;
    s->unit_of = fc_xcalloc((size_t)in->nranks + 1, sizeof(int), "the ranks' units");
    s->unit_names = fc_xcalloc((size_t)in->nunits + 1, sizeof(*s->unit_names),
                               "the units' names");
    for (int r = 0; r < in->nranks; ++r) {
        int u = in->unit ? in->unit[r] : r;

        s->unit_of[r] = u;
        if (u >= 0 && u < in->nunits && !s->unit_names[u][0]) {
            if (s->one_host)
                snprintf(s->unit_names[u], sizeof(s->unit_names[u]), "rank %d", r);
            else
                snprintf(s->unit_names[u], sizeof(s->unit_names[u]), "%s", in->rank_hosts[r]);
        }
    }
    for (int r = 0; r < in->nranks; ++r) {
        int first = 1;

        for (int q = 0; q < r && first; ++q)
            first = strcmp(fc_slow_rack(s, in->rank_hosts[q]),
                           fc_slow_rack(s, in->rank_hosts[r])) != 0;
        s->nracks += first;
    }
}

const char *fc_slow_host_of(const fc_slow_t *s, int u)
{
    for (int r = 0; r < s->in->nranks; ++r)
        if (s->unit_of[r] == u)
            return s->in->rank_hosts[r];
    return "";
}

int fc_slow_alone_in_rack(const fc_slow_t *s, int u)
{
    const char *host = NULL, *rack;

    for (int r = 0; r < s->in->nranks && host == NULL; ++r)
        if (s->unit_of[r] == u)
            host = s->in->rank_hosts[r];
    if (host == NULL || s->one_host)
        return 0;
    rack = fc_slow_rack(s, host);
    for (int r = 0; r < s->in->nranks; ++r)
        if (strcmp(s->in->rank_hosts[r], host) != 0 &&
            strcmp(fc_slow_rack(s, s->in->rank_hosts[r]), rack) == 0)
            return 0;
    return rack[0] != '\0';
}

int fc_slow_exchange(const fc_slow_t *s, const fc_exchange_t *e)
{
    return e->seconds > FC_SLOW_FACTOR * s->ref_ex;
}

int fc_slow_valid(const fc_exchange_t *e)
{
    return e->iters > 0 && e->sender >= 0;
}

/* Does x stand apart? by_host: x is a unit (host) and only exchanges off
 * it count; else x is a rank and every exchange counts. An exchange with
 * a rank already placed (placed[rank]) is explained by that rank and says
 * nothing of x. x stands apart when it has two exchanges or more left,
 * and the fastest of them is at least FC_SLOW_FACTOR times slower than
 * the median of the exchanges that touch neither it nor a placed rank
 * (a rank's exchanges with a placed rank of its own host count):
 * exchanges slowed by a busy machine elsewhere, or by a second slow unit,
 * do not hide it while they are fewer than half the others, and one slow
 * exchange of its own does not make it. */
static int fc_slow_explains(const fc_slow_t *s, int x, int by_host, const int *placed)
{
    const fc_retest_input_t *in = s->in;
    double *rest = fc_xcalloc((size_t)in->nexchanges + 1, sizeof(double),
                              "the other exchanges' times");
    double fastest = -1;
    int mine = 0, mine_on_host = 0, nrest = 0, apart = 0;

    for (int i = 0; i < in->nexchanges; ++i) {
        const fc_exchange_t *e = &in->exchanges[i];
        int off, touches, partner;

        if (!fc_slow_valid(e))
            continue;
        off = s->unit_of[e->sender] != s->unit_of[e->receiver];
        if (by_host && !off)
            continue;
        touches = by_host ? s->unit_of[e->sender] == x || s->unit_of[e->receiver] == x
                          : e->sender == x || e->receiver == x;
        if (touches) {
            partner = (by_host ? s->unit_of[e->sender] == x : e->sender == x) ? e->receiver
                                                                              : e->sender;
            /* (a rank's exchange with a placed rank of its own host still
             * counts: both ranks of a starved host are each slow with it) */
            if (placed[partner] && (by_host || s->unit_of[partner] != s->unit_of[x]))
                continue;
            ++mine;
            mine_on_host += strcmp(in->rank_hosts[e->sender], in->rank_hosts[e->receiver]) == 0;
            fastest = fastest < 0 || e->seconds < fastest ? e->seconds : fastest;
        } else if (!placed[e->sender] && !placed[e->receiver]) {
            rest[nrest++] = e->seconds;
        }
    }
    /* a rank is placed on its own only when it is slow with a partner on
     * its own host too: slow with remote partners alone is its host's
     * NIC or link, judged by host */
    if (mine >= 2 && nrest > 0 && (by_host || mine_on_host > 0)) {
        qsort(rest, (size_t)nrest, sizeof(*rest), fc_cmp);
        apart = fastest >= FC_SLOW_FACTOR * rest[nrest / 2];
    }
    free(rest);
    return apart;
}

int fc_slow_p2p_index(const fc_slow_t *s, int u)
{
    for (int k = 0; k < s->np2p; ++k)
        if (s->p2p_units[k] == u)
            return k;
    return -1;
}

static void fc_slow_p2p_add(fc_slow_t *s, int u, int rank, int *placed)
{
    int k = fc_slow_p2p_index(s, u);

    if (k >= 0) {
        s->p2p_ranks[k] = -1;   /* a second rank of the host: the host */
    } else if (s->np2p < FC_SLOW_MAX_PLACED) {
        s->p2p_units[s->np2p] = u;
        s->p2p_ranks[s->np2p++] = rank;
    }
    for (int r = 0; r < s->in->nranks; ++r)
        if (rank >= 0 ? r == rank : s->unit_of[r] == u)
            placed[r] = 1;
}

/* One round of placing: the ranks (by_host: the hosts) not placed yet
 * that stand apart are the candidates; each is placed that still stands
 * apart with every other candidate counted as placed too, so that its
 * slowness is its own and not a candidate partner's: a healthy host whose
 * slow exchanges are all with the slow one is not placed, whatever the
 * order; two candidates whose exchanges are only each other's are
 * neither. Returns how many were placed. */
static int fc_slow_place_round(fc_slow_t *s, int by_host, int *placed)
{
    const fc_retest_input_t *in = s->in;
    int n = by_host ? s->nunits : in->nranks, added = 0;
    int *cand = fc_xcalloc((size_t)n + 1, sizeof(int), "the candidates");
    int *keep = fc_xcalloc((size_t)n + 1, sizeof(int), "the candidates kept");
    int *trial = fc_xcalloc((size_t)in->nranks + 1, sizeof(int), "the ranks counted placed");

    for (int x = 0; x < n; ++x)
        cand[x] = !(by_host ? fc_slow_p2p_index(s, x) >= 0 : placed[x]) &&
                  fc_slow_explains(s, x, by_host, placed);
    for (int x = 0; x < n; ++x) {
        if (!cand[x])
            continue;
        for (int r = 0; r < in->nranks; ++r)
            trial[r] = placed[r] || (by_host ? s->unit_of[r] != x && cand[s->unit_of[r]]
                                             : r != x && cand[r]);
        keep[x] = fc_slow_explains(s, x, by_host, trial);
    }
    for (int x = 0; x < n; ++x)
        if (keep[x]) {
            fc_slow_p2p_add(s, by_host ? x : s->unit_of[x], by_host ? -1 : x, placed);
            ++added;
        }
    free(cand);
    free(keep);
    free(trial);
    return added;
}

/* Step 1: ranks slow with every partner (their own progress), then hosts
 * slow with every partner off them (their NIC or link), each standing
 * apart from the exchanges of the units not placed; repeated until no
 * other one does. More than half the units placed: none is. */
static void fc_slow_p2p(fc_slow_t *s)
{
    const fc_retest_input_t *in = s->in;
    double *t = fc_xcalloc((size_t)in->nexchanges + 1, sizeof(double), "the exchanges' times");
    int *placed = fc_xcalloc((size_t)in->nranks + 1, sizeof(int), "the ranks placed");
    int n = 0, more = 1;

    for (int i = 0; i < in->nexchanges; ++i)
        if (fc_slow_valid(&in->exchanges[i]))
            t[n++] = in->exchanges[i].seconds;
    s->p2p_total = n;
    if (n > 0) {
        qsort(t, (size_t)n, sizeof(*t), fc_cmp);
        s->ref_ex = t[(n - 1) / 4];     /* most may be slow: two bad hosts of six
                                         * touch 55% of the exchanges */
    }
    for (int i = 0; i < in->nexchanges; ++i)
        s->p2p_slow += fc_slow_valid(&in->exchanges[i]) && fc_slow_exchange(s, &in->exchanges[i]);
    if (n == 0 || s->p2p_slow == 0)
        goto out;
    while (fc_slow_place_round(s, 0, placed) > 0)
        ;
    for (more = !s->one_host; more;)
        more = fc_slow_place_round(s, 1, placed) > 0;
    if (2 * s->np2p > s->nunits) {
        s->np2p_refused = s->np2p;
        s->np2p = 0;
    }
out:
    free(t);
    free(placed);
}

int fc_retest_loo_fastest(const double *seconds, int n, double *best_p, double *rest_min_p,
                          double *rest_max_p)
{
    int best = -1;
    double rest_min = 1e300, rest_max = 0;

    if (seconds == NULL || n < 3)
        return -1;
    for (int u = 0; u < n; ++u)
        if (seconds[u] > 0 && (best < 0 || seconds[u] < seconds[best]))
            best = u;
    if (best < 0)
        return -1;
    for (int u = 0; u < n; ++u) {
        if (u == best)
            continue;
        if (seconds[u] <= 0)
            return -1;          /* a run that did not time: cannot judge */
        rest_min = seconds[u] < rest_min ? seconds[u] : rest_min;
        rest_max = seconds[u] > rest_max ? seconds[u] : rest_max;
    }
    if (best_p) {
        *best_p = seconds[best];
        *rest_min_p = rest_min;
        *rest_max_p = rest_max;
    }
    return seconds[best] * FC_SLOW_FACTOR <= rest_min ? best : -1;
}

/* Step 2: the one leave-one-out run that is fast; then, on a unit of
 * several ranks, the one rank whose absence alone makes it fast. */
static void fc_slow_loo(fc_slow_t *s)
{
    const fc_retest_input_t *in = s->in;

    s->loo_unit = fc_retest_loo_fastest(in->loo_seconds, in->nunits, &s->loo_best,
                                        &s->loo_rest_min, &s->loo_rest_max);
    if (s->loo_unit < 0 || in->loo_rank_seconds == NULL)
        return;
    s->loo_rank = -1;
    for (int k = 0; k < in->nloo_ranks; ++k) {
        int faster = in->loo_rank_seconds[k] > 0 &&
                     in->loo_rank_seconds[k] * FC_SLOW_FACTOR <= s->loo_rest_min;

        if (faster && s->loo_rank >= 0) {
            s->loo_rank = -1;   /* two of them: the host, not one rank */
            return;
        }
        if (faster)
            s->loo_rank = in->loo_ranks[k];
    }
}

void fc_slow_judge(const fc_retest_input_t *in, fc_slow_t *s)
{
    fc_slow_setup(in, s);
    fc_slow_p2p(s);
    fc_slow_loo(s);
    s->series_unit = -1;
    /* the culprits: every unit the point to point placed, which must hold
     * the leave-one-out's when both place; else the leave-one-out's */
    if (s->np2p > 0 && (s->loo_unit < 0 || fc_slow_p2p_index(s, s->loo_unit) >= 0)) {
        memcpy(s->culprits, s->p2p_units, sizeof(int) * (size_t)s->np2p);
        s->nculprits = s->np2p;
    } else if (s->np2p == 0 && s->loo_unit >= 0) {
        s->culprits[s->nculprits++] = s->loo_unit;
    }
    /* a host alone in its rack, with two racks in all: its link, its
     * rack's uplink and the other rack's uplink are in series; nothing
     * here tells them apart, so nobody is placed (the pairs stage says
     * the same: the spine between them) */
    for (int k = 0; k < s->nculprits; ++k) {
        int j = fc_slow_p2p_index(s, s->culprits[k]);
        int host_level = j >= 0 ? s->p2p_ranks[j] < 0 : s->loo_rank < 0;

        if (host_level && s->nracks == 2 && fc_slow_alone_in_rack(s, s->culprits[k])) {
            s->series_unit = s->culprits[k];
            s->nculprits = 0;
        }
    }
}

void fc_slow_free(fc_slow_t *s)
{
    free(s->unit_of);
    free(s->unit_names);
    s->unit_of = NULL;
    s->unit_names = NULL;
}
