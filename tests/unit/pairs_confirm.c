/*
 * pairs_confirm.c - unit tests of lib/pairs/fc_pairs_confirm.c on a simulated
 * fabric: each case plants the truth (bad node links, a bad rack uplink, a
 * bad path, a rack's slow switch: every pair inside the rack) and, separately, what the tournament saw (the truth plus pairs
 * slowed only by what ran beside them). The probe answers from the truth
 * alone, as a pair measured alone would, or from a planted sequence of
 * answers for a flaky pair (slow, fast, slow: the confirmation rule of
 * lib/engine/fc_confirm_rule.h, the majority of three, decides). Each case checks
 * who is blamed, what each pair became, and that nobody healthy is; the
 * budget counts measurements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_pairs_confirm.h"
#include "fc_tap.h"

#define MAXN 16
#define MAXP (MAXN * (MAXN - 1) / 2)

typedef struct fabric {
    int n, nracks, rack[MAXN];
    int bad_node[MAXN];         /* its link is slow */
    int bad_uplink[MAXN];       /* per rack */
    int bad_switch[MAXN];       /* per rack: its pairs inside are slow */
    int bad_path[MAXN][MAXN];
    int noisy[MAXN][MAXN];      /* slow when measured alone (a busy machine) */
    int undecided[MAXN][MAXN];  /* measured alone, but no honest reference
                                 * judges it (its class has no pair its two
                                 * nodes do not touch) */
    const char *seq[MAXN][MAXN];    /* flaky: "SFS", one letter per alone
                                     * measurement of the pair (S slow, F fast) */
    int used[MAXN][MAXN];       /* letters of seq used */
    int probes;                 /* measurements asked for */
} fabric_t;

static fc_tap_t tap;

static int truly_slow(const fabric_t *f, int x, int y)
{
    return f->bad_node[x] || f->bad_node[y] || f->bad_path[x][y] || f->bad_path[y][x] ||
           (f->rack[x] != f->rack[y] && (f->bad_uplink[f->rack[x]] || f->bad_uplink[f->rack[y]])) ||
           (f->rack[x] == f->rack[y] && f->bad_switch[f->rack[x]]);
}

static int probe(void *arg, int x, int y)
{
    fabric_t *f = arg;
    int lo = x < y ? x : y, hi = x < y ? y : x;

    f->probes++;
    if (f->seq[lo][hi] != NULL) {
        char c = f->seq[lo][hi][f->used[lo][hi]];

        if (c == '\0')
            fc_tap_bail(&tap, "pair %d-%d measured more often than its sequence '%s'", lo, hi,
                        f->seq[lo][hi]);
        f->used[lo][hi]++;
        return c == 'S' ? FC_CONFIRM_MEAS_SLOW : c == 'U' ? FC_CONFIRM_MEAS_UNDECIDED
                                                           : FC_CONFIRM_MEAS_FAST;
    }
    if (f->undecided[lo][hi])
        return FC_CONFIRM_MEAS_UNDECIDED;
    return truly_slow(f, x, y) || f->noisy[x][y] || f->noisy[y][x];
}

/* The production budget: three measurements for each of 4n + 8 probes. */
static int budget(int n)
{
    return FC_CONFIRM_MAX_MEASURES * (4 * n + 8);
}

/* racks: node counts per rack, e.g. {2, 3, 1} */
static void fabric_make(fabric_t *f, const int *per_rack, int nracks)
{
    memset(f, 0, sizeof(*f));
    f->nracks = nracks;
    for (int r = 0; r < nracks; ++r)
        for (int k = 0; k < per_rack[r]; ++k)
            f->rack[f->n++] = r;
}

typedef struct outcome {
    fc_pairs_confirm_t c;
    int a[MAXP], b[MAXP], slow[MAXP], npairs;
} outcome_t;

static int pair_of(const outcome_t *o, int x, int y)
{
    for (int k = 0; k < o->npairs; ++k)
        if ((o->a[k] == x && o->b[k] == y) || (o->a[k] == y && o->b[k] == x))
            return k;
    return -1;
}

/* noise: extra (x, y) pairs slow in the tournament only, -1 terminated */
static void run(fabric_t *f, const int *noise, int max_measures, outcome_t *o)
{
    memset(o, 0, sizeof(*o));
    for (int i = 0; i < f->n; ++i)
        for (int j = i + 1; j < f->n; ++j) {
            o->a[o->npairs] = i;
            o->b[o->npairs] = j;
            o->slow[o->npairs++] = truly_slow(f, i, j);
        }
    for (int k = 0; noise && noise[k] >= 0; k += 2)
        o->slow[pair_of(o, noise[k], noise[k + 1])] = 1;
    f->probes = 0;
    memset(f->used, 0, sizeof(f->used));
    fc_pairs_confirm(f->n, f->rack, f->nracks, o->npairs, o->a, o->b, o->slow, max_measures,
                     probe, NULL, f, &o->c);
}

static int links_exactly(const outcome_t *o, int n, int bad)
{
    for (int v = 0; v < n; ++v)
        if (o->c.link[v] != (v == bad))
            return 0;
    return 1;
}

static int verdict(const outcome_t *o, int x, int y)
{
    return o->c.verdict[pair_of(o, x, y)];
}

/* An alone probe that no honest reference could judge (undecided,
 * lib/engine/fc_confirm_rule.h) is neither fast nor slow. Racks of 2 and 1, node
 * 0 slow: the judge could not decide its partner probe inside its rack
 * (before lib/pairs/fc_pairs_alone.c, that probe's class had no peer and it
 * counted "fast" on the absolute limit alone, which cleared node 0 and
 * made its pair across the spine a "path"). */
static void test_undecided(void)
{
    static const int two_one[] = { 2, 1 }, one_one[] = { 1, 1 };
    static const struct {
        const char *seq;
        fc_confirm_decision_t want;
    } rule[] = {
        { "UU", FC_CONFIRM_UNDECIDED }, { "SS", FC_CONFIRM_SLOW }, { "FF", FC_CONFIRM_CLEARED },
        { "SUS", FC_CONFIRM_SLOW }, { "FUF", FC_CONFIRM_CLEARED }, { "SUF", FC_CONFIRM_UNDECIDED },
        { "USU", FC_CONFIRM_UNDECIDED }, { "SFS", FC_CONFIRM_SLOW }, { "FSF", FC_CONFIRM_CLEARED },
    };
    fabric_t f;
    outcome_t o;
    int ok = 1, meas[FC_CONFIRM_MAX_MEASURES];

    for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); ++i) {
        int n = (int)strlen(rule[i].seq), d;

        for (int k = 0; k < n; ++k)
            meas[k] = rule[i].seq[k] == 'S' ? FC_CONFIRM_MEAS_SLOW :
                      rule[i].seq[k] == 'U' ? FC_CONFIRM_MEAS_UNDECIDED : FC_CONFIRM_MEAS_FAST;
        d = fc_confirm_decide(meas, 2);
        if (n == 3 && d != FC_CONFIRM_MORE) {
            fc_tap_diag(&tap, "%s: the first two decided %d", rule[i].seq, d);
            ok = 0;
        }
        if ((d = fc_confirm_decide(meas, n)) != (int)rule[i].want) {
            fc_tap_diag(&tap, "%s: %d, want %d", rule[i].seq, d, (int)rule[i].want);
            ok = 0;
        }
    }
    fc_tap_ok(&tap, ok, "the rule: two undecided measurements leave a probe undecided; one "
              "beside a slow or a fast asks for a third; a majority decides, none leaves it "
              "undecided");

    fabric_make(&f, two_one, 2);
    f.bad_node[0] = 1;
    f.undecided[0][1] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "racks of 2 and 1, node 0 slow, its partner probe inside the rack undecided: "
              "node 0 neither confirmed nor cleared, its pair across the spine not placed "
              "(not a path) (verdict %s)", fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_tap_is_int(&tap, fc_confirm_clear(&o.c, 0), 0, "... node 0 not cleared");
    fc_tap_ok(&tap, o.c.partner_probe[0][0] >= 0, "... its partner probe made (%d)",
              o.c.partner_probe[0][0]);
    /* -99: no partner probe to read (the point above fails) */
    fc_tap_is_int(&tap,
                  o.c.partner_probe[0][0] >= 0 ? o.c.probes[o.c.partner_probe[0][0]].slow : -99,
                  FC_CONFIRM_MEAS_UNDECIDED,
                  "racks of 2 and 1, node 0 slow, its partner probe inside the rack "
                  "undecided: node 0 neither confirmed nor cleared, its pair across the spine "
                  "not placed (not a path) (verdict %s)"
                  " [o.c.probes[o.c.partner_probe[0][0]].slow]",
                  fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_tap_is_int(&tap, verdict(&o, 0, 2), FC_PAIR_V_UNPLACED,
                  "racks of 2 and 1, node 0 slow, its partner probe inside the rack undecided: "
                  "node 0 neither confirmed nor cleared, its pair across the spine not placed "
                  "(not a path) (verdict %s)"
                  " [verdict(&o, 0, 2)]", fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_pairs_confirm_free(&o.c);

    /* the same with the partner probe judged (slow, as lib/pairs/fc_pairs_alone.c
     * judges it against its nodes' pairs across the spine): confirmed */
    fabric_make(&f, two_one, 2);
    f.bad_node[0] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, 0),
              "racks of 2 and 1, node 0 slow, its partner probes judged: node 0 alone is "
              "confirmed, its pair across the spine is its link's");
    fc_tap_is_int(&tap, verdict(&o, 0, 2), FC_PAIR_V_NODE_A,
                  "racks of 2 and 1, node 0 slow, its partner probes judged: node 0 alone is "
                  "confirmed, its pair across the spine is its link's"
                  " [verdict(&o, 0, 2)]");
    fc_tap_is_int(&tap, o.c.uplink[0], 0, "... rack 0's uplink not named");
    fc_tap_is_int(&tap, o.c.uplink[1], 0, "... nor rack 1's");
    fc_pairs_confirm_free(&o.c);

    /* two racks of one node: the one pair slow in its round, undecided
     * alone: a suspicion that stands, not a pass */
    fabric_make(&f, one_one, 2);
    f.undecided[0][1] = 1;
    int only[] = { 0, 1, -1 };
    run(&f, only, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "racks of 1 and 1, the pair slow in its round and undecided alone: verdict "
              "undecided, not 'not reproduced' (%s)", fc_pair_verdict_name(verdict(&o, 0, 1)));
    fc_tap_is_int(&tap, verdict(&o, 0, 1), FC_PAIR_V_UNDECIDED,
                  "racks of 1 and 1, the pair slow in its round and undecided alone: verdict "
                  "undecided, not 'not reproduced' (%s)"
                  " [verdict(&o, 0, 1)]", fc_pair_verdict_name(verdict(&o, 0, 1)));
    fc_tap_is_str(&tap, fc_pair_verdict_name(FC_PAIR_V_UNDECIDED), "undecided",
                  "racks of 1 and 1, the pair slow in its round and undecided alone: verdict "
                  "undecided, not 'not reproduced' (%s)"
                  " [fc_pair_verdict_name(FC_PAIR_V_UNDECIDED)]",
                  fc_pair_verdict_name(verdict(&o, 0, 1)));
    fc_pairs_confirm_free(&o.c);

    /* racks of 2 and 1, the lone node 2's link slow and the probe inside
     * rack 0 undecided: the spine is not shown (an undecided probe shows
     * no pair inside a rack fast), nobody is quarantined */
    fabric_make(&f, two_one, 2);
    f.bad_node[2] = 1;
    f.undecided[0][1] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "an undecided probe inside the rack shows no uplink: the spine is not named, "
              "nobody quarantined, the pairs not passed (%s)",
              fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_tap_is_int(&tap, o.c.uplink[0], 0, "... rack 0's uplink not named");
    fc_tap_is_int(&tap, o.c.spine_pair, 0, "... nor the spine between the racks");
    fc_tap_ok(&tap, verdict(&o, 0, 2) != FC_PAIR_V_UPLINK, "... pair 0-2 not an uplink's (%s)",
              fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_tap_ok(&tap, verdict(&o, 0, 2) != FC_PAIR_V_OK, "... not passed (%s)",
              fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_tap_ok(&tap, verdict(&o, 0, 2) != FC_PAIR_V_NOT_REPRODUCED, "... nor not reproduced (%s)",
              fc_pair_verdict_name(verdict(&o, 0, 2)));
    fc_pairs_confirm_free(&o.c);
}

/* The probe of node x with its k-th partner (-1: none). */
static int partner_of(const outcome_t *o, int x, int k)
{
    int i = o->c.partner_probe[x][k];

    return i < 0 ? -1 : o->c.probes[i].x == x ? o->c.probes[i].y : o->c.probes[i].x;
}

/* A partner probe left undecided (a host's CPU held it every time) is
 * no evidence: the next partner is tried in its place. Racks of 2, 3 and
 * 1, node 3's link slow; whichever partner it is tried with first, that
 * probe planted undecided. */
static void test_undecided_partner(void)
{
    static const int uneven[] = { 2, 3, 1 };
    fabric_t f;
    outcome_t o;
    int first, second, third;

    fabric_make(&f, uneven, 3);
    f.bad_node[3] = 1;
    run(&f, NULL, budget(f.n), &o);
    first = partner_of(&o, 3, 0);
    second = partner_of(&o, 3, 1);
    fc_pairs_confirm_free(&o.c);
    if (first < 0 || second < 0)
        fc_tap_bail(&tap, "node 3 was not probed with two partners (%d, %d)", first, second);
    f.undecided[first < 3 ? first : 3][first < 3 ? 3 : first] = 1;
    run(&f, NULL, budget(f.n), &o);
    third = partner_of(&o, 3, 2);
    fc_tap_ok(&tap, third >= 0,
              "node 3 undecided with its first partner (node %d), slow with the second (%d): "
              "a third partner is tried (%d)", first, second, third);
    fc_tap_ok(&tap, third != first, "... not the first again (%d, %d)", third, first);
    fc_tap_ok(&tap, third != second, "... nor the second (%d, %d)", third, second);
    fc_tap_ok(&tap, links_exactly(&o, f.n, 3),
              "node 3 slow with two partners beside the undecided one: node 3 alone confirmed");
    fc_tap_is_int(&tap, verdict(&o, 3, 5), FC_PAIR_V_NODE_A,
                  "node 3's pair with the lone node of rack 2 is its link's [verdict(&o, 3, 5)]");
    fc_pairs_confirm_free(&o.c);

    /* the third undecided too: two slow probes are not there, nobody
     * confirmed, its pairs not placed (never a path, never a pass) */
    if (third >= 0)
        f.undecided[third < 3 ? third : 3][third < 3 ? 3 : third] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "node 3 undecided with two of its three partners: nobody confirmed");
    fc_tap_is_int(&tap, fc_confirm_clear(&o.c, 3), 0, "... node 3 not cleared");
    fc_tap_is_int(&tap, partner_of(&o, 3, 2), third, "... its third partner the same");
    fc_tap_is_int(&tap, verdict(&o, 3, 5), FC_PAIR_V_UNPLACED,
                  "node 3 undecided with two of three: its pair with node 5 not placed "
                  "[verdict(&o, 3, 5)]");
    /* the lone node 5, fast alone across the spine, is shown good toward
     * node 3 (the pair counts against node 3's rack alone); node 3 is not */
    fc_tap_ok(&tap, fc_confirm_clear_toward(&o.c, f.rack, 5, 3),
              "that pair: node 5 shown good toward node 3 (fast alone across the spine)");
    fc_tap_is_int(&tap, fc_confirm_clear_toward(&o.c, f.rack, 3, 5), 0,
                  "... node 3 not toward node 5");
    /* node 2, node 3's rack mate, cleared by a partner of its own rack:
     * good toward node 3, not across the spine (its uplink unshown) */
    fc_tap_ok(&tap, o.c.probed[2], "node 2 probed with partners");
    fc_tap_is_int(&tap, partner_of(&o, 2, 0), 4, "... first with node 4 of its rack");
    fc_tap_is_int(&tap, partner_of(&o, 2, 1), -1, "... and with no other");
    fc_tap_ok(&tap, fc_confirm_clear_toward(&o.c, f.rack, 2, 3),
              "... fast alone: shown good toward node 3 (same rack)");
    fc_tap_is_int(&tap, fc_confirm_clear_toward(&o.c, f.rack, 2, 0), 0,
                  "... not toward node 0 across the spine");
    fc_pairs_confirm_free(&o.c);

    /* rack 0's uplink slow, node 0's probe inside its rack (with node 1)
     * undecided: the probes across are slow for the uplink, and an
     * undecided probe inside the rack is never made up for by one
     * across, so node 0's link is not confirmed (nor node 1's) */
    fabric_make(&f, uneven, 3);
    f.bad_uplink[0] = 1;
    f.undecided[0][1] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_is_int(&tap, o.c.link[0], 0,
                  "rack 0's uplink slow, its nodes' probe inside the rack undecided: node 0's "
                  "link not confirmed for the uplink (partners of node 0: %d, %d, %d)",
                  partner_of(&o, 0, 0), partner_of(&o, 0, 1), partner_of(&o, 0, 2));
    fc_tap_is_int(&tap, o.c.link[1], 0, "... nor node 1's");
    fc_pairs_confirm_free(&o.c);

    /* a healthy node's pairs slow in the rounds only (noise), its first
     * probe undecided, the second fast: cleared, no third partner tried */
    fabric_make(&f, uneven, 3);
    int noise[] = { 3, 0, 3, 1, 3, 5, -1 };
    run(&f, noise, budget(f.n), &o);
    first = partner_of(&o, 3, 0);
    fc_pairs_confirm_free(&o.c);
    if (first >= 0)
        f.undecided[first < 3 ? first : 3][first < 3 ? 3 : first] = 1;
    run(&f, noise, budget(f.n), &o);
    fc_tap_ok(&tap, first >= 0, "a healthy node undecided with its first partner (%d)",
              first);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1), "... and fast with the second: nobody confirmed");
    fc_tap_ok(&tap, fc_confirm_clear(&o.c, 3), "... cleared");
    fc_tap_is_int(&tap, partner_of(&o, 3, 2), -1, "... no third partner tried");
    fc_pairs_confirm_free(&o.c);
}

int main(void)
{
    static const int uneven[] = { 2, 3, 1 };
    static const int two_two[] = { 2, 2 };
    static const int three[] = { 3, 3, 2 };
    static const int pair_only[] = { 2 };
    fabric_t f;
    outcome_t o;
    int ok;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 111);

    /* racks of 2, 3 and 1; node 3 (rack 2) has a slow link; in its round
     * the pairs 0-1 and 4-5 were slowed by what ran beside them */
    fabric_make(&f, uneven, 3);
    f.bad_node[3] = 1;
    int noise[] = { 0, 1, 4, 5, -1 };
    run(&f, noise, budget(f.n), &o);
    ok = links_exactly(&o, f.n, 3);
    for (int v = 0; v < f.n; ++v)
        if (v != 3)
            ok &= verdict(&o, v, 3) == (v < 3 ? FC_PAIR_V_NODE_B : FC_PAIR_V_NODE_A);
    fc_tap_ok(&tap, ok, "uneven racks: the slow node alone is confirmed; its 5 pairs are "
              "explained by it");
    fc_tap_is_int(&tap, verdict(&o, 0, 1), FC_PAIR_V_NOT_REPRODUCED,
                  "pairs slowed only by their round are not reproduced alone and pass");
    fc_tap_is_int(&tap, verdict(&o, 4, 5), FC_PAIR_V_NOT_REPRODUCED,
                  "pairs slowed only by their round are not reproduced alone and pass"
                  " [verdict(&o, 4, 5)]");
    fc_tap_is_int(&tap, verdict(&o, 0, 2), FC_PAIR_V_OK,
                  "pairs slowed only by their round are not reproduced alone and pass"
                  " [verdict(&o, 0, 2)]");
    fc_tap_ok(&tap, o.c.nprobes <= 8,
              "one bad node costs %d probes (at most 8) of two agreeing measurements each "
              "(%d), partner in its own rack", o.c.nprobes, o.c.nmeasures);
    fc_tap_is_int(&tap, o.c.nmeasures, 2 * o.c.nprobes,
                  "one bad node costs %d probes (at most 8) of two agreeing measurements each "
                  "(%d), partner in its own rack"
                  " [o.c.nmeasures]", o.c.nprobes, o.c.nmeasures);
    fc_tap_is_int(&tap, f.probes, o.c.nmeasures,
                  "one bad node costs %d probes (at most 8) of two agreeing measurements each "
                  "(%d), partner in its own rack"
                  " [f.probes]", o.c.nprobes, o.c.nmeasures);
    fc_tap_is_int(&tap, o.c.exhausted, 0, "... within the budget");
    fc_tap_is_int(&tap, o.c.alone_in_rack[3], 0, "... with a partner in its own rack");
    fc_pairs_confirm_free(&o.c);

    /* the node alone in its rack (node 5, rack 3) */
    fabric_make(&f, uneven, 3);
    f.bad_node[5] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, 5), "a node alone in its rack is confirmed");
    fc_tap_ok(&tap, o.c.alone_in_rack[5], "... and marked as in series with its rack's uplink");
    fc_pairs_confirm_free(&o.c);

    /* rack 0's uplink (3 nodes, 3 racks): every pair leaving rack 0 slow */
    fabric_make(&f, three, 3);
    f.bad_uplink[0] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = o.c.uplink[0] && !o.c.uplink[1] && !o.c.uplink[2];
    for (int v = 0; v < f.n; ++v)
        ok &= !o.c.link[v];
    ok &= verdict(&o, 0, 3) == FC_PAIR_V_UPLINK && verdict(&o, 0, 1) == FC_PAIR_V_OK &&
          verdict(&o, 3, 6) == FC_PAIR_V_OK;
    fc_tap_ok(&tap, ok, "a rack's uplink is named, no node of the rack is blamed");
    fc_pairs_confirm_free(&o.c);

    /* two racks of two with a slow uplink: either rack's uplink */
    fabric_make(&f, two_two, 2);
    f.bad_uplink[1] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = o.c.uplink[0] && o.c.uplink[1];
    for (int v = 0; v < f.n; ++v)
        ok &= !o.c.link[v];
    fc_tap_ok(&tap, ok, "two racks: the spine between them (both uplinks), no node");
    fc_pairs_confirm_free(&o.c);

    /* two racks, 3 and 1 nodes, the lone node's link slow: its link and
     * both uplinks are in series; both racks marked, nobody blamed */
    static const int three_one[] = { 3, 1 };
    fabric_make(&f, three_one, 2);
    f.bad_node[3] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "racks of 3 and 1, the lone node slow: the spine between them, not rack 1's "
              "uplink alone, no node quarantined");
    fc_tap_ok(&tap, o.c.uplink[0], "... rack 0's uplink marked");
    fc_tap_ok(&tap, o.c.uplink[1], "... rack 1's too");
    fc_tap_ok(&tap, o.c.spine_pair, "... the two as the spine between them");
    fc_tap_is_int(&tap, verdict(&o, 0, 3), FC_PAIR_V_UPLINK,
                  "racks of 3 and 1, the lone node slow: the spine between them, not rack 1's "
                  "uplink alone, no node quarantined"
                  " [verdict(&o, 0, 3)]");
    fc_pairs_confirm_free(&o.c);

    /* rack 0's uplink with a pair inside rack 0 slowed in its round only */
    fabric_make(&f, three, 3);
    f.bad_uplink[0] = 1;
    int inside[] = { 0, 1, -1 };
    run(&f, inside, budget(f.n), &o);
    fc_tap_ok(&tap, o.c.uplink[0], "a noisy pair inside the rack does not hide its uplink");
    fc_tap_is_int(&tap, o.c.uplink[1], 0, "... rack 1's uplink not named");
    fc_tap_is_int(&tap, o.c.uplink[2], 0, "... nor rack 2's");
    fc_tap_is_int(&tap, verdict(&o, 0, 1), FC_PAIR_V_NOT_REPRODUCED,
                  "a noisy pair inside the rack does not hide its uplink"
                  " [verdict(&o, 0, 1)]");
    fc_tap_is_int(&tap, verdict(&o, 0, 3), FC_PAIR_V_UPLINK,
                  "a noisy pair inside the rack does not hide its uplink"
                  " [verdict(&o, 0, 3)]");
    fc_pairs_confirm_free(&o.c);

    /* one bad path, 1-4, in the uneven cluster */
    fabric_make(&f, uneven, 3);
    f.bad_path[1][4] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "a slow path alone implicates the path, not its ends");
    fc_tap_is_int(&tap, verdict(&o, 1, 4), FC_PAIR_V_PATH,
                  "a slow path alone implicates the path, not its ends"
                  " [verdict(&o, 1, 4)]");
    fc_tap_is_int(&tap, o.c.common_node, -1, "one path: no node common to the paths");
    fc_pairs_confirm_free(&o.c);

    /* node 4's link slow in its pairs with 0 and 2 only (a lossy link
     * that its own probes with 3 and 5 cleared): two paths, 4 common */
    fabric_make(&f, uneven, 3);
    f.bad_path[0][4] = f.bad_path[2][4] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "two paths with node 4 at an end of both: 4 noticed as common (%d), nobody "
              "blamed",
              o.c.common_node);
    fc_tap_is_int(&tap, verdict(&o, 0, 4), FC_PAIR_V_PATH,
                  "two paths with node 4 at an end of both: 4 noticed as common (%d), nobody "
                  "blamed"
                  " [verdict(&o, 0, 4)]", o.c.common_node);
    fc_tap_is_int(&tap, verdict(&o, 2, 4), FC_PAIR_V_PATH,
                  "two paths with node 4 at an end of both: 4 noticed as common (%d), nobody "
                  "blamed"
                  " [verdict(&o, 2, 4)]", o.c.common_node);
    fc_tap_is_int(&tap, o.c.common_node, 4,
                  "two paths with node 4 at an end of both: 4 noticed as common (%d), nobody "
                  "blamed"
                  " [o.c.common_node]", o.c.common_node);
    fc_pairs_confirm_free(&o.c);
    fabric_make(&f, uneven, 3);
    f.bad_path[0][4] = f.bad_path[1][2] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_is_int(&tap, verdict(&o, 0, 4), FC_PAIR_V_PATH,
                  "two paths sharing no node: none common (%d)", o.c.common_node);
    fc_tap_is_int(&tap, verdict(&o, 1, 2), FC_PAIR_V_PATH,
                  "two paths sharing no node: none common (%d)"
                  " [verdict(&o, 1, 2)]", o.c.common_node);
    fc_tap_is_int(&tap, o.c.common_node, -1, "two paths sharing no node: none common (%d)"
                  " [o.c.common_node]", o.c.common_node);
    fc_pairs_confirm_free(&o.c);

    /* two nodes: one slow pair, nothing to compare with */
    fabric_make(&f, pair_only, 1);
    f.bad_node[1] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "two nodes: the slow pair is confirmed alone but not placed, no node blamed");
    fc_tap_is_int(&tap, verdict(&o, 0, 1), FC_PAIR_V_UNPLACED,
                  "two nodes: the slow pair is confirmed alone but not placed, no node blamed"
                  " [verdict(&o, 0, 1)]");
    fc_pairs_confirm_free(&o.c);

    /* a clean fabric, a noisy tournament */
    fabric_make(&f, uneven, 3);
    int loud[] = { 0, 1, 2, 3, 4, 5, 0, 5, -1 };
    run(&f, loud, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1);
    for (int k = 0; k < o.npairs; ++k)
        ok &= o.c.verdict[k] == (o.slow[k] ? FC_PAIR_V_NOT_REPRODUCED : FC_PAIR_V_OK);
    fc_tap_ok(&tap, ok, "a clean fabric with 4 pairs slowed in their rounds: nothing blamed");
    fc_pairs_confirm_free(&o.c);

    /* a budget of one probe (three measurements): the bad node cannot be
     * confirmed, its pairs are neither passed nor blamed on it */
    fabric_make(&f, uneven, 3);
    f.bad_node[3] = 1;
    run(&f, NULL, FC_CONFIRM_MAX_MEASURES, &o);
    ok = links_exactly(&o, f.n, -1) && o.c.exhausted && f.probes <= 3 && o.c.nprobes == 1;
    for (int v = 0; v < f.n; ++v)
        if (v != 3)
            ok &= verdict(&o, v, 3) == FC_PAIR_V_UNCONFIRMED ||
                  verdict(&o, v, 3) == FC_PAIR_V_UNPLACED;
    fc_tap_ok(&tap, ok, "probes exhausted: no quarantine, no pass (%d measurements)",
              f.probes);
    fc_pairs_confirm_free(&o.c);

    /* the whole fabric slow: no partner is known good, no node blamed */
    fabric_make(&f, three, 3);
    for (int v = 0; v < f.n; ++v)
        f.bad_node[v] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1);
    for (int k = 0; k < o.npairs; ++k)
        ok &= o.c.verdict[k] == FC_PAIR_V_UNPLACED;
    fc_tap_ok(&tap, ok, "every pair slow alone: none placed (not called a path), no node "
              "is singled out");
    fc_tap_ok(&tap, !o.c.exhausted,
              "the worst case (every pair of 8 slow) stays within the budget: %d of %d "
              "measurements", o.c.nmeasures, budget(f.n));
    fc_tap_is_int(&tap, o.c.nmeasures, f.probes,
                  "the worst case (every pair of 8 slow) stays within the budget: %d of %d "
                  "measurements"
                  " [o.c.nmeasures]", o.c.nmeasures, budget(f.n));
    fc_tap_ok(&tap, o.c.nmeasures <= budget(f.n),
              "the worst case (every pair of 8 slow) stays within the budget: %d of %d "
              "measurements"
              " [o.c.nmeasures <= budget(f.n)]", o.c.nmeasures, budget(f.n));
    fc_pairs_confirm_free(&o.c);

    /* both nodes of a two-node rack slow: with them, rack 0's uplink is
     * one of three suspects two of which are bad; nothing can be placed,
     * and "the path" would be a lie */
    static const int two_three[] = { 2, 3 , 2 };
    fabric_make(&f, two_three, 3);
    f.bad_node[0] = f.bad_node[1] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1) && !o.c.uplink[0] &&
         verdict(&o, 0, 1) == FC_PAIR_V_UNPLACED;
    for (int v = 2; v < f.n; ++v)
        ok &= verdict(&o, 0, v) != FC_PAIR_V_PATH && verdict(&o, 1, v) != FC_PAIR_V_PATH &&
              verdict(&o, 0, v) != FC_PAIR_V_OK;
    fc_tap_ok(&tap, ok, "both nodes of a two-node rack slow: nobody quarantined, no pair "
              "called a path");
    fc_pairs_confirm_free(&o.c);

    /* rack 0's uplink and node 2's link (rack 1) both slow, three pairs of
     * racks 1 and 2 slowed in their round: rack 0's nodes are then the
     * least slow, yet a probe through the uplink says nothing of node 2
     * or of its partners; the uplink is named, node 2 confirmed with
     * partners and vouchers none behind it */
    static const int two_two_two[] = { 2, 2, 2 };
    fabric_make(&f, two_two_two, 3);
    f.bad_uplink[0] = 1;
    f.bad_node[2] = 1;
    int busy[] = { 3, 4, 3, 5, 4, 5, -1 };
    run(&f, busy, budget(f.n), &o);
    ok = o.c.uplink[0] && !o.c.uplink[1] && !o.c.uplink[2] && links_exactly(&o, f.n, 2) &&
         verdict(&o, 2, 3) == FC_PAIR_V_NODE_A && verdict(&o, 0, 2) == FC_PAIR_V_UPLINK;
    for (int i = 0; i < o.c.nprobes; ++i)
        if (o.c.probes[i].x != 0 && o.c.probes[i].x != 1)
            ok &= o.c.probes[i].y > 1 || o.c.probes[i].x < 2;
    fc_tap_ok(&tap, ok, "a bad uplink and a bad node in another rack: both named, no "
              "partner or voucher behind the uplink");
    fc_pairs_confirm_free(&o.c);

    /* racks of 5, 3 and 1, node 1 slow; the first vouching probe of its
     * partner node 0 (with node 2) is slow alone by noise: node 0 is
     * vouched for by another third node, node 1 is still confirmed */
    static const int five_three_one[] = { 5, 3, 1 };
    fabric_make(&f, five_three_one, 3);
    f.bad_node[1] = 1;
    f.noisy[0][2] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, 1),
              "a noisy vouching probe: the partner is vouched for by another node, the "
              "slow node confirmed (%d probes)", o.c.nprobes);
    fc_tap_is_int(&tap, verdict(&o, 1, 4), FC_PAIR_V_NODE_A,
                  "a noisy vouching probe: the partner is vouched for by another node, the "
                  "slow node confirmed (%d probes)"
                  " [verdict(&o, 1, 4)]", o.c.nprobes);
    fc_pairs_confirm_free(&o.c);

    /* racks of 2, 3 and 1: rack 0's uplink slow and the lone node 5 of
     * rack 2 slow: no third rack's node can vouch for either uplink, so the
     * pairs between racks 0 and 1 are the spine between them, node 5 is
     * confirmed, nothing is called a path */
    fabric_make(&f, uneven, 3);
    f.bad_uplink[0] = 1;
    f.bad_node[5] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, 5) && !o.c.uplink[1] && !o.c.uplink[2] &&
         verdict(&o, 0, 2) == FC_PAIR_V_SPINE && verdict(&o, 1, 4) == FC_PAIR_V_SPINE &&
         verdict(&o, 2, 3) == FC_PAIR_V_OK;
    fc_tap_ok(&tap, ok, "a slow uplink whose only third rack's node is slow: the spine "
              "between the two racks, the node confirmed, no path");
    fc_pairs_confirm_free(&o.c);

    /* four racks of two, racks 0 and 1's uplinks both slow: both named */
    static const int four_two[] = { 2, 2, 2, 2 };
    fabric_make(&f, four_two, 4);
    f.bad_uplink[0] = f.bad_uplink[1] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, o.c.uplink[0], "two slow uplinks of four racks: rack 0's named");
    fc_tap_ok(&tap, o.c.uplink[1], "... rack 1's named");
    fc_tap_is_int(&tap, o.c.uplink[2], 0, "... not rack 2's");
    fc_tap_is_int(&tap, o.c.uplink[3], 0, "... nor rack 3's");
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1), "... no node's link");
    fc_tap_is_int(&tap, verdict(&o, 0, 2), FC_PAIR_V_UPLINK,
                  "two slow uplinks of four racks: both named, nobody else"
                  " [verdict(&o, 0, 2)]");
    fc_tap_is_int(&tap, verdict(&o, 4, 6), FC_PAIR_V_OK,
                  "two slow uplinks of four racks: both named, nobody else"
                  " [verdict(&o, 4, 6)]");
    fc_pairs_confirm_free(&o.c);

    /* a path between two racks slow alone, both ends fast elsewhere */
    fabric_make(&f, three, 3);
    f.bad_path[0][7] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "a path across the spine: both ends fast with another partner, the path named");
    fc_tap_is_int(&tap, verdict(&o, 0, 7), FC_PAIR_V_PATH,
                  "a path across the spine: both ends fast with another partner, the path named"
                  " [verdict(&o, 0, 7)]");
    fc_tap_ok(&tap, fc_confirm_clear(&o.c, 0), "... node 0 cleared");
    fc_tap_ok(&tap, fc_confirm_clear(&o.c, 7), "... node 7 cleared");
    fc_pairs_confirm_free(&o.c);

    /* the confirmation rule: pair 1-4 slow in its round only, then flaky
     * alone; its ends are fast with their other partners */
    static const char *const flaky[][2] = {
        { "SFS", "slow, fast, slow: the path is confirmed by the third measurement" },
        { "FSF", "fast, slow, fast: cleared by the third measurement, not reproduced" },
        { "SS", "slow twice: the two agree, the path is confirmed, no third measurement" },
        { "FF", "fast twice: the two agree, not reproduced, no third measurement" },
    };
    for (int t = 0; t < 4; ++t) {
        const fc_pairs_probe_t *pr;
        int nslow = 0, want;

        for (const char *q = flaky[t][0]; *q; ++q)
            nslow += *q == 'S';
        want = 2 * nslow > (int)strlen(flaky[t][0]) ? FC_PAIR_V_PATH : FC_PAIR_V_NOT_REPRODUCED;
        int one_four[] = { 1, 4, -1 };

        fabric_make(&f, uneven, 3);
        f.seq[1][4] = flaky[t][0];
        run(&f, one_four, budget(f.n), &o);
        pr = &o.c.probes[o.c.alone_probe[pair_of(&o, 1, 4)]];
        ok = links_exactly(&o, f.n, -1) && verdict(&o, 1, 4) == want &&
             pr->nmeasures == (int)strlen(flaky[t][0]) && f.used[1][4] == pr->nmeasures &&
             pr->slow == (want == FC_PAIR_V_PATH) && o.c.nmeasures == f.probes;
        for (int k = 0; k < pr->nmeasures; ++k)
            ok &= pr->meas[k] == (flaky[t][0][k] == 'S');
        fc_tap_ok(&tap, ok, "%s (%d measurements kept)", flaky[t][1], pr->nmeasures);
        fc_pairs_confirm_free(&o.c);
    }

    /* racks of 5, 3 and 1: the 5-node rack's switch slow (its 10 pairs
     * inside), every node fast with nodes outside it: the switch, nobody
     * quarantined, no uplink, no pair of another rack touched */
    fabric_make(&f, five_three_one, 3);
    f.bad_switch[0] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1) && o.c.tor[0] && !o.c.tor[1] && !o.c.tor[2] &&
         o.c.tor_unshown[0] < 0 && !o.c.uplink[0] && !o.c.exhausted;
    for (int x = 0; x < 5; ++x)
        for (int y = x + 1; y < 5; ++y)
            ok &= verdict(&o, x, y) == FC_PAIR_V_SWITCH;
    for (int v = 0; v < 5; ++v)
        ok &= o.c.outside_probe[v] >= 0 && o.c.probes[o.c.outside_probe[v]].slow == 0 &&
              f.rack[o.c.probes[o.c.outside_probe[v]].x == v ? o.c.probes[o.c.outside_probe[v]].y
                                                             : o.c.probes[o.c.outside_probe[v]].x] != 0;
    ok &= verdict(&o, 0, 5) == FC_PAIR_V_OK && verdict(&o, 5, 6) == FC_PAIR_V_OK;
    fc_tap_ok(&tap, ok, "racks of 5, 3 and 1, the 5-node rack's switch slow: its 10 pairs are "
              "the switch's, each node shown fast with a node outside, nobody blamed "
              "(%d probes, %d measurements)", o.c.nprobes, o.c.nmeasures);
    fc_pairs_confirm_free(&o.c);

    /* the same rack with one slow node instead: still its link, no switch */
    fabric_make(&f, five_three_one, 3);
    f.bad_node[2] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, 2) && !o.c.tor[0] && o.c.tor_unshown[0] < 0;
    for (int v = 0; v < f.n; ++v)
        if (v != 2)
            ok &= verdict(&o, v, 2) == (v < 2 ? FC_PAIR_V_NODE_B : FC_PAIR_V_NODE_A);
    ok &= verdict(&o, 0, 1) == FC_PAIR_V_OK;
    fc_tap_ok(&tap, ok, "a single slow node in the 5-node rack is still its link, not the "
              "switch");
    fc_pairs_confirm_free(&o.c);

    /* the 3-node rack's switch, with a pair of the 5-node rack slowed in
     * its round only: the switch of the 3-node rack alone */
    fabric_make(&f, five_three_one, 3);
    f.bad_switch[1] = 1;
    int round_only[] = { 0, 1, -1 };
    run(&f, round_only, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1) && !o.c.tor[0] && o.c.tor[1] &&
         verdict(&o, 5, 6) == FC_PAIR_V_SWITCH && verdict(&o, 6, 7) == FC_PAIR_V_SWITCH &&
         verdict(&o, 0, 1) == FC_PAIR_V_NOT_REPRODUCED;
    fc_tap_ok(&tap, ok, "the 3-node rack's switch is named; a pair of the 5-node rack slow "
              "in its round only is not reproduced");
    fc_pairs_confirm_free(&o.c);

    /* every link of the 5-node rack slow (the whole rack, as tc on each
     * node link makes it): every pair inside slow alone, but its nodes are
     * slow outside it too: no switch named, the node that could not be
     * shown kept, nobody quarantined */
    fabric_make(&f, five_three_one, 3);
    for (int v = 0; v < 5; ++v)
        f.bad_node[v] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1) && !o.c.tor[0] && o.c.tor_unshown[0] >= 0 &&
         f.rack[o.c.tor_unshown[0]] == 0;
    for (int x = 0; x < 5; ++x)
        for (int y = x + 1; y < 5; ++y)
            ok &= verdict(&o, x, y) == FC_PAIR_V_UNPLACED;
    fc_tap_ok(&tap, ok, "every link of the 5-node rack slow: the switch is not named (node %d "
              "slow outside the rack too), nobody quarantined", o.c.tor_unshown[0]);
    fc_pairs_confirm_free(&o.c);

    /* a rack of two nodes whose one pair is slow alone: a path (one pair
     * is no evidence against a whole switch) */
    fabric_make(&f, uneven, 3);
    f.bad_switch[0] = 1;
    run(&f, NULL, budget(f.n), &o);
    fc_tap_ok(&tap, links_exactly(&o, f.n, -1),
              "a two-node rack's one slow pair stays a path: nobody quarantined");
    fc_tap_is_int(&tap, o.c.tor[0], 0, "... no switch from one pair");
    fc_tap_is_int(&tap, verdict(&o, 0, 1), FC_PAIR_V_PATH,
                  "a two-node rack's one slow pair stays a path: no switch from one pair"
                  " [verdict(&o, 0, 1)]");
    fc_pairs_confirm_free(&o.c);

    /* a slow node whose first alone measurement with its own-rack partner
     * came out fast (a lucky moment): the two disagree, the third is slow,
     * the node is confirmed */
    fabric_make(&f, uneven, 3);
    f.bad_node[3] = 1;
    f.seq[2][3] = "FSS";
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, 3) && f.used[2][3] == 3 &&
         o.c.probes[o.c.partner_probe[3][0]].nmeasures == 3;
    fc_tap_ok(&tap, ok, "a slow node measured fast once alone: the majority of three "
              "confirms it (partner %s)", o.c.partner_probe[3][0] >= 0 ? "probed" : "missing");
    fc_pairs_confirm_free(&o.c);

    /* racks of 2, 3 and 1, node 3 slow; every probe of node 2 with
     * anyone but node 3 slow alone (a busy machine), so node 3's partner
     * in its rack cannot be vouched for and node 3 is not confirmed: it is
     * still slow alone with every partner it was probed with. Node 2's one
     * slow round pair is node 3's: it does not make node 2 a suspect
     * (before, node 2 was probed, slow with its partners and confirmed:
     * a healthy node quarantined, the pair it shared with the slow one
     * explained by it) */
    fabric_make(&f, uneven, 3);
    f.bad_node[3] = 1;
    for (int v = 0; v < f.n; ++v)
        if (v != 2 && v != 3)
            f.noisy[2][v] = 1;
    run(&f, NULL, budget(f.n), &o);
    ok = links_exactly(&o, f.n, -1) && o.c.slow_all[3] && !o.c.probed[2] && !o.c.probed[4];
    for (int v = 0; v < f.n; ++v)
        ok &= v == 3 || verdict(&o, v, 3) != FC_PAIR_V_NODE_A + (v > 3);
    fc_tap_ok(&tap, ok, "a pair whose other end was slow alone with every partner does not "
              "make a suspect of this end: no healthy node probed, none confirmed");
    fc_pairs_confirm_free(&o.c);
    test_undecided();
    test_undecided_partner();
    return fc_tap_done(&tap);
}
