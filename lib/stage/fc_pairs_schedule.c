/*
 * fc_pairs_schedule.c - see fc_pairs_schedule.h: the layout of nodes into
 * the sampled plan's padded racks, K split into rounds inside and across
 * racks, and the partner of a node in a round, full or sampled.
 */
#include "fc_pairs_schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_pairs.h"

int fc_pairs_default_partners(int n)
{
    int k = 0;

    while (k < 30 && (1L << k) < n)
        ++k;
    return k < 3 ? 3 : k;
}

int fc_pairs_mode_for(int mode, int n)
{
    if (mode == FC_PAIRS_MODE_AUTO)
        return n > FC_PAIRS_AUTO_NODES ? FC_PAIRS_MODE_SAMPLED : FC_PAIRS_MODE_FULL;
    return mode == FC_PAIRS_MODE_SAMPLED ? FC_PAIRS_MODE_SAMPLED : FC_PAIRS_MODE_FULL;
}

const char *fc_pairs_mode_name(int mode)
{
    return mode == FC_PAIRS_MODE_SAMPLED ? "sampled" : mode == FC_PAIRS_MODE_AUTO ? "auto"
                                                                                  : "full";
}

/* Racks by first node, each node's place in its rack: slot[v]. */
static void fc_schedule_layout(fc_pairs_schedule_t *s, const int *rack)
{
    int n = s->n, nracks = 0, per_rack = 0;
    int *rack_of = fc_xcalloc((size_t)n, sizeof(int), "the nodes' rack order");
    int *fill = fc_xcalloc((size_t)n, sizeof(int), "the racks' sizes");
    int *label = fc_xcalloc((size_t)n, sizeof(int), "the racks' labels");

    for (int v = 0; v < n; ++v) {
        int r = 0;

        while (r < nracks && label[r] != rack[v])
            ++r;
        if (r == nracks)
            label[nracks++] = rack[v];
        rack_of[v] = r;
        s->slot[v] = fill[r]++;     /* its place in the rack, for now */
        if (fill[r] > per_rack)
            per_rack = fill[r];
    }
    s->plan.racks = nracks;
    s->plan.per_rack = per_rack;
    s->node_of_slot = fc_xcalloc((size_t)nracks * (size_t)per_rack, sizeof(int),
                                 "the sampled plan's slots");
    for (int k = 0; k < nracks * per_rack; ++k)
        s->node_of_slot[k] = -1;
    for (int v = 0; v < n; ++v) {
        s->slot[v] += rack_of[v] * per_rack;
        s->node_of_slot[s->slot[v]] = v;
    }
    free(rack_of);
    free(fill);
    free(label);
}

/* The fewest partners a node has over the rounds (sampled). */
static int fc_schedule_min_degree(const fc_pairs_schedule_t *s)
{
    int *deg = fc_xcalloc((size_t)s->n, sizeof(int), "the nodes' partners"), least;

    for (int r = 0; r < s->rounds; ++r)
        for (int v = 0; v < s->n; ++v)
            deg[v] += fc_pairs_schedule_partner(s, r, v) >= 0;
    least = deg[0];
    for (int v = 1; v < s->n; ++v)
        if (deg[v] < least)
            least = deg[v];
    free(deg);
    return least;
}

int fc_pairs_schedule_min_partners(const fc_pairs_schedule_t *s)
{
    return s->sampled ? fc_schedule_min_degree(s) : s->n - 1;
}

int fc_pairs_schedule_init(fc_pairs_schedule_t *s, int n, const int *rack, int mode,
                           int partners, char *why, size_t len)
{
    int max_intra, max_inter, k;

    memset(s, 0, sizeof(*s));
    s->n = n;
    if (n < 2) {
        snprintf(why, len, "the pairs stage needs 2 nodes, not %d", n);
        return -1;
    }
    if (fc_pairs_mode_for(mode, n) == FC_PAIRS_MODE_FULL) {
        s->rounds = fc_pairs_rounds(n);
        s->partners = n - 1;
        return 0;
    }
    s->sampled = 1;
    s->slot = fc_xcalloc((size_t)n, sizeof(int), "the nodes' slots");
    fc_schedule_layout(s, rack);
    k = partners > 0 ? partners : fc_pairs_default_partners(n);
    max_intra = fc_pairs_rounds(s->plan.per_rack);
    max_inter = fc_pairs_rounds(s->plan.racks);
    s->plan.intra = k < 2 ? k : 2;
    if (s->plan.intra > max_intra)
        s->plan.intra = max_intra;
    s->plan.inter = k - s->plan.intra < max_inter ? k - s->plan.intra : max_inter;
    s->plan.intra = k - s->plan.inter < max_intra ? k - s->plan.inter : max_intra;
    /* across racks at least once where there are racks to cross: K 2 gave
     * 2 rounds inside and none across, so no pair ever crossed a rack's
     * uplink and every rack passed the stage without it measured */
    if (s->plan.racks >= 2 && s->plan.inter == 0 && max_inter >= 1)
        s->plan.inter = 1;
    s->partners = s->plan.intra + s->plan.inter;
    s->rounds = fc_pairs_sample_rounds(&s->plan);
    /* padding can leave a node of a small rack, or a high slot of a large
     * one, without partners in these rounds (racks of 2, 3 and 1 at K 3:
     * the rack of 2 met nobody): rounds are added, inside racks first,
     * until every node has 2 partners or no round is left to add */
    while (fc_pairs_sample_ok(&s->plan) && fc_schedule_min_degree(s) < 2 &&
           (s->plan.intra < max_intra || s->plan.inter < max_inter)) {
        if (s->plan.intra < max_intra)
            ++s->plan.intra;
        else
            ++s->plan.inter;
        s->partners = s->plan.intra + s->plan.inter;
        s->rounds = fc_pairs_sample_rounds(&s->plan);
    }
    if (!fc_pairs_sample_ok(&s->plan)) {
        snprintf(why, len, "no sampled plan of %d partners fits %d nodes in %d racks of up "
                 "to %d", k, n, s->plan.racks, s->plan.per_rack);
        fc_pairs_schedule_free(s);
        return -1;
    }
    /* the full matrix where the sample cannot do its job: a node left
     * with one partner (a rack of one beside one other rack meets only
     * that rack's first node: its slow pair cannot say which end is
     * slow), or a sample that takes more rounds than every pair would */
    if (n >= 3 && fc_schedule_min_degree(s) < 2)
        snprintf(s->full_why, sizeof(s->full_why), "a node would meet only %d partner(s)",
                 fc_schedule_min_degree(s));
    else if (s->rounds > fc_pairs_rounds(n))
        snprintf(s->full_why, sizeof(s->full_why), "the sample would take %d rounds, every "
                 "pair %d", s->rounds, fc_pairs_rounds(n));
    if (s->full_why[0]) {
        fc_pairs_schedule_free(s);
        s->sampled = 0;
        memset(&s->plan, 0, sizeof(s->plan));
        s->rounds = fc_pairs_rounds(n);
        s->partners = n - 1;
    }
    return 0;
}

int fc_pairs_schedule_rounds(int n, const int *rack, int mode, int partners)
{
    fc_pairs_schedule_t s;
    char why[160];
    int rounds;

    if (n < 2 || fc_pairs_schedule_init(&s, n, rack, mode, partners, why, sizeof(why)) != 0)
        return 0;
    rounds = s.rounds;
    fc_pairs_schedule_free(&s);
    return rounds;
}

void fc_pairs_schedule_free(fc_pairs_schedule_t *s)
{
    free(s->slot);
    free(s->node_of_slot);
    s->slot = s->node_of_slot = NULL;
}

int fc_pairs_schedule_partner(const fc_pairs_schedule_t *s, int round, int node)
{
    int w;

    if (node < 0 || node >= s->n || round < 0 || round >= s->rounds)
        return -1;
    if (!s->sampled)
        return fc_pairs_partner(s->n, round, node);
    w = fc_pairs_sample_partner(&s->plan, round, s->slot[node]);
    return w < 0 ? -1 : s->node_of_slot[w];
}

long fc_pairs_schedule_pairs(const fc_pairs_schedule_t *s, unsigned char *planned)
{
    long count = 0;

    memset(planned, 0, (size_t)s->n * (size_t)s->n);
    for (int r = 0; r < s->rounds; ++r)
        for (int v = 0; v < s->n; ++v) {
            int w = fc_pairs_schedule_partner(s, r, v);

            if (w > v && !planned[(size_t)v * (size_t)s->n + (size_t)w]) {
                planned[(size_t)v * (size_t)s->n + (size_t)w] = 1;
                planned[(size_t)w * (size_t)s->n + (size_t)v] = 1;
                ++count;
            }
        }
    return count;
}
