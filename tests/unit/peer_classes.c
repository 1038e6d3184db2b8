/*
 * peer_classes.c - unit tests of the relative rule's peer classes
 * (lib/engine/fc_peers.c) and of the judge that applies them (lib/engine/fc_judge.c):
 * uneven racks are compared only with racks of their own shape, a class
 * of one is judged on the absolute limits alone and says so, pairs in the
 * same rack and across the spine are separate classes, a one-rank group
 * has no busbw to judge (its algbw is compared, but only where its call
 * copies data: never a broadcast's or an in-place call's), a group that
 * did not run gives no figure to its class, and a size rule sees the
 * requested size (all_gather of 1 MiB on 3 ranks moves 1048572 bytes, and
 * a `min_bytes: 1MiB` limit still applies to it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_judge.h"
#include "fc_peers.h"
#include "fc_tap.h"

static fc_tap_t tap;

/* A summary of one group that ran: n nodes, r ranks, busbw, median time. */
static fc_point_summary_t group(const char *host, int nhosts, int nranks, double busbw,
                                double median_s)
{
    fc_point_summary_t s;

    memset(&s, 0, sizeof(s));
    s.valid = 1;
    s.status = FC_OK;
    snprintf(s.host, sizeof(s.host), "%s", host);
    s.nhosts = nhosts;
    s.nranks = nranks;
    s.busbw = busbw;
    s.time.median = median_s;
    s.digest_ranks_agree = 1;
    s.digest_reps_agree = 1;
    s.first_bad_rank = -1;
    s.disagree_rank = -1;
    return s;
}

static fc_stage_profile_t profile(double max_below_pct, uint64_t relative_min_bytes)
{
    fc_stage_profile_t sp;

    memset(&sp, 0, sizeof(sp));
    sp.max_below_median_pct = max_below_pct;
    sp.relative_min_bytes = relative_min_bytes;
    return sp;
}

static fc_test_point_t point(fc_coll_id_t coll, uint64_t bytes)
{
    fc_test_point_t pt = { coll, FC_FLOAT32, FC_OP_SUM, bytes, 1, 5, 1, 0 };

    if (coll == FC_COLL_ALL_GATHER || coll == FC_COLL_BROADCAST)
        pt.op = FC_OP_NONE;
    return pt;
}

static int has_note(const fc_judgement_t *j, const char *text)
{
    for (int k = 0; k < j->nnotes; ++k)
        if (strstr(j->notes[k], text) != NULL)
            return 1;
    return 0;
}

static void show(const fc_judgement_t *js, int n)
{
    for (int g = 0; g < n; ++g) {
        fc_tap_diag(&tap, "group %d: %s; class '%s'", g,
                    js[g].status == FC_OK ? "PASS" : "FAIL", js[g].peer_class);
        for (int r = 0; r < js[g].nreasons; ++r)
            fc_tap_diag(&tap, "  reason: %s", js[g].reasons[r]);
        for (int k = 0; k < js[g].nnotes; ++k)
            fc_tap_diag(&tap, "  note: %s", js[g].notes[k]);
    }
}

/* Racks of 5, 3, 3, 1 and 1 nodes at 2 ranks per node: the one-node racks
 * run over shared memory, ten times faster; the old rule (median of all
 * racks) failed both 3-node racks, 70% below a median of 1.0. */
static void test_uneven_racks(void)
{
    fc_stage_profile_t sp = profile(50, 0);
    fc_test_point_t pt = point(FC_COLL_ALL_REDUCE, 1 << 20);
    fc_point_summary_t s[5] = {
        group("r1n1", 5, 10, 1.0, 1e-3), group("r2n1", 3, 6, 0.30, 1e-3),
        group("r3n1", 3, 6, 0.29, 1e-3), group("r4n1", 1, 2, 10.0, 1e-4),
        group("r5n1", 1, 2, 10.5, 1e-4),
    };
    fc_judgement_t js[5];
    int ok;

    fc_judge_point_kind(&sp, &pt, s, 5, "rack", js);
    ok = js[0].status == FC_OK && js[1].status == FC_OK && js[2].status == FC_OK &&
         js[3].status == FC_OK && js[4].status == FC_OK;
    fc_tap_ok(&tap, ok, "racks of 5, 3, 3, 1, 1 nodes: a healthy cluster passes "
              "(each rack against racks of its shape)");
    if (!ok)
        show(js, 5);
    fc_tap_is_str(&tap, js[1].peer_class,
                  "the other rack of 3 nodes x 6 ranks "
                               "(network)",
                  "the 3-node racks are compared with each other, and the record names "
                  "the class: '%s'", js[1].peer_class);
    fc_tap_is_int(&tap, js[1].peer_count, 1,
                  "the 3-node racks are compared with each other, and the record names "
                  "the class: '%s'"
                  " [js[1].peer_count]", js[1].peer_class);
    fc_tap_ok(&tap, js[1].peer_median_busbw > 0.289 && js[1].peer_median_busbw < 0.291,
              "the 3-node racks are compared with each other, and the record names "
              "the class: '%s'"
              " [js[1].peer_median_busbw > 0.289 && js[1].peer_median_busb...]", js[1].peer_class);
    fc_tap_is_str(&tap, js[3].peer_class,
                  "the other rack of 1 node x 2 ranks "
                               "(intra-node)",
                  "the 1-node racks (intra-node) only with each other: '%s'", js[3].peer_class);
    fc_tap_ok(&tap, js[0].peer_median_busbw < 0 &&
                  has_note(&js[0], "relative rule not applied: no peer of its shape: "
                           "the only rack of 5 nodes x 10 ranks (network)"),
              "a class of one (the 5-node rack) is judged on the absolute limits "
              "alone, and its record says why");

    /* one 3-node rack slowed 30-fold fails; the others are untouched */
    s[2].busbw = 0.01;
    fc_judge_point_kind(&sp, &pt, s, 5, "rack", js);
    ok = js[2].status == FC_ERR_FAIL && js[1].status == FC_OK && js[0].status == FC_OK &&
         js[3].status == FC_OK && js[4].status == FC_OK && js[2].nreasons == 1 &&
         strstr(js[2].reasons[0], "below the other rack of 3 nodes x 6 ranks "
                "(network)") != NULL && strstr(js[2].reasons[0], "r3n1") != NULL;
    fc_tap_ok(&tap, ok, "a slow 3-node rack fails against its class, names its "
              "host and the class; no other rack fails");
    if (!ok)
        show(js, 5);
}

/* A slow member must not pull its own reference down: in a class of two
 * it is judged against its twin (not the mean of both), and two slow
 * racks of four are each judged against the median of the three others. */
static void test_small_classes(void)
{
    fc_stage_profile_t sp = profile(95, 0);
    fc_test_point_t pt = point(FC_COLL_ALL_REDUCE, 1 << 20);
    fc_point_summary_t two[2] = { group("a1", 2, 8, 1.0, 1e-3), group("b1", 2, 8, 1.0 / 22, 1e-3) };
    fc_point_summary_t four[4] = { group("a1", 2, 4, 1.0, 1e-3), group("b1", 2, 4, 0.9, 1e-3),
                                   group("c1", 2, 4, 0.4, 1e-3), group("d1", 2, 4, 0.4, 1e-3) };
    fc_judgement_t js[4];
    int ok;

    fc_judge_point_kind(&sp, &pt, two, 2, "rack", js);
    ok = js[0].status == FC_OK && js[1].status == FC_ERR_FAIL &&
         js[1].peer_median_busbw == 1.0 && js[0].peer_median_busbw == 1.0 / 22;
    fc_tap_ok(&tap, ok, "two racks, one 22 times slower, 95%% rule: the slow one fails "
              "against its twin, the healthy one passes");
    if (!ok)
        show(js, 2);
    sp = profile(50, 0);
    fc_judge_point_kind(&sp, &pt, four, 4, "rack", js);
    ok = js[0].status == FC_OK && js[1].status == FC_OK && js[2].status == FC_ERR_FAIL &&
         js[3].status == FC_ERR_FAIL && js[2].peer_median_busbw == 0.9 &&
         strcmp(js[2].peer_class, "the median of the other 3 racks of 2 nodes x 4 ranks "
                "(network)") == 0;
    fc_tap_ok(&tap, ok, "four racks [1, 0.9, 0.4, 0.4] at 50%%: both slow racks fail "
              "against the median of the other three ('%s')", js[2].peer_class);
    if (!ok)
        show(js, 4);
}

/* Pairs: same rack and across the spine are classes of their own (an
 * oversubscribed spine is slower by design, not a fault). */
static void test_pair_paths(void)
{
    fc_peer_shape_t sh[6];
    double bw[6] = { 10.0, 9.5, 10.2, 2.0, 2.1, 0.05 };
    int has[6] = { 1, 1, 1, 1, 1, 1 };
    fc_peer_ref_t ref[6];

    for (int i = 0; i < 6; ++i)
        sh[i] = (fc_peer_shape_t){ 2, 2, i < 3 ? fc_peer_pair_path(0, 0)
                                               : fc_peer_pair_path(0, 1 + i % 2) };
    fc_tap_is_int(&tap, fc_peer_pair_path(3, 3), FC_PEER_PATH_SAME_RACK,
                  "a pair is in the same rack or across the spine");
    fc_tap_is_int(&tap, fc_peer_pair_path(0, 2), FC_PEER_PATH_SPINE,
                  "a pair is in the same rack or across the spine"
                  " [fc_peer_pair_path(0, 2)]");
    fc_peers_reference(sh, bw, has, 6, FC_PEER_UPPER_MEDIAN, "pair", ref);
    fc_tap_ok(&tap, ref[0].applies,
              "pairs in the same rack and across the spine have their own upper "
              "medians (10 and 2 GB/s): '%s', '%s'", ref[0].class_desc, ref[3].class_desc);
    fc_tap_is_double(&tap, ref[0].reference, 10.0, 0,
                     "pairs in the same rack and across the spine have their own upper "
                     "medians (10 and 2 GB/s): '%s', '%s'"
                     " [ref[0].reference]", ref[0].class_desc, ref[3].class_desc);
    fc_tap_is_str(&tap, ref[0].class_desc, "upper median of 3 pairs in the same rack",
                  "pairs in the same rack and across the spine have their own upper "
                  "medians (10 and 2 GB/s): '%s', '%s'"
                  " [ref[0].class_desc]", ref[0].class_desc, ref[3].class_desc);
    fc_tap_ok(&tap, ref[3].applies,
              "pairs in the same rack and across the spine have their own upper "
              "medians (10 and 2 GB/s): '%s', '%s'"
              " [ref[3].applies]", ref[0].class_desc, ref[3].class_desc);
    fc_tap_is_double(&tap, ref[3].reference, 2.0, 0,
                     "pairs in the same rack and across the spine have their own upper "
                     "medians (10 and 2 GB/s): '%s', '%s'"
                     " [ref[3].reference]", ref[0].class_desc, ref[3].class_desc);
    fc_tap_is_str(&tap, ref[3].class_desc, "upper median of 3 pairs across the spine",
                  "pairs in the same rack and across the spine have their own upper "
                  "medians (10 and 2 GB/s): '%s', '%s'"
                  " [ref[3].class_desc]", ref[0].class_desc, ref[3].class_desc);
    fc_tap_ok(&tap, bw[3] > ref[3].reference * 0.5 && bw[5] < ref[5].reference * 0.5,
              "so a healthy spine pair (2 GB/s) is not 'slow' next to rack-local "
              "ones, and a bad spine pair (0.05 GB/s) still is");
    /* a single pair across the spine: no peer of its path kind */
    fc_peers_reference(sh + 2, bw + 2, has + 2, 2, FC_PEER_UPPER_MEDIAN, "pair", ref);
    fc_tap_ok(&tap, !ref[0].applies && !ref[1].applies &&
                  strstr(ref[1].why_not, "the only pair across the spine") != NULL,
              "one pair of each kind: no reference, and why: '%s'", ref[1].why_not);
}

/* A one-rank group: busbw is 0 (bus factor 2(n-1)/n) or a copy to itself,
 * so min_busbw does not apply and says so; the relative rule compares
 * algbw among the groups of that shape instead (they run the same point
 * on the same bytes), so a node far slower than its peers fails. */
static void test_one_rank(void)
{
    fc_stage_profile_t sp = profile(50, 0);
    fc_test_point_t ar = point(FC_COLL_ALL_REDUCE, 1 << 20);
    fc_test_point_t bc = point(FC_COLL_BROADCAST, 1 << 20);
    fc_point_summary_t s[3] = { group("gpu01", 1, 1, 0.0, 1e-4),
                                group("gpu02", 1, 1, 0.0, 1e-4),
                                group("gpu03", 1, 1, 0.0, 1e-4) };
    fc_judgement_t js[3];

    s[0].algbw = 50.0;
    s[1].algbw = 52.0;
    s[2].algbw = 51.0;
    sp.nlimits = 1;
    sp.limits[0] = (fc_limit_rule_t){ FC_ANY, FC_ANY, FC_ANY, 0, UINT64_MAX, 5.0,
                                      1000.0, 12, 0 };
    fc_judge_point_kind(&sp, &ar, s, 3, "node", js);
    fc_tap_is_int(&tap, js[0].status, FC_OK,
                  "one-rank nodes alike: min_busbw does not apply (and says so), the relative "
                  "rule compares their algbw, all pass");
    fc_tap_is_int(&tap, js[1].status, FC_OK,
                  "one-rank nodes alike: min_busbw does not apply (and says so), the relative "
                  "rule compares their algbw, all pass"
                  " [js[1].status]");
    fc_tap_is_int(&tap, js[2].status, FC_OK,
                  "one-rank nodes alike: min_busbw does not apply (and says so), the relative "
                  "rule compares their algbw, all pass"
                  " [js[2].status]");
    fc_tap_ok(&tap, js[0].peer_algbw && js[0].peer_median_busbw > 51 &&
                  has_note(&js[0], "min_busbw_gbps (profile line 12) not applied: the bus "
                           "factor of all_reduce on 1 rank is 0"),
              "one-rank nodes alike: min_busbw does not apply (and says so), the relative "
              "rule compares their algbw, all pass"
              " [js[0].peer_algbw && js[0].peer_median_busbw > 51 && has_n...]");
    if (js[0].status != FC_OK)
        show(js, 3);
    s[2].algbw = 51.0 / 40000;
    fc_judge_point_kind(&sp, &ar, s, 3, "node", js);
    fc_tap_is_int(&tap, js[0].status, FC_OK,
                  "a one-rank node 40,000 times slower than its peers fails by algbw: '%s'",
                  js[2].reasons[0]);
    fc_tap_is_int(&tap, js[1].status, FC_OK,
                  "a one-rank node 40,000 times slower than its peers fails by algbw: '%s'"
                  " [js[1].status]", js[2].reasons[0]);
    fc_tap_is_int(&tap, js[2].status, FC_ERR_FAIL,
                  "a one-rank node 40,000 times slower than its peers fails by algbw: '%s'"
                  " [js[2].status]", js[2].reasons[0]);
    fc_tap_ok(&tap, strstr(js[2].reasons[0], "algbw 0.001 GB/s on host gpu03 is 100% below "
                         "the median of the other 2 nodes") != NULL,
              "a one-rank node 40,000 times slower than its peers fails by algbw: '%s'"
              " [strstr(js[2].reasons[0], \"algbw 0.001 GB/s on host gpu03...]", js[2].reasons[0]);
    fc_judge_point_kind(&sp, &bc, s, 3, "node", js);
    fc_tap_is_int(&tap, js[2].status, FC_OK,
                  "broadcast on one rank: no busbw limit, and no relative rule either (its "
                  "'algbw' is the call's overhead): a 40,000 times lower one passes, and says so");
    fc_tap_ok(&tap, js[2].peer_median_busbw < 0 &&
                  has_note(&js[0], "broadcast on 1 rank moves no data between ranks") &&
                  has_note(&js[2], "relative rule not applied: broadcast moves nothing on "
                           "one rank (its root already holds the data)"),
              "broadcast on one rank: no busbw limit, and no relative rule either (its "
              "'algbw' is the call's overhead): a 40,000 times lower one passes, and says so"
              " [js[2].peer_median_busbw < 0 && has_note(&js[0], \"broadcas...]");
    s[2].algbw = 51.0;
    s[1].time.median = 2e-3;   /* 2000 us, limit 1000 us */
    fc_judge_point_kind(&sp, &ar, s, 3, "node", js);
    fc_tap_is_int(&tap, js[0].status, FC_OK,
                  "its time is still judged: a one-rank node over max_latency_us fails");
    fc_tap_is_int(&tap, js[1].status, FC_ERR_FAIL,
                  "its time is still judged: a one-rank node over max_latency_us fails"
                  " [js[1].status]");
    fc_tap_ok(&tap, strstr(js[1].reasons[0], "median time 2000.0 us is above the limit") != NULL,
              "its time is still judged: a one-rank node over max_latency_us fails"
              " [strstr(js[1].reasons[0], \"median time 2000.0 us is above...]");
}

/* Which one-rank points the relative rule may compare: those whose call
 * copies data on one rank (the out-of-place ones), written out here from
 * what each call does on a one-rank communicator (Open MPI 4.1: a copy
 * of 64 MiB takes milliseconds; MPI_Bcast and the in-place all_reduce and
 * all_gather return in under a microsecond), not read back from
 * fc_coll.c. Three healthy nodes, each point at a size where the others'
 * noise is ten-fold: one that moves nothing is never failed and says so;
 * one that copies still fails a node 40,000 times slower. */
static void test_one_rank_moves(void)
{
    static const struct { fc_coll_id_t coll; int copies; } want[] = {
        { FC_COLL_ALL_REDUCE, 1 },          { FC_COLL_ALL_GATHER, 1 },
        { FC_COLL_REDUCE_SCATTER, 1 },      { FC_COLL_BROADCAST, 0 },
        { FC_COLL_ALL_TO_ALL, 1 },          { FC_COLL_SENDRECV, 1 },
        { FC_COLL_REDUCE, 1 },              { FC_COLL_ALL_REDUCE_INPLACE, 0 },
        { FC_COLL_ALL_GATHER_INPLACE, 0 },  { FC_COLL_REDUCE_SCATTER_INPLACE, 0 },
        { FC_COLL_BROADCAST_INPLACE, 0 },
    };
    fc_stage_profile_t sp = profile(50, 0);
    int bad = 0, n = (int)(sizeof(want) / sizeof(want[0]));

    fc_tap_is_int(&tap, n, FC_COLL_COUNT, "every collective is listed (%d of %d)", n,
                  FC_COLL_COUNT);
    for (int c = 0; c < n; ++c) {
        fc_test_point_t pt = point(want[c].coll, 4096);
        fc_point_summary_t s[3] = { group("n1", 1, 1, 0.0, 1e-6), group("n2", 1, 1, 0.0, 1e-6),
                                    group("n3", 1, 1, 0.0, 1e-6) };
        fc_judgement_t js[3];
        const char *name = fc_coll_desc(want[c].coll)->name;
        int ok;

        s[0].algbw = 4.0;               /* one node quick, one ten times slower */
        s[1].algbw = 0.4;
        s[2].algbw = 4.0 / 40000;
        fc_judge_point_kind(&sp, &pt, s, 3, "node", js);
        if (want[c].copies)
            ok = fc_judge_moves_nothing(want[c].coll, 1) == 0 &&
                 js[2].status == FC_ERR_FAIL && js[2].peer_algbw &&
                 strstr(js[2].reasons[0], "algbw") != NULL && js[0].status == FC_OK;
        else
            ok = fc_judge_moves_nothing(want[c].coll, 1) == 1 && js[0].status == FC_OK &&
                 js[1].status == FC_OK && js[2].status == FC_OK &&
                 js[2].peer_median_busbw < 0 && js[2].peer_class[0] == '\0' &&
                 has_note(&js[2], "moves nothing on one rank") &&
                 !has_note(&js[2], "no peer of its shape");
        /* on two ranks every call moves data: the rule compares it */
        ok = ok && !fc_judge_moves_nothing(want[c].coll, 2);
        if (!ok) {
            ++bad;
            fc_tap_diag(&tap, "%s on one rank (copies: %d):", name, want[c].copies);
            show(js, 3);
        }
    }
    fc_tap_is_int(&tap, bad, 0, "one rank: all_reduce, all_gather, reduce_scatter, all_to_all, "
                  "sendrecv and reduce (they copy) are compared by algbw; broadcast and the four "
                  "in-place variants (they move nothing) are not, and say so (%d wrong)", bad);
}

/* Groups that did not run give no figure; sizes are the requested ones. */
static void test_no_figure_and_sizes(void)
{
    fc_stage_profile_t sp = profile(50, 64 << 10);
    fc_test_point_t pt = point(FC_COLL_ALL_REDUCE, 1 << 20);
    fc_point_summary_t s[3] = { group("a", 3, 3, 1.0, 1e-3), group("b", 3, 3, 1.0, 1e-3),
                                group("c", 2, 2, 1.0, 1e-3) };
    fc_judgement_t js[3];

    s[1].status = FC_ERR_FAIL;
    fc_judge_point_kind(&sp, &pt, s, 3, "rack", js);
    fc_tap_is_int(&tap, js[1].status, FC_ERR_FAIL,
                  "a peer that did not run gives no figure: its class-mate is judged "
                  "on the absolute limits alone, and says so");
    fc_tap_is_int(&tap, js[0].status, FC_OK,
                  "a peer that did not run gives no figure: its class-mate is judged "
                  "on the absolute limits alone, and says so"
                  " [js[0].status]");
    fc_tap_ok(&tap, has_note(&js[0], "its peers of the same shape (rack of 3 nodes x 3 "
                           "ranks (network)) gave no figure"),
              "a peer that did not run gives no figure: its class-mate is judged "
              "on the absolute limits alone, and says so"
              " [has_note(&js[0], \"its peers of the same shape (rack of 3...]");

    pt.bytes = 4096;
    fc_judge_point_kind(&sp, &pt, s, 3, "rack", js);
    fc_tap_ok(&tap, has_note(&js[0], "relative rule not applied: 4 KiB is below "
                             "relative.min_bytes (64 KiB)"),
              "below relative.min_bytes the relative rule says it did not apply");

    /* all_gather of 1 MiB on 3 ranks moves 1048572 bytes; the rule from
     * 1 MiB up must still see it (it sees the requested size) */
    fc_stage_profile_t lim = profile(-1, 0);
    fc_test_point_t ag = point(FC_COLL_ALL_GATHER, 1 << 20);
    fc_point_summary_t one = group("a", 3, 3, 1.0, 1e-3);
    fc_judgement_t j;

    one.bytes = 1048572;
    lim.nlimits = 1;
    lim.limits[0] = (fc_limit_rule_t){ FC_ANY, FC_ANY, FC_ANY, 1 << 20, UINT64_MAX,
                                       5.0, -1, 9, 0 };
    fc_judge_point_kind(&lim, &ag, &one, 1, "rack", &j);
    fc_tap_ok(&tap, j.limit == &lim.limits[0],
              "a 'min_bytes: 1MiB' limit applies to all_gather of 1 MiB on 3 ranks "
              "(1048572 bytes moved): limits see the requested size");
    fc_tap_is_int(&tap, j.status, FC_ERR_FAIL,
                  "a 'min_bytes: 1MiB' limit applies to all_gather of 1 MiB on 3 ranks "
                  "(1048572 bytes moved): limits see the requested size"
                  " [j.status]");
    fc_tap_ok(&tap, strstr(j.reasons[0], "below the limit 5.000 GB/s (profile line 9)") != NULL,
              "a 'min_bytes: 1MiB' limit applies to all_gather of 1 MiB on 3 ranks "
              "(1048572 bytes moved): limits see the requested size"
              " [strstr(j.reasons[0], \"below the limit 5.000 GB/s (profile...]");
    fc_tap_is_int(&tap, j.nnotes, 0, "with no relative rule in the profile, no note");
}

int main(void)
{
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 42);
    test_uneven_racks();
    test_small_classes();
    test_pair_paths();
    test_one_rank();
    test_one_rank_moves();
    test_no_figure_and_sizes();
    return fc_tap_done(&tap);
}
