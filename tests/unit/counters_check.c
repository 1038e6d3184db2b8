/*
 * counters_check.c - unit tests of lib/counters/fc_counters_check.c on point
 * records written here, as the rack and cluster stages write them:
 *   the lower bounds per collective (all_reduce, all_gather,
 *   reduce_scatter, all_to_all per host; broadcast for the group; none for
 *   one host or sendrecv);
 *   a 2-host all_reduce whose hosts both sent more than the bound: PASS;
 *   one host that sent less (its traffic through shared memory): INCOMPLETE
 *   naming the host, its link and both figures; a one-host point: PASS,
 *   with a note that traffic was not judged;
 *   a link reset mid-point (its rx_errors and tx_bytes went down, left
 *   out of the sums as the interval code leaves them): INCOMPLETE naming
 *   the link and each counter; a drops counter at its maximum with drops
 *   not judged: PASS;
 *   rx_errors +2 on a link: FAIL naming the link, host and counter,
 *   implicating the link; drops +40: PASS by default (not judged), FAIL
 *   under max_drops 10; no counters.limits: not judged (NULL);
 *   a host of the point with no interval at all (not_read): INCOMPLETE;
 *   errors on a host outside the record's group (a contention phase's
 *   counters are every node's): the link implicated, not the record's rack;
 *   fc_counters_apply turns a PASS record INCOMPLETE or FAIL and keeps the
 *   judgement; fc_counters_rejudged says the same from the record alone,
 *   and nothing for a record that is not a PASS.
 */
#include <stdio.h>
#include <string.h>

#include "fc_counters_check.h"
#include "fc_tap.h"

static fc_tap_t tap;

/* A 2-host point of coll with bytes, 5 iters + 1 warm-up, 2 ranks per
 * host, host a sent tx_a and b tx_b bytes out of eth0. */
static json_t *point(const char *coll, long long bytes, long long tx_a, long long tx_b)
{
    json_t *c = json_pack("{s:s, s:{s:{s:{s:I}, s:{s:{s:I}}}, s:{s:{s:I}, s:{s:{s:I}}}},"
                          " s:{s:i, s:i}, s:[]}",
                          "nic_pattern", "eth*", "hosts",
                          "a", "sum", "tx_bytes", (json_int_t)tx_a, "links", "eth0",
                          "tx_bytes", (json_int_t)tx_a,
                          "b", "sum", "tx_bytes", (json_int_t)tx_b, "links", "eth0",
                          "tx_bytes", (json_int_t)tx_b,
                          "ranks_per_host", "a", 2, "b", 2, "not_read");
    fc_counters_profile_t cp = { .read = 1, .max_errors = 0, .max_drops = -1,
                                 .max_retries = -1, .traffic = 1 };

    json_object_set_new(c, "limits", fc_counters_limits_json(&cp));
    return json_pack("{s:s, s:s, s:I, s:i, s:i, s:i, s:i, s:s, s:s, s:[], s:o}", "type", "point",
                     "collective", coll, "bytes", (json_int_t)bytes, "ranks", 4, "hosts", 2,
                     "iters", 5, "warmup", 1, "verdict", "PASS", "rack", "r1", "reasons",
                     "counters", c);
}

static const char *verdict_of(json_t *check)
{
    return check ? json_string_value(json_object_get(check, "verdict")) : "(null)";
}

static const char *reason0(json_t *j)
{
    const char *r = json_string_value(json_array_get(json_object_get(j, "reasons"), 0));

    return r ? r : "";
}

int main(void)
{
    json_t *rec, *ck, *eth0;
    char text[1024];
    const char *v;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 46);

    fc_tap_is_double(&tap, fc_counters_host_min_tx("all_reduce", 1000, 8, 2, 4), 750, 0,
                     "per-host bounds: all_reduce 3/4, all_gather 2/8, reduce_scatter 6/8, "
                     "all_to_all 2*6/8 of the size on 2 of 8 ranks over 4 hosts");
    fc_tap_is_double(&tap, fc_counters_host_min_tx("all_gather", 800, 8, 2, 4), 200, 0,
                     "per-host bounds: all_reduce 3/4, all_gather 2/8, reduce_scatter 6/8, "
                     "all_to_all 2*6/8 of the size on 2 of 8 ranks over 4 hosts"
                     " [fc_counters_host_min_tx(\"all_gather\", 800, 8, 2, 4)]");
    fc_tap_is_double(&tap, fc_counters_host_min_tx("reduce_scatter", 800, 8, 2, 4), 600, 0,
                     "per-host bounds: all_reduce 3/4, all_gather 2/8, reduce_scatter 6/8, "
                     "all_to_all 2*6/8 of the size on 2 of 8 ranks over 4 hosts"
                     " [fc_counters_host_min_tx(\"reduce_scatter\", 800, 8, 2, 4)]");
    fc_tap_is_double(&tap, fc_counters_host_min_tx("all_to_all", 800, 8, 2, 4),
                     2 * 800.0 * 6 / 8, 0,
                     "per-host bounds: all_reduce 3/4, all_gather 2/8, reduce_scatter 6/8, "
                     "all_to_all 2*6/8 of the size on 2 of 8 ranks over 4 hosts"
                     " [fc_counters_host_min_tx(\"all_to_all\", 800, 8, 2, 4)]");
    fc_tap_is_double(&tap, fc_counters_host_min_tx("all_reduce", 1000, 2, 2, 1), -1, 0,
                     "no per-host bound on one host, for broadcast or sendrecv; broadcast's "
                     "group bound is (hosts-1) buffers");
    fc_tap_is_double(&tap, fc_counters_host_min_tx("broadcast", 1000, 8, 2, 4), -1, 0,
                     "no per-host bound on one host, for broadcast or sendrecv; broadcast's "
                     "group bound is (hosts-1) buffers"
                     " [fc_counters_host_min_tx(\"broadcast\", 1000, 8, 2, 4)]");
    fc_tap_is_double(&tap, fc_counters_host_min_tx("sendrecv", 1000, 8, 2, 4), -1, 0,
                     "no per-host bound on one host, for broadcast or sendrecv; broadcast's "
                     "group bound is (hosts-1) buffers"
                     " [fc_counters_host_min_tx(\"sendrecv\", 1000, 8, 2, 4)]");
    fc_tap_is_double(&tap, fc_counters_group_min_tx("broadcast", 1000, 4), 3000, 0,
                     "no per-host bound on one host, for broadcast or sendrecv; broadcast's "
                     "group bound is (hosts-1) buffers"
                     " [fc_counters_group_min_tx(\"broadcast\", 1000, 4)]");
    fc_tap_is_double(&tap, fc_counters_group_min_tx("all_reduce", 1000, 4), -1, 0,
                     "no per-host bound on one host, for broadcast or sendrecv; broadcast's "
                     "group bound is (hosts-1) buffers"
                     " [fc_counters_group_min_tx(\"all_reduce\", 1000, 4)]");

    /* all_reduce 64 KiB on 2 hosts: 6 calls x 32 KiB = 196608 each */
    rec = point("all_reduce", 65536, 400000, 300000);
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "PASS",
                  "both hosts sent more than the bound: PASS (%s, bound %lld)", verdict_of(ck),
                  (long long)json_integer_value(
                      json_object_get(json_object_get(ck, "min_tx_bytes"), "a")));
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_object_get(ck, "min_tx_bytes"), "a")),
                  196608, "both hosts sent more than the bound: PASS (%s, bound %lld)"
                  " [json_integer_value(json_object_get(json_object_get(ck, \"m...]",
                  verdict_of(ck),
                  (long long)json_integer_value(
                      json_object_get(json_object_get(ck, "min_tx_bytes"), "a")));
    json_decref(ck);
    json_decref(rec);

    rec = point("all_reduce", 65536, 400000, 1200);
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "INCOMPLETE",
                  "host b sent 1200 bytes: INCOMPLETE naming it, its link and both figures (%s)",
                  reason0(ck));
    fc_tap_ok(&tap, strstr(reason0(ck), "host b sent 1200 bytes out of its links eth* (eth0)") &&
              strstr(reason0(ck), "less than the 196608 bytes") &&
              strstr(reason0(ck), "does not measure the links under test"),
              "host b sent 1200 bytes: INCOMPLETE naming it, its link and both figures (%s)"
              " [names 'host b sent 1200 bytes out of its links eth* (eth0)', 'less...]",
              reason0(ck));
    json_decref(ck);
    v = fc_counters_rejudged(rec, text, sizeof(text));
    fc_tap_is_str(&tap, v, "INCOMPLETE",
                  "the report judges it again from the record alone: INCOMPLETE (%s)", text);
    fc_tap_ok(&tap, strstr(text, "host b sent 1200") != NULL,
              "the report judges it again from the record alone: INCOMPLETE (%s)"
              " [names 'host b sent 1200']", text);
    fc_tap_is_int(&tap, fc_counters_apply(rec), 2,
                  "the stage's side turns the PASS record INCOMPLETE and keeps counters.check");
    fc_tap_is_str(&tap, json_string_value(json_object_get(rec, "verdict")), "INCOMPLETE",
                  "the stage's side turns the PASS record INCOMPLETE and keeps counters.check"
                  " [json_string_value(json_object_get(rec, \"verdict\"))]");
    fc_tap_ok(&tap, strstr(reason0(rec), "host b sent 1200") &&
              json_is_object(json_object_get(json_object_get(rec, "counters"), "check")),
              "the stage's side turns the PASS record INCOMPLETE and keeps counters.check"
              " [strstr(reason0(rec), \"host b sent 1200\") && json_is_objec...]");
    fc_tap_ok(&tap, fc_counters_rejudged(rec, text, sizeof(text)) == NULL,
              "a record that is not a PASS is not judged again");
    json_decref(rec);

    /* one host: nothing had to cross a link */
    rec = point("all_reduce", 65536, 0, 0);
    json_object_del(json_object_get(json_object_get(rec, "counters"), "ranks_per_host"), "b");
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "PASS",
                  "a one-host point: PASS, traffic not judged, with a note");
    fc_tap_ok(&tap, strstr(json_string_value(json_array_get(json_object_get(ck, "notes"), 0)),
                     "one host") != NULL, "a one-host point: PASS, traffic not judged, with a note"
              " [names 'one host']");
    json_decref(ck);
    json_decref(rec);

    /* errors, drops */
    rec = point("all_gather", 65536, 400000, 400000);
    eth0 = json_object_get(json_object_get(json_object_get(json_object_get(
        json_object_get(rec, "counters"), "hosts"), "b"), "links"), "eth0");
    json_object_set_new(eth0, "rx_dropped", json_integer(40));
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "PASS",
                  "rx_dropped +40: PASS by default (drops are congestion, not judged) (%s)",
                  verdict_of(ck));
    json_decref(ck);
    json_object_set_new(json_object_get(json_object_get(rec, "counters"), "limits"),
                        "max_drops", json_real(10));
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "FAIL", "... FAIL under max_drops 10 (%s)", reason0(ck));
    fc_tap_ok(&tap, strstr(reason0(ck), "link eth0 of host b: drop and discard counters rose") &&
              strstr(reason0(ck), "rx_dropped +40") && strstr(reason0(ck), "max_drops 10"),
              "... FAIL under max_drops 10 (%s)"
              " [names 'link eth0 of host b: drop and discard counters rose', 'rx_dr...]",
              reason0(ck));
    json_decref(ck);
    json_object_set_new(json_object_get(json_object_get(rec, "counters"), "limits"),
                        "max_drops", json_null());
    json_object_set_new(eth0, "rx_errors", json_integer(2));
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "FAIL",
                  "rx_errors +2: FAIL naming link, host and counter, implicating the link (%s)",
                  reason0(ck));
    fc_tap_ok(&tap, strstr(reason0(ck), "link eth0 of host b: error counters rose during the point "
                     "(rx_errors +2), above max_errors 0") != NULL,
              "rx_errors +2: FAIL naming link, host and counter, implicating the link (%s)"
              " [names 'link eth0 of host b: error counters rose during the point (r...]",
              reason0(ck));
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(ck, "implicates"),
                                                           "link")), "eth0",
                  "rx_errors +2: FAIL naming link, host and counter, implicating the link (%s)"
                  " [json_string_value(json_object_get(json_object_get(ck, \"im...]", reason0(ck));
    json_decref(ck);
    v = fc_counters_rejudged(rec, text, sizeof(text));
    fc_tap_is_str(&tap, v, "FAIL", "the report finds the FAIL from the record alone");
    fc_tap_ok(&tap, strstr(text, "rx_errors +2") != NULL,
              "the report finds the FAIL from the record alone"
              " [names 'rx_errors +2']");
    fc_tap_is_int(&tap, fc_counters_apply(rec), 1,
                  "the stage's side: FAIL, implicating link eth0 of host b in rack r1");
    fc_tap_is_str(&tap, json_string_value(json_object_get(rec, "verdict")), "FAIL",
                  "the stage's side: FAIL, implicating link eth0 of host b in rack r1"
                  " [json_string_value(json_object_get(rec, \"verdict\"))]");
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(rec, "implicates"),
                                                           "host")), "b",
                  "the stage's side: FAIL, implicating link eth0 of host b in rack r1"
                  " [json_string_value(json_object_get(json_object_get(rec, \"i...]");
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(rec, "implicates"),
                                                           "rack")), "r1",
                  "the stage's side: FAIL, implicating link eth0 of host b in rack r1"
                  " [json_string_value(json_object_get(json_object_get(rec, \"i...]");
    json_decref(rec);

    /* a contention phase's counters cover every node read: host c, not
     * of the record's group (rack r1), with errors: its link is blamed,
     * not rack r1 (the report places c by the plan's inventory) */
    rec = point("all_gather", 65536, 400000, 400000);
    json_object_set_new(json_object_get(json_object_get(rec, "counters"), "hosts"), "c",
                        json_pack("{s:{s:I}, s:{s:{s:I, s:I}}}", "sum", "tx_bytes",
                                  (json_int_t)5000, "links", "eth0", "tx_bytes",
                                  (json_int_t)5000, "rx_errors", (json_int_t)4));
    fc_tap_is_int(&tap, fc_counters_apply(rec), 1,
                  "errors on host c outside the record's group: FAIL implicating c's link, rack "
                  "left to the report, not the record's rack r1 (%s)",
                  json_string_value(json_object_get(json_object_get(rec, "implicates"), "rack")));
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(rec, "implicates"),
                                                           "host")), "c",
                  "errors on host c outside the record's group: FAIL implicating c's link, rack "
                  "left to the report, not the record's rack r1 (%s)"
                  " [json_string_value(json_object_get(json_object_get(rec, \"i...]",
                  json_string_value(json_object_get(json_object_get(rec, "implicates"), "rack")));
    fc_tap_is_str(&tap,
                  json_string_value(json_object_get(json_object_get(rec, "implicates"),
                                                           "rack")), "",
                  "errors on host c outside the record's group: FAIL implicating c's link, rack "
                  "left to the report, not the record's rack r1 (%s)"
                  " [json_string_value(json_object_get(json_object_get(rec, \"i...]",
                  json_string_value(json_object_get(json_object_get(rec, "implicates"), "rack")));
    json_decref(rec);

    /* host b's interval lost on the way to rank 0 (not_read) */
    rec = point("all_reduce", 65536, 400000, 400000);
    json_object_del(json_object_get(json_object_get(rec, "counters"), "hosts"), "b");
    json_array_append_new(json_object_get(json_object_get(rec, "counters"), "not_read"),
                          json_string("b"));
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "INCOMPLETE",
                  "host b not read at all: INCOMPLETE naming it, not a PASS with a note (%s)",
                  reason0(ck));
    fc_tap_ok(&tap,
              strstr(reason0(ck), "host b: its link counters were not read over the point") != NULL,
              "host b not read at all: INCOMPLETE naming it, not a PASS with a note (%s)"
              " [names 'host b: its link counters were not read over the point']",
              reason0(ck));
    json_decref(ck);
    json_decref(rec);

    rec = point("all_reduce", 65536, 1, 1);
    json_object_del(json_object_get(rec, "counters"), "limits");
    fc_tap_ok(&tap, fc_counters_check(rec) == NULL,
              "no counters.limits (not read, an older record): not judged");
    fc_tap_is_int(&tap, fc_counters_apply(rec), 0,
                  "no counters.limits (not read, an older record): not judged"
                  " [fc_counters_apply(rec)]");
    fc_tap_is_str(&tap, json_string_value(json_object_get(rec, "verdict")), "PASS",
                  "no counters.limits (not read, an older record): not judged"
                  " [json_string_value(json_object_get(rec, \"verdict\"))]");
    json_decref(rec);

    /* eth0 of host a reset mid-point (planted as the interval code records
     * it): its tx_bytes and rx_errors went down, so they are left out of
     * the sums; host b's 400000 bytes pass its bound */
    rec = point("all_reduce", 65536, 400000, 400000);
    {
        json_t *ha = json_object_get(json_object_get(json_object_get(rec, "counters"),
                                                     "hosts"), "a");

        json_object_set_new(ha, "sum", json_object());
        json_object_set_new(ha, "links", json_pack("{s:{}}", "eth0"));
        json_object_set_new(ha, "not_counted", json_pack(
            "[s,s]", "eth0 rx_errors: went down from 7 to 0 (the port was reset)",
            "eth0 tx_bytes: went down from 9000000 to 1200 (the port was reset)"));
    }
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "INCOMPLETE",
                  "eth0 of host a reset mid-point (rx_errors 7 -> 0, tx_bytes down): INCOMPLETE "
                  "naming the link and each counter, not a PASS with errors +0 (%s)", reason0(ck));
    fc_tap_ok(&tap, strstr(reason0(ck), "link eth0 of host a: its counter rx_errors could not be "
                     "counted over the point (eth0 rx_errors: went down from 7 to 0") &&
              strstr(json_string_value(json_array_get(json_object_get(ck, "reasons"), 1)),
                     "its counter tx_bytes could not be counted"),
              "eth0 of host a reset mid-point (rx_errors 7 -> 0, tx_bytes down): INCOMPLETE "
              "naming the link and each counter, not a PASS with errors +0 (%s)"
              " [names 'link eth0 of host a: its counter rx_errors could not be coun...]",
              reason0(ck));
    json_decref(ck);
    /* drops at a narrow counter's maximum: not judged by default, so
     * nothing is missing */
    json_object_set_new(json_object_get(json_object_get(json_object_get(rec, "counters"),
                                                        "hosts"), "a"), "not_counted",
                        json_pack("[s]", "eth0 rx_dropped: at the maximum of its 32-bit "
                                  "counter, so it could not show what moved"));
    json_object_set_new(json_object_get(json_object_get(json_object_get(rec, "counters"),
                                                        "hosts"), "a"), "sum",
                        json_pack("{s:I}", "tx_bytes", (json_int_t)400000));
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "PASS",
                  "a drops counter at its maximum, drops not judged: PASS (%s)", verdict_of(ck));
    json_decref(ck);
    json_decref(rec);

    rec = point("broadcast", 65536, 30000, 30000);
    ck = fc_counters_check(rec);
    fc_tap_is_str(&tap, verdict_of(ck), "INCOMPLETE",
                  "broadcast: the hosts together below one buffer per call: INCOMPLETE (%s)",
                  reason0(ck));
    fc_tap_ok(&tap, strstr(reason0(ck), "the 2 hosts sent 60000 bytes") != NULL,
              "broadcast: the hosts together below one buffer per call: INCOMPLETE (%s)"
              " [names 'the 2 hosts sent 60000 bytes']", reason0(ck));
    json_decref(ck);
    json_decref(rec);
    return fc_tap_done(&tap);
}
