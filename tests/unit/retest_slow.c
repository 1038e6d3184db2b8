/*
 * retest_slow.c - unit tests of lib/fc_retest_slow.c, the retest's
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

#define HOSTS 6
#define PPN 2
#define RANKS (HOSTS * PPN)
#define FAST 1e-4
#define SLOW 1e-2

typedef struct world {
    char hosts[RANKS][FC_HOST_MAX];
    int unit[RANKS];
    fc_exchange_t ex[RANKS * RANKS];
    int nex;
    int slow_host[HOSTS];
    int slow_rank[RANKS];
} world_t;

static fc_tap_t tap;
static char dir[] = "/tmp/fc-retest-slow-XXXXXX";

static void world_make(world_t *w)
{
    memset(w, 0, sizeof(*w));
    for (int r = 0; r < RANKS; ++r) {
        snprintf(w->hosts[r], FC_HOST_MAX, "n%02d", r / PPN + 1);
        w->unit[r] = r / PPN;
    }
}

/* Every ordered pair of ranks, timed from the truth; noisy[] lists
 * exchanges (index into the list) slowed 100 times, -1 terminated. */
static void world_time(world_t *w, const int *noisy)
{
    w->nex = 0;
    for (int a = 0; a < RANKS; ++a)
        for (int b = 0; b < RANKS; ++b) {
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

/* Judge w; the records' culprit hosts into culprits ("" for none), the
 * first record's reason into why. Returns the records written. */
static int judge(world_t *w, const double *loo, char culprits[][FC_HOST_MAX], int max,
                 char *why, size_t whylen)
{
    json_t *groups = json_pack("{s:[{s:s, s:[s,s,s,s,s,s], s:[s], s:s, s:s}]}", "groups",
                               "group", "cluster", "hosts", "n01", "n02", "n03", "n04",
                               "n05", "n06", "racks", "r1", "kind", "slow", "observed",
                               "all_reduce slow");
    fc_retest_input_t in = {
        .run_id = "t", .stage = "cluster", .nranks = RANKS, .rank_hosts = w->hosts,
        .exchanges = w->ex, .nexchanges = w->nex, .rounds = RANKS - 1, .bytes = 65536,
        .iters = 4, .seconds = 1, .unit = w->unit, .nunits = HOSTS, .loo_seconds = loo,
        .all_seconds = SLOW, .loo_label = "all_reduce int32 sum 64 KiB", .groups = groups,
    };
    fc_results_t res;
    fc_tap_t quiet;
    FILE *null = fopen("/dev/null", "w");
    char path[sizeof(dir) + 32], line[1 << 16];
    int n, k = 0;

    fc_tap_init(&quiet, null, 0);
    if (fc_results_open(dir, &res) != FC_OK)
        fc_tap_bail(&tap, "cannot open %s", dir);
    n = fc_retest_write_slow_records(&in, &res, &quiet);
    fc_results_close(&res);
    fclose(null);
    json_decref(groups);
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    FILE *f = fopen(path, "r");

    why[0] = '\0';
    while (f && fgets(line, sizeof(line), f)) {
        json_t *rec = json_loads(line, 0, NULL);
        const char *host = json_string_value(json_object_get(json_object_get(rec, "culprit"),
                                                             "host"));

        if (k == 0)
            snprintf(why, whylen, "%s", json_string_value(json_array_get(
                         json_object_get(rec, "reasons"), 0)));
        if (k < max)
            snprintf(culprits[k++], FC_HOST_MAX, "%s", host ? host : "");
        json_decref(rec);
    }
    if (f)
        fclose(f);
    unlink(path);
    return n;
}

int main(void)
{
    world_t w;
    char c[8][FC_HOST_MAX], why[4096];
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 7);
    if (mkdtemp(dir) == NULL)
        fc_tap_bail(&tap, "mkdtemp failed");

    world_make(&w);
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_ok(&tap, n == 1 && c[0][0] == '\0' && strstr(why, "no unit slow"),
              "every exchange fast: one record for the group, nobody placed (%d)", n);

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
    fc_tap_ok(&tap, n == 1 && c[0][0] == '\0' && strstr(why, "not placed") &&
                  !strstr(why, "all fast"),
              "four of six hosts slow: the group's slowness, nobody placed (%d, %s)", n, c[0]);

    world_make(&w);
    int busy[] = { 3, 17, 40, 88, -1 };
    world_time(&w, busy);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_ok(&tap, n == 1 && c[0][0] == '\0',
              "a busy machine slowing 4 exchanges at random: nobody placed (%d, %s)", n, c[0]);

    world_make(&w);
    w.slow_rank[7] = 1;
    world_time(&w, NULL);
    n = judge(&w, NULL, c, 8, why, sizeof(why));
    fc_tap_ok(&tap, n == 1 && strcmp(c[0], "n04") == 0 && strstr(why, "(rank 7)"),
              "one rank slow with every partner, its host-mate too: rank 7 of n04 (%d, %s)",
              n, c[0]);

    /* the exchanges place n02, the leave-one-out n05: they disagree */
    world_make(&w);
    w.slow_host[1] = 1;
    world_time(&w, NULL);
    double loo[HOSTS] = { SLOW, SLOW, SLOW, SLOW, FAST, SLOW };
    n = judge(&w, loo, c, 8, why, sizeof(why));
    fc_tap_ok(&tap, n == 1 && c[0][0] == '\0' && strstr(why, "disagree"),
              "the two methods disagree: nobody placed, the record says so (%d, %s)", n, c[0]);
    rmdir(dir);
    return fc_tap_done(&tap);
}
