/*
 * retest_slow.c - unit tests of lib/retest/fc_retest_slow.c, the retest's
 * placement of a confirmed slowness. Each case plants the truth in the
 * exchanges' times (a host whose link is slow, two of them, most of them,
 * one slow rank, a busy machine slowing a few exchanges at random) and
 * checks who the records name: every slow host with a record of its own,
 * nobody when the slowness is the group's, nobody for noise, and nobody
 * when the two methods disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_retest_records.h"
#include "fc_tap.h"
#include "fc_test_retest.h"

#define MAXH 80
#define MAXR 160
#define FAST 1e-4
#define SLOW 1e-2

typedef struct world {
    int nhosts, ppn, nranks;
    char hosts[MAXR][FC_HOST_MAX];
    int rack[MAXH];             /* per host, 1-based rack number */
    int unit[MAXR];
    fc_exchange_t ex[MAXR * MAXR];
    int nex;
    int slow_host[MAXH];
    int slow_rank[MAXR];
} world_t;

static fc_tap_t tap;
static char dir[] = "/tmp/fc-retest-slow-XXXXXX";

/* nhosts hosts of ppn ranks, all in rack 1 unless set otherwise */
static void world_shape(world_t *w, int nhosts, int ppn)
{
    memset(w, 0, sizeof(*w));
    w->nhosts = nhosts;
    w->ppn = ppn;
    w->nranks = nhosts * ppn;
    for (int r = 0; r < w->nranks; ++r) {
        snprintf(w->hosts[r], FC_HOST_MAX, "n%02d", r / ppn + 1);
        w->unit[r] = r / ppn;
    }
    for (int h = 0; h < nhosts; ++h)
        w->rack[h] = 1;
}

static void world_make(world_t *w)
{
    world_shape(w, 6, 2);
}

/* Every ordered pair of ranks, timed from the truth; noisy[] lists
 * exchanges (index into the list) slowed 100 times, -1 terminated. */
static void world_time(world_t *w, const int *noisy)
{
    w->nex = 0;
    for (int a = 0; a < w->nranks; ++a)
        for (int b = 0; b < w->nranks; ++b) {
            int off = w->unit[a] != w->unit[b];
            int slow = w->slow_rank[a] || w->slow_rank[b] ||
                       (off && (w->slow_host[w->unit[a]] || w->slow_host[w->unit[b]]));

            if (a == b)
                continue;
            w->ex[w->nex] = (fc_exchange_t){ .sender = a, .receiver = b, .iters = 4,
                                             .seconds = slow ? SLOW : FAST };
            w->nex++;
        }
    for (int k = 0; noisy && noisy[k] >= 0; ++k)
        w->ex[noisy[k]].seconds = FAST * 100;
}

/* A sparse retest: rank x's exchanges are only those with rank y (both
 * ways); the others' stay. */
static void world_only_with(world_t *w, int x, int y)
{
    int kept = 0;

    for (int i = 0; i < w->nex; ++i) {
        int a = w->ex[i].sender, b = w->ex[i].receiver;

        if ((a == x || b == x) && !((a == x && b == y) || (a == y && b == x)))
            continue;
        w->ex[kept++] = w->ex[i];
    }
    w->nex = kept;
}

/* Judge w; the records' culprit hosts into culprits ("" for none), the
 * first record's reason into why. Returns the records written. */
static int judge(world_t *w, const double *loo, char culprits[][FC_HOST_MAX], int max,
                 char *why, size_t whylen)
{
    json_t *groups = fc_test_retest_groups(w->nhosts, w->rack, "slow", "all_reduce slow");
    fc_retest_input_t in = {
        .run_id = "t", .stage = "cluster", .nranks = w->nranks, .rank_hosts = w->hosts,
        .exchanges = w->ex, .nexchanges = w->nex, .rounds = w->nranks - 1, .bytes = 65536,
        .iters = 4, .seconds = 1, .unit = w->unit, .nunits = w->nhosts, .loo_seconds = loo,
        .all_seconds = SLOW, .loo_label = "all_reduce int32 sum 64 KiB", .groups = groups,
    };
    json_t *records, *rec;
    size_t k;
    int n;

    n = fc_test_retest_write(&tap, dir, &in, fc_retest_write_slow_records, &records);
    json_decref(groups);
    why[0] = '\0';
    json_array_foreach(records, k, rec) {
        const char *host = json_string_value(json_object_get(json_object_get(rec, "culprit"),
                                                             "host"));

        if (k == 0)
            snprintf(why, whylen, "%s", json_string_value(json_array_get(
                         json_object_get(rec, "reasons"), 0)));
        if ((int)k < max)
            snprintf(culprits[k], FC_HOST_MAX, "%s", host ? host : "");
    }
    json_decref(records);
    return n;
}

int main(void)
{
    world_t w;
    char c[8][FC_HOST_MAX], why[4096];
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 32);
    if (mkdtemp(dir) == NULL)
        fc_tap_bail(&tap, "mkdtemp failed");

    world_make(&w);
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "every exchange fast: one record for the group, nobody placed (%d)", n);
    fc_tap_is_str(&tap, c[0], "",
                  "every exchange fast: one record for the group, nobody placed (%d)"
                  " [c[0]]", n);
    fc_tap_ok(&tap, strstr(why, "no unit slow") != NULL,
              "every exchange fast: one record for the group, nobody placed (%d)"
              " [names 'no unit slow']", n);

    world_make(&w);
    w.slow_host[2] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_str(&tap, n == 1 ? c[0] : "", "n03", "one host's link slow: it alone is placed");

    world_make(&w);
    w.slow_host[0] = w.slow_host[3] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    char both[2 * FC_HOST_MAX + 2];

    snprintf(both, sizeof(both), "%s %s", c[0], n > 1 ? c[1] : "");
    fc_tap_is_str(&tap, n == 2 && strstr(why, "; n04 stands apart too") ? both : "",
                  "n01 n04", "two hosts' links slow: each is placed, with a record of its own");

    world_make(&w);
    w.slow_host[0] = w.slow_host[1] = w.slow_host[2] = w.slow_host[4] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "four of six hosts slow: the group's slowness, nobody placed (%d, %s)", n,
                  c[0]);
    fc_tap_is_str(&tap, c[0], "",
                  "four of six hosts slow: the group's slowness, nobody placed (%d, %s)"
                  " [c[0]]", n, c[0]);
    fc_tap_ok(&tap, strstr(why, "not placed") &&
                  !strstr(why, "all fast"),
              "four of six hosts slow: the group's slowness, nobody placed (%d, %s)"
              " [names 'not placed'; not 'all fast']", n, c[0]);

    world_make(&w);
    int busy[] = { 3, 17, 40, 88, -1 };
    world_time(&w, busy);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "a busy machine slowing 4 exchanges at random: nobody placed, and the record "
                  "names a load on every host as a possible cause (%d, %s): %s", n, c[0], why);
    fc_tap_is_str(&tap, c[0], "",
                  "a busy machine slowing 4 exchanges at random: nobody placed, and the record "
                  "names a load on every host as a possible cause (%d, %s): %s"
                  " [c[0]]", n, c[0], why);
    fc_tap_ok(&tap, strstr(why, "or a load on every host: a "
                                "busy machine)") != NULL,
              "a busy machine slowing 4 exchanges at random: nobody placed, and the record "
              "names a load on every host as a possible cause (%d, %s): %s"
              " [names 'or a load on every host: a busy...']", n, c[0], why);

    world_make(&w);
    w.slow_rank[7] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "one rank slow with every partner, its host-mate too: rank 7 of n04 (%d, %s)",
                  n, c[0]);
    fc_tap_is_str(&tap, c[0], "n04",
                  "one rank slow with every partner, its host-mate too: rank 7 of n04 (%d, %s)"
                  " [c[0]]", n, c[0]);
    fc_tap_ok(&tap, strstr(why, "(rank 7)") != NULL,
              "one rank slow with every partner, its host-mate too: rank 7 of n04 (%d, %s)"
              " [names '(rank 7)']", n, c[0]);

    /* n01's only exchanges are with n04, whose link is slow (a sampled
     * retest): they are explained by n04, slow with all its partners,
     * and say nothing of n01, though n01 comes first and its exchanges
     * are as slow as any */
    world_shape(&w, 6, 1);
    w.slow_host[3] = 1;
    world_time(&w, NULL);
    world_only_with(&w, 0, 3);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_str(&tap, n == 1 ? c[0] : "", "n04",
                  "a healthy host whose only exchanges are with the slow one: only the slow "
                  "one placed (%d, %s)", n, why);

    /* both ranks of n04 slow with every partner, each other too (a
     * starved host): the host, both its ranks, whichever comes first */
    world_make(&w);
    w.slow_rank[6] = w.slow_rank[7] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_str(&tap, n == 1 && strstr(why, "n04 (ranks 6, 7)") ? c[0] : "", "n04",
                  "both ranks of a host slow: the host is placed on both (%d, %s)", n, why);

    /* n01's and n04's only exchanges are with each other: the data cannot
     * tell which of the two is slow, so neither is placed */
    world_shape(&w, 6, 1);
    w.slow_host[3] = 1;
    world_time(&w, NULL);
    world_only_with(&w, 0, 3);
    world_only_with(&w, 3, 0);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_str(&tap, n == 1 ? c[0] : "?", "",
                  "two hosts whose only exchanges are each other's: neither placed (%d, %s)",
                  n, why);

    /* the exchanges place n02, the leave-one-out n05: they disagree */
    world_make(&w);
    w.slow_host[1] = 1;
    world_time(&w, NULL);
    double loo[6] = { SLOW, SLOW, SLOW, SLOW, FAST, SLOW };
    n = judge(&w, loo, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "the two methods disagree: nobody placed, the record says so (%d, %s)", n,
                  c[0]);
    fc_tap_is_str(&tap, c[0], "",
                  "the two methods disagree: nobody placed, the record says so (%d, %s)"
                  " [c[0]]", n, c[0]);
    fc_tap_ok(&tap, strstr(why, "disagree") != NULL,
              "the two methods disagree: nobody placed, the record says so (%d, %s)"
              " [names 'disagree']", n, c[0]);

    /* racks of 3 and 1 hosts, the lone host's exchanges slow: its link and
     * both uplinks are in series, nobody is placed */
    world_shape(&w, 4, 2);
    w.rack[3] = 2;
    w.slow_host[3] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "two racks, the host alone in its rack slow: not placed, in series (%s)",
                  c[0]);
    fc_tap_is_str(&tap, c[0], "",
                  "two racks, the host alone in its rack slow: not placed, in series (%s)"
                  " [c[0]]", c[0]);
    fc_tap_ok(&tap, strstr(why, "alone in rack r2") &&
                  strstr(why, "in series"),
              "two racks, the host alone in its rack slow: not placed, in series (%s)"
              " [names 'alone in rack r2', 'in series']", c[0]);

    /* racks of 3, 2 and 1: the lone host slow is placed, with the note */
    world_shape(&w, 6, 2);
    w.rack[3] = w.rack[4] = 2;
    w.rack[5] = 3;
    w.slow_host[5] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "three racks, the lone host slow: placed, its uplink in series said (%s)",
                  c[0]);
    fc_tap_is_str(&tap, c[0], "n06",
                  "three racks, the lone host slow: placed, its uplink in series said (%s)"
                  " [c[0]]", c[0]);
    fc_tap_ok(&tap, strstr(why, "n06 is alone in rack r3: its link and the rack's uplink "
                               "are in series") != NULL,
              "three racks, the lone host slow: placed, its uplink in series said (%s)"
              " [names 'n06 is alone in rack r3: its li...']", c[0]);

    /* one rank per host: slow with every remote partner is the host's
     * link, named by host, never "rank N's" own progress */
    world_shape(&w, 6, 1);
    w.slow_host[2] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1,
                  "one rank per host: the slow host named by its link, not its rank (%s)",
                  c[0]);
    fc_tap_is_str(&tap, c[0], "n03",
                  "one rank per host: the slow host named by its link, not its rank (%s)"
                  " [c[0]]", c[0]);
    fc_tap_ok(&tap, !strstr(why, "rank 2's") &&
                  strstr(why, "its exchanges with every partner off it were slow"),
              "one rank per host: the slow host named by its link, not its rank (%s)"
              " [names 'its exchanges with every partne...'; not 'rank 2's']", c[0]);

    /* 70 hosts: every unit named in the evidence, none '?' */
    world_shape(&w, 70, 1);
    w.slow_host[68] = 1;
    world_time(&w, NULL);
    double many[70];
    for (int u = 0; u < 70; ++u)
        many[u] = u == 68 ? FAST : SLOW;
    n = judge(&w, many, c, 8, why, sizeof(why));
    fc_tap_is_int(&tap, n, 1, "70 hosts: the 69th named in the evidence, no unit '?' (%s)",
                  c[0]);
    fc_tap_is_str(&tap, c[0], "n69",
                  "70 hosts: the 69th named in the evidence, no unit '?' (%s)"
                  " [c[0]]", c[0]);
    fc_tap_ok(&tap, strstr(why, "without n69") &&
                  !strchr(why, '?'),
              "70 hosts: the 69th named in the evidence, no unit '?' (%s)"
              " [strstr(why, \"without n69\") && !strchr(why, '?')]", c[0]);
    rmdir(dir);
    return fc_tap_done(&tap);
}
