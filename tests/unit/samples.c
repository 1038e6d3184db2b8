/*
 * samples.c - unit tests of lib/engine/fc_samples.c, the per-iteration times a
 * point or pair record keeps: 3 significant digits in whole units, read
 * back exactly; at most FC_SAMPLES_MAX, evenly spaced in iteration order
 * when there are more; a record without them (an older fabcert) reads as
 * none, and a malformed member is told apart from that.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fc_samples.h"
#include "fc_tap.h"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static json_t *parse(const char *text)
{
    return json_loads(text, 0, NULL);
}

int main(void)
{
    fc_tap_t tap;
    fc_samples_t smp;
    double us[FC_SAMPLES_MAX];
    char *text;
    json_t *j;
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 15);

    double t[] = { 12.345e-6, 12.355e-6, 1.23456e-3, 0.5e-9 };
    fc_samples_keep(t, 4, &smp);
    j = fc_samples_json(&smp);
    text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    fc_tap_is_str(&tap, text, "{\"of\":4,\"unit_ns\":1,\"values\":[12300,12400,1230000,1]}",
                  "3 significant digits in whole units of the smallest sample's step");
    free(text);
    json_decref(j);

    double u[] = { 12.345e-6, 13.1e-6, 250e-6 };
    fc_samples_keep(u, 3, &smp);
    j = fc_samples_json(&smp);
    text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    fc_tap_is_str(&tap, text, "{\"of\":3,\"unit_ns\":100,\"values\":[123,131,2500]}",
                  "microsecond times in units of 100 ns: 4 bytes a sample");
    n = fc_samples_read(j, us, FC_SAMPLES_MAX);
    fc_tap_is_int(&tap, n, 3, "read back in microseconds: %d samples, %.1f %.1f %.1f", n, us[0],
                  us[1], us[2]);
    fc_tap_ok(&tap, near(us[0], 12.3) && near(us[1], 13.1) && near(us[2], 250),
              "read back in microseconds: %d samples, %.1f %.1f %.1f"
              " [near(us[0], 12.3) && near(us[1], 13.1) && near(us[2], 250)]", n, us[0], us[1],
              us[2]);
    free(text);
    json_decref(j);

    double many[1000];
    for (int k = 0; k < 1000; ++k)
        many[k] = (k + 1) * 1e-6;
    fc_samples_keep(many, 1000, &smp);
    fc_tap_is_int(&tap, smp.n, FC_SAMPLES_MAX,
                  "1000 iterations keep %d, iterations floor(k x 1000 / 64): 0, 15, ..., 984",
                  smp.n);
    fc_tap_is_int(&tap, smp.of, 1000,
                  "1000 iterations keep %d, iterations floor(k x 1000 / 64): 0, 15, ..., 984"
                  " [smp.of]", smp.n);
    fc_tap_ok(&tap, near(smp.s[0], 1e-6) &&
                  near(smp.s[1], 16e-6) && near(smp.s[63], 985e-6),
              "1000 iterations keep %d, iterations floor(k x 1000 / 64): 0, 15, ..., 984"
              " [near(smp.s[0], 1e-6) && near(smp.s[1], 16e-6) && near(smp...]", smp.n);

    fc_samples_keep(many, 0, &smp);
    fc_tap_is_int(&tap, smp.n, 0, "no iterations: no member");
    fc_tap_ok(&tap, fc_samples_json(&smp) == NULL, "no iterations: no member"
              " [fc_samples_json(&smp) == NULL]");

    fc_tap_is_int(&tap, fc_samples_read(NULL, us, FC_SAMPLES_MAX), 0,
                  "a record without samples (an older fabcert) reads as none");
    fc_tap_is_int(&tap, fc_samples_read(json_null(), us, FC_SAMPLES_MAX), 0,
                  "a record without samples (an older fabcert) reads as none"
                  " [fc_samples_read(json_null(), us, FC_SAMPLES_MAX)]");

    const char *bad[] = {
        "{\"unit_ns\":30,\"values\":[1],\"of\":1}",
        "{\"unit_ns\":10,\"values\":[0],\"of\":1}",
        "{\"unit_ns\":10,\"values\":[1.5],\"of\":1}",
        "{\"unit_ns\":10,\"values\":[1,2],\"of\":1}",
        "{\"unit_ns\":10,\"values\":[],\"of\":0}",
        "[1,2]",
    };
    int refused = 0;
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k) {
        j = parse(bad[k]);
        refused += fc_samples_read(j, us, FC_SAMPLES_MAX) == -1;
        json_decref(j);
    }
    fc_tap_is_int(&tap, refused, 6, "malformed members are refused (unit not a power of "
                  "ten, a zero, a fraction, more values than iterations, none, not an object)");

    j = parse("{\"unit_ns\":10,\"values\":[1,2,3],\"of\":3}");
    fc_tap_is_int(&tap, fc_samples_read(j, us, 2), -1, "more values than the reader takes: "
                  "refused, not cut");
    json_decref(j);

    memset(&smp, 0, sizeof(smp));
    fc_samples_keep(u, 3, &smp);
    j = fc_samples_json(&smp);
    n = fc_samples_read(j, us, FC_SAMPLES_MAX);
    json_t *again = json_pack("{s:i, s:I, s:o}", "of", 3, "unit_ns", (json_int_t)100,
                              "values", json_pack("[i,i,i]", 123, 131, 2500));
    fc_tap_ok(&tap, json_equal(j, again), "the same times give the same member");
    fc_tap_is_int(&tap, n, 3, "the same times give the same member"
                  " [n]");
    json_decref(j);
    json_decref(again);
    return fc_tap_done(&tap);
}
