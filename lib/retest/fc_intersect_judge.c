/*
 * fc_intersect_judge.c - see fc_intersect.h: the judgement of the bounded
 * retest of the hosts common to every wrong result (suites/retest_hosts.c
 * measures, rank 0 judges here), and its `retest` record. The exchanges
 * are per directed host pair; the text spells out the placed host's pairs
 * with each partner, both directions, and the exchanges without it.
 */
#include "fc_intersect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_json.h"
#include "fc_results.h"
#include "fc_retest_records.h"

#define FC_INTERSECT_TEXT 1024

/* "A -> X wrong 3 of 120, X -> A right (120), ...; without X: 240 of 240
 * right" for host x */
static void fc_pairs_text(int nhosts, const char *const *names, int nex,
                          const fc_host_exchange_t *ex, int x, char *buf, size_t len)
{
    size_t at = 0;
    long without = 0, without_wrong = 0;

    buf[0] = '\0';
    for (int h = 0; h < nhosts; ++h)
        for (int i = 0; i < nex; ++i) {
            const fc_host_exchange_t *e = &ex[i];

            if (!((e->sender == h && e->receiver == x) || (h == x && e->sender == x &&
                  e->receiver == x) || (h != x && e->sender == x && e->receiver == h)))
                continue;
            if (e->wrong_exchanges > 0)
                at = fc_retest_cat(buf, len, at, "%s%s -> %s wrong %ld of %ld", at ? ", " : "",
                            names[e->sender], names[e->receiver], e->wrong_exchanges,
                            e->exchanges);
            else
                at = fc_retest_cat(buf, len, at, "%s%s -> %s right (%ld)", at ? ", " : "",
                            names[e->sender], names[e->receiver], e->exchanges);
        }
    for (int i = 0; i < nex; ++i)
        if (ex[i].sender != x && ex[i].receiver != x) {
            without += ex[i].exchanges;
            without_wrong += ex[i].wrong_exchanges;
        }
    fc_retest_cat(buf, len, at, "; without %s: %ld of %ld right", names[x], without - without_wrong,
           without);
}

void fc_intersect_judge(int nhosts, const char *const *names, int nex,
                        const fc_host_exchange_t *ex, fc_intersect_verdict_t *v)
{
    int *in = fc_xcalloc((size_t)nhosts + 1, sizeof(int), "the hosts' wrong exchanges");
    int nw = 0, ncand = 0, x = -1, recv_all = 1, send_all = 1;
    char *seen = fc_xcalloc((size_t)nhosts + 1, 1, "the counterparts");
    size_t at = 0;

    memset(v, 0, sizeof(*v));
    v->host = -1;
    for (int i = 0; i < nex; ++i) {
        v->exchanges += ex[i].exchanges;
        v->wrong_exchanges += ex[i].wrong_exchanges;
        if (ex[i].wrong_exchanges == 0)
            continue;
        ++nw;
        in[ex[i].sender]++;
        if (ex[i].receiver != ex[i].sender)
            in[ex[i].receiver]++;
    }
    if (nw == 0) {
        v->outcome = FC_INTERSECT_NOT_REPRODUCED;
        snprintf(v->why, sizeof(v->why), "all %ld checked exchanges right", v->exchanges);
        goto out;
    }
    for (int h = 0; h < nhosts; ++h)
        if (in[h] == nw) {
            ++ncand;
            x = x < 0 ? h : x;
        }
    v->outcome = FC_INTERSECT_NOT_PLACED;
    if (ncand != 1) {
        at = fc_retest_cat(v->why, sizeof(v->why), at, ncand == 0 ? "the wrong exchanges share no "
                    "host: " : "every wrong exchange is between the same hosts (either end "
                    "or the path between them): ");
        for (int i = 0, shown = 0; i < nex && shown < 4; ++i)
            if (ex[i].wrong_exchanges > 0)
                at = fc_retest_cat(v->why, sizeof(v->why), at, "%s%s -> %s wrong %ld of %ld",
                            shown++ ? ", " : "", names[ex[i].sender], names[ex[i].receiver],
                            ex[i].wrong_exchanges, ex[i].exchanges);
        goto out;
    }
    for (int i = 0; i < nex; ++i) {
        const fc_host_exchange_t *e = &ex[i];

        if (e->sender != x && e->receiver != x) {
            v->controls_right += e->exchanges;
            continue;
        }
        if (e->wrong_exchanges == 0)
            continue;
        if (e->sender == x && e->receiver == x)
            continue;           /* inside the node: neither direction */
        seen[e->sender == x ? e->receiver : e->sender] = 1;
        recv_all &= e->receiver == x;
        send_all &= e->sender == x;
    }
    for (int h = 0; h < nhosts; ++h)
        v->counterparts += seen[h];
    /* X is in every wrong exchange: they span two partners or more, or
     * one was inside X (one partner alone would be in every one too) */
    if (v->controls_right == 0) {
        snprintf(v->why, sizeof(v->why), "%s is in every wrong exchange, but no exchange "
                 "without it was checked to compare", names[x]);
        goto out;
    }
    v->outcome = FC_INTERSECT_PLACED;
    v->host = x;
    /* what the node sends or receives: its exchanges with other hosts
     * tell (one inside it shows either way) */
    v->direction = v->counterparts == 0 ? "within the node" : recv_all ? "receive" :
                   send_all ? "send" : "send and receive";
    fc_pairs_text(nhosts, names, nex, ex, x, v->why, sizeof(v->why));
out:
    free(in);
    free(seen);
}

static json_t *fc_exchanges_json(const char *const *names, int nex,
                                 const fc_host_exchange_t *ex)
{
    json_t *list = json_array();

    for (int i = 0; i < nex; ++i) {
        const fc_host_exchange_t *e = &ex[i];
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:s}", "sender_host",
                              names[e->sender], "receiver_host", names[e->receiver],
                              "exchanges", (json_int_t)e->exchanges, "wrong_exchanges",
                              (json_int_t)e->wrong_exchanges, "wrong", (json_int_t)e->wrong,
                              "bytes", (json_int_t)e->bytes, "verdict",
                              e->wrong_exchanges ? "wrong" : "right");

        if (e->wrong_exchanges)
            fc_retest_first_wrong(o, e->first_index, e->expected, e->actual);
        json_array_append_new(list, o);
    }
    return list;
}

/* "node stage im104 (21 points), pairs stage pair im102 <-> im104, ...":
 * the sightings of one stage and group (whoever observed them) as one */
static void fc_evidence_text(json_t *plan, char *buf, size_t len)
{
    json_t *ev = json_object_get(plan, "evidence"), *e, *f;
    size_t i, k, at = 0, shown = 0, more = 0;

    buf[0] = '\0';
    json_array_foreach(ev, i, e) {
        long pts = 0;
        int first = 1;

        json_array_foreach(ev, k, f)
            if (strcmp(fc_json_str(e, "stage"), fc_json_str(f, "stage")) == 0 &&
                strcmp(fc_json_str(e, "what"), fc_json_str(f, "what")) == 0) {
                first &= k >= i;
                pts += (long)json_integer_value(json_object_get(f, "points"));
            }
        if (!first)
            continue;
        if (shown == 4) {
            ++more;
            continue;
        }
        at = fc_retest_cat(buf, len, at, "%s%s stage %s", shown++ ? ", " : "", fc_json_str(e, "stage"),
                    fc_json_str(e, "what"));
        if (pts > 1)
            at = fc_retest_cat(buf, len, at, " (%ld points)", pts);
    }
    if (more)
        fc_retest_cat(buf, len, at, ", and %zu more", more);
}

/* Is x one of the plan's suspects? */
static int fc_suspect(json_t *plan, const char *x)
{
    json_t *h;
    size_t i;

    json_array_foreach(json_object_get(plan, "suspects"), i, h)
        if (strcmp(json_string_value(h) ? json_string_value(h) : "", x) == 0)
            return 1;
    return 0;
}

/* The plan's groups that hold host x: the wrong results it explains. A
 * partner placed (not a suspect) explains none: it was not in every group
 * that saw wrong bits, so its fault is one of its own beside theirs. */
static json_t *fc_explains(json_t *plan, const char *x)
{
    json_t *list = json_array(), *g, *h;
    size_t i, k;

    if (!fc_suspect(plan, x))
        return list;
    json_array_foreach(json_object_get(plan, "groups"), i, g)
        json_array_foreach(json_object_get(g, "hosts"), k, h)
            if (strcmp(json_string_value(h) ? json_string_value(h) : "", x) == 0) {
                json_array_append(list, g);
                break;
            }
    return list;
}

json_t *fc_intersect_record(json_t *plan, const char *run_id, const char *stage, int nhosts,
                            const char *const *names, int nex, const fc_host_exchange_t *ex,
                            const fc_intersect_verdict_t *v, long bytes, int ranks,
                            long sweeps, double seconds)
{
    json_t *suspects = json_object_get(plan, "suspects"), *racks = json_array(), *h, *rec;
    json_t *host_racks = json_object_get(plan, "host_racks");
    char now[32], sus[512], partners[512], evidence[FC_INTERSECT_TEXT], why[4 * FC_INTERSECT_TEXT];
    char group[600];
    double limit = json_number_value(json_object_get(plan, "limit_s"));
    uint64_t checked = 0;
    size_t i;

    for (int k = 0; k < nex; ++k)
        checked += ex[k].bytes;
    fc_intersect_names(suspects, sus, sizeof(sus));
    fc_intersect_names(json_object_get(plan, "partners"), partners, sizeof(partners));
    if (partners[0] == '\0')      /* every host a suspect: among themselves */
        snprintf(partners, sizeof(partners), "none (among the suspects themselves)");
    fc_evidence_text(plan, evidence, sizeof(evidence));
    snprintf(group, sizeof(group), "suspects %s", sus);
    json_array_foreach(suspects, i, h) {
        const char *r = fc_json_str(host_racks, json_string_value(h));
        size_t k;
        json_t *q;
        int have = 0;

        json_array_foreach(racks, k, q)
            have |= strcmp(json_string_value(q), r) == 0;
        if (!have && r[0])
            json_array_append_new(racks, json_string(r));
    }
    fc_results_time(now, sizeof(now));
    rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "type", "retest", "source",
                    "retest", "run_id", run_id, "stage", stage, "time", now, "kind", "wrong",
                    "method", "intersection", "group", group);
    json_object_set_new(rec, "group_hosts", json_deep_copy(suspects));
    json_object_set_new(rec, "suspects", json_deep_copy(suspects));
    json_object_set_new(rec, "partners", json_deep_copy(json_object_get(plan, "partners")));
    json_object_set_new(rec, "narrowed", json_boolean(json_is_true(json_object_get(plan, "narrowed"))));
    json_object_set_new(rec, "evidence", json_deep_copy(json_object_get(plan, "evidence")));
    json_object_set_new(rec, "limit_s", json_real(limit));
    json_object_set_new(rec, "seconds", json_real(seconds));
    json_object_set_new(rec, "sweeps", json_integer(sweeps));
    json_object_set_new(rec, "ranks", json_integer(ranks));
    json_object_set_new(rec, "hosts", json_integer(nhosts));
    json_object_set_new(rec, "bytes", json_integer(bytes));
    json_object_set_new(rec, "bytes_checked", json_integer((json_int_t)checked));
    json_object_set_new(rec, "exchanges_checked", json_integer(v->exchanges));
    json_object_set_new(rec, "exchanges_wrong", json_integer(v->wrong_exchanges));
    json_object_set_new(rec, "exchanges", fc_exchanges_json(names, nex, ex));
    json_object_set_new(rec, "localised", json_boolean(v->outcome == FC_INTERSECT_PLACED));
    if (v->outcome == FC_INTERSECT_PLACED) {
        const char *x = names[v->host], *rack = fc_json_str(host_racks, x);
        char tail[2 * FC_INTERSECT_TEXT];

        if (fc_suspect(plan, x))
            snprintf(tail, sizeof(tail), "%s was in every group that saw wrong bits (%s)", x,
                     evidence);
        else
            snprintf(tail, sizeof(tail), "%s, a partner, is no suspect: a fault of its own, "
                     "which explains none of the wrong results of %s, who %s implicated with "
                     "%s group (%s)", x, sus, json_array_size(suspects) == 1 ? "stays" : "stay",
                     json_array_size(suspects) == 1 ? "its" : "their", evidence);
        snprintf(why, sizeof(why), "wrong data %s %s, placed by a retest of %.1f s of checked "
                 "exchanges with partners %s (%ld exchanges, %llu bytes, %ld wrong): %s; %s",
                 strcmp(v->direction, "receive") == 0 ? "received by" :
                 strcmp(v->direction, "send") == 0 ? "sent by" :
                 strcmp(v->direction, "within the node") == 0 ? "within" : "sent and received by",
                 x, seconds, partners, v->exchanges, (unsigned long long)checked,
                 v->wrong_exchanges, v->why, tail);
        json_object_set_new(rec, "rack", json_string(rack));
        json_object_set_new(rec, "racks", json_pack("[s]", rack));
        json_object_set_new(rec, "culprit", json_pack("{s:s, s:s, s:s}", "host", x, "rack",
                                                      rack, "direction", v->direction));
        json_object_set_new(rec, "explains", fc_explains(plan, x));
        json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:s, s:b}", "part",
                            "node", "host", x, "rack", rack, "quarantine", 1));
    } else {
        const char *one = json_array_size(suspects) == 1
                              ? json_string_value(json_array_get(suspects, 0)) : NULL;

        if (v->outcome == FC_INTERSECT_NOT_REPRODUCED)
            snprintf(why, sizeof(why), "not reproduced in %.1f s of checked exchanges with "
                     "partners %s (%ld exchanges, %llu bytes, none wrong): %s %s implicated "
                     "with %s group; in every group that saw wrong bits: %s", seconds,
                     partners, v->exchanges, (unsigned long long)checked, sus,
                     one ? "stays" : "stay", one ? "its" : "their", evidence);
        else
            snprintf(why, sizeof(why), "not placed by %.1f s of checked exchanges with "
                     "partners %s: %s; %s %s implicated with %s group; in every group that "
                     "saw wrong bits: %s", seconds, partners, v->why, sus,
                     one ? "stays" : "stay", one ? "its" : "their", evidence);
        json_object_set_new(rec, "rack", json_string(one ? fc_json_str(host_racks, one) : ""));
        json_object_set_new(rec, "racks", racks);
        racks = NULL;
        json_object_set_new(rec, "culprit", json_null());
        /* a suspect, not a culprit: its group stays implicated */
        json_object_set_new(rec, "implicates", json_pack(
            "{s:s, s:s, s:s, s:O, s:O, s:b}", "part", "group", "host", "", "group", group,
            "hosts", suspects, "racks", json_object_get(rec, "racks"), "quarantine", 0));
    }
    json_decref(racks);
    json_object_set_new(rec, "reasons", json_pack("[s]", why));
    json_object_set_new(rec, "verdict", json_string("FAIL"));
    return rec;
}
