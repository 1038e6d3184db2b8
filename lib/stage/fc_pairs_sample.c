/*
 * fc_pairs_sample.c - see fc_pairs_sample.h. Both halves reuse the circle
 * method of the full tournament (fc_pairs_partner): on the nodes of one
 * rack for the intra rounds, on the racks for the rack-matchings.
 */
#include "fc_pairs_sample.h"

#include "fc_pairs.h"

/* Rack-matchings: rounds of the circle method on the racks. */
static int fc_rack_matchings(const fc_pairs_sample_t *p)
{
    return fc_pairs_rounds(p->racks);
}

int fc_pairs_sample_rounds(const fc_pairs_sample_t *p)
{
    return p->intra + p->inter;
}

int fc_pairs_sample_ok(const fc_pairs_sample_t *p)
{
    return p->racks >= 1 && p->per_rack >= 1 && p->racks * p->per_rack >= 2 &&
           p->intra >= 0 && p->inter >= 0 && p->intra + p->inter >= 1 &&
           p->intra <= fc_pairs_rounds(p->per_rack) && p->inter <= fc_rack_matchings(p);
}

int fc_pairs_sample_partner(const fc_pairs_sample_t *p, int round, int node)
{
    int rack, slot, other, m;

    if (!fc_pairs_sample_ok(p) || round < 0 || round >= fc_pairs_sample_rounds(p) ||
        node < 0 || node >= p->racks * p->per_rack)
        return -1;
    rack = node / p->per_rack;
    slot = node % p->per_rack;
    if (round < p->intra) {
        other = fc_pairs_partner(p->per_rack, round, slot);
        return other < 0 ? -1 : rack * p->per_rack + other;
    }
    /* distinct matchings from round to round for each slot (slot s takes
     * matchings s * inter .. s * inter + inter - 1), and together the
     * slots of a rack take the first inter * per_rack of them (mod M) */
    m = (int)(((long)slot * p->inter + (round - p->intra)) % fc_rack_matchings(p));
    other = fc_pairs_partner(p->racks, m, rack);
    return other < 0 ? -1 : other * p->per_rack + slot;
}
