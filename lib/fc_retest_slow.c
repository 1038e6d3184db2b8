/*
 * fc_retest_slow.c - the retest's judgement of a confirmed slowness (see
 * fc_retest_records.h; rank 0 of suites/retest.c, no MPI here). A group
 * whose collective was slow, alone and again, is the group's fault until
 * the retest places it on a unit (a host, or a rank on a one-host job):
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
 * every rack of the group fails and nobody is quarantined. The record
 * holds every figure that decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_retest_records.h"

#define FC_SLOW_FACTOR 3.0
#define FC_SLOW_TEXT 1024
#define FC_SLOW_MAX_PLACED 32

typedef struct fc_slow {
    const fc_retest_input_t *in;
    int *unit_of;               /* per rank: its unit (host, or itself) */
    int nunits;
    char (*unit_names)[FC_HOST_MAX + 16];   /* per unit: "rank 3" or its host */
    int one_host;               /* the job has one host: units are ranks */
    int nracks;                 /* racks the job's hosts are in */
    double ref_ex;              /* the lower quartile of every exchange's time */
    int np2p;                   /* units placed by point to point */
    int p2p_units[FC_SLOW_MAX_PLACED];
    int p2p_ranks[FC_SLOW_MAX_PLACED];  /* its one slow rank, or -1: the host */
    int np2p_refused;           /* units that stood apart, more than half */
    int series_unit;            /* stood apart, but alone in its rack of two
                                 * racks: in series with both uplinks, -1 */
    int loo_unit;               /* placed by leave-one-out, -1 */
    int loo_rank;               /* the one rank whose absence is fast, -1 */
    int p2p_slow, p2p_total;    /* slow exchanges, all exchanges */
    double loo_best, loo_rest_min, loo_rest_max;
} fc_slow_t;

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

static const char *fc_unit(const fc_slow_t *s, int u)
{
    return u >= 0 && u < s->nunits ? s->unit_names[u] : "?";
}

/* The rack of host (the runner's host_racks), "" when not known. */
static const char *fc_slow_rack(const fc_slow_t *s, const char *host)
{
    const char *r = json_string_value(json_object_get(
        json_object_get(s->in->groups, "host_racks"), host));

    return r ? r : "";
}

/* Units are the leave-one-out's (in->unit): ranks on a one-host job, else
 * hosts; named "rank 3" or by the host. */
static int fc_slow_setup(const fc_retest_input_t *in, fc_slow_t *s)
{
    memset(s, 0, sizeof(*s));
    s->in = in;
    s->loo_unit = s->loo_rank = -1;
    s->nunits = in->nunits;
    s->one_host = 1;
    for (int r = 1; r < in->nranks; ++r)
        s->one_host &= strcmp(in->rank_hosts[r], in->rank_hosts[0]) == 0;
    s->unit_of = calloc((size_t)in->nranks + 1, sizeof(int));
    s->unit_names = calloc((size_t)in->nunits + 1, sizeof(*s->unit_names));
    if (s->unit_of == NULL || s->unit_names == NULL)
        return -1;
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
    return 0;
}

/* Host unit u is the only host of the job in its rack: its link and its
 * rack's uplink are in series (and, with two racks in all, the other
 * rack's uplink too). */
static int fc_slow_alone_in_rack(const fc_slow_t *s, int u)
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

static int fc_slow_exchange(const fc_slow_t *s, const fc_exchange_t *e)
{
    return e->seconds > FC_SLOW_FACTOR * s->ref_ex;
}

static int fc_slow_valid(const fc_exchange_t *e)
{
    return e->iters > 0 && e->sender >= 0;
}

/* Does x stand apart? by_host: x is a unit (host) and only exchanges off
 * it count; else x is a rank and every exchange counts. x stands apart
 * when it has two exchanges or more, and the fastest of them is at least
 * FC_SLOW_FACTOR times slower than the median of the exchanges that touch
 * neither it nor a rank already placed (placed[rank]): exchanges slowed
 * by a busy machine elsewhere, or by a second slow unit, do not hide it
 * while they are fewer than half the others, and one slow exchange of its
 * own does not make it. */
static int fc_slow_explains(const fc_slow_t *s, int x, int by_host, const int *placed)
{
    const fc_retest_input_t *in = s->in;
    double *rest = calloc((size_t)in->nexchanges + 1, sizeof(double)), fastest = -1;
    int mine = 0, mine_on_host = 0, nrest = 0, apart = 0;

    if (rest == NULL)
        return 0;
    for (int i = 0; i < in->nexchanges; ++i) {
        const fc_exchange_t *e = &in->exchanges[i];
        int off, touches;

        if (!fc_slow_valid(e))
            continue;
        off = s->unit_of[e->sender] != s->unit_of[e->receiver];
        if (by_host && !off)
            continue;
        touches = by_host ? s->unit_of[e->sender] == x || s->unit_of[e->receiver] == x
                          : e->sender == x || e->receiver == x;
        if (touches) {
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

/* Index of unit u among the point-to-point placements, or -1. */
static int fc_slow_p2p_index(const fc_slow_t *s, int u)
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

/* Step 1: ranks slow with every partner (their own progress), then hosts
 * slow with every partner off them (their NIC or link), each standing
 * apart from the exchanges of the units not placed; repeated until no
 * other one does. More than half the units placed: none is. */
static void fc_slow_p2p(fc_slow_t *s)
{
    const fc_retest_input_t *in = s->in;
    double *t = calloc((size_t)in->nexchanges + 1, sizeof(double));
    int *placed = calloc((size_t)in->nranks + 1, sizeof(int));
    int n = 0, more = 1;

    if (t == NULL || placed == NULL)
        goto out;
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
    while (more) {
        more = 0;
        for (int r = 0; r < in->nranks; ++r)
            if (!placed[r] && fc_slow_explains(s, r, 0, placed)) {
                fc_slow_p2p_add(s, s->unit_of[r], r, placed);
                more = 1;
            }
    }
    for (more = !s->one_host; more;) {
        more = 0;
        for (int u = 0; u < s->nunits; ++u)
            if (fc_slow_p2p_index(s, u) < 0 && fc_slow_explains(s, u, 1, placed)) {
                fc_slow_p2p_add(s, u, -1, placed);
                more = 1;
            }
    }
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

static json_t *fc_slow_loo_json(const fc_slow_t *s)
{
    json_t *list = json_array();

    for (int u = 0; s->in->loo_seconds && u < s->in->nunits; ++u)
        json_array_append_new(list, json_pack("{s:s, s:f}", "without", fc_unit(s, u),
                                              "median_us", s->in->loo_seconds[u] * 1e6));
    return list;
}

/* The exchanges of unit u (u < 0: the slow ones), with their times. */
static json_t *fc_slow_exchanges_json(const fc_slow_t *s, int u)
{
    const fc_retest_input_t *in = s->in;
    json_t *list = json_array();

    for (int i = 0; i < in->nexchanges; ++i) {
        const fc_exchange_t *e = &in->exchanges[i];
        int slow;

        if (!fc_slow_valid(e))
            continue;
        slow = fc_slow_exchange(s, e);
        if (u >= 0 ? (s->unit_of[e->sender] != u && s->unit_of[e->receiver] != u) : !slow)
            continue;
        json_array_append_new(list, json_pack(
            "{s:i, s:s, s:i, s:s, s:f, s:s}", "sender", e->sender, "sender_host",
            in->rank_hosts[e->sender], "receiver", e->receiver, "receiver_host",
            in->rank_hosts[e->receiver], "median_us", e->seconds * 1e6, "verdict",
            slow ? "slow" : "fast"));
    }
    return list;
}

static const char *fc_str(json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));

    return v ? v : "";
}

static json_t *fc_slow_record(const fc_slow_t *s, json_t *group)
{
    const fc_retest_input_t *in = s->in;
    char now[32];
    json_t *rec;

    fc_results_time(now, sizeof(now));
    rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "type", "retest", "kind", "slow",
                    "run_id", in->run_id, "stage", in->stage, "time", now, "source",
                    "retest", "group", fc_str(group, "group"));
    json_object_set_new(rec, "group_hosts", json_deep_copy(json_object_get(group, "hosts")));
    json_object_set_new(rec, "racks", json_deep_copy(json_object_get(group, "racks")));
    json_object_set_new(rec, "observed", json_string(fc_str(group, "observed")));
    json_object_set_new(rec, "ranks", json_integer(in->nranks));
    json_object_set_new(rec, "units", json_integer(in->nunits));
    json_object_set_new(rec, "seconds", json_real(in->seconds));
    json_object_set_new(rec, "collective", json_string(in->loo_label ? in->loo_label : ""));
    json_object_set_new(rec, "all_median_us", json_real(in->all_seconds * 1e6));
    json_object_set_new(rec, "leave_one_out", fc_slow_loo_json(s));
    json_object_set_new(rec, "exchange_lower_quartile_us", json_real(s->ref_ex * 1e6));
    json_object_set_new(rec, "exchanges_slow", json_integer(s->p2p_slow));
    json_object_set_new(rec, "exchanges_timed", json_integer(s->p2p_total));
    json_object_set_new(rec, "slow_factor", json_real(FC_SLOW_FACTOR));
    json_object_set_new(rec, "verdict", json_string("FAIL"));
    return rec;
}

/* The ranks of unit u, "3, 9", into buf. */
static void fc_slow_ranks(const fc_slow_t *s, int u, char *buf, size_t len, json_t *ranks)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int r = 0; r < s->in->nranks && at < len; ++r)
        if (s->unit_of[r] == u) {
            at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? ", " : "", r);
            json_array_append_new(ranks, json_integer(r));
        }
}

static const char *fc_slow_host_of(const fc_slow_t *s, int u)
{
    for (int r = 0; r < s->in->nranks; ++r)
        if (s->unit_of[r] == u)
            return s->in->rank_hosts[r];
    return "";
}

static int fc_slow_in_group(json_t *group, const char *host)
{
    size_t i;
    json_t *h;

    json_array_foreach(json_object_get(group, "hosts"), i, h)
        if (json_is_string(h) && strcmp(json_string_value(h), host) == 0)
            return 1;
    return 0;
}

/* "; n04 and n05 stand apart too (each has its own record)": the other
 * units placed. */
static const char *fc_slow_also(const fc_slow_t *s, int placed)
{
    static char buf[FC_SLOW_TEXT];
    size_t at = 0;
    int others = 0, k;

    for (k = 0; k < s->np2p && at < sizeof(buf); ++k) {
        if (s->p2p_units[k] == placed)
            continue;
        at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s",
                               others == 0 ? "; " : k == s->np2p - 1 ||
                               (k == s->np2p - 2 && s->p2p_units[k + 1] == placed)
                               ? " and " : ", ", fc_unit(s, s->p2p_units[k]));
        ++others;
    }
    if (at < sizeof(buf))
        snprintf(buf + at, sizeof(buf) - at, " stand%s apart too (each has its own record)",
                 others == 1 ? "s" : "");
    return buf;
}

static void fc_slow_write(const fc_slow_t *s, json_t *group, int placed, fc_results_t *results,
                          fc_tap_t *tap)
{
    json_t *rec = fc_slow_record(s, group), *ranks = json_array();
    const char *obs = fc_str(group, "observed");
    char why[3 * FC_SLOW_TEXT], loo[FC_SLOW_TEXT] = "", p2p[FC_SLOW_TEXT] = "", list[256];

    if (s->loo_unit >= 0) {
        char alone[64] = "";

        if (s->loo_rank >= 0)
            snprintf(alone, sizeof(alone), ", and as fast without its rank %d alone",
                     s->loo_rank);
        snprintf(loo, sizeof(loo), "without %s the %s took %.1f us, without any other "
                 "%s %.1f to %.1f us%s", fc_unit(s, s->loo_unit), s->in->loo_label,
                 s->loo_best * 1e6, s->one_host ? "rank" : "node",
                 s->loo_rest_min * 1e6, s->loo_rest_max * 1e6, alone);
    }
    else if (s->in->loo_seconds && s->in->nunits >= 3)
        snprintf(loo, sizeof(loo), "the %s without each %s took %.1f to %.1f us (none "
                 "%.0f times faster than the others)", s->in->loo_label,
                 s->one_host ? "rank" : "node",
                 s->loo_best * 1e6, s->loo_rest_max * 1e6, FC_SLOW_FACTOR);
    int k = placed >= 0 ? fc_slow_p2p_index(s, placed) : -1;
    int p2p_rank = k >= 0 ? s->p2p_ranks[k] : -1;

    if (p2p_rank >= 0)
        snprintf(p2p, sizeof(p2p), "rank %d's exchanges with every partner were slow (over "
                 "%.0f times the lower quartile exchange, %.1f us)%s", p2p_rank, FC_SLOW_FACTOR,
                 s->ref_ex * 1e6, s->np2p > 1 ? fc_slow_also(s, placed) : "");
    else if (k >= 0)
        snprintf(p2p, sizeof(p2p), "its exchanges with every partner off it were slow (over "
                 "%.0f times the lower quartile exchange, %.1f us)%s", FC_SLOW_FACTOR,
                 s->ref_ex * 1e6, s->np2p > 1 ? fc_slow_also(s, placed) : "");
    else if (s->series_unit >= 0)
        snprintf(p2p, sizeof(p2p), "%s stands apart, but it is alone in rack %s and the job "
                 "has two racks: its link, rack %s's uplink and the other rack's uplink are "
                 "in series and cannot be told apart (the spine between the racks)",
                 fc_unit(s, s->series_unit), fc_slow_rack(s, fc_slow_host_of(s, s->series_unit)),
                 fc_slow_rack(s, fc_slow_host_of(s, s->series_unit)));
    else if (s->np2p > 0) {
        size_t at = (size_t)snprintf(p2p, sizeof(p2p), "the exchanges stood apart on ");

        for (int j = 0; j < s->np2p && at < sizeof(p2p); ++j)
            at += (size_t)snprintf(p2p + at, sizeof(p2p) - at, "%s%s", j ? ", " : "",
                                   fc_unit(s, s->p2p_units[j]));
        if (at < sizeof(p2p))
            snprintf(p2p + at, sizeof(p2p) - at, ", the leave-one-out on %s: the two "
                     "disagree", fc_unit(s, s->loo_unit));
    } else if (s->np2p_refused > 0)
        snprintf(p2p, sizeof(p2p), "%d of %d exchanges slow; %d of the %d units stood apart, "
                 "more than half: the group's slowness, not theirs", s->p2p_slow,
                 s->p2p_total, s->np2p_refused, s->nunits);
    else
        snprintf(p2p, sizeof(p2p), "%d of %d exchanges slow, no unit slow with every "
                 "partner", s->p2p_slow, s->p2p_total);
    if (placed >= 0) {
        const char *host = fc_slow_host_of(s, placed);

        int one = p2p_rank >= 0 ? p2p_rank :
                  s->loo_rank >= 0 && s->unit_of[s->loo_rank] == placed ? s->loo_rank : -1;

        if (one >= 0) {
            snprintf(list, sizeof(list), "rank %d", one);
            json_array_append_new(ranks, json_integer(one));
        } else {
            char r[200];

            fc_slow_ranks(s, placed, r, sizeof(r), ranks);
            snprintf(list, sizeof(list), "rank%s %s", strchr(r, ',') ? "s" : "", r);
        }
        if (s->loo_unit != placed)
            loo[0] = '\0';     /* the leave-one-out placed another unit */
        char series[FC_HOST_MAX + 120] = "";

        if (one < 0 && fc_slow_alone_in_rack(s, placed))
            snprintf(series, sizeof(series), "; %s is alone in rack %s: its link and the "
                     "rack's uplink are in series", host, fc_slow_rack(s, host));
        snprintf(why, sizeof(why), "slowness placed on %s (%s): %s%s%s%s%s%s", host, list, loo,
                 loo[0] && k >= 0 ? "; " : "", k >= 0 ? p2p : "", series,
                 obs[0] ? "; observed: " : "", obs);
        json_object_set_new(rec, "localised", json_true());
        json_object_set_new(rec, "method", json_string(s->loo_unit == placed ? "leave-one-out"
                                                                             : "point-to-point"));
        json_object_set_new(rec, "culprit", json_pack("{s:s, s:o}", "host", host, "ranks",
                                                      ranks));
        json_object_set_new(rec, "exchanges", fc_slow_exchanges_json(s, placed));
        json_object_set_new(rec, "rack", json_string(""));
        json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:s, s:b}", "part",
                            "node", "host", host, "rack", "", "quarantine", 1));
    } else {
        json_t *hosts = json_object_get(group, "hosts");

        json_decref(ranks);
        /* what the evidence says about the fabric: slow exchanges point at
         * it, none at the hosts' own load or the collective's algorithm */
        snprintf(why, sizeof(why), "confirmed slowness in %s (%zu host%s), not placed on a "
                 "node: %s%s%s; the group is slow as a whole (%s); nobody quarantined%s%s",
                 fc_str(group, "group"), json_array_size(hosts),
                 json_array_size(hosts) == 1 ? "" : "s", loo, loo[0] ? "; " : "", p2p,
                 s->p2p_slow > 0 ? "its switch or uplinks, or more than one node" :
                 "no exchange stood out from the others: the hosts' load, the collective "
                 "itself, or a slowness most of its paths share", obs[0] ? "; observed: " : "", obs);
        json_object_set_new(rec, "localised", json_false());
        json_object_set_new(rec, "method", json_null());
        json_object_set_new(rec, "culprit", json_null());
        json_object_set_new(rec, "exchanges", fc_slow_exchanges_json(s, -1));
        json_object_set_new(rec, "rack", json_string(""));
        json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:O, s:O, s:b}", "part",
                            "group", "host", "", "racks", json_object_get(group, "racks"),
                            "hosts", hosts, "quarantine", 0));
    }
    json_object_set_new(rec, "reasons", json_pack("[s]", why));
    fc_tap_point(tap, FC_ERR_FAIL, "retest of the slowness in %s: %s", fc_str(group, "group"),
                 why);
    fc_results_append(results, rec);        /* takes rec */
}

int fc_retest_write_slow_records(const fc_retest_input_t *in, fc_results_t *results,
                                 fc_tap_t *tap)
{
    fc_slow_t s;
    json_t *group;
    size_t i;
    int written = 0, culprits[FC_SLOW_MAX_PLACED], nculprits = 0;

    if (fc_slow_setup(in, &s) != 0) {
        fprintf(stderr, "fabcert: retest: out of memory judging %d ranks\n", in->nranks);
        return 0;
    }
    fc_slow_p2p(&s);
    fc_slow_loo(&s);
    s.series_unit = -1;
    /* the culprits: every unit the point to point placed, which must hold
     * the leave-one-out's when both place; else the leave-one-out's */
    if (s.np2p > 0 && (s.loo_unit < 0 || fc_slow_p2p_index(&s, s.loo_unit) >= 0)) {
        memcpy(culprits, s.p2p_units, sizeof(int) * (size_t)s.np2p);
        nculprits = s.np2p;
    } else if (s.np2p == 0 && s.loo_unit >= 0) {
        culprits[nculprits++] = s.loo_unit;
    }
    /* a host alone in its rack, with two racks in all: its link, its
     * rack's uplink and the other rack's uplink are in series; nothing
     * here tells them apart, so nobody is placed (the pairs stage says
     * the same: the spine between them) */
    for (int k = 0; k < nculprits; ++k) {
        int j = fc_slow_p2p_index(&s, culprits[k]);
        int host_level = j >= 0 ? s.p2p_ranks[j] < 0 : s.loo_rank < 0;

        if (host_level && s.nracks == 2 && fc_slow_alone_in_rack(&s, culprits[k])) {
            s.series_unit = culprits[k];
            nculprits = 0;
        }
    }
    json_array_foreach(json_object_get(in->groups, "groups"), i, group) {
        int mine = 0;

        if (!fc_retest_group_is_slow(group))
            continue;
        /* a unit outside the group cannot be what made the group slow */
        for (int k = 0; k < nculprits; ++k)
            if (fc_slow_in_group(group, fc_slow_host_of(&s, culprits[k]))) {
                fc_slow_write(&s, group, culprits[k], results, tap);
                ++mine;
            }
        if (mine == 0)
            fc_slow_write(&s, group, -1, results, tap);
        written += mine ? mine : 1;
    }
    free(s.unit_of);
    free(s.unit_names);
    return written;
}
