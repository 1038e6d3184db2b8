/*
 * retest_records.c - unit tests of lib/retest/fc_retest_records.c's record for a
 * wrong result the retest could not place on one node. Planted in the
 * retest's own figures: every checked exchange right, and the collective
 * run without each node in turn wrong every time (two nodes corrupting,
 * as the attack planted on xr02 and xr04): that is persistent corruption
 * from more than one node, not "intermittent"; one exchange and one run
 * wrong (a fault of one call, which hits the retest's first call too), or
 * nothing wrong: intermittent, as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_retest_records.h"
#include "fc_tap.h"
#include "fc_test_retest.h"

#define NH 6
#define PPN 2
#define NR (NH * PPN)

static fc_tap_t tap;
static char dir[] = "/tmp/fc-retest-records-XXXXXX";

/* The first record's reason, judged with loo_wrong; returns the records. */
static int judge(const uint64_t *loo_wrong, int one_wrong, char *why, size_t whylen)
{
    static char hosts[NR][FC_HOST_MAX];
    static fc_exchange_t ex[NR * NR];
    static int unit[NR];
    static const int rack[NH] = { 1, 1, 2, 2, 2, 2 };
    json_t *groups = fc_test_retest_groups(NH, rack, NULL, "all_reduce int32 sum 64 KiB wrong");
    json_t *records, *first;
    int nex = 0, n;

    for (int r = 0; r < NR; ++r) {
        snprintf(hosts[r], FC_HOST_MAX, "n%02d", r % NH + 1);
        unit[r] = r % NH;
    }
    for (int a = 0; a < NR; ++a)
        for (int b = 0; b < NR; ++b)
            if (a != b)
                ex[nex++] = (fc_exchange_t){ .sender = a, .receiver = b, .iters = 4,
                                             .seconds = 1e-4 };
    if (one_wrong) {        /* one exchange hit once */
        ex[0].wrong = 1;
        ex[0].wrong_iters = 1;
    }
    fc_retest_input_t in = {
        .run_id = "t", .stage = "cluster", .nranks = NR, .rank_hosts = hosts,
        .exchanges = ex, .nexchanges = nex, .rounds = NR - 1, .bytes = 65536, .iters = 4,
        .seconds = 1, .unit = unit, .nunits = NH, .loo_wrong = loo_wrong,
        .loo_label = "all_reduce int32 sum 64 KiB", .groups = groups,
    };

    n = fc_test_retest_write(&tap, dir, &in, fc_retest_write_records, &records);
    json_decref(groups);
    why[0] = '\0';
    if ((first = json_array_get(records, 0)) != NULL)
        snprintf(why, whylen, "%s", json_string_value(json_array_get(
                     json_object_get(first, "reasons"), 0)));
    json_decref(records);
    return n;
}

int main(void)
{
    uint64_t all_wrong[NH] = { 3, 3, 3, 3, 3, 3 }, none_wrong[NH] = { 0 };
    uint64_t one_run[NH] = { 0, 0, 0, 2, 0, 0 };
    char why[4096];
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 7);
    if (mkdtemp(dir) == NULL)
        fc_tap_bail(&tap, "mkdtemp failed");

    n = judge(all_wrong, 0, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "every leave-one-out run wrong: persistent, from more than one node (%d)", n);
    fc_tap_ok(&tap, strstr(why, "persistent corruption in cluster (6 hosts), not "
                                "localised to one node (every run without one node "
                                "is still wrong") != NULL &&
                  strstr(why, "intermittent") == NULL,
              "every leave-one-out run wrong: persistent, from more than one node (%d)"
              " [names 'persistent corruption in cluste...'; not 'intermittent']", n);
    fc_tap_diag(&tap, "%s", why);
    fc_tap_ok(&tap, strstr(why, "6 of 6 all_reduce int32 sum 64 KiB runs without one node "
                                "wrong") != NULL && strstr(why, "nobody quarantined") != NULL,
              "it gives the counts and quarantines nobody");
    n = judge(one_run, 1, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "one exchange and one run wrong (a fault of one call hits the retest's first "
                  "call too): intermittent (%d)", n);
    fc_tap_ok(&tap, strstr(why, "intermittent corruption in cluster (6 hosts), not "
                                "localised: 1 of 132 retest exchanges wrong") != NULL,
              "one exchange and one run wrong (a fault of one call hits the retest's first "
              "call too): intermittent (%d)"
              " [names 'intermittent corruption in clus...']", n);
    fc_tap_diag(&tap, "%s", why);
    n = judge(none_wrong, 0, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1, "nothing reproduced: intermittent, as before (%d)", n);
    fc_tap_ok(&tap, strstr(why, "intermittent corruption in cluster (6 hosts), not "
                                "localised: all") != NULL,
              "nothing reproduced: intermittent, as before (%d)"
              " [names 'intermittent corruption in clus...']", n);
    fc_tap_diag(&tap, "%s", why);
    rmdir(dir);
    return fc_tap_done(&tap);
}
