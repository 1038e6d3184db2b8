/*
 * pairs_sample.c - unit tests of lib/stage/fc_pairs_sample.c, the sampled plan
 * for the pairs stage at scale: every round is a matching (symmetric, no
 * node twice), no pair meets twice, the intra rounds stay inside racks and
 * the inter rounds leave them, a node meets `inter` distinct racks, and
 * with inter >= (R-1)/per_rack every pair of racks is met; checked on
 * 4,096 nodes in 128 racks and on small and odd shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_pairs_sample.h"
#include "fc_tap.h"

/* Check one plan; 1 if every property holds (why printed otherwise). */
static int fc_check_plan(const fc_pairs_sample_t *p, int *rack_pairs_met_p)
{
    int n = p->racks * p->per_rack, rounds = fc_pairs_sample_rounds(p), ok = 1;
    unsigned char *met = calloc((size_t)n * (size_t)n, 1);
    unsigned char *rmet = calloc((size_t)p->racks * (size_t)p->racks, 1);
    int *racks_met = calloc((size_t)n, sizeof(int));

    for (int r = 0; r < rounds && ok; ++r)
        for (int v = 0; v < n && ok; ++v) {
            int w = fc_pairs_sample_partner(p, r, v);

            if (w < 0)
                continue;
            if (w == v || w >= n || fc_pairs_sample_partner(p, r, w) != v) {
                printf("# round %d: node %d -> %d is not a matching\n", r, v, w);
                ok = 0;
            } else if (v < w && met[(size_t)v * n + w]++) {
                printf("# round %d: pair %d-%d met twice\n", r, v, w);
                ok = 0;
            } else if ((r < p->intra) != (v / p->per_rack == w / p->per_rack)) {
                printf("# round %d: pair %d-%d %s its rack\n", r, v, w,
                       r < p->intra ? "leaves" : "stays in");
                ok = 0;
            } else if (r >= p->intra) {
                rmet[(size_t)(v / p->per_rack) * p->racks + w / p->per_rack] = 1;
                racks_met[v]++;
            }
        }
    *rack_pairs_met_p = 0;
    for (int a = 0; a < p->racks; ++a)
        for (int b = a + 1; b < p->racks; ++b)
            *rack_pairs_met_p += rmet[(size_t)a * p->racks + b];
    for (int v = 0; v < n && ok && p->racks % 2 == 0; ++v)
        if (racks_met[v] != p->inter) {
            printf("# node %d met %d racks, not %d\n", v, racks_met[v], p->inter);
            ok = 0;
        }
    free(met);
    free(rmet);
    free(racks_met);
    return ok;
}

int main(void)
{
    fc_tap_t tap;
    int met;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 13);
    {
        fc_pairs_sample_t p = { 128, 32, 2, 12 };

        int good = fc_check_plan(&p, &met);

        fc_tap_ok(&tap, good, "4,096 nodes in 128 racks, 2 + 12 rounds: matchings, no pair twice, "
                  "12 racks met per node, all %d rack pairs met", met);
        fc_tap_is_int(&tap, met, 128 * 127 / 2,
                      "4,096 nodes in 128 racks, 2 + 12 rounds: matchings, no pair twice, "
                      "12 racks met per node, all %d rack pairs met"
                      " [met]", met);
    }
    {
        fc_pairs_sample_t p = { 128, 32, 0, 3 };

        int good = fc_check_plan(&p, &met);

        fc_tap_ok(&tap, good,
                  "with 3 inter rounds (96 of the 127 rack-matchings) %d rack pairs are met, "
                  "each by one pair", met);
        fc_tap_is_int(&tap, met, 3 * 32 * 64,
                      "with 3 inter rounds (96 of the 127 rack-matchings) %d rack pairs are met, "
                      "each by one pair"
                      " [met]", met);
    }
    {
        fc_pairs_sample_t p = { 7, 5, 5, 6 };

        int good = fc_check_plan(&p, &met);

        fc_tap_ok(&tap, good,
                  "odd shapes (7 racks of 5, every round of both halves): a matching with "
                  "byes, every rack pair met (%d)", met);
        fc_tap_is_int(&tap, met, 21,
                      "odd shapes (7 racks of 5, every round of both halves): a matching with "
                      "byes, every rack pair met (%d)"
                      " [met]", met);
    }
    {
        fc_pairs_sample_t p = { 4, 4, 3, 3 }, q = { 4, 4, 4, 1 }, r = { 4, 4, 0, 4 };

        int good = fc_check_plan(&p, &met);

        fc_tap_ok(&tap, good && !fc_pairs_sample_ok(&q) &&
                  !fc_pairs_sample_ok(&r),
                  "more intra rounds than a rack's tournament, or more inter rounds than "
                  "rack-matchings, are refused");
        fc_tap_is_int(&tap, fc_pairs_sample_partner(&q, 0, 0), -1,
                      "more intra rounds than a rack's tournament, or more inter rounds than "
                      "rack-matchings, are refused"
                      " [fc_pairs_sample_partner(&q, 0, 0)]");
    }
    {
        /* the whole plan meets every pair: intra all, inter all (R = 2) */
        fc_pairs_sample_t p = { 2, 4, 3, 1 };
        int pairs = 0, n = 8;

        int good = fc_check_plan(&p, &met);

        for (int r = 0; r < fc_pairs_sample_rounds(&p); ++r)
            for (int v = 0; v < n; ++v)
                pairs += fc_pairs_sample_partner(&p, r, v) > v;
        fc_tap_ok(&tap, good, "2 racks of 4: 3 intra + 1 inter rounds meet %d of the "
                  "16 pairs a round across the racks and the racks' own allow", pairs);
        fc_tap_is_int(&tap, pairs, 16, "2 racks of 4: 3 intra + 1 inter rounds meet %d of the "
                      "16 pairs a round across the racks and the racks' own allow"
                      " [pairs]", pairs);
    }
    {
        /* per_rack and the rack-matchings share a factor (3 and 3): the
         * slots' matchings must still differ from round to round */
        fc_pairs_sample_t p = { 4, 3, 0, 3 }, q = { 4, 6, 1, 3 };

        int good = fc_check_plan(&p, &met) && fc_check_plan(&q, &met);

        fc_tap_ok(&tap, good, "4 racks of 3 (and of 6), 3 inter rounds: no pair twice when "
                  "per_rack and the 3 rack-matchings share a factor");
    }
    {
        fc_pairs_sample_t p = { 1, 6, 5, 0 };

        int good = fc_check_plan(&p, &met);

        fc_tap_ok(&tap, good, "one rack: the rack's own tournament");
        fc_tap_is_int(&tap, met, 0, "one rack: the rack's own tournament"
                      " [met]");
    }
    return fc_tap_done(&tap);
}
