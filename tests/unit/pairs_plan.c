/*
 * pairs_plan.c - unit tests of lib/stage/fc_pairs_schedule.c, the rounds the
 * pairs stage runs: under mode sampled, over racks given as labels in any
 * order and of uneven sizes, every node in each round at most once
 * (partners symmetric, none met twice), the pair set the rounds meet
 * equal to fc_pairs_schedule_pairs' (what the report holds the records
 * to), K partners at most per node, both halves of the plan present
 * (inside and across racks); mode full gives the tournament; auto
 * switches above FC_PAIRS_AUTO_NODES; plans that cannot exist are refused;
 * K 2 over racks still crosses them once; a rack of one beside one other
 * rack (its node would meet 1 partner) gets the full matrix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_pairs.h"
#include "fc_pairs_schedule.h"
#include "fc_tap.h"

/* Every round a matching, no pair twice, the pair set the plan's, at most
 * `partners` partners per node; the counts of pairs inside and across
 * racks into *inside_p, *across_p. 1 if all holds. */
static int fc_check(const fc_pairs_schedule_t *s, const int *rack, int *inside_p,
                    int *across_p, char *why, size_t len)
{
    int n = s->n, ok = 1;
    unsigned char *met = calloc((size_t)n * n, 1), *planned = calloc((size_t)n * n, 1);
    int *deg = calloc((size_t)n, sizeof(int));
    long npairs = fc_pairs_schedule_pairs(s, planned), seen = 0;

    *inside_p = *across_p = 0;
    for (int r = 0; r < s->rounds && ok; ++r) {
        unsigned char *in_round = calloc((size_t)n, 1);

        for (int v = 0; v < n && ok; ++v) {
            int w = fc_pairs_schedule_partner(s, r, v);

            if (w < 0)
                continue;
            if (w == v || w >= n || fc_pairs_schedule_partner(s, r, w) != v || in_round[v]++) {
                snprintf(why, len, "round %d: node %d -> %d is no matching", r, v, w);
                ok = 0;
            } else if (v < w && met[(size_t)v * n + w]++) {
                snprintf(why, len, "round %d: pair %d-%d met twice", r, v, w);
                ok = 0;
            } else if (v < w) {
                ++seen;
                ++deg[v];
                ++deg[w];
                if (!planned[(size_t)v * n + w]) {
                    snprintf(why, len, "pair %d-%d met, not in the plan's set", v, w);
                    ok = 0;
                }
                *(rack[v] == rack[w] ? inside_p : across_p) += 1;
            }
        }
        free(in_round);
    }
    if (ok && seen != npairs) {
        snprintf(why, len, "%ld pairs met, the plan's set has %ld", seen, npairs);
        ok = 0;
    }
    for (int v = 0; v < n && ok; ++v)
        if (deg[v] > s->partners) {
            snprintf(why, len, "node %d has %d partners, K is %d", v, deg[v], s->partners);
            ok = 0;
        }
    free(met);
    free(planned);
    free(deg);
    return ok;
}

int main(void)
{
    fc_tap_t tap;
    fc_pairs_schedule_t s;
    char why[200] = "";
    int in, across;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 33);
    {
        /* 6 nodes, racks of 2 given as labels 7, 3, 9, interleaved */
        int rack[] = { 7, 3, 9, 7, 3, 9 };
        int good = fc_pairs_schedule_init(&s, 6, rack, FC_PAIRS_MODE_SAMPLED, 0, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why));

        fc_tap_ok(&tap, good && s.sampled,
                  "6 nodes in 3 interleaved racks, K default 3: 1 round inside (3 pairs), 2 "
                  "across (4 pairs: of 3 racks, one sits out each rack-matching), 7 of 15 "
                  "pairs, every round a matching (%s)", why);
        fc_tap_is_int(&tap, s.partners, 3,
                      "6 nodes in 3 interleaved racks, K default 3: 1 round inside (3 pairs), 2 "
                      "across (4 pairs: of 3 racks, one sits out each rack-matching), 7 of 15 "
                      "pairs, every round a matching (%s)"
                      " [s.partners]", why);
        fc_tap_is_int(&tap, s.plan.racks, 3,
                      "6 nodes in 3 interleaved racks, K default 3: 1 round inside (3 pairs), 2 "
                      "across (4 pairs: of 3 racks, one sits out each rack-matching), 7 of 15 "
                      "pairs, every round a matching (%s)"
                      " [s.plan.racks]", why);
        fc_tap_is_int(&tap, s.plan.per_rack, 2,
                      "6 nodes in 3 interleaved racks, K default 3: 1 round inside (3 pairs), 2 "
                      "across (4 pairs: of 3 racks, one sits out each rack-matching), 7 of 15 "
                      "pairs, every round a matching (%s)"
                      " [s.plan.per_rack]", why);
        fc_tap_is_int(&tap, in, 3,
                      "6 nodes in 3 interleaved racks, K default 3: 1 round inside (3 pairs), 2 "
                      "across (4 pairs: of 3 racks, one sits out each rack-matching), 7 of 15 "
                      "pairs, every round a matching (%s)"
                      " [in]", why);
        fc_tap_is_int(&tap, across, 4,
                      "6 nodes in 3 interleaved racks, K default 3: 1 round inside (3 pairs), 2 "
                      "across (4 pairs: of 3 racks, one sits out each rack-matching), 7 of 15 "
                      "pairs, every round a matching (%s)"
                      " [across]", why);
        fc_pairs_schedule_free(&s);
    }
    {
        /* uneven racks: 5, 3, 1 nodes; the padded slots sit out */
        int rack[] = { 0, 0, 0, 0, 0, 1, 1, 1, 2 };
        int good = fc_pairs_schedule_init(&s, 9, rack, FC_PAIRS_MODE_SAMPLED, 4, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why));

        int least = good ? fc_pairs_schedule_min_partners(&s) : 0, k2;
        int rack2[] = { 0, 0, 1, 1, 1, 2 };

        fc_pairs_schedule_free(&s);
        /* racks of 2, 3 and 1 at K 3: 2 rounds inside the padded racks of
         * 3 and 1 across left the rack of 2 with no partner; rounds are
         * added until every node has 2 */
        good = good && fc_pairs_schedule_init(&s, 6, rack2, FC_PAIRS_MODE_SAMPLED, 3, why,
                                              sizeof(why)) == 0 &&
               fc_check(&s, rack2, &in, &across, why, sizeof(why));
        k2 = s.partners;
        fc_tap_ok(&tap, good && least >= 2 && fc_pairs_schedule_min_partners(&s) >= 2,
                  "uneven racks 5 + 3 + 1 (K 4) and 2 + 3 + 1 (K 3, raised to %d): "
                  "padded, every node at most once a round, every node 2 partners or more "
                  "(%s)", k2, why);
        fc_tap_is_int(&tap, k2, 5,
                      "uneven racks 5 + 3 + 1 (K 4) and 2 + 3 + 1 (K 3, raised to %d): "
                      "padded, every node at most once a round, every node 2 partners or more "
                      "(%s)"
                      " [k2]", k2, why);
        fc_pairs_schedule_free(&s);
    }
    {
        /* 4,096 nodes in 128 racks, K 14: the pair set is the plan's */
        int n = 4096, *rack = calloc((size_t)n, sizeof(int)), good;

        for (int v = 0; v < n; ++v)
            rack[v] = (v * 37) % 128;       /* racks interleaved in node order */
        good = fc_pairs_schedule_init(&s, n, rack, FC_PAIRS_MODE_AUTO, 14, why,
                                      sizeof(why)) == 0 &&
               fc_check(&s, rack, &in, &across, why, sizeof(why));
        fc_tap_ok(&tap, good && s.sampled, "4,096 nodes in 128 racks, auto with K 14: 14 rounds "
                  "(2 inside, 12 across), %d + %d pairs, each met once (%s)", in, across, why);
        fc_tap_is_int(&tap, s.rounds, 14, "4,096 nodes in 128 racks, auto with K 14: 14 rounds "
                      "(2 inside, 12 across), %d + %d pairs, each met once (%s)"
                      " [s.rounds]", in, across, why);
        fc_tap_is_int(&tap, in, 2 * 128 * 16, "4,096 nodes in 128 racks, auto with K 14: 14 rounds "
                      "(2 inside, 12 across), %d + %d pairs, each met once (%s)"
                      " [in]", in, across, why);
        fc_tap_is_int(&tap, across, 12 * 2048,
                      "4,096 nodes in 128 racks, auto with K 14: 14 rounds "
                      "(2 inside, 12 across), %d + %d pairs, each met once (%s)"
                      " [across]", in, across, why);
        fc_pairs_schedule_free(&s);
        free(rack);
    }
    {
        /* full: the tournament; auto at 8 nodes is full */
        int rack[] = { 0, 0, 1, 1, 2, 2, 3, 3 };
        int good = fc_pairs_schedule_init(&s, 8, rack, FC_PAIRS_MODE_AUTO, 0, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why));

        fc_tap_ok(&tap, good && !s.sampled,
                  "auto at 8 nodes is the full tournament: 7 rounds, 28 pairs (%s)", why);
        fc_tap_is_int(&tap, s.rounds, 7,
                      "auto at 8 nodes is the full tournament: 7 rounds, 28 pairs (%s)"
                      " [s.rounds]", why);
        fc_tap_is_int(&tap, in + across, 28,
                      "auto at 8 nodes is the full tournament: 7 rounds, 28 pairs (%s)"
                      " [in + across]", why);
        fc_tap_is_int(&tap, fc_pairs_schedule_partner(&s, 3, 5), fc_pairs_partner(8, 3, 5),
                      "auto at 8 nodes is the full tournament: 7 rounds, 28 pairs (%s)"
                      " [fc_pairs_schedule_partner(&s, 3, 5)]", why);
        fc_pairs_schedule_free(&s);
    }
    {
        /* K above what fits: capped at the rack's tournament + the matchings */
        int rack[] = { 0, 0, 0, 1, 1, 1 };
        int good = fc_pairs_schedule_init(&s, 6, rack, FC_PAIRS_MODE_SAMPLED, 50, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why));

        fc_tap_ok(&tap, good, "K 50 on 2 racks of 3: 3 rounds inside, 1 across, K as used 4 (%s)",
                  why);
        fc_tap_is_int(&tap, s.partners, 4,
                      "K 50 on 2 racks of 3: 3 rounds inside, 1 across, K as used 4 (%s)"
                      " [s.partners]", why);
        fc_tap_is_int(&tap, s.plan.intra, 3,
                      "K 50 on 2 racks of 3: 3 rounds inside, 1 across, K as used 4 (%s)"
                      " [s.plan.intra]", why);
        fc_tap_is_int(&tap, s.plan.inter, 1,
                      "K 50 on 2 racks of 3: 3 rounds inside, 1 across, K as used 4 (%s)"
                      " [s.plan.inter]", why);
        fc_pairs_schedule_free(&s);
    }
    {
        /* one rack: inside only; two nodes: one pair */
        int rack[] = { 5, 5, 5, 5, 5 }, two[] = { 1, 2 };
        int good = fc_pairs_schedule_init(&s, 5, rack, FC_PAIRS_MODE_SAMPLED, 3, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why)) && across == 0 &&
                   s.plan.inter == 0 && s.rounds == 3;

        fc_pairs_schedule_free(&s);
        good = good && fc_pairs_schedule_init(&s, 2, two, FC_PAIRS_MODE_SAMPLED, 0, why,
                                              sizeof(why)) == 0 &&
               fc_check(&s, two, &in, &across, why, sizeof(why)) && across == 1;
        fc_tap_ok(&tap, good, "one rack of 5 (3 rounds inside), two racks of 1 (the one "
                  "pair across) (%s)", why);
        fc_pairs_schedule_free(&s);
    }
    {
        /* K 2 over racks: 2 rounds inside and none across left every
         * rack's uplink unmeasured; one round now crosses */
        int rack[] = { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2 };
        int good = fc_pairs_schedule_init(&s, 12, rack, FC_PAIRS_MODE_SAMPLED, 2, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why));

        fc_tap_ok(&tap, good && s.sampled, "K 2 on 3 racks of 4: 2 rounds inside and 1 "
                  "across (K as used 3), %d pairs across racks (%s)", across, why);
        fc_tap_is_int(&tap, s.plan.intra, 2, "K 2 on 3 racks of 4: 2 rounds inside and 1 "
                      "across (K as used 3), %d pairs across racks (%s)"
                      " [s.plan.intra]", across, why);
        fc_tap_is_int(&tap, s.plan.inter, 1, "K 2 on 3 racks of 4: 2 rounds inside and 1 "
                      "across (K as used 3), %d pairs across racks (%s)"
                      " [s.plan.inter]", across, why);
        fc_tap_is_int(&tap, s.partners, 3, "K 2 on 3 racks of 4: 2 rounds inside and 1 "
                      "across (K as used 3), %d pairs across racks (%s)"
                      " [s.partners]", across, why);
        fc_tap_ok(&tap, across > 0, "K 2 on 3 racks of 4: 2 rounds inside and 1 "
                  "across (K as used 3), %d pairs across racks (%s)"
                  " [across > 0]", across, why);
        fc_pairs_schedule_free(&s);
    }
    {
        /* a rack of one beside a rack of three: the padded plan met the
         * lone node with the other rack's first node alone (1 partner),
         * in 4 rounds where every pair takes 3: the full matrix instead */
        int rack[] = { 0, 0, 0, 1 };
        int good = fc_pairs_schedule_init(&s, 4, rack, FC_PAIRS_MODE_SAMPLED, 0, why,
                                          sizeof(why)) == 0 &&
                   fc_check(&s, rack, &in, &across, why, sizeof(why));

        fc_tap_ok(&tap, good && !s.sampled, "racks of 3 and 1, sampled: the "
                  "full matrix (%s), every node 3 partners, not 1 (%s)", s.full_why, why);
        fc_tap_is_int(&tap, s.rounds, 3, "racks of 3 and 1, sampled: the "
                      "full matrix (%s), every node 3 partners, not 1 (%s)"
                      " [s.rounds]", s.full_why, why);
        fc_tap_is_int(&tap, in + across, 6, "racks of 3 and 1, sampled: the "
                      "full matrix (%s), every node 3 partners, not 1 (%s)"
                      " [in + across]", s.full_why, why);
        fc_tap_is_int(&tap, fc_pairs_schedule_min_partners(&s), 3, "racks of 3 and 1, sampled: the "
                      "full matrix (%s), every node 3 partners, not 1 (%s)"
                      " [fc_pairs_schedule_min_partners(&s)]", s.full_why, why);
        fc_tap_ok(&tap, strstr(s.full_why, "only 1 partner") != NULL,
                  "racks of 3 and 1, sampled: the "
                  "full matrix (%s), every node 3 partners, not 1 (%s)"
                  " [names 'only 1 partner']", s.full_why, why);
        fc_pairs_schedule_free(&s);
    }
    {
        int one[] = { 0 };

        why[0] = '\0';
        fc_tap_is_int(&tap,
                      fc_pairs_schedule_init(&s, 1, one, FC_PAIRS_MODE_SAMPLED, 0, why,
                                                   sizeof(why)), -1, "one node: refused (%s)", why);
        fc_tap_ok(&tap, strstr(why, "2 nodes") != NULL, "one node: refused (%s)"
                  " [names '2 nodes']", why);
    }
    return fc_tap_done(&tap);
}
