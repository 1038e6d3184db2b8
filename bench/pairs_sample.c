/*
 * pairs_sample.c - the pairs stage at 4,096 nodes, on paper and in
 * simulation: the full tournament against the sampled plan
 * (lib/stage/fc_pairs_sample.h: `intra` rounds inside each rack, `inter` rounds
 * across racks), for a few values of inter around log2(n). For each plan:
 * rounds, pairs measured, hours at a given time per round, and how often
 * planted faults are found and placed on the right part:
 *
 *   nic       one node's NIC or link: all its pairs slow;
 *   uplink    one rack's uplink: every pair with one end in the rack slow;
 *   spine     the path between two racks: every pair across them slow;
 *   path      the path between two nodes only: that one pair slow;
 *   mixed     4 NICs, 1 uplink and 2 spine paths at once.
 *
 * Placement follows the stage's rules (lib/stage/fc_pairs.c fc_pairs_localise
 * for nodes; the rack rule first: a rack whose pairs to other racks were
 * all slow and its own all fast is its uplink, and its nodes are not
 * blamed for it; a slow pair left over is its path, and a spine fault is
 * found when every sampled pair across the two racks is placed on a
 * path). Measurements are taken as exact (a faulty part is always slow,
 * a healthy one never): the confirmation alone (docs/verdicts.md, "Confirmation
 * before blame") is what makes that so on a real fabric; its probes come
 * on top of the rounds, about 4 per bad node.
 *
 * usage: pairs_sample [NODES [RACKS [SECONDS_PER_ROUND [TRIALS]]]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_pairs.h"
#include "fc_pairs_sample.h"

typedef struct plan {
    int n, racks, per_rack, npairs;
    int *a, *b;                 /* the pairs measured */
} plan_t;

/* The pairs a plan measures: full (inter < 0) or sampled. */
static void fc_plan_build(plan_t *pl, int racks, int per_rack, int intra, int inter)
{
    fc_pairs_sample_t p = { racks, per_rack, intra, inter };
    int n = racks * per_rack, cap, rounds = inter < 0 ? fc_pairs_rounds(n)
                                                      : fc_pairs_sample_rounds(&p);

    pl->n = n;
    pl->racks = racks;
    pl->per_rack = per_rack;
    pl->npairs = 0;
    cap = rounds * (n / 2) + 1;
    pl->a = fc_xcalloc((size_t)cap, sizeof(int), "the plan's pairs (first ends)");
    pl->b = fc_xcalloc((size_t)cap, sizeof(int), "the plan's pairs (second ends)");
    for (int r = 0; r < rounds; ++r)
        for (int v = 0; v < n; ++v) {
            int w = inter < 0 ? fc_pairs_partner(n, r, v) : fc_pairs_sample_partner(&p, r, v);

            if (w > v) {
                pl->a[pl->npairs] = v;
                pl->b[pl->npairs++] = w;
            }
        }
}

typedef struct fault {
    int nics[8], nnics;         /* bad nodes */
    int uplink;                 /* a rack, or -1 */
    int spine[4][2], nspine;    /* pairs of racks */
    int path[2];                /* a pair of nodes, or -1 */
} fault_t;

static int fc_slow(const plan_t *pl, const fault_t *f, int a, int b)
{
    int ra = a / pl->per_rack, rb = b / pl->per_rack;

    for (int k = 0; k < f->nnics; ++k)
        if (a == f->nics[k] || b == f->nics[k])
            return 1;
    if (f->uplink >= 0 && (ra == f->uplink) != (rb == f->uplink))
        return 1;
    for (int k = 0; k < f->nspine; ++k)
        if ((ra == f->spine[k][0] && rb == f->spine[k][1]) ||
            (ra == f->spine[k][1] && rb == f->spine[k][0]))
            return 1;
    return (a == f->path[0] && b == f->path[1]) || (a == f->path[1] && b == f->path[0]);
}

/* Place the faults from the slow pairs; 1 when exactly the planted parts
 * are found (every one of them, nothing else). */
static int fc_placed_right(const plan_t *pl, const fault_t *f, int *slow, int *node_bad,
                           int *node_slow, int *node_partners, fc_pair_part_t *part)
{
    int *rack_out = fc_xcalloc((size_t)pl->racks, sizeof(int), "the racks' pairs out"),
        *rack_out_slow, *rack_in_slow, *uplink, ok = 1;

    rack_out_slow = fc_xcalloc((size_t)pl->racks, sizeof(int), "the racks' slow pairs out");
    rack_in_slow = fc_xcalloc((size_t)pl->racks, sizeof(int), "the racks' slow pairs in");
    uplink = fc_xcalloc((size_t)pl->racks, sizeof(int), "the racks' uplink verdicts");
    for (int i = 0; i < pl->npairs; ++i) {
        int ra = pl->a[i] / pl->per_rack, rb = pl->b[i] / pl->per_rack;

        slow[i] = fc_slow(pl, f, pl->a[i], pl->b[i]);
        if (ra == rb) {
            rack_in_slow[ra] += slow[i];
        } else {
            rack_out[ra]++, rack_out[rb]++;
            rack_out_slow[ra] += slow[i], rack_out_slow[rb] += slow[i];
        }
    }
    /* the rack rule first: all out slow, all in fast */
    for (int r = 0; r < pl->racks; ++r)
        uplink[r] = rack_out[r] >= 2 && rack_out_slow[r] == rack_out[r] && rack_in_slow[r] == 0;
    for (int i = 0; i < pl->npairs; ++i) {
        int ra = pl->a[i] / pl->per_rack, rb = pl->b[i] / pl->per_rack;

        if (ra != rb && (uplink[ra] || uplink[rb]))
            slow[i] = 0;    /* explained by the uplink */
    }
    fc_pairs_localise(pl->n, pl->npairs, pl->a, pl->b, slow, node_bad, node_slow,
                      node_partners, part);
    for (int r = 0; r < pl->racks; ++r)
        ok &= uplink[r] == (r == f->uplink);
    for (int v = 0; v < pl->n && ok; ++v) {
        int planted = 0;

        for (int k = 0; k < f->nnics; ++k)
            planted |= v == f->nics[k];
        ok &= node_bad[v] == planted;
    }
    /* every spine fault seen on at least one pair placed on a path, every
     * path placed on a pair is a planted spine or path */
    for (int k = 0; k < f->nspine && ok; ++k) {
        int seen = 0;

        for (int i = 0; i < pl->npairs; ++i)
            seen |= part[i] == FC_PAIR_PATH && fc_slow(pl, &(fault_t){ .nspine = 1,
                .spine = { { f->spine[k][0], f->spine[k][1] } }, .uplink = -1,
                .path = { -1, -1 } }, pl->a[i], pl->b[i]);
        ok &= seen;
    }
    if (f->path[0] >= 0) {
        int seen = 0;

        for (int i = 0; i < pl->npairs; ++i)
            seen |= part[i] == FC_PAIR_PATH &&
                    ((pl->a[i] == f->path[0] && pl->b[i] == f->path[1]) ||
                     (pl->a[i] == f->path[1] && pl->b[i] == f->path[0]));
        ok &= seen;
    }
    free(rack_out);
    free(rack_out_slow);
    free(rack_in_slow);
    free(uplink);
    return ok;
}

/* The share of trials in which a kind of fault was placed right. */
static double fc_detect(const plan_t *pl, const char *kind, int trials, unsigned *seed)
{
    int *slow = fc_xcalloc((size_t)pl->npairs, sizeof(int), "the slow pairs"), right = 0;
    int *node_bad = fc_xcalloc((size_t)pl->n, sizeof(int), "the nodes' verdicts");
    int *node_slow = fc_xcalloc((size_t)pl->n, sizeof(int), "the nodes' slow pairs");
    int *node_partners = fc_xcalloc((size_t)pl->n, sizeof(int), "the nodes' partners");
    fc_pair_part_t *part = fc_xcalloc((size_t)pl->npairs, sizeof(*part), "the pairs' parts");

    for (int t = 0; t < trials; ++t) {
        fault_t f = { .uplink = -1, .path = { -1, -1 } };

        if (strcmp(kind, "nic") == 0 || strcmp(kind, "mixed") == 0)
            for (f.nnics = 0; f.nnics < (kind[0] == 'n' ? 1 : 4); ++f.nnics)
                f.nics[f.nnics] = rand_r(seed) % pl->n;
        if (strcmp(kind, "uplink") == 0 || strcmp(kind, "mixed") == 0)
            f.uplink = rand_r(seed) % pl->racks;
        if (strcmp(kind, "spine") == 0 || strcmp(kind, "mixed") == 0)
            for (f.nspine = 0; f.nspine < (kind[0] == 's' ? 1 : 2); ++f.nspine) {
                do {
                    f.spine[f.nspine][0] = rand_r(seed) % pl->racks;
                    f.spine[f.nspine][1] = rand_r(seed) % pl->racks;
                } while (f.spine[f.nspine][0] == f.spine[f.nspine][1] ||
                         f.spine[f.nspine][0] == f.uplink || f.spine[f.nspine][1] == f.uplink);
            }
        if (strcmp(kind, "path") == 0)
            do {
                f.path[0] = rand_r(seed) % pl->n;
                f.path[1] = rand_r(seed) % pl->n;
            } while (f.path[0] == f.path[1]);
        /* two NICs of one rack and its uplink, or a NIC at a spine fault's
         * end, are not what is measured here: draw again */
        if (strcmp(kind, "mixed") == 0) {
            int clash = 0;

            for (int k = 0; k < f.nnics; ++k) {
                int r = f.nics[k] / pl->per_rack;

                clash |= r == f.uplink;
                for (int s = 0; s < f.nspine; ++s)
                    clash |= r == f.spine[s][0] || r == f.spine[s][1];
                for (int j = 0; j < k; ++j)
                    clash |= f.nics[j] / pl->per_rack == r;
            }
            if (clash) {
                --t;
                continue;
            }
        }
        right += fc_placed_right(pl, &f, slow, node_bad, node_slow, node_partners, part);
    }
    free(slow);
    free(node_bad);
    free(node_slow);
    free(node_partners);
    free(part);
    return 100.0 * right / trials;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, racks = argc > 2 ? atoi(argv[2]) : 128;
    double per_round = argc > 3 ? atof(argv[3]) : 2.0;
    int trials = argc > 4 ? atoi(argv[4]) : 200, per_rack = racks > 0 ? n / racks : 0;
    int log2n = (int)ceil(log2((double)n)), inters[] = { 2, 4, 8, log2n, 2 * log2n, -1 };
    static const char *const kinds[] = { "nic", "uplink", "spine", "path", "mixed" };
    unsigned seed = 20261203;

    if (racks < 2 || per_rack < 2 || per_rack * racks != n) {
        fprintf(stderr, "usage: pairs_sample [NODES [RACKS [SECONDS_PER_ROUND [TRIALS]]]] "
                "(racks of 2 nodes or more, NODES a multiple of RACKS)\n");
        return 2;
    }
    printf("pairs stage at %d nodes in %d racks of %d, %.1f s per round (assumed), "
           "%d trials per fault kind\n", n, racks, per_rack, per_round, trials);
    printf("%-22s %6s %9s %8s %7s | %% of planted faults placed right\n", "plan", "rounds",
           "pairs", "time", "of all");
    printf("%-22s %6s %9s %8s %7s | %6s %6s %6s %6s %6s\n", "", "", "", "", "", kinds[0],
           kinds[1], kinds[2], kinds[3], kinds[4]);
    for (size_t k = 0; k < sizeof(inters) / sizeof(inters[0]); ++k) {
        int inter = inters[k], intra = inter < 0 ? 0 : 2;
        long full = (long)n * (n - 1) / 2;
        char name[48];
        plan_t pl;
        int rounds;

        if (inter >= fc_pairs_rounds(racks))
            continue;
        if (inter < 0)
            snprintf(name, sizeof(name), "full tournament");
        else
            snprintf(name, sizeof(name), "sampled 2 + %d%s", inter,
                     inter == log2n ? " (log2 n)" : "");
        fc_plan_build(&pl, racks, per_rack, intra, inter);
        rounds = inter < 0 ? fc_pairs_rounds(n) : intra + inter;
        {
            char when[32];
            double sec = rounds * per_round;

            if (sec < 3600)
                snprintf(when, sizeof(when), "%.0f s", sec);
            else
                snprintf(when, sizeof(when), "%.2f h", sec / 3600);
            printf("%-22s %6d %9d %8s %6.2f%% |", name, rounds, pl.npairs, when,
                   100.0 * pl.npairs / full);
        }
        for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); ++j) {
            /* the full matrix is 8 million pairs: fewer trials */
            int tr = inter < 0 ? (trials < 10 ? trials : 10) : trials;

            printf(" %6.1f", fc_detect(&pl, kinds[j], tr, &seed));
            fflush(stdout);
        }
        printf("\n");
        free(pl.a);
        free(pl.b);
    }
    printf("on paper: a NIC (slow with all k+2 partners), an uplink (all of its rack's pairs "
           "across the spine slow, its own fast) and a spine path between two racks (met by "
           "about %.1f pairs at inter = %d) are found with any inter >= %d; the path between "
           "two nodes only if that pair is sampled: (2 + inter) / (n - 1) = %.2f%% at "
           "inter = %d\n", (double)log2n * per_rack / fc_pairs_rounds(racks), log2n,
           (fc_pairs_rounds(racks) + per_rack - 1) / per_rack,
           100.0 * (2 + log2n) / (n - 1), log2n);
    return 0;
}
