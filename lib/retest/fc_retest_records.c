/*
 * fc_retest_records.c - see fc_retest_records.h. The retest's ranks are
 * mapped to hosts (in order of first appearance), fc_localise() blames
 * ranks, and a host is a culprit when one of its ranks is blamed and every
 * wrong exchange is explained. The text of a confirmation is written per
 * partner host ("H -> A wrong, A -> H right"), or per partner rank when
 * the retest ran on one host alone.
 */
#include "fc_retest_records.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_json.h"

#define FC_RETEST_TEXT 1024
#define FC_RETEST_TEXT_PAIRS 4      /* partner hosts spelled out in a reason */

typedef struct fc_retest_judged {
    const fc_retest_input_t *in;
    fc_exchange_t *ex;              /* the exchanges, byes left out */
    int nex, nwrong;
    int *host;                      /* host index of each rank */
    const char **host_names;        /* per host index */
    int nhosts;
    fc_blame_t *blame;              /* per rank */
    int *culprit;                   /* per host: blamed and localised */
    int *reported;                  /* per host: a record names it */
    int localised;
    int loo_unit;                   /* placed by leave-one-out: the unit, else -1 */
} fc_retest_judged_t;

size_t fc_retest_cat(char *buf, size_t len, size_t at, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (at >= len)
        return at;
    va_start(ap, fmt);
    k = vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    return k < 0 ? at : at + (size_t)k;
}

void fc_retest_first_wrong(json_t *o, uint64_t index, uint64_t expected, uint64_t actual)
{
    char bits[2][24];

    snprintf(bits[0], sizeof(bits[0]), "0x%llx", (unsigned long long)expected);
    snprintf(bits[1], sizeof(bits[1]), "0x%llx", (unsigned long long)actual);
    json_object_set_new(o, "first_index", json_integer((json_int_t)index));
    json_object_set_new(o, "expected_bits", json_string(bits[0]));
    json_object_set_new(o, "actual_bits", json_string(bits[1]));
}

static const char *fc_host_rack(const fc_retest_judged_t *j, const char *host)
{
    return fc_json_str(json_object_get(j->in->groups, "host_racks"), host);
}

static int fc_any_blamed(const fc_retest_judged_t *j)
{
    for (int r = 0; r < j->in->nranks; ++r)
        if (j->blame[r] != FC_BLAME_NONE)
            return 1;
    return 0;
}

/* The point-to-point exchanges placed nothing: when the all_reduce among
 * all but one unit is right for exactly one unit and wrong for every
 * other, that unit's contribution is the fault. */
static void fc_judge_leave_one_out(fc_retest_judged_t *j)
{
    const fc_retest_input_t *in = j->in;
    int right = 0, u_right = -1;

    if (in->loo_wrong == NULL || in->nunits < 2 || j->nwrong > 0)
        return;
    for (int u = 0; u < in->nunits; ++u)
        if (in->loo_wrong[u] == 0) {
            ++right;
            u_right = u;
        }
    if (right != 1)
        return;
    for (int r = 0; r < in->nranks; ++r)
        j->blame[r] = in->unit[r] == u_right ? FC_BLAME_SENDS : FC_BLAME_NONE;
    j->loo_unit = u_right;
    j->localised = 1;
}

/* A unit's name: its host, or "rank R" on a one-host job. */
static void fc_unit_name(const fc_retest_judged_t *j, int u, char *buf, size_t len)
{
    if (j->in->nunits == j->in->nranks && j->nhosts == 1)
        snprintf(buf, len, "rank %d", u);
    else
        snprintf(buf, len, "%s", j->host_names[u]);
}

static json_t *fc_leave_one_out_json(const fc_retest_judged_t *j)
{
    json_t *list = json_array();
    char name[FC_HOST_MAX + 16];

    for (int u = 0; j->in->loo_wrong && u < j->in->nunits; ++u) {
        fc_unit_name(j, u, name, sizeof(name));
        json_array_append_new(list, json_pack("{s:s, s:I, s:s}", "without", name, "wrong",
                              (json_int_t)j->in->loo_wrong[u], "verdict",
                              j->in->loo_wrong[u] ? "wrong" : "right"));
    }
    return list;
}

/* "confirmed by 6 all_reduce retests, each without one node: without H
 * right, without A wrong, ..." */
static void fc_leave_one_out_text(const fc_retest_judged_t *j, char *buf, size_t len)
{
    char list[FC_RETEST_TEXT] = "", name[FC_HOST_MAX + 16];
    size_t at = 0;
    int shown = 0, n = j->in->nunits, by_rank = n == j->in->nranks && j->nhosts == 1;

    fc_unit_name(j, j->loo_unit, name, sizeof(name));
    at = fc_retest_cat(list, sizeof(list), at, "without %s right", name);
    for (int u = 0; u < n && shown < FC_RETEST_TEXT_PAIRS; ++u)
        if (u != j->loo_unit) {
            fc_unit_name(j, u, name, sizeof(name));
            at = fc_retest_cat(list, sizeof(list), at, ", without %s wrong", name);
            ++shown;
        }
    snprintf(buf, len, "confirmed by %d retests of %s, each without one %s: %s%s; "
             "its point-to-point exchanges were all right (the fault follows the "
             "collective)", n, j->in->loo_label ? j->in->loo_label : "all_reduce",
             by_rank ? "rank" : "node", list, n - 1 > shown ? ", ..." : "");
}

static void fc_judge_setup(const fc_retest_input_t *in, fc_retest_judged_t *j)
{
    int n = in->nranks;

    memset(j, 0, sizeof(*j));
    j->in = in;
    j->ex = fc_xcalloc((size_t)in->nexchanges + 1, sizeof(*j->ex), "the retest's exchanges");
    j->host = fc_xcalloc((size_t)n + 1, sizeof(int), "the ranks' host indices");
    j->host_names = fc_xcalloc((size_t)n + 1, sizeof(char *), "the retest's host names");
    j->blame = fc_xcalloc((size_t)n + 1, sizeof(*j->blame), "the ranks' blame");
    j->culprit = fc_xcalloc((size_t)n + 1, sizeof(int), "the culprit hosts");
    j->reported = fc_xcalloc((size_t)n + 1, sizeof(int), "the hosts reported");
    for (int i = 0; i < in->nexchanges; ++i)
        if (in->exchanges[i].iters > 0 && in->exchanges[i].sender >= 0 &&
            in->exchanges[i].sender < n && in->exchanges[i].receiver >= 0 &&
            in->exchanges[i].receiver < n) {
            j->ex[j->nex] = in->exchanges[i];
            j->nwrong += j->ex[j->nex].wrong > 0;
            j->nex++;
        }
    for (int r = 0; r < n; ++r) {
        int h = 0;

        while (h < j->nhosts && strcmp(j->host_names[h], in->rank_hosts[r]) != 0)
            ++h;
        if (h == j->nhosts)
            j->host_names[j->nhosts++] = in->rank_hosts[r];
        j->host[r] = h;
    }
    j->localised = fc_localise(n, j->host, j->nex, j->ex, j->blame) == 0;
    j->loo_unit = -1;
    if (!j->localised || !fc_any_blamed(j))
        fc_judge_leave_one_out(j);
    for (int r = 0; r < n; ++r)
        if (j->blame[r] != FC_BLAME_NONE && j->localised)
            j->culprit[j->host[r]] = 1;
}

static void fc_judge_free(fc_retest_judged_t *j)
{
    free(j->ex); free(j->host); free(j->host_names); free(j->blame);
    free(j->culprit); free(j->reported);
}

static json_t *fc_exchange_json(const fc_retest_judged_t *j, const fc_exchange_t *e)
{
    json_t *o = json_pack("{s:i, s:s, s:i, s:s, s:i, s:i, s:I, s:s}",
                          "sender", e->sender, "sender_host", j->in->rank_hosts[e->sender],
                          "receiver", e->receiver, "receiver_host",
                          j->in->rank_hosts[e->receiver], "iterations", e->iters,
                          "wrong_iterations", e->wrong_iters, "wrong", (json_int_t)e->wrong,
                          "verdict", e->wrong ? "wrong" : "right");

    if (e->wrong)
        fc_retest_first_wrong(o, e->first_index, e->expected, e->actual);
    return o;
}

/* The exchanges that touch host h (h < 0: the wrong ones). */
static json_t *fc_evidence_json(const fc_retest_judged_t *j, int h)
{
    json_t *list = json_array();

    for (int i = 0; i < j->nex; ++i) {
        const fc_exchange_t *e = &j->ex[i];

        if (h >= 0 ? (j->host[e->sender] == h || j->host[e->receiver] == h) : e->wrong > 0)
            json_array_append_new(list, fc_exchange_json(j, e));
    }
    return list;
}

/* Per partner host (or per partner rank on one host): was what c sent
 * wrong, was what it received wrong. */
static void fc_confirmation_text(const fc_retest_judged_t *j, int c, char *buf, size_t len)
{
    const char *me = j->host_names[c];
    int per_rank = j->nhosts == 1, nunits = per_rank ? j->in->nranks : j->nhosts;
    int partners = 0, spelled = 0;
    char list[FC_RETEST_TEXT] = "";
    size_t at = 0;

    for (int u = 0; u < nunits; ++u) {
        int out_any = 0, out_wrong = 0, in_any = 0, in_wrong = 0;
        int from = -1, to = -1;

        if ((!per_rank && u == c) || (per_rank && j->blame[u] != FC_BLAME_NONE))
            continue;
        for (int i = 0; i < j->nex; ++i) {
            const fc_exchange_t *e = &j->ex[i];
            int s_in = per_rank ? j->blame[e->sender] != FC_BLAME_NONE : j->host[e->sender] == c;
            int r_in = per_rank ? j->blame[e->receiver] != FC_BLAME_NONE : j->host[e->receiver] == c;
            int s_u = per_rank ? e->sender == u : j->host[e->sender] == u;
            int r_u = per_rank ? e->receiver == u : j->host[e->receiver] == u;

            if (s_in && r_u) {
                out_any = 1;
                out_wrong |= e->wrong > 0;
                from = e->sender;
            }
            if (s_u && r_in) {
                in_any = 1;
                in_wrong |= e->wrong > 0;
                to = e->receiver;
            }
        }
        if (!out_any && !in_any)
            continue;
        ++partners;
        if (spelled == FC_RETEST_TEXT_PAIRS)
            continue;
        ++spelled;
        if (per_rank)
            at = fc_retest_cat(list, sizeof(list), at, "%srank %d -> rank %d %s, rank %d -> rank %d %s",
                        at ? ", " : "", from, u, out_wrong ? "wrong" : "right", u, to,
                        in_wrong ? "wrong" : "right");
        else
            at = fc_retest_cat(list, sizeof(list), at, "%s%s -> %s %s, %s -> %s %s", at ? ", " : "",
                        me, j->host_names[u], out_wrong ? "wrong" : "right",
                        j->host_names[u], me, in_wrong ? "wrong" : "right");
    }
    snprintf(buf, len, "confirmed by %d retest%s: %s%s", partners, partners == 1 ? "" : "s",
             list, partners > spelled ? ", ..." : "");
}

/* "rank 3, 9" of host c, and whether they send or receive wrong data. */
static fc_blame_t fc_culprit_ranks(const fc_retest_judged_t *j, int c, char *buf, size_t len,
                                   json_t *ranks)
{
    fc_blame_t dir = FC_BLAME_NONE;
    size_t at = 0;
    int n = 0;

    buf[0] = '\0';
    for (int r = 0; r < j->in->nranks; ++r)
        if (j->host[r] == c && j->blame[r] != FC_BLAME_NONE) {
            if (dir == FC_BLAME_NONE || j->blame[r] == FC_BLAME_SENDS)
                dir = j->blame[r];
            at = fc_retest_cat(buf, len, at, "%s%d", n++ ? ", " : "", r);
            json_array_append_new(ranks, json_integer(r));
        }
    return dir;
}

static json_t *fc_base_record(const fc_retest_judged_t *j, json_t *group)
{
    char now[32];
    const fc_retest_input_t *in = j->in;
    json_t *rec;

    fc_results_time(now, sizeof(now));
    rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", "retest", "run_id",
                    in->run_id, "stage", in->stage, "time", now, "source", "retest",
                    "group", fc_json_str(group, "group"));
    json_object_set_new(rec, "group_hosts", group ? json_deep_copy(json_object_get(group, "hosts"))
                                                  : json_array());
    json_object_set_new(rec, "racks", group ? json_deep_copy(json_object_get(group, "racks"))
                                            : json_array());
    json_object_set_new(rec, "observed", json_string(fc_json_str(group, "observed")));
    json_object_set_new(rec, "wrong_points", json_integer(json_integer_value(
                                                 json_object_get(group, "points"))));
    json_object_set_new(rec, "ranks", json_integer(in->nranks));
    json_object_set_new(rec, "hosts", json_integer(j->nhosts));
    json_object_set_new(rec, "rounds", json_integer(in->rounds));
    json_object_set_new(rec, "bytes", json_integer(in->bytes));
    json_object_set_new(rec, "iterations", json_integer(in->iters));
    json_object_set_new(rec, "seconds", json_real(in->seconds));
    json_object_set_new(rec, "exchanges_checked", json_integer(j->nex));
    json_object_set_new(rec, "exchanges_wrong", json_integer(j->nwrong));
    json_object_set_new(rec, "kind", json_string("wrong"));
    json_object_set_new(rec, "leave_one_out", fc_leave_one_out_json(j));
    json_object_set_new(rec, "method", json_string(j->loo_unit >= 0 ? "leave-one-out"
                                                                       : "point-to-point"));
    json_object_set_new(rec, "verdict", json_string("FAIL"));
    return rec;
}

static void fc_emit(fc_results_t *results, fc_tap_t *tap, json_t *rec, const char *label,
                    const char *why)
{
    fc_tap_point(tap, FC_ERR_FAIL, "retest of %s: %s", label, why);
    fc_results_append(results, rec);       /* takes rec */
}

/* A confirmed culprit host c (group may be NULL: outside every group). */
static void fc_write_culprit(fc_retest_judged_t *j, json_t *group, int c,
                             fc_results_t *results, fc_tap_t *tap)
{
    json_t *rec = fc_base_record(j, group), *ranks = json_array();
    const char *host = j->host_names[c], *rack = fc_host_rack(j, host);
    char rank_list[256], confirm[FC_RETEST_TEXT], why[2 * FC_RETEST_TEXT];
    fc_blame_t dir = fc_culprit_ranks(j, c, rank_list, sizeof(rank_list), ranks);
    const char *obs = fc_json_str(group, "observed");

    if (j->loo_unit >= 0)
        fc_leave_one_out_text(j, confirm, sizeof(confirm));
    else
        fc_confirmation_text(j, c, confirm, sizeof(confirm));
    /* the leave-one-out says the collective is right without the host,
     * not whether its sends or its receives are wrong */
    snprintf(why, sizeof(why), "wrong data %s %s (rank%s %s) %s%s%s",
             j->loo_unit >= 0 ? "in the collective follows" :
             dir == FC_BLAME_SENDS ? "sent by" : "received by", host,
             strchr(rank_list, ',') ? "s" : "", rank_list, confirm,
             obs[0] ? "; observed: " : "", obs);
    json_object_set_new(rec, "rack", json_string(rack));
    json_object_set_new(rec, "localised", json_true());
    json_object_set_new(rec, "culprit", json_pack("{s:s, s:s, s:o, s:s}", "host", host,
                        "rack", rack, "ranks", ranks, "direction",
                        j->loo_unit >= 0 ? "send or receive" :
                        dir == FC_BLAME_SENDS ? "send" : "receive"));
    json_object_set_new(rec, "exchanges", fc_evidence_json(j, c));
    json_object_set_new(rec, "reasons", json_pack("[s]", why));
    json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:s, s:b}", "part", "node",
                        "host", host, "rack", rack, "quarantine", 1));
    j->reported[c] = 1;
    fc_emit(results, tap, rec, group ? fc_json_str(group, "group") : host, why);
}

/* The group's wrong result could not be placed on one of its hosts. */
static void fc_write_unplaced(fc_retest_judged_t *j, json_t *group, fc_results_t *results,
                              fc_tap_t *tap)
{
    json_t *rec = fc_base_record(j, group), *hosts = json_object_get(group, "hosts");
    char found[FC_RETEST_TEXT], why[2 * FC_RETEST_TEXT];
    const char *one;
    size_t at = 0;
    int shown = 0, loo_all = 0, persistent;

    if (j->nwrong == 0) {
        int loo_wrong = 0;

        for (int u = 0; j->in->loo_wrong && u < j->in->nunits; ++u)
            loo_wrong += j->in->loo_wrong[u] > 0;
        snprintf(found, sizeof(found), "all %d retest exchanges right, %d of %d "
                 "%s runs without one %s wrong", j->nex, loo_wrong, j->in->nunits,
                 j->in->loo_label ? j->in->loo_label : "all_reduce",
                 j->nhosts == 1 ? "rank" : "node");
    } else {
        at = fc_retest_cat(found, sizeof(found), at, "%d of %d retest exchanges wrong (", j->nwrong,
                    j->nex);
        for (int i = 0; i < j->nex && shown < FC_RETEST_TEXT_PAIRS; ++i)
            if (j->ex[i].wrong)
                at = fc_retest_cat(found, sizeof(found), at, "%srank %d (%s) -> rank %d (%s)",
                            shown++ ? ", " : "", j->ex[i].sender,
                            j->in->rank_hosts[j->ex[i].sender], j->ex[i].receiver,
                            j->in->rank_hosts[j->ex[i].receiver]);
        fc_retest_cat(found, sizeof(found), at, "%s)%s", j->nwrong > shown ? ", ..." : "",
               j->localised ? ": the rank to blame is outside the group"
                            : ", no rank wrong with every partner");
    }
    /* every run without one node still wrong is persistent corruption
     * from more than one node; anything less (a wrong exchange or run
     * here and there: the retest is a new program, so a fault of one
     * call hits its first call too) is intermittent */
    for (int u = 0; j->in->loo_wrong && u < j->in->nunits; ++u)
        loo_all += j->in->loo_wrong[u] > 0;
    persistent = j->in->nunits > 1 && loo_all == j->in->nunits;
    snprintf(why, sizeof(why), "%s corruption in %s (%zu host%s), not localised%s: "
             "%s; nobody quarantined%s%s", persistent ? "persistent" : "intermittent",
             fc_json_str(group, "group"), json_array_size(hosts),
             json_array_size(hosts) == 1 ? "" : "s",
             persistent ? " to one node (every run without one node is still wrong: more "
             "than one node corrupts)" : "", found,
             fc_json_str(group, "observed")[0] ? "; observed: " : "", fc_json_str(group, "observed"));
    /* a one-node group: that node is implicated, but not quarantined */
    one = json_array_size(hosts) == 1 ? json_string_value(json_array_get(hosts, 0)) : NULL;
    json_object_set_new(rec, "rack", json_string(one ? fc_host_rack(j, one) : ""));
    json_object_set_new(rec, "localised", json_false());
    json_object_set_new(rec, "culprit", json_null());
    json_object_set_new(rec, "exchanges", fc_evidence_json(j, -1));
    json_object_set_new(rec, "reasons", json_pack("[s]", why));
    json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:O, s:O, s:b}", "part",
                        one ? "node" : "group", "host", one ? one : "", "racks",
                        json_object_get(group, "racks"), "hosts", hosts, "quarantine", 0));
    fc_emit(results, tap, rec, fc_json_str(group, "group"), why);
}

static int fc_group_has_host(json_t *group, const char *host)
{
    size_t i;
    json_t *h;

    json_array_foreach(json_object_get(group, "hosts"), i, h)
        if (strcmp(json_string_value(h) ? json_string_value(h) : "", host) == 0)
            return 1;
    return 0;
}

int fc_retest_write_records(const fc_retest_input_t *in, fc_results_t *results,
                            fc_tap_t *tap)
{
    fc_retest_judged_t j;
    json_t *group;
    size_t i;
    int written = 0;

    fc_judge_setup(in, &j);
    json_array_foreach(json_object_get(in->groups, "groups"), i, group) {
        int placed = 0;

        if (fc_retest_group_is_slow(group))
            continue;           /* fc_retest_slow.c */
        for (int c = 0; c < j.nhosts; ++c)
            if (j.culprit[c] && fc_group_has_host(group, j.host_names[c])) {
                fc_write_culprit(&j, group, c, results, tap);
                ++placed;
            }
        if (!placed)
            fc_write_unplaced(&j, group, results, tap);
        written += placed ? placed : 1;
    }
    for (int c = 0; c < j.nhosts; ++c)
        if (j.culprit[c] && !j.reported[c]) {
            fc_write_culprit(&j, NULL, c, results, tap);
            ++written;
        }
    fc_judge_free(&j);
    return written;
}
