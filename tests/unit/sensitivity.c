/*
 * sensitivity.c - unit tests of lib/engine/fc_sensitivity.c on hand-made
 * records: the smallest uniform loss each kind of limit would have
 * caught (min_busbw, max_latency, the relative rule on busbw and on a
 * one-rank group's algbw; a pair's bandwidth, rules and latency), the
 * nearest limit winning; a point that already fails catches at 0; no
 * timing rule says so instead of a number; the noise flags (a limit
 * inside the noise, one looser than it); and a stage's figure: the least
 * covered group, a pair counting for both its nodes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fc_sensitivity.h"
#include "fc_tap.h"

static double loss(json_t *s)
{
    json_t *v = json_object_get(s, "catch_loss_pct");

    return json_is_number(v) ? json_number_value(v) : -1;
}

static const char *str(json_t *s, const char *key)
{
    const char *v = json_string_value(json_object_get(s, key));

    return v ? v : "(null)";
}

static json_t *rec(const char *text)
{
    json_error_t e;
    json_t *r = json_loads(text, 0, &e);

    if (r == NULL)
        fprintf(stderr, "bad fixture: %s\n", e.text);
    return r;
}

/* The checks' 1e-9 as fc_tap_is_double's tol: the largest double below
 * it, since that passes |got - want| <= tol where they asked for < */
#define LOSS_TOL nextafter(1e-9, 0)

/* samples of about 5% noise around 100 us (log sd ~0.05) */
#define NOISY5 "\"samples\":{\"unit_ns\":100,\"of\":8,\"values\":[1000,950,1050,1000,1100,900,1000,1020]}"

int main(void)
{
    fc_tap_t tap;
    json_t *r, *s;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 23);

    r = rec("{\"type\":\"point\",\"busbw_gbps\":1.0,\"algbw_gbps\":0.5,\"time_us\":{\"median\":100},"
            "\"limit\":{\"min_busbw_gbps\":0.25,\"max_latency_us\":200,\"line\":7}}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 50, LOSS_TOL, "the nearest limit wins: latency 200 us on "
                     "a 100 us median catches a 50%% loss before min_busbw 0.25 on 1 GB/s "
                     "(75%%)");
    fc_tap_ok(&tap, strstr(str(s, "by"), "max_latency_us 200 (profile line 7)") != NULL,
              "... by max_latency_us 200 of profile line 7: %s", str(s, "by"));
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"point\",\"busbw_gbps\":1.0,\"time_us\":{\"median\":100},"
            "\"limit\":{\"min_busbw_gbps\":0.96,\"max_latency_us\":-1,\"line\":3},"
            "\"relative\":{\"peer_median_busbw_gbps\":1.0,\"max_below_median_pct\":50,"
            "\"figure\":\"busbw\"}," NOISY5 "}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 4, LOSS_TOL,
                     "min_busbw 0.96 on 1 GB/s: a 4%% loss; the samples' noise (%.1f%%) reaches "
                     "it: flag %s", json_number_value(json_object_get(s, "noise_pct")),
                     str(s, "flag"));
    fc_tap_is_str(&tap, str(s, "flag"), "inside_noise",
                  "min_busbw 0.96 on 1 GB/s: a 4%% loss; the samples' noise (%.1f%%) reaches it: "
                  "flag %s"
                  " [str(s, \"flag\")]", json_number_value(json_object_get(s, "noise_pct")),
                  str(s, "flag"));
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"point\",\"busbw_gbps\":0,\"algbw_gbps\":2.0,\"time_us\":{\"median\":10},"
            "\"limit\":{\"min_busbw_gbps\":0.5,\"max_latency_us\":-1,\"line\":3},"
            "\"relative\":{\"peer_median_algbw_gbps\":2.0,\"max_below_median_pct\":95,"
            "\"figure\":\"algbw\"}," NOISY5 "}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 95, LOSS_TOL,
                     "one rank: busbw 0 gives no limit, the relative rule on algbw catches "
                     "95%%, ten times the noise: %s", str(s, "flag"));
    fc_tap_ok(&tap, strstr(str(s, "by"), "algbw") != NULL, "... by algbw: %s", str(s, "by"));
    fc_tap_is_str(&tap, str(s, "flag"), "looser_than_noise",
                  "one rank: busbw 0 gives no limit, the relative rule on algbw catches 95%%, ten "
                  "times the noise: %s"
                  " [str(s, \"flag\")]", str(s, "flag"));
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"point\",\"busbw_gbps\":0.4,\"time_us\":{\"median\":100},"
            "\"limit\":{\"min_busbw_gbps\":0.5,\"max_latency_us\":-1,\"line\":3}}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 0, 0,
                     "a point below its limit already catches at 0%%; no samples: noise null");
    fc_tap_ok(&tap, json_is_null(json_object_get(s, "flag")), "... no noise flag: null");
    fc_tap_ok(&tap, json_is_null(json_object_get(s, "noise_pct")), "... noise null");
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"point\",\"busbw_gbps\":1.0,\"time_us\":{\"median\":100},\"limit\":null}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), -1, 0, "no limit and no relative rule: no loss caught "
                     "(-1: not a number)");
    fc_tap_ok(&tap, strstr(str(s, "by"), "no timing rule") != NULL, "... it says so: '%s'",
              str(s, "by"));
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"pair\",\"host_a\":\"a\",\"host_b\":\"b\",\"latency_us\":50,"
            "\"latency_limit\":{\"max_latency_us\":1000,\"line\":9},\"sizes\":["
            "{\"bytes\":65536,\"bw_gbps\":0.4,\"min_bw_gbps\":0.1,\"limit_line\":9,"
            "\"relative\":{\"peer_upper_median_gbps\":0.5,\"max_below_median_pct\":20}},"
            "{\"bytes\":1048576,\"bw_gbps\":1.0,\"min_bw_gbps\":0.1,\"limit_line\":9,"
            "\"same_rack_rule\":{\"reference_gbps\":2.0,\"max_below_median_pct\":20,"
            "\"rack_slow\":true}}]}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 0, LOSS_TOL, "a pair: the same-rack rule (1.0 GB/s "
                     "against 2.0 less 20%%) already fails it: 0%%");
    fc_tap_ok(&tap, strstr(str(s, "by"), "same-rack rule") != NULL, "... by the same-rack "
              "rule: %s", str(s, "by"));
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"pair\",\"host_a\":\"a\",\"host_b\":\"b\",\"latency_us\":50,"
            "\"latency_limit\":{\"max_latency_us\":1000,\"line\":9},\"sizes\":["
            "{\"bytes\":65536,\"bw_gbps\":0.4,\"min_bw_gbps\":0.1,\"limit_line\":9,"
            "\"relative\":{\"peer_upper_median_gbps\":0.5,\"max_below_median_pct\":20}}]}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 0, LOSS_TOL,
                     "a pair at 0.4 GB/s against 0.5 less 20%% sits on the limit: 0%%");
    fc_tap_ok(&tap, strstr(str(s, "by"), "relative rule") != NULL, "... by the relative rule: "
              "%s", str(s, "by"));
    json_decref(s);
    json_decref(r);

    r = rec("{\"type\":\"pair\",\"host_a\":\"a\",\"host_b\":\"b\",\"latency_us\":50,"
            "\"latency_limit\":{\"max_latency_us\":100,\"line\":9},\"sizes\":["
            "{\"bytes\":65536,\"bw_gbps\":1.0,\"min_bw_gbps\":0.1,\"limit_line\":9}]}");
    s = fc_sensitivity_of(r);
    fc_tap_is_double(&tap, loss(s), 50, LOSS_TOL,
                     "a pair's 8-byte latency 50 us against 100 us catches 50%%");
    fc_tap_ok(&tap, strstr(str(s, "by"), "at 8 bytes") != NULL, "... by its latency at 8 "
              "bytes: %s", str(s, "by"));
    json_decref(s);
    json_decref(r);

    /* a stage: node n1 catches 50% (its closest limit), n2 80%: any
     * node's 80% loss fails the stage, n2 the least covered; the pair
     * a <-> n2 counts for both its nodes */
    json_t *recs = json_array();
    json_array_append_new(recs, rec("{\"type\":\"point\",\"group\":\"n1\",\"busbw_gbps\":1.0,"
        "\"time_us\":{\"median\":100},\"limit\":{\"min_busbw_gbps\":0.5,\"max_latency_us\":-1}}"));
    json_array_append_new(recs, rec("{\"type\":\"point\",\"group\":\"n1\",\"busbw_gbps\":1.0,"
        "\"time_us\":{\"median\":100},\"limit\":{\"min_busbw_gbps\":0.1,\"max_latency_us\":-1}}"));
    json_array_append_new(recs, rec("{\"type\":\"point\",\"group\":\"n2\",\"busbw_gbps\":1.0,"
        "\"time_us\":{\"median\":100},\"limit\":{\"min_busbw_gbps\":0.2,\"max_latency_us\":-1}}"));
    json_array_append_new(recs, rec("{\"type\":\"preflight\",\"host\":\"n1\"}"));
    s = fc_sensitivity_stage(recs, "node");
    fc_tap_is_double(&tap, loss(s), 80, LOSS_TOL, "a stage: %s", str(s, "statement"));
    fc_tap_is_str(&tap, str(s, "least_covered"), "n2", "a stage: %s"
                  " [str(s, \"least_covered\")]", str(s, "statement"));
    fc_tap_ok(&tap, strstr(str(s, "statement"), "a 80% throughput loss on any node would have "
                         "failed this stage (the least covered: node n2") != NULL, "a stage: %s"
              " [names 'a 80%% throughput loss on any node would have failed this sta...]",
              str(s, "statement"));
    json_decref(s);
    json_array_append_new(recs, rec("{\"type\":\"point\",\"group\":\"n3\",\"busbw_gbps\":1.0,"
        "\"time_us\":{\"median\":100},\"limit\":null}"));
    s = fc_sensitivity_stage(recs, "node");
    fc_tap_is_double(&tap, loss(s), -1, 0, "a node no timing rule judged: no loss caught "
                     "(-1: not a number)");
    fc_tap_ok(&tap, strstr(str(s, "statement"), "a loss of any size on node n3 would have "
                           "passed this stage") != NULL, "... it says so: %s",
              str(s, "statement"));
    json_decref(s);
    json_decref(recs);
    return fc_tap_done(&tap);
}
