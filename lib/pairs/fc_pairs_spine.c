/*
 * fc_pairs_spine.c - the pairs stage's two-racks rule (rank 0; see
 * fc_pairs_stage.h). The pairs across the spine are judged by their class
 * (the upper median of the pairs across the spine) and, on three racks or
 * more, by the rack rule (a pair of racks against the pairs of racks
 * without it). On two racks the rack rule cannot apply, and where one of
 * the two racks is one node every pair across the spine is that node's:
 * their class's reference is that node's own figure, so a slow node alone
 * in its rack (or a slow uplink) slowed every one of them alike and
 * passed (found by planting it from outside: racks of 2 and 1, the lone node at
 * 50 Mbit/s: 0.0021 GB/s across the spine against 0.07-0.83 inside rack1,
 * PASS in 4 of 4 runs).
 *
 * There, each pair across the spine is judged against the upper median of
 * the pairs inside the other rack, at the same size: in a round the lone
 * node has one partner, so its pair is the only one on the spine, which
 * nothing else shares; it crosses more links than a pair inside a rack
 * but, with nothing beside it, must not be slower by more than the
 * allowed percentage. Measured alone, the confirmation judges it by the
 * same reference (lib/pairs/fc_pairs_alone.c). On two racks of two nodes or
 * more, and on two racks of one node (no pair inside a rack), the rule
 * does not apply and the records say so; the class still judges the
 * former (its pairs do not all share a node).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fc_alloc.h"
#include "fc_pairs_stage.h"

static int fc_spine_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

void fc_pairs_two_racks_rule(fc_pairs_run_t *run, int z)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int rk[2] = { -1, -1 }, count[2] = { 0, 0 }, lone[2] = { -1, -1 }, nracks = 0, n = 0;
    int big, members = 0;
    fc_pair_two_t rule;
    double *scratch, ref = 0;

    for (int k = 0; k < run->npairs; ++k)
        if (run->pairs[k].size_index == z) {
            run->pairs[k].two = FC_PAIR_TWO_OFF;
            run->pairs[k].two_lone = -1;
        }
    if (sp->max_below_median_pct < 0 || sp->sizes[z] < sp->relative_min_bytes)
        return;
    for (int v = 0; v < run->nnodes; ++v) {
        int r = run->node_racks[v], i = r == rk[0] ? 0 : r == rk[1] ? 1 : -1;

        if (i < 0) {
            if (nracks == 2)
                return;         /* three racks or more: the rack rule's */
            i = nracks++;
            rk[i] = r;
        }
        count[i]++;
        lone[i] = v;
    }
    if (nracks != 2)
        return;
    big = count[0] == 1 ? 1 : 0;        /* the rack of two nodes or more, if any */
    rule = count[0] > 1 && count[1] > 1 ? FC_PAIR_TWO_SHARED :
           count[0] == 1 && count[1] == 1 ? FC_PAIR_TWO_NONE : FC_PAIR_TWO_APPLIED;
    if (rule == FC_PAIR_TWO_APPLIED) {
        scratch = fc_xcalloc((size_t)run->npairs + 1, sizeof(double),
                             "the pairs inside a rack's figures");
        for (int k = 0; k < run->npairs; ++k) {
            const fc_pair_t *p = &run->pairs[k];

            if (p->size_index == z && run->node_racks[p->a] == rk[big] &&
                run->node_racks[p->b] == rk[big])
                scratch[n++] = p->bw_gbps;
        }
        if (n > 0) {
            qsort(scratch, (size_t)n, sizeof(*scratch), fc_spine_cmp_double);
            ref = scratch[n / 2];   /* the upper median, as the classes' */
            members = n;
        }
        free(scratch);
    }
    for (int k = 0; k < run->npairs; ++k) {
        fc_pair_t *p = &run->pairs[k];

        if (p->size_index != z || run->node_racks[p->a] == run->node_racks[p->b])
            continue;
        p->two = rule;
        p->two_ref = ref;
        p->two_members = members;
        p->two_rack = rk[big];
        p->two_lone = rule == FC_PAIR_TWO_SHARED ? -1 : lone[1 - big];
    }
}

void fc_pairs_two_racks_text(const fc_pairs_run_t *run, const fc_pair_t *p, char *buf,
                             size_t len)
{
    snprintf(buf, len, "upper median of the %d pair%s inside rack %s", p->two_members,
             p->two_members == 1 ? "" : "s", run->ctx->inv.racks[p->two_rack]);
}
