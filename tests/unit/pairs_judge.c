/*
 * pairs_judge.c - unit tests of the pairs stage's judgement
 * (lib/pairs/fc_pairs_judge.c) on planted matrices of pair bandwidths, no MPI:
 * the same-rack rule. With racks of 5, 3 and 1 nodes, 10 of the 13 pairs
 * inside a rack are the 5-node rack's, so their class's upper median is
 * that rack's own figure: a slow switch of that rack (every pair inside
 * it slow, its pairs across the spine fast) hid from the class's rule and
 * passed. Each case plants a matrix, judges it as the stage does, and
 * checks which pairs are slow, by which rule, against which reference.
 * Then the confirmation (lib/pairs/fc_pairs_confirm.c) on the judged matrix,
 * each pair measured alone judged by the same rules, and the verdict the
 * records write (lib/pairs/fc_pairs_evidence.c): the slow switch is named as
 * the switch of its rack, a slow node of the same rack as its link.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_pairs_evidence.h"
#include "fc_pairs_stage.h"
#include "fc_tap.h"
#include "fc_test_pairs.h"

static fc_tap_t tap;

/* Every pair inside rack r (index) moves bw. */
static void matrix_slow_rack(matrix_t *m, int r, double bw)
{
    for (int k = 0; k < m->run.npairs; ++k)
        if (m->node_racks[m->pairs[k].a] == r && m->node_racks[m->pairs[k].b] == r)
            m->pairs[k].bw_gbps = bw;
}

static int is_inside(const matrix_t *m, const fc_pair_t *p, int r)
{
    return m->node_racks[p->a] == r && m->node_racks[p->b] == r;
}

/* How many pairs are slow: inside rack r (r >= 0), or elsewhere (r < 0). */
static int count_slow(const matrix_t *m, int r)
{
    int n = 0;

    for (int k = 0; k < m->run.npairs; ++k)
        if (m->pairs[k].slow && (r >= 0 ? is_inside(m, &m->pairs[k], r)
                                        : !is_inside(m, &m->pairs[k], -r - 1)))
            ++n;
    return n;
}

static void show_slow(const matrix_t *m)
{
    for (int k = 0; k < m->run.npairs; ++k)
        if (m->pairs[k].slow)
            fc_tap_diag(&tap, "slow: %s <-> %s: %s", m->hosts[m->pairs[k].a],
                        m->hosts[m->pairs[k].b], m->pairs[k].reasons[0]);
}

/* The first pair inside rack r. */
static fc_pair_t *inside_pair(matrix_t *m, int r)
{
    for (int k = 0; k < m->run.npairs; ++k)
        if (is_inside(m, &m->pairs[k], r))
            return &m->pairs[k];
    return NULL;
}

static void test_clean_uneven(void)
{
    static matrix_t m;
    const int racks[3] = { 5, 3, 1 };
    int spine_off = 1;

    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    fc_pairs_judge(&m.run);
    fc_tap_is_int(&tap, count_slow(&m, -4), 0, "racks of 5, 3 and 1 nodes, clean (each pair "
                  "within +-30%%): no pair is slow");
    for (int k = 0; k < m.run.npairs; ++k)
        if (m.node_racks[m.pairs[k].a] != m.node_racks[m.pairs[k].b])
            spine_off &= m.pairs[k].same == FC_PAIR_SAME_OFF;
    fc_tap_is_int(&tap, inside_pair(&m, 0)->same, FC_PAIR_SAME_CLEAR,
                  "the same-rack rule judged both racks with pairs inside (not slow), and no "
                  "pair across the spine");
    fc_tap_is_int(&tap, inside_pair(&m, 1)->same, FC_PAIR_SAME_CLEAR,
                  "the same-rack rule judged both racks with pairs inside (not slow), and no "
                  "pair across the spine"
                  " [inside_pair(&m, 1)->same]");
    fc_tap_ok(&tap, spine_off,
              "the same-rack rule judged both racks with pairs inside (not slow), and no "
              "pair across the spine"
              " [spine_off]");
    char text[160];

    fc_pairs_same_rack_text(&m.run, inside_pair(&m, 0), text, sizeof(text));
    fc_tap_is_str(&tap, text, "upper median of the 3 pairs inside rack rack2",
                  "the 5-node rack's reference is the pairs inside the other rack");
    fc_pairs_same_rack_text(&m.run, inside_pair(&m, 1), text, sizeof(text));
    fc_tap_is_str(&tap, text, "upper median of the 10 pairs inside rack rack1",
                  "and the 3-node rack's, the 5-node rack's pairs");
}

static void test_slow_switch(void)
{
    static matrix_t m;
    const int racks[3] = { 5, 3, 1 };
    fc_pair_t *p, alone;
    int ok;

    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    matrix_slow_rack(&m, 0, 0.05);          /* rack1's switch: 20 times slower inside */
    fc_pairs_judge(&m.run);
    p = inside_pair(&m, 0);
    ok = count_slow(&m, 0) == 10 && count_slow(&m, -1) == 0;
    fc_tap_ok(&tap, ok, "the 5-node rack's switch slow (its 10 pairs inside at 0.05 GB/s, "
              "20 times slower): all 10 slow, no other pair (%d, %d)", count_slow(&m, 0),
              count_slow(&m, -1));
    if (!ok)
        show_slow(&m);
    fc_tap_is_int(&tap, p->rel, FC_PAIR_REL_APPLIED,
                  "the class's own rule could not see it: the upper median of the 13 pairs "
                  "inside a rack is rack1's slow figure (%.3f GB/s)", p->ref);
    fc_tap_ok(&tap, p->ref < 0.06,
              "the class's own rule could not see it: the upper median of the 13 pairs "
              "inside a rack is rack1's slow figure (%.3f GB/s)"
              " [p->ref < 0.06]", p->ref);
    fc_tap_is_int(&tap, p->same, FC_PAIR_SAME_APPLIED,
                  "the same-rack rule caught it, and says against what: '%s'", p->reasons[0]);
    fc_tap_ok(&tap, p->same_ref > 0.7,
              "the same-rack rule caught it, and says against what: '%s'"
              " [p->same_ref > 0.7]", p->reasons[0]);
    fc_tap_is_int(&tap, p->same_ref_members, 3,
                  "the same-rack rule caught it, and says against what: '%s'"
                  " [p->same_ref_members]", p->reasons[0]);
    fc_tap_is_int(&tap, p->nreasons, 1,
                  "the same-rack rule caught it, and says against what: '%s'"
                  " [p->nreasons]", p->reasons[0]);
    fc_tap_ok(&tap, strstr(p->reasons[0], "below the upper median of the 3 pairs inside rack "
                                          "rack2") != NULL &&
                  strstr(p->reasons[0], "the pairs inside rack rack1 have a median of "
                         "0.0500 GB/s") != NULL,
              "the same-rack rule caught it, and says against what: '%s' [names 'below the "
              "upper median of the 3...', 'the pairs inside rack rack1 hav...']",
              p->reasons[0]);

    /* measured alone, the confirmation judges by the same reference */
    memset(&alone, 0, sizeof(alone));
    alone.a = p->a;
    alone.b = p->b;
    alone.bw_gbps = 0.04;
    fc_pairs_judge_alone(&m.run, &alone);
    ok = alone.slow;
    alone.bw_gbps = 0.9;
    fc_pairs_judge_alone(&m.run, &alone);
    fc_tap_ok(&tap, ok && !alone.slow, "alone, the same pair is slow at 0.04 GB/s and fast "
              "at 0.9 GB/s against the same reference");
}

static void test_gate_and_small_rack(void)
{
    static matrix_t m;
    const int racks[3] = { 5, 3, 1 };
    int ok;

    /* one node of rack1 slow: 4 of its 10 pairs; the rack's median is
     * healthy, so the rule leaves the rack alone and the class judges */
    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    for (int k = 0; k < m.run.npairs; ++k)
        if (m.pairs[k].a == 0 && is_inside(&m, &m.pairs[k], 0))
            m.pairs[k].bw_gbps = 0.05;
    fc_pairs_judge(&m.run);
    ok = count_slow(&m, 0) == 4 && inside_pair(&m, 0)->same == FC_PAIR_SAME_CLEAR &&
         strstr(inside_pair(&m, 0)->reasons[0], "upper median of 9 pairs in the same "
                "rack of the rounds not touching n01") != NULL;
    fc_tap_ok(&tap, ok, "one slow node in the 5-node rack: its 4 pairs inside fail by the "
              "class's rule; the rack's median is healthy, so the same-rack rule does not "
              "put the rack under it");
    if (!ok)
        show_slow(&m);

    /* the 3-node rack's switch slow: the class's rule already sees it (10
     * healthy pairs set the upper median); the same-rack rule agrees and
     * adds no second sentence */
    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    matrix_slow_rack(&m, 1, 0.05);
    fc_pairs_judge(&m.run);
    ok = count_slow(&m, 1) == 3 && count_slow(&m, -2) == 0 &&
         inside_pair(&m, 1)->same == FC_PAIR_SAME_APPLIED && inside_pair(&m, 1)->nreasons == 1 &&
         inside_pair(&m, 0)->same == FC_PAIR_SAME_CLEAR;
    fc_tap_ok(&tap, ok, "the 3-node rack's switch slow: its 3 pairs fail (one reason each), "
              "nothing else");
    if (!ok)
        show_slow(&m);
}

static void test_nothing_to_compare(void)
{
    static matrix_t m;
    const int racks[3] = { 5, 1, 1 };

    /* racks of 5, 1 and 1: only rack1 has pairs inside; never compared
     * with nothing, and the record says so (FC_PAIR_SAME_NONE) */
    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    matrix_slow_rack(&m, 0, 0.05);
    fc_pairs_judge(&m.run);
    fc_tap_is_int(&tap, inside_pair(&m, 0)->same, FC_PAIR_SAME_NONE,
                  "racks of 5, 1 and 1: the pairs inside rack1 have no other rack's to be "
                  "compared with (the rule says it did not apply; absolute limits judge them)");
    fc_tap_is_int(&tap, count_slow(&m, 0), 0,
                  "racks of 5, 1 and 1: the pairs inside rack1 have no other rack's to be "
                  "compared with (the rule says it did not apply; absolute limits judge them)"
                  " [count_slow(&m, 0)]");
}

/* The alone measurements of the confirmation, from the planted truth:
 * slow_inside (a rack index, or -1) moves 0.04 GB/s inside that rack,
 * slow_node (or -1) 0.04 GB/s with everyone; the rest 0.9 inside a rack,
 * 0.45 across; each judged as the stage judges one (fc_pairs_judge_alone). */
typedef struct truth {
    matrix_t *m;
    int slow_inside, slow_node, n;
    fc_pair_t alone[512];
} truth_t;

static int probe_truth(void *arg, int x, int y)
{
    truth_t *t = arg;
    matrix_t *m = t->m;
    fc_pair_t *p = &t->alone[t->n++];
    int same = m->node_racks[x] == m->node_racks[y];

    memset(p, 0, sizeof(*p));
    p->a = x < y ? x : y;
    p->b = x < y ? y : x;
    p->bw_gbps = (same && m->node_racks[x] == t->slow_inside) || x == t->slow_node ||
                 y == t->slow_node ? 0.04 : same ? 0.9 : 0.45;
    p->lat_us = 20;
    fc_pairs_judge_alone(&m->run, p);
    return p->slow ? FC_CONFIRM_MEAS_SLOW : p->undecided ? FC_CONFIRM_MEAS_UNDECIDED
                                                         : FC_CONFIRM_MEAS_FAST;
}

/* Judge the matrix, confirm its slow pairs alone against the truth, and
 * return the verdict json of pair (a, b) (NULL: it passes), its text into
 * why. */
static json_t *confirm_pair(matrix_t *m, truth_t *t, int a, int b, char *why, size_t len)
{
    int n = m->run.npairs, ia[MAXN * MAXN], ib[MAXN * MAXN], slow[MAXN * MAXN], k = -1;

    for (int q = 0; q < n; ++q) {
        ia[q] = m->pairs[q].a;
        ib[q] = m->pairs[q].b;
        slow[q] = m->pairs[q].slow;
        k = ia[q] == a && ib[q] == b ? q : k;
    }
    t->m = m;
    t->n = 0;
    m->run.alone = t->alone;
    fc_pairs_confirm(m->run.nnodes, m->node_racks, m->ctx.inv.nracks, n, ia, ib, slow,
                     FC_CONFIRM_MAX_MEASURES * (4 * m->run.nnodes + 8), probe_truth, NULL, t,
                     &m->run.confirm);
    m->run.confirmed = 1;
    why[0] = '\0';
    return fc_pairs_slow_verdict(&m->run, k, a, b, m->run.confirm.verdict[k], why, len);
}

static void test_switch_verdict(void)
{
    static matrix_t m;
    static truth_t t;
    const int racks[3] = { 5, 3, 1 };
    char why[FC_REASON_MAX * 3];
    json_t *imp;
    int ok;

    /* rack1's switch: its 10 pairs inside slow in the rounds (the same-rack
     * rule) and alone, its nodes fast with the nodes outside it */
    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    matrix_slow_rack(&m, 0, 0.05);
    fc_pairs_judge(&m.run);
    t.slow_inside = 0;
    t.slow_node = -1;
    imp = confirm_pair(&m, &t, 1, 3, why, sizeof(why));
    ok = imp != NULL && strcmp(json_string_value(json_object_get(imp, "part")), "switch") == 0 &&
         strcmp(json_string_value(json_object_get(imp, "rack")), "rack1") == 0 &&
         json_is_false(json_object_get(imp, "quarantine")) &&
         strstr(why, "explained by the switch of rack rack1 (top of rack): every pair inside "
                "it (10) was slow in its round and alone too, while each of its 5 nodes is "
                "fast alone with a node outside the rack (n01 with n") != NULL;
    for (int v = 0; v < m.run.nnodes; ++v)
        ok &= !m.run.confirm.link[v];
    fc_tap_ok(&tap, ok, "the 5-node rack's slow switch, confirmed alone: part 'switch', rack "
              "rack1, nobody quarantined: '%s'", why);
    json_decref(imp);
    fc_pairs_confirm_free(&m.run.confirm);

    /* one slow node of rack1 instead: its pairs are its link's */
    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    for (int k = 0; k < m.run.npairs; ++k)
        if (m.pairs[k].a == 2 || m.pairs[k].b == 2)
            m.pairs[k].bw_gbps = 0.04;
    fc_pairs_judge(&m.run);
    t.slow_inside = -1;
    t.slow_node = 2;
    imp = confirm_pair(&m, &t, 1, 2, why, sizeof(why));
    ok = imp != NULL && strcmp(json_string_value(json_object_get(imp, "part")), "link") == 0 &&
         strcmp(json_string_value(json_object_get(imp, "host")), "n03") == 0 &&
         !m.run.confirm.tor[0];
    fc_tap_ok(&tap, ok, "one slow node of the 5-node rack: its link (n03), not the switch: "
              "'%s'", why);
    json_decref(imp);
    fc_pairs_confirm_free(&m.run.confirm);
}

/* Racks whose only rack of two nodes or more has 2 or 3 (2,1 / 2,1,1 /
 * 3,1), its first node slow: its partner probe inside the rack used to be
 * judged by the same-rack class alone, which had no peer (2 nodes: only
 * the absolute limit, "fast") or was the slow node's own figure (3 nodes:
 * two of the three pairs are its), so the node was cleared and its pairs
 * across the spine called paths. Alone, a pair is now judged against
 * references its two nodes do not set (lib/pairs/fc_pairs_alone.c): the node is
 * confirmed, its link named, every pair of it its link's. */
static void test_small_rack_node(void)
{
    static const int shapes[3][3] = { { 2, 1, 0 }, { 2, 1, 1 }, { 3, 1, 0 } };
    static const int nshape[3] = { 2, 3, 2 };
    static matrix_t m;
    static truth_t t;
    char why[FC_REASON_MAX * 3], seen[2048] = "";
    int ok = 1;

    for (int s = 0; s < 3; ++s) {
        json_t *imp;
        size_t at = strlen(seen);

        matrix_make(&m, shapes[s], nshape[s], 80, 1.0, 0.5);
        for (int k = 0; k < m.run.npairs; ++k)
            if (m.pairs[k].a == 0)
                m.pairs[k].bw_gbps = 0.002;
        fc_pairs_judge(&m.run);
        t.slow_inside = -1;
        t.slow_node = 0;
        imp = confirm_pair(&m, &t, 0, m.run.nnodes - 1, why, sizeof(why));
        int good = imp != NULL && m.run.confirm.link[0] &&
                   strcmp(json_string_value(json_object_get(imp, "part")), "link") == 0 &&
                   strcmp(json_string_value(json_object_get(imp, "host")), "n01") == 0;
        for (int v = 1; v < m.run.nnodes; ++v)
            good &= !m.run.confirm.link[v];
        for (int k = 0; k < m.run.npairs; ++k)
            good &= !m.pairs[k].slow || m.pairs[k].a == 0 ||
                    m.run.confirm.verdict[k] == FC_PAIR_V_NOT_REPRODUCED;
        snprintf(seen + at, sizeof(seen) - at, "%s%d,%d%s: %s", at ? "; " : "", shapes[s][0],
                 shapes[s][1], nshape[s] > 2 ? ",1" : "", good ? "link n01" : why);
        ok &= good;
        json_decref(imp);
        fc_pairs_confirm_free(&m.run.confirm);
    }
    fc_tap_ok(&tap, ok, "racks of 2,1 / 2,1,1 / 3,1, the first node slow: its link confirmed "
              "alone and named, nobody else (%s)", seen);

    /* the partner probe inside a rack of 2: judged against the other
     * node's pair across the spine; and with no such pair (racks of 2 and
     * nothing else), undecided, not fast */
    matrix_make(&m, shapes[0], 2, 80, 1.0, 0.5);
    fc_pairs_judge(&m.run);
    fc_pair_t alone = { .a = 0, .b = 1, .bw_gbps = 0.002, .lat_us = 20 };
    char ref[640];

    fc_pairs_judge_alone(&m.run, &alone);
    fc_pairs_alone_reference_text(&m.run, &alone, ref, sizeof(ref));
    ok = alone.slow && !alone.undecided && strstr(ref, "pair across the spine") != NULL;
    alone.bw_gbps = 0.9;
    fc_pairs_judge_alone(&m.run, &alone);
    ok &= !alone.slow && !alone.undecided;
    fc_tap_ok(&tap, ok, "racks of 2 and 1: the pair inside rack1 alone is slow at 0.002 GB/s "
              "and fast at 0.9 against its nodes' pairs across the spine (%s)", ref);
    static const int two[1] = { 2 };

    matrix_make(&m, two, 1, 80, 1.0, 0.5);
    fc_pairs_judge(&m.run);
    alone.bw_gbps = 0.9;
    fc_pairs_judge_alone(&m.run, &alone);
    fc_pairs_alone_reference_text(&m.run, &alone, ref, sizeof(ref));
    fc_tap_ok(&tap, !alone.slow && alone.undecided && strstr(ref, "undecided") != NULL,
              "one rack of 2: its one pair alone has no reference its nodes do not set: "
              "undecided, not fast (%s)", ref);
}

/* Two racks, one of them one node (racks of 2 and 1, of 3 and 1): every
 * pair across the spine is the lone node's, so their class's upper median
 * is that node's figure, and with the lone node slow (or an uplink) every
 * one passed: the whole plan PASSed. The two-racks rule
 * (lib/pairs/fc_pairs_spine.c) judges them against the pairs inside the other
 * rack; the confirmation names the spine between the racks, the lone
 * node's link in series, and quarantines nobody. On two racks of two the
 * rule does not apply (the class judges), on two racks of one there is
 * nothing to compare with; each record says so. */
static void test_two_racks(void)
{
    static const int shapes[2][2] = { { 2, 1 }, { 3, 1 } };
    static matrix_t m;
    static truth_t t;
    char why[FC_REASON_MAX * 3], seen[2048] = "";
    int ok = 1, lone;

    for (int s = 0; s < 2; ++s) {
        json_t *imp;
        size_t at = strlen(seen);
        int nslow = 0, good;

        matrix_make(&m, shapes[s], 2, 80, 1.0, 0.5);
        lone = m.run.nnodes - 1;
        for (int k = 0; k < m.run.npairs; ++k)
            if (m.pairs[k].b == lone)
                m.pairs[k].bw_gbps = 0.002;
        fc_pairs_judge(&m.run);
        for (int k = 0; k < m.run.npairs; ++k)
            nslow += m.pairs[k].slow;
        t.slow_inside = -1;
        t.slow_node = lone;
        imp = confirm_pair(&m, &t, 0, lone, why, sizeof(why));
        good = nslow == shapes[s][0] && imp != NULL &&
               strcmp(json_string_value(json_object_get(imp, "part")), "uplink") == 0 &&
               json_is_false(json_object_get(imp, "quarantine")) && m.run.confirm.spine_pair &&
               strstr(why, "link of n0") != NULL && strstr(why, "(alone in its rack)") != NULL;
        for (int v = 0; v < m.run.nnodes; ++v)
            good &= !m.run.confirm.link[v];
        snprintf(seen + at, sizeof(seen) - at, "%s%d,1: %d slow; %s", at ? "; " : "",
                 shapes[s][0], nslow, why);
        ok &= good;
        json_decref(imp);
        fc_pairs_confirm_free(&m.run.confirm);
    }
    fc_tap_ok(&tap, ok, "racks of 2,1 and 3,1, the lone node slow: its pairs across the spine "
              "slow against the pairs inside the other rack; confirmed: the spine between "
              "the racks, its link in series, nobody quarantined (%s)", seen);

    /* the reason and the record's fields, on 2,1 */
    matrix_make(&m, shapes[0], 2, 80, 1.0, 0.5);
    for (int k = 0; k < m.run.npairs; ++k)
        if (m.pairs[k].b == 2)
            m.pairs[k].bw_gbps = 0.002;
    fc_pairs_judge(&m.run);
    fc_pair_t *p = fc_pairs_find(&m.run, 0, 2, 0);
    fc_tap_is_int(&tap, p->two, FC_PAIR_TWO_APPLIED,
                  "the reason names the reference and the lone node: '%s'",
                  p->nreasons ? p->reasons[0] : "(none)");
    fc_tap_is_int(&tap, p->two_members, 1,
                  "the reason names the reference and the lone node: '%s'"
                  " [p->two_members]", p->nreasons ? p->reasons[0] : "(none)");
    fc_tap_is_int(&tap, p->two_lone, 2, "the reason names the reference and the lone node: '%s'"
                  " [p->two_lone]", p->nreasons ? p->reasons[0] : "(none)");
    fc_tap_ok(&tap, p->nreasons >= 1 && strstr(p->reasons[0], "below the upper median of the 1 "
                  "pair inside rack rack1") != NULL && strstr(p->reasons[0], "n03's (alone "
                  "in its rack)") != NULL,
              "the reason names the reference and the lone node: '%s'"
              " [p->nreasons >= 1 && strstr(p->reasons[0], \"below the uppe...]",
              p->nreasons ? p->reasons[0] : "(none)");

    /* two racks of two: not applied (the class judges), no reference;
     * two racks of one: nothing to compare with */
    static const int two_two[2] = { 2, 2 }, one_one[2] = { 1, 1 };

    matrix_make(&m, two_two, 2, 80, 1.0, 0.5);
    fc_pairs_judge(&m.run);
    ok = fc_pairs_find(&m.run, 0, 2, 0)->two == FC_PAIR_TWO_SHARED &&
         fc_pairs_find(&m.run, 0, 1, 0)->two == FC_PAIR_TWO_OFF;
    matrix_make(&m, one_one, 2, 80, 1.0, 0.5);
    fc_pairs_judge(&m.run);
    ok &= fc_pairs_find(&m.run, 0, 1, 0)->two == FC_PAIR_TWO_NONE;
    static const int three[3] = { 2, 1, 1 };

    matrix_make(&m, three, 3, 80, 1.0, 0.5);
    fc_pairs_judge(&m.run);
    ok &= fc_pairs_find(&m.run, 0, 2, 0)->two == FC_PAIR_TWO_OFF;
    fc_tap_ok(&tap, ok, "the rule: not on two racks of two (the class judges) nor on three "
              "racks (the rack rule's); on two racks of one, no pair inside to compare with");
}

/* A sampled run: the rounds did not measure every pair, and the
 * confirmation probes a suspect alone with partners the plan did not give
 * it. Such a probe has no entry of the rounds; it was judged as if the
 * profile had no relative rule (the limits alone, none here), so a slow
 * NIC came out fast with it and was cleared. It is judged by the class's
 * reference of the rounds its two nodes do not set. */
static void test_unmeasured_alone(void)
{
    static matrix_t m;
    const int racks[3] = { 3, 3, 3 };
    fc_pair_t alone;
    int k = 0, slow, fast;

    matrix_make(&m, racks, 3, 80, 1.0, 0.5);
    /* the rounds left out pair n01 <-> n05 (across the spine) */
    for (int q = 0; q < m.run.npairs; ++q)
        if (!(m.pairs[q].a == 0 && m.pairs[q].b == 4))
            m.pairs[k++] = m.pairs[q];
    m.run.npairs = k;
    fc_pairs_judge(&m.run);
    memset(&alone, 0, sizeof(alone));
    alone.a = 0;
    alone.b = 4;
    alone.bw_gbps = 0.01;       /* n01's NIC, 50 times slow */
    fc_pairs_judge_alone(&m.run, &alone);
    slow = alone.slow;
    alone.bw_gbps = 0.5;
    fc_pairs_judge_alone(&m.run, &alone);
    fast = !alone.slow && !alone.undecided;
    fc_tap_ok(&tap, fc_pairs_find(&m.run, 0, 4, 0) == NULL && slow && fast,
              "a pair the rounds did not measure, probed alone: judged by its class's "
              "reference of the rounds its nodes do not set (%.3f GB/s): slow at 0.01 GB/s, "
              "fast at 0.5, not 'no relative rule'", alone.ref);
    fc_tap_is_int(&tap, alone.rel, FC_PAIR_REL_APPLIED,
                  "a pair the rounds did not measure, probed alone: judged by its class's "
                  "reference of the rounds its nodes do not set (%.3f GB/s): slow at 0.01 "
                  "GB/s, fast at 0.5, not 'no relative rule'"
                  " [alone.rel]", alone.ref);
    fc_tap_ok(&tap, alone.ref > 0.3,
              "a pair the rounds did not measure, probed alone: judged by its class's "
              "reference of the rounds its nodes do not set (%.3f GB/s): slow at 0.01 GB/s, "
              "fast at 0.5, not 'no relative rule'"
              " [alone.ref > 0.3]", alone.ref);
}

/* Racks of 2, 3 and 1: node 0 slow in what it sends, node 3 in what it
 * receives (about 100 times), each pair's other direction as the rest.
 * Half the pairs inside a rack and 7 of the 11 across the spine touch
 * one of them, so their classes' upper medians are theirs; the class
 * without one of a pair's nodes is not (where it holds 3 pairs or more),
 * nor is the reverse direction of each, measured in the same exchanges. */
static void test_one_way_pair(void)
{
    static matrix_t m;
    const int racks[3] = { 2, 3, 1 };
    int wrong = 0, caught = 0, named = 0, by_reverse = 0;

    matrix_make(&m, racks, 3, 80, 0.5, 0.5);
    for (int k = 0; k < m.run.npairs; ++k) {
        fc_pair_t *p = &m.pairs[k];

        p->dir_gbps[0] = p->dir_gbps[1] = p->bw_gbps;
        if (p->a == 0)
            p->dir_gbps[0] = 0.006;     /* dir_gbps[0]: a -> b */
        if (p->b == 3)
            p->dir_gbps[0] = 0.005;
        if (p->a == 3)
            p->dir_gbps[1] = 0.005;
        p->bw_gbps = p->dir_gbps[0] < p->dir_gbps[1] ? p->dir_gbps[0] : p->dir_gbps[1];
    }
    fc_pairs_judge(&m.run);
    for (int k = 0; k < m.run.npairs; ++k) {
        const fc_pair_t *p = &m.pairs[k];
        int faulty = p->a == 0 || p->a == 3 || p->b == 3;

        wrong += p->slow != faulty;
        caught += faulty && p->slow;
        by_reverse += faulty && p->slow &&
                      strstr(p->reasons[0], "below its reverse direction") != NULL;
        named += faulty && p->slow &&
                 (strstr(p->reasons[0], "below its reverse direction") != NULL ||
                  strstr(p->reasons[0], "of the rounds not touching n0") != NULL);
    }
    show_slow(&m);
    fc_tap_is_int(&tap, wrong, 0, "two links slow one way each, racks of 2, 3 and 1: each of "
                  "their pairs slow, no other (%d caught)", caught);
    fc_tap_is_int(&tap, named, caught, "... each by its reverse direction or by its class "
                  "without one of its nodes (%d by the reverse), the whole class's median "
                  "being slow too", by_reverse);
    fc_tap_ok(&tap, by_reverse > 0, "... the reverse direction catching those the class "
              "without a node does not (%d)", by_reverse);
}

int main(void)
{
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 36);
    test_clean_uneven();
    test_slow_switch();
    test_gate_and_small_rack();
    test_nothing_to_compare();
    test_switch_verdict();
    test_small_rack_node();
    test_two_racks();
    test_unmeasured_alone();
    test_one_way_pair();
    return fc_tap_done(&tap);
}
