/*
 * intersect.c - unit tests of lib/retest/fc_intersect.c on fixture records, as
 * the stages, the pairs stage and the retest write them, on 6 hosts in
 * racks of 2, 3 and 1 (n01-n02 r1, n03-n05 r2, n06 r3): two stages whose
 * wrong results' groups meet in one host (that host, with partners off its
 * rack), groups with no host in common (not placed, and why), one
 * sighting alone, a host a retest placed already (it explains the rest),
 * cluster-wide groups narrowed by the rank that saw the wrong bits (a
 * received flip) or not (a sent one), the pairs' and a retest's wrong
 * exchanges, a suspect out of the run, a slowness left out; then the
 * judgement of the bounded retest's exchanges (received, sent, within the
 * node, not reproduced, one partner only, no common host, no control) and
 * its record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_intersect.h"
#include "fc_tap.h"

static const char *const hosts6[] = { "n01", "n02", "n03", "n04", "n05", "n06" };

static json_t *healthy(const char *without)
{
    json_t *h = json_array();

    for (int i = 0; i < 6; ++i)
        if (without == NULL || strcmp(hosts6[i], without) != 0)
            json_array_append_new(h, json_string(hosts6[i]));
    return h;
}

static json_t *racks(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "n01", "r1", "n02", "r1", "n03", "r2",
                     "n04", "r2", "n05", "r2", "n06", "r3");
}

/* A failing point of a stage whose wrong output implicates its group. */
static json_t *point(const char *stage, const char *group, const char *hosts_json,
                     const char *racks_json, int bad_ranks, const char *first_host)
{
    char text[1024];

    snprintf(text, sizeof(text),
             "{\"type\":\"point\",\"run_id\":\"R\",\"stage\":\"%s\",\"verdict\":\"FAIL\","
             "\"wrong\":1,\"bad_ranks\":%d,\"first_mismatch\":{\"host\":\"%s\"},"
             "\"implicates\":{\"part\":\"group\",\"group\":\"%s\",\"hosts\":%s,\"racks\":%s,"
             "\"quarantine\":false,\"localised\":false}}", stage, bad_ranks, first_host,
             group, hosts_json, racks_json);
    return json_loads(text, 0, NULL);
}

/* A pair of the pairs stage with wrong data received on `to` from the other. */
static json_t *pair(const char *a, const char *b, const char *to)
{
    char text[1024];

    snprintf(text, sizeof(text),
             "{\"type\":\"pair\",\"run_id\":\"R\",\"stage\":\"pairs\",\"verdict\":\"FAIL\","
             "\"host_a\":\"%s\",\"host_b\":\"%s\",\"exchanges\":["
             "{\"sender_host\":\"%s\",\"receiver_host\":\"%s\",\"wrong\":%d},"
             "{\"sender_host\":\"%s\",\"receiver_host\":\"%s\",\"wrong\":%d}],"
             "\"implicates\":{\"part\":\"group\",\"group\":\"pair %s <-> %s\","
             "\"hosts\":[\"%s\",\"%s\"],\"racks\":[],\"quarantine\":false,"
             "\"localised\":false}}", a, b, b, a, strcmp(to, a) == 0, a, b,
             strcmp(to, b) == 0, a, b, a, b);
    return json_loads(text, 0, NULL);
}

static int has(json_t *set, const char *name)
{
    size_t i;
    json_t *h;

    json_array_foreach(set, i, h)
        if (strcmp(json_string_value(h), name) == 0)
            return 1;
    return 0;
}

static json_t *find(json_t *recs, const char *without)
{
    json_t *h = healthy(without), *r = racks();
    json_t *plan = fc_intersect_find(recs, "R", 0, h, r);

    json_decref(h);
    json_decref(r);
    return plan;
}

static const char *reason(json_t *plan)
{
    return json_string_value(json_object_get(plan, "reason"));
}

static int placeable(json_t *plan)
{
    return json_is_true(json_object_get(plan, "placeable"));
}

static void test_find(fc_tap_t *tap)
{
    json_t *recs, *plan, *s, *p;

    /* rack2's rack stage and the pairs stage: rack2 and pair n02 <-> n04 */
    recs = json_array();
    json_array_append_new(recs, point("rack", "rack2", "[\"n03\",\"n04\",\"n05\"]", "[\"r2\"]",
                                      1, "n04"));
    json_array_append_new(recs, pair("n02", "n04", "n04"));
    plan = find(recs, NULL);
    s = json_object_get(plan, "suspects");
    p = json_object_get(plan, "partners");
    fc_tap_ok(tap, placeable(plan),
              "two stages' groups (rack2; pair n02 <-> n04) meet in n04: it is the suspect, "
              "its partners off its rack and on two racks (%s)", reason(plan));
    fc_tap_is_int(tap, json_array_size(s), 1,
                  "two stages' groups (rack2; pair n02 <-> n04) meet in n04: it is the "
                  "suspect, its partners off its rack and on two racks (%s)"
                  " [json_array_size(s)]", reason(plan));
    fc_tap_ok(tap, has(s, "n04"),
              "two stages' groups (rack2; pair n02 <-> n04) meet in n04: it is the suspect, "
              "its partners off its rack and on two racks (%s)"
              " [has(s, \"n04\")]", reason(plan));
    fc_tap_is_int(tap, json_array_size(p), 2,
                  "two stages' groups (rack2; pair n02 <-> n04) meet in n04: it is the "
                  "suspect, its partners off its rack and on two racks (%s)"
                  " [json_array_size(p)]", reason(plan));
    fc_tap_ok(tap, has(p, "n06") && (has(p, "n01") || has(p, "n02")),
              "two stages' groups (rack2; pair n02 <-> n04) meet in n04: it is the suspect, "
              "its partners off its rack and on two racks (%s)"
              " [has(p, \"n06\") && (has(p, \"n01\") || has(p, \"n02\"))]", reason(plan));
    json_decref(plan);
    /* pair n01 <-> n02 besides: no host in every group */
    json_array_append_new(recs, pair("n01", "n02", "n01"));
    plan = find(recs, NULL);
    fc_tap_ok(tap, !placeable(plan) && strstr(reason(plan), "no host is in every group") &&
              strstr(reason(plan), "n04") && strstr(reason(plan), "n01, n02"),
              "a third group with no host in common: not placed, and why (%s)", reason(plan));
    json_decref(plan);
    json_decref(recs);

    /* one sighting alone */
    recs = json_array();
    json_array_append_new(recs, point("cluster", "cluster", "[\"n01\",\"n02\",\"n03\",\"n04\","
                                      "\"n05\",\"n06\"]", "[\"r1\",\"r2\",\"r3\"]", 1, "n04"));
    plan = find(recs, NULL);
    fc_tap_ok(tap, !placeable(plan) && strstr(reason(plan), "seen once"),
              "wrong bits seen once: nothing to intersect (%s)", reason(plan));
    json_decref(plan);
    /* seen again in the cluster group, each time on n04 alone: a received
     * flip; every host is in the group, the observer narrows it */
    json_array_append_new(recs, point("soak", "cluster", "[\"n01\",\"n02\",\"n03\",\"n04\","
                                      "\"n05\",\"n06\"]", "[\"r1\",\"r2\",\"r3\"]", 1, "n04"));
    plan = find(recs, NULL);
    s = json_object_get(plan, "suspects");
    fc_tap_ok(tap, placeable(plan),
              "cluster-wide groups, the wrong bits on n04's own output each time: narrowed "
              "to n04, two partners");
    fc_tap_is_int(tap, json_array_size(s), 1,
                  "cluster-wide groups, the wrong bits on n04's own output each time: narrowed "
                  "to n04, two partners"
                  " [json_array_size(s)]");
    fc_tap_ok(tap, has(s, "n04") &&
              json_is_true(json_object_get(plan, "narrowed")),
              "cluster-wide groups, the wrong bits on n04's own output each time: narrowed "
              "to n04, two partners"
              " [has(s, \"n04\") && json_is_true(json_object_get(plan, \"narr...]");
    fc_tap_is_int(tap, json_array_size(json_object_get(plan, "partners")), 2,
                  "cluster-wide groups, the wrong bits on n04's own output each time: narrowed "
                  "to n04, two partners"
                  " [json_array_size(json_object_get(plan, \"partners\"))]");
    json_decref(plan);
    json_decref(recs);
    /* the same on every rank's output (a sent flip): no narrowing, every
     * host retested */
    recs = json_array();
    for (int k = 0; k < 2; ++k)
        json_array_append_new(recs, point(k ? "soak" : "cluster", "cluster",
                                          "[\"n01\",\"n02\",\"n03\",\"n04\",\"n05\",\"n06\"]",
                                          "[\"r1\",\"r2\",\"r3\"]", 12, "n01"));
    plan = find(recs, NULL);
    fc_tap_ok(tap, placeable(plan),
              "cluster-wide groups, every rank's output wrong: all 6 hosts retested together");
    fc_tap_is_int(tap, json_array_size(json_object_get(plan, "suspects")), 6,
                  "cluster-wide groups, every rank's output wrong: all 6 hosts retested "
                  "together"
                  " [json_array_size(json_object_get(plan, \"suspects\"))]");
    fc_tap_is_int(tap, json_array_size(json_object_get(plan, "partners")), 0,
                  "cluster-wide groups, every rank's output wrong: all 6 hosts retested "
                  "together"
                  " [json_array_size(json_object_get(plan, \"partners\"))]");
    fc_tap_ok(tap, !json_is_true(json_object_get(plan, "narrowed")),
              "cluster-wide groups, every rank's output wrong: all 6 hosts retested together"
              " [!json_is_true(json_object_get(plan, \"narrowed\"))]");
    json_decref(plan);
    json_decref(recs);

    /* a retest's wrong exchanges are sightings too; n04 is out of the run */
    recs = json_loads("[{\"type\":\"retest\",\"run_id\":\"R\",\"stage\":\"node\",\"kind\":\"wrong\","
                      "\"verdict\":\"FAIL\",\"localised\":false,\"group\":\"n04\","
                      "\"group_hosts\":[\"n04\"],\"racks\":[\"r2\"],\"exchanges\":["
                      "{\"sender_host\":\"n06\",\"receiver_host\":\"n04\",\"verdict\":\"wrong\"},"
                      "{\"sender_host\":\"n01\",\"receiver_host\":\"n04\",\"verdict\":\"wrong\"}]}]",
                      0, NULL);
    plan = find(recs, NULL);
    fc_tap_ok(tap, placeable(plan),
              "a retest's two wrong exchanges into n04 (its group is the failure it "
              "followed, not a sighting): n04 (2 sightings)");
    fc_tap_is_int(tap, json_array_size(json_object_get(plan, "suspects")), 1,
                  "a retest's two wrong exchanges into n04 (its group is the failure it "
                  "followed, not a sighting): n04 (2 sightings)"
                  " [json_array_size(json_object_get(plan, \"suspects\"))]");
    fc_tap_ok(tap, has(json_object_get(plan, "suspects"), "n04"),
              "a retest's two wrong exchanges into n04 (its group is the failure it "
              "followed, not a sighting): n04 (2 sightings)"
              " [has(json_object_get(plan, \"suspects\"), \"n04\")]");
    fc_tap_is_int(tap, json_integer_value(json_object_get(plan, "sightings")), 2,
                  "a retest's two wrong exchanges into n04 (its group is the failure it "
                  "followed, not a sighting): n04 (2 sightings)"
                  " [json_integer_value(json_object_get(plan, \"sightings\"))]");
    json_decref(plan);
    plan = find(recs, "n04");
    fc_tap_ok(tap, !placeable(plan) && strstr(reason(plan), "out of the run"),
              "the same with n04 quarantined: nothing to retest (%s)", reason(plan));
    json_decref(plan);
    /* a later retest that placed n04: it explains every sighting */
    json_array_append_new(recs, json_loads(
        "{\"type\":\"retest\",\"run_id\":\"R\",\"stage\":\"node\",\"kind\":\"wrong\","
        "\"verdict\":\"FAIL\",\"localised\":true,\"method\":\"intersection\","
        "\"culprit\":{\"host\":\"n04\",\"rack\":\"r2\"},\"implicates\":{\"part\":\"node\","
        "\"host\":\"n04\",\"quarantine\":true}}", 0, NULL));
    json_array_append_new(recs, pair("n02", "n04", "n04"));
    plan = find(recs, NULL);
    fc_tap_ok(tap, !placeable(plan),
              "n04 placed: the sightings that hold it are explained, none left (%s)",
              reason(plan));
    fc_tap_is_int(tap, json_integer_value(json_object_get(plan, "sightings")), 0,
                  "n04 placed: the sightings that hold it are explained, none left (%s)"
                  " [json_integer_value(json_object_get(plan, \"sightings\"))]", reason(plan));
    fc_tap_is_int(tap, json_integer_value(json_object_get(plan, "explained")), 3,
                  "n04 placed: the sightings that hold it are explained, none left (%s)"
                  " [json_integer_value(json_object_get(plan, \"explained\"))]", reason(plan));
    json_decref(plan);
    json_decref(recs);

    /* a slowness is no sighting; another run's records neither */
    recs = json_loads("[{\"type\":\"point\",\"run_id\":\"R\",\"stage\":\"cluster\",\"verdict\":"
                      "\"FAIL\",\"implicates\":{\"kind\":\"slow\",\"group\":\"cluster\","
                      "\"hosts\":[\"n01\",\"n02\"],\"localised\":false}},"
                      "{\"type\":\"point\",\"run_id\":\"OTHER\",\"stage\":\"cluster\",\"verdict\":"
                      "\"FAIL\",\"implicates\":{\"group\":\"cluster\",\"hosts\":[\"n01\"],"
                      "\"localised\":false}}]", 0, NULL);
    plan = find(recs, NULL);
    fc_tap_is_int(tap, json_integer_value(json_object_get(plan, "sightings")), 0,
                  "a confirmed slowness and another run's wrong result are no sightings");
    json_decref(plan);
    json_decref(recs);
}

/* Directed host pairs of 3 hosts (0 = X, 1 = A, 2 = B) and the node's own,
 * 10 exchanges each; wrong[s][r] of them wrong. */
static int grid(int wrong[3][3], int skip_controls, fc_host_exchange_t *ex)
{
    int n = 0;

    for (int s = 0; s < 3; ++s)
        for (int r = 0; r < 3; ++r) {
            if (skip_controls && s != 0 && r != 0)
                continue;
            memset(&ex[n], 0, sizeof(ex[n]));
            ex[n].sender = s;
            ex[n].receiver = r;
            ex[n].exchanges = 10;
            ex[n].wrong_exchanges = wrong[s][r];
            ex[n].wrong = (uint64_t)wrong[s][r];
            ex[n].bytes = 10 * 65536;
            ++n;
        }
    return n;
}

static void test_judge(fc_tap_t *tap)
{
    static const char *const names[] = { "n04", "n01", "n06" };
    fc_host_exchange_t ex[9];
    fc_intersect_verdict_t v;
    int recv[3][3] = { { 0, 0, 0 }, { 2, 0, 0 }, { 1, 0, 0 } };
    int sent[3][3] = { { 0, 3, 1 }, { 0, 0, 0 }, { 0, 0, 0 } };
    int none[3][3] = { { 0 } };
    int one[3][3] = { { 0, 0, 0 }, { 2, 0, 0 }, { 0, 0, 0 } };
    int within[3][3] = { { 1, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
    int apart[3][3] = { { 0, 0, 0 }, { 0, 0, 1 }, { 0, 0, 0 } };

    fc_intersect_judge(3, names, grid(recv, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_PLACED,
                  "n01 -> n04 and n06 -> n04 wrong, the rest right: n04 receives wrong data "
                  "(%s)",
                  v.why);
    fc_tap_is_int(tap, v.host, 0,
                  "n01 -> n04 and n06 -> n04 wrong, the rest right: n04 receives wrong data "
                  "(%s)"
                  " [v.host]", v.why);
    fc_tap_is_str(tap, v.direction, "receive",
                  "n01 -> n04 and n06 -> n04 wrong, the rest right: n04 receives wrong data "
                  "(%s)"
                  " [v.direction]", v.why);
    fc_tap_is_int(tap, v.counterparts, 2,
                  "n01 -> n04 and n06 -> n04 wrong, the rest right: n04 receives wrong data "
                  "(%s)"
                  " [v.counterparts]", v.why);
    fc_intersect_judge(3, names, grid(sent, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_PLACED,
                  "n04 -> n01 and n04 -> n06 wrong: n04 sends "
                  "wrong data");
    fc_tap_is_int(tap, v.host, 0, "n04 -> n01 and n04 -> n06 wrong: n04 sends "
                  "wrong data"
                  " [v.host]");
    fc_tap_is_str(tap, v.direction, "send", "n04 -> n01 and n04 -> n06 wrong: n04 sends "
                  "wrong data"
                  " [v.direction]");
    fc_intersect_judge(3, names, grid(within, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_PLACED,
                  "wrong between n04's own ranks only: n04, within the node");
    fc_tap_is_int(tap, v.host, 0, "wrong between n04's own ranks only: n04, within the node"
                  " [v.host]");
    fc_tap_is_str(tap, v.direction, "within the node",
                  "wrong between n04's own ranks only: n04, within the node"
                  " [v.direction]");
    fc_intersect_judge(3, names, grid(none, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_NOT_REPRODUCED,
                  "every exchange right: not reproduced (%s)", v.why);
    fc_tap_ok(tap, v.host < 0, "every exchange right: not reproduced (%s)"
              " [v.host < 0]", v.why);
    fc_tap_is_int(tap, v.exchanges, 90, "every exchange right: not reproduced (%s)"
                  " [v.exchanges]", v.why);
    fc_intersect_judge(3, names, grid(one, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_NOT_PLACED,
                  "wrong with one partner only: not placed (%s)", v.why);
    fc_tap_ok(tap, strstr(v.why, "either end") != NULL,
              "wrong with one partner only: not placed (%s)"
              " [names 'either end']", v.why);
    fc_intersect_judge(3, names, grid(apart, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_NOT_PLACED,
                  "one wrong exchange between the partners: its two ends, not placed (%s)",
                  v.why);
    fc_tap_ok(tap, strstr(v.why, "same hosts") != NULL,
              "one wrong exchange between the partners: its two ends, not placed (%s)"
              " [names 'same hosts']", v.why);
    recv[1][2] = 1;     /* n01 -> n06 wrong too: n04 is not in every one */
    fc_intersect_judge(3, names, grid(recv, 0, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_NOT_PLACED,
                  "wrong exchanges with no host in common: not placed (%s)", v.why);
    fc_tap_ok(tap, strstr(v.why, "share no host") != NULL,
              "wrong exchanges with no host in common: not placed (%s)"
              " [names 'share no host']", v.why);
    recv[1][2] = 0;
    fc_intersect_judge(3, names, grid(recv, 1, ex), ex, &v);
    fc_tap_is_int(tap, v.outcome, FC_INTERSECT_NOT_PLACED,
                  "no exchange without n04 checked: nothing to compare, not placed");
    fc_tap_ok(tap, strstr(v.why, "no exchange without") != NULL,
              "no exchange without n04 checked: nothing to compare, not placed"
              " [names 'no exchange without']");
}

static void test_record(fc_tap_t *tap)
{
    static const char *const names[] = { "n04", "n01", "n06" };
    int recv[3][3] = { { 0, 0, 0 }, { 2, 0, 0 }, { 1, 0, 0 } };
    int none[3][3] = { { 0 } };
    fc_host_exchange_t ex[9];
    fc_intersect_verdict_t v;
    json_t *plan = json_loads(
        "{\"suspects\":[\"n04\"],\"partners\":[\"n01\",\"n06\"],\"limit_s\":20,"
        "\"host_racks\":{\"n01\":\"r1\",\"n04\":\"r2\",\"n06\":\"r3\"},"
        "\"evidence\":[{\"stage\":\"cluster\",\"what\":\"cluster\",\"points\":3}],"
        "\"groups\":[{\"stage\":\"cluster\",\"group\":\"cluster\",\"hosts\":[\"n01\",\"n04\","
        "\"n06\"],\"racks\":[\"r1\",\"r2\",\"r3\"]},{\"stage\":\"pairs\",\"group\":"
        "\"pair n01 <-> n06\",\"hosts\":[\"n01\",\"n06\"]}]}", 0, NULL);
    json_t *rec, *imp;
    int n = grid(recv, 0, ex);
    const char *why;

    fc_intersect_judge(3, names, n, ex, &v);
    rec = fc_intersect_record(plan, "R", "cluster", 3, names, n, ex, &v, 65536, 6, 4, 1.5);
    imp = json_object_get(rec, "implicates");
    why = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));
    fc_tap_ok(tap, json_is_true(json_object_get(imp, "quarantine")),
              "placed: n04 quarantined, the cluster group (not the pair without it) "
              "explained, every pair's exchanges kept (%s)", why);
    fc_tap_is_str(tap, json_string_value(json_object_get(imp, "host")), "n04",
                  "placed: n04 quarantined, the cluster group (not the pair without it) "
                  "explained, every pair's exchanges kept (%s)"
                  " [json_string_value(json_object_get(imp, \"host\"))]", why);
    fc_tap_is_int(tap, json_array_size(json_object_get(rec, "explains")), 1,
                  "placed: n04 quarantined, the cluster group (not the pair without it) "
                  "explained, every pair's exchanges kept (%s)"
                  " [json_array_size(json_object_get(rec, \"explains\"))]", why);
    fc_tap_is_int(tap, json_array_size(json_object_get(rec, "exchanges")), 9,
                  "placed: n04 quarantined, the cluster group (not the pair without it) "
                  "explained, every pair's exchanges kept (%s)"
                  " [json_array_size(json_object_get(rec, \"exchanges\"))]", why);
    fc_tap_ok(tap, strstr(why, "wrong data received by n04") &&
                       strstr(why, "partners n01, n06"),
              "placed: n04 quarantined, the cluster group (not the pair without it) "
              "explained, every pair's exchanges kept (%s)"
              " [names 'wrong data received by n04', 'partners n01, n06']", why);
    fc_tap_is_str(tap, json_string_value(json_object_get(rec, "verdict")), "FAIL",
                  "placed: n04 quarantined, the cluster group (not the pair without it) "
                  "explained, every pair's exchanges kept (%s)"
                  " [json_string_value(json_object_get(rec, \"verdict\"))]", why);
    json_decref(rec);
    n = grid(none, 0, ex);
    fc_intersect_judge(3, names, n, ex, &v);
    rec = fc_intersect_record(plan, "R", "cluster", 3, names, n, ex, &v, 65536, 6, 40, 20.1);
    imp = json_object_get(rec, "implicates");
    why = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));
    fc_tap_ok(tap, !json_is_true(json_object_get(imp, "quarantine")) &&
              strstr(why, "not reproduced in 20.1 s of checked exchanges with partners n01, "
                     "n06") && strstr(why, "n04 stays implicated with its group") &&
              json_object_get(rec, "explains") == NULL,
              "not reproduced: a FAIL, nobody quarantined, the node stays implicated (%s)",
              why);
    fc_tap_is_str(tap, json_string_value(json_object_get(rec, "verdict")), "FAIL",
                  "not reproduced: a FAIL, nobody quarantined, the node stays implicated (%s)"
                  " [json_string_value(json_object_get(rec, \"verdict\"))]", why);
    json_decref(rec);
    /* a partner (n01) in every wrong exchange: a fault of its own; the
     * suspect n04's group keeps its wrong results */
    memset(none, 0, sizeof(none));
    none[0][1] = 1;
    none[2][1] = 3;
    n = grid(none, 0, ex);
    fc_intersect_judge(3, names, n, ex, &v);
    rec = fc_intersect_record(plan, "R", "cluster", 3, names, n, ex, &v, 65536, 6, 1, 0.1);
    imp = json_object_get(rec, "implicates");
    why = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));
    fc_tap_ok(tap, json_is_true(json_object_get(imp, "quarantine")),
              "a partner placed: quarantined for its own fault, explains no group of the "
              "suspect's (%s)", why);
    fc_tap_is_str(tap, json_string_value(json_object_get(imp, "host")), "n01",
                  "a partner placed: quarantined for its own fault, explains no group of the "
                  "suspect's (%s)"
                  " [json_string_value(json_object_get(imp, \"host\"))]", why);
    fc_tap_is_int(tap, json_array_size(json_object_get(rec, "explains")), 0,
                  "a partner placed: quarantined for its own fault, explains no group of the "
                  "suspect's (%s)"
                  " [json_array_size(json_object_get(rec, \"explains\"))]", why);
    fc_tap_ok(tap, strstr(why, "n01, a partner, is no suspect") &&
              strstr(why, "n04, who stays implicated with its group") &&
              !strstr(why, "n01 was in every group"),
              "a partner placed: quarantined for its own fault, explains no group of the "
              "suspect's (%s)"
              " [names 'n01, a partner, is no suspect', 'n04, who stays implicated...'; "
              "not 'n01 was in every group']", why);
    json_decref(rec);
    json_decref(plan);
}

int main(void)
{
    fc_tap_t tap;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 57);
    test_find(&tap);
    test_judge(&tap);
    test_record(&tap);
    return fc_tap_done(&tap);
}
