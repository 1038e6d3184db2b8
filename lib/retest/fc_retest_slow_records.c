/*
 * fc_retest_slow_records.c - the slowness retest's records (see
 * fc_retest_records.h): what lib/retest/fc_retest_slow.c decided, one `retest`
 * record of kind "slow" per group, or per unit placed in it. A placed unit
 * gets implicates {part: node, quarantine: true}, the method that placed
 * it (point-to-point or leave-one-out), its ranks and its exchanges; a
 * slowness placed on nobody implicates the group (its racks and hosts,
 * nobody quarantined) with the slow exchanges. Every record carries the
 * leave-one-out's times, the exchanges' lower quartile and the factor,
 * and its one reason says, in a sentence, which figures decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_retest_slow.h"

static json_t *fc_slow_loo_json(const fc_slow_t *s)
{
    json_t *list = json_array();

    for (int u = 0; s->in->loo_seconds && u < s->in->nunits; ++u)
        json_array_append_new(list, json_pack("{s:s, s:f}", "without", fc_slow_unit(s, u),
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
                               ? " and " : ", ", fc_slow_unit(s, s->p2p_units[k]));
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
                 "%s %.1f to %.1f us%s", fc_slow_unit(s, s->loo_unit), s->in->loo_label,
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
                 fc_slow_unit(s, s->series_unit),
                 fc_slow_rack(s, fc_slow_host_of(s, s->series_unit)),
                 fc_slow_rack(s, fc_slow_host_of(s, s->series_unit)));
    else if (s->np2p > 0) {
        size_t at = (size_t)snprintf(p2p, sizeof(p2p), "the exchanges stood apart on ");

        for (int j = 0; j < s->np2p && at < sizeof(p2p); ++j)
            at += (size_t)snprintf(p2p + at, sizeof(p2p) - at, "%s%s", j ? ", " : "",
                                   fc_slow_unit(s, s->p2p_units[j]));
        if (at < sizeof(p2p))
            snprintf(p2p + at, sizeof(p2p) - at, ", the leave-one-out on %s: the two "
                     "disagree", fc_slow_unit(s, s->loo_unit));
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
        /* what the evidence says: slow exchanges point at the fabric, or
         * at a load on every host (a busy machine slows exchanges of every
         * unit, none with every partner: the same evidence); none slow at
         * the hosts' own load or the collective's algorithm */
        snprintf(why, sizeof(why), "confirmed slowness in %s (%zu host%s), not placed on a "
                 "node: %s%s%s; the group is slow as a whole (%s); nobody quarantined%s%s",
                 fc_str(group, "group"), json_array_size(hosts),
                 json_array_size(hosts) == 1 ? "" : "s", loo, loo[0] ? "; " : "", p2p,
                 s->p2p_slow > 0 ? "its switch or uplinks, more than one node, or a load "
                 "on every host: a busy machine" :
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
    int written = 0;

    fc_slow_judge(in, &s);
    json_array_foreach(json_object_get(in->groups, "groups"), i, group) {
        int mine = 0;

        if (!fc_retest_group_is_slow(group))
            continue;
        /* a unit outside the group cannot be what made the group slow */
        for (int k = 0; k < s.nculprits; ++k)
            if (fc_slow_in_group(group, fc_slow_host_of(&s, s.culprits[k]))) {
                fc_slow_write(&s, group, s.culprits[k], results, tap);
                ++mine;
            }
        if (mine == 0)
            fc_slow_write(&s, group, -1, results, tap);
        written += mine ? mine : 1;
    }
    fc_slow_free(&s);
    return written;
}
