/*
 * counters.c - unit tests of lib/counters/fc_counters.c and fc_counters_judge.c on
 * fixture sysfs trees (tests/fixtures/sysfs/CASE/{before,after}, read
 * through FC_SYSFS_ROOT): the soak's judgement of one node's link counters
 * between its two snapshots.
 *   clean          drops and discards rose (reported, not judged): PASS
 *   errors         rx_errors rose by 2 with a limit of 0: FAIL, eth0
 *   vanished       eth1 was there before and is gone after: FAIL naming
 *                  eth1 (not left out of the deltas); backwards, eth1
 *                  appeared: listed, not judged
 *   reset          the RDMA port's counters went down to 0: FAIL
 *   saturated      symbol_error at 65535 (its 16-bit maximum) at both
 *                  ends: a delta of 0 that proves nothing: INCOMPLETE
 *   nocounters     eth0 and the RDMA port mlx5_0/1 are there at both ends,
 *                  with no statistics or counters directory: empty counter
 *                  maps that prove nothing: INCOMPLETE, naming each link
 *   extended       the same narrow counters saturated, but 64-bit files
 *                  (counters_ext/symbol_error_64, hw_counters/link_downed)
 *                  are there and are read instead: PASS
 *   extended-rise  the narrow counter stuck at 65535, the 64-bit one rose
 *                  by 4: FAIL with the rise the 64-bit file shows
 * Run from the repository root (make check does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_counters.h"
#include "fc_tap.h"

static fc_tap_t tap;

static json_t *snapshot(const char *fixture, const char *when)
{
    char root[512];

    snprintf(root, sizeof(root), "tests/fixtures/sysfs/%s/%s", fixture, when);
    setenv("FC_SYSFS_ROOT", root, 1);
    return fc_counters_snapshot("eth*");
}

/* Judge a fixture; check the verdict and that the reasons say `says`. */
static json_t *judge(const char *fixture, const char *want, const char *says)
{
    json_t *b = snapshot(fixture, "before"), *a = snapshot(fixture, "after");
    json_t *j = fc_counters_judge(b, a, 0, "eth*", "node7");
    const char *verdict = json_string_value(json_object_get(j, "verdict"));
    const char *first = json_string_value(json_array_get(json_object_get(j, "reasons"), 0));
    int found = says == NULL;

    for (size_t i = 0; says && i < json_array_size(json_object_get(j, "reasons")); ++i)
        found |= strstr(json_string_value(json_array_get(json_object_get(j, "reasons"), i)),
                        says) != NULL;
    fc_tap_ok(&tap, json_object_size(json_object_get(b, "links")) > 0,
              "%s: the fixture's links are read through FC_SYSFS_ROOT (%zu)", fixture,
              json_object_size(json_object_get(b, "links")));
    fc_tap_is_str(&tap, verdict, want, "%s: %s (got %s%s%s)", fixture, want,
                  verdict ? verdict : "none", first ? ": " : "", first ? first : "");
    fc_tap_ok(&tap, found, "%s: %s (got %s%s%s)"
              " [found]", fixture, want, verdict ? verdict : "none", first ? ": " : "",
              first ? first : "");
    json_decref(b);
    json_decref(a);
    return j;
}

static json_int_t delta(json_t *j, const char *link, const char *name)
{
    return json_integer_value(json_object_get(json_object_get(json_object_get(j, "links"),
                                                              link), name));
}

int main(void)
{
    json_t *j;
    const char *link;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 44);

    j = judge("clean", "PASS", NULL);
    fc_tap_is_int(&tap, delta(j, "eth0", "rx_dropped"), 4,
                  "clean: the deltas are recorded, drops and discards included");
    fc_tap_is_int(&tap, delta(j, "mlx5_0/1", "port_xmit_discards"), 10,
                  "clean: the deltas are recorded, drops and discards included"
                  " [delta(j, \"mlx5_0/1\", \"port_xmit_discards\")]");
    fc_tap_is_int(&tap, delta(j, "mlx5_0/1", "symbol_error"), 0,
                  "clean: the deltas are recorded, drops and discards included"
                  " [delta(j, \"mlx5_0/1\", \"symbol_error\")]");
    json_decref(j);

    j = judge("errors", "FAIL", "link eth0 of host node7: rx_errors rose by 2");
    link = json_string_value(json_object_get(j, "link"));
    fc_tap_is_str(&tap, link, "eth0", "errors: implicates eth0 (%s)", link ? link : "none");
    json_decref(j);

    j = judge("vanished", "FAIL", "link eth1 of host node7 vanished during the soak");
    link = json_string_value(json_object_get(j, "link"));
    fc_tap_is_str(&tap, link, "eth1", "vanished: implicates eth1 and lists it as vanished (%s)",
                  link ? link : "none");
    fc_tap_is_int(&tap, json_array_size(json_object_get(j, "vanished")), 1,
                  "vanished: implicates eth1 and lists it as vanished (%s)"
                  " [json_array_size(json_object_get(j, \"vanished\"))]", link ? link : "none");
    json_decref(j);

    {   /* the vanished fixture backwards: eth1 appeared during the soak */
        json_t *b, *a;

        b = snapshot("vanished", "after");
        a = snapshot("vanished", "before");
        j = fc_counters_judge(b, a, 0, "eth*", "node7");
        fc_tap_is_str(&tap, json_string_value(json_object_get(j, "verdict")), "PASS",
                      "a link that appeared during the soak is listed, not judged (it was not "
                      "followed from the start)");
        fc_tap_is_int(&tap, json_array_size(json_object_get(j, "appeared")), 1,
                      "a link that appeared during the soak is listed, not judged (it was not "
                      "followed from the start)"
                      " [json_array_size(json_object_get(j, \"appeared\"))]");
        json_decref(j);
        json_decref(b);
        json_decref(a);
    }

    j = judge("reset", "FAIL", "symbol_error went down from 12 to 0");
    fc_tap_is_int(&tap, json_array_size(json_object_get(j, "reset")), 3,
                  "reset: the three counters that went down are listed, on mlx5_0/1 (%zu)",
                  json_array_size(json_object_get(j, "reset")));
    fc_tap_is_str(&tap, json_string_value(json_object_get(j, "link")), "mlx5_0/1",
                  "reset: the three counters that went down are listed, on mlx5_0/1 (%zu)"
                  " [json_string_value(json_object_get(j, \"link\"))]",
                  json_array_size(json_object_get(j, "reset")));
    json_decref(j);

    j = judge("saturated", "INCOMPLETE", "symbol_error is saturated at 65535, the maximum "
              "of its 16-bit counter");
    fc_tap_is_int(&tap, json_array_size(json_object_get(j, "saturated")), 1,
                  "saturated: listed, and no link is blamed for what could not be seen");
    fc_tap_ok(&tap, json_is_null(json_object_get(j, "link")),
              "saturated: listed, and no link is blamed for what could not be seen"
              " [json_is_null(json_object_get(j, \"link\"))]");
    json_decref(j);

    j = judge("nocounters", "INCOMPLETE", "counters of link eth0 of host node7 could not "
              "be read");
    {
        const char *all = json_dumps(json_object_get(j, "reasons"), 0);

        fc_tap_ok(&tap, strstr(all, "counters of link mlx5_0/1 of host node7 could not be "
                               "read") != NULL && json_is_null(json_object_get(j, "link")),
                  "nocounters: the RDMA port without counters is named too, and no link "
                  "is blamed");
        free((void *)all);
    }
    json_decref(j);

    j = judge("extended", "PASS", NULL);
    fc_tap_is_int(&tap, json_array_size(json_object_get(j, "saturated")), 0,
                  "extended: the 64-bit files are read, so nothing is saturated");
    json_decref(j);
    {
        json_t *bits = json_object(), *c;

        setenv("FC_SYSFS_ROOT", "tests/fixtures/sysfs/extended/after", 1);
        c = fc_counters_rdma("mlx5_0", "1", bits);
        fc_tap_is_int(&tap, json_integer_value(json_object_get(c, "symbol_error")), 70000,
                      "extended: counters_ext/symbol_error_64 and hw_counters/link_downed win "
                      "over counters/; the narrow ones keep their width");
        fc_tap_is_int(&tap, json_integer_value(json_object_get(c, "link_downed")), 300,
                      "extended: counters_ext/symbol_error_64 and hw_counters/link_downed win "
                      "over counters/; the narrow ones keep their width"
                      " [json_integer_value(json_object_get(c, \"link_downed\"))]");
        fc_tap_ok(&tap, json_object_get(bits, "symbol_error") == NULL,
                  "extended: counters_ext/symbol_error_64 and hw_counters/link_downed win "
                  "over counters/; the narrow ones keep their width"
                  " [json_object_get(bits, \"symbol_error\") == NULL]");
        fc_tap_is_int(&tap, json_integer_value(json_object_get(bits, "port_rcv_errors")), 16,
                      "extended: counters_ext/symbol_error_64 and hw_counters/link_downed win "
                      "over counters/; the narrow ones keep their width"
                      " [json_integer_value(json_object_get(bits, \"port_rcv_errors\"))]");
        json_decref(c);
        json_decref(bits);
    }

    j = judge("extended-rise", "FAIL", "symbol_error rose by 4 during the soak");
    fc_tap_is_int(&tap, delta(j, "mlx5_0/1", "symbol_error"), 4,
                  "extended-rise: the delta is the 64-bit counter's (%lld)",
                  (long long)delta(j, "mlx5_0/1", "symbol_error"));
    json_decref(j);

    /* no link matches at all */
    {
        json_t *b, *a;

        setenv("FC_SYSFS_ROOT", "tests/fixtures/sysfs/nonexistent", 1);
        b = fc_counters_snapshot("eth*");
        a = fc_counters_snapshot("eth*");
        j = fc_counters_judge(b, a, 0, "eth*", "node7");
        fc_tap_is_str(&tap, json_string_value(json_object_get(j, "verdict")), "INCOMPLETE",
                      "no link at all: INCOMPLETE, never PASS");
        json_decref(j);
        json_decref(b);
        json_decref(a);
    }
    return fc_tap_done(&tap);
}
