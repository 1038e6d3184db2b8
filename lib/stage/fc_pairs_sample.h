/*
 * fc_pairs_sample.h - a sampled plan for the pairs stage at scale, kept
 * apart from MPI so that it is unit-tested and simulated
 * (bench/pairs_sample.c). The full tournament (fc_pairs.h) meets every
 * pair in n-1 rounds: 4,095 rounds at 4,096 nodes, hours, and 8.4 million
 * pair records. The sampled plan meets each node with a few partners,
 * chosen so that what the full matrix localises by its structure is still
 * seen:
 *
 *   - `intra` rounds inside each rack (the circle method on the rack's
 *     nodes): a node's own switch, so that a slow uplink (every pair
 *     across the spine slow, the rack's own fast) is told from slow NICs;
 *   - `inter` rounds across racks, in which the nodes of one rack meet
 *     nodes of as many different racks as the rack has nodes: in inter
 *     round j, node s of rack r meets node s of the rack that rack-matching
 *     m = (s * inter + j) mod M pairs r with, where rack-matchings are
 *     the M = R-1 rounds of the circle method on the R racks (R, when R is
 *     odd: a rack then sits out one matching). Each round is a perfect
 *     matching of the nodes; a node meets `inter` distinct racks (up to
 *     M), and each rack pair is met by about inter * per_rack / M node
 *     pairs (every one of them once inter >= M / per_rack).
 *
 * A node's NIC is judged by the stage's rule (slow with more than half of
 * its partners, at least two) and a rack's uplink by the rack rule, on
 * the pairs that ran; a fault between two nodes only (one cable of a path)
 * is seen only if that pair is sampled. bench/pairs_sample prints rounds,
 * pairs and the detection rates on paper and in simulation.
 *
 * Racks of equal size only (per_rack nodes each, node i in rack
 * i / per_rack); uneven racks are padded with absent nodes (a node whose
 * partner is absent sits the round out).
 */
#ifndef FC_PAIRS_SAMPLE_H
#define FC_PAIRS_SAMPLE_H

typedef struct fc_pairs_sample {
    int racks;          /* R */
    int per_rack;       /* nodes per rack */
    int intra;          /* rounds inside racks */
    int inter;          /* rounds across racks */
} fc_pairs_sample_t;

/* intra + inter (the rounds; an inter round count above the number of
 * rack-matchings repeats partners and is refused by fc_pairs_sample_ok). */
int fc_pairs_sample_rounds(const fc_pairs_sample_t *p);
/* 1 if the plan is usable: at least 1 rack, 2 nodes, 1 round; intra at
 * most the rack's own tournament, inter at most the rack-matchings. */
int fc_pairs_sample_ok(const fc_pairs_sample_t *p);
/* The node `node` meets in `round`, or -1 when it sits out. */
int fc_pairs_sample_partner(const fc_pairs_sample_t *p, int round, int node);

#endif
