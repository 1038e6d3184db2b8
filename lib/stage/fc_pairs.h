/*
 * fc_pairs.h - the pairs stage's schedule and its localisation rule, kept
 * apart from MPI so that both are unit-tested.
 *
 * Schedule: the round-robin tournament ("circle method"). With n nodes
 * (n even) there are n-1 rounds of n/2 disjoint pairs and every pair of
 * nodes meets exactly once; with n odd, n rounds, one node sitting out
 * each. So the whole n x n matrix costs O(n) rounds of concurrent pairs.
 *
 * Localisation: a pair is slow when it fails its limits or the relative
 * rule. A node slow with more than half of its partners (and at least two)
 * implicates its own NIC or link; a slow pair between two nodes neither of
 * which is implicated implicates the path between them.
 */
#ifndef FC_PAIRS_H
#define FC_PAIRS_H

/* Rounds needed for n nodes: n-1 (n even), n (n odd), 0 for n < 2. */
int fc_pairs_rounds(int n);

/* The node that `node` meets in `round`, or -1 when it sits out. */
int fc_pairs_partner(int n, int round, int node);

typedef enum fc_pair_part {
    FC_PAIR_OK = 0,         /* not slow */
    FC_PAIR_NODE_A,         /* explained by node a's NIC or link */
    FC_PAIR_NODE_B,         /* explained by node b's NIC or link */
    FC_PAIR_PATH,           /* the path between a and b */
} fc_pair_part_t;

/* Given npairs pairs (a[i], b[i]) over n nodes and which are slow, set
 * node_bad[n] (1 when the node's NIC or link is implicated, with
 * node_slow[n] and node_partners[n] counts) and part[npairs]. */
void fc_pairs_localise(int n, int npairs, const int *a, const int *b,
                       const int *slow, int *node_bad, int *node_slow,
                       int *node_partners, fc_pair_part_t *part);

#endif
