/*
 * fc_peers.h - peer classes for the relative rules: a group (a node, a
 * rack, a pair of nodes) is compared only with groups of its own shape.
 *
 * Two groups are peers when they hold the same number of nodes and of
 * ranks, which also fixes their transport (one node: intra-node, shared
 * memory or NVLink; more: across the network), and, for pairs of nodes,
 * take the same kind of path (both inside one rack, or both across the
 * spine). A rack of 5 nodes and a rack of 1 are not peers: the first talks
 * over 5 NICs and the spine, the second over shared memory, and neither
 * says anything about the other's health.
 *
 * fc_peers_reference() gives each group the reference of its class (the
 * median of the figures of the class's *other* members that produced one,
 * or for pairs the upper median of the whole class) and a sentence naming
 * the class ("the median of the other 2 racks of 3 nodes x 2 ranks
 * (network)", "the other rack of 3 nodes x 2 ranks (network)"); a group
 * whose own figure is low never drags its reference down with it. A group
 * whose class holds no
 * other member with a figure gets no reference and the reason why, so a
 * relative rule that could not apply is said, never silently passed.
 * Pure functions, no MPI: tests/unit/peer_classes.c tests them.
 */
#ifndef FC_PEERS_H
#define FC_PEERS_H

#include <stddef.h>

#define FC_PEER_TEXT_MAX 256

typedef enum fc_peer_path {
    FC_PEER_PATH_NONE = 0,      /* a group of ranks, not a pair of nodes */
    FC_PEER_PATH_SAME_RACK,     /* a pair of nodes under one ToR */
    FC_PEER_PATH_SPINE,         /* a pair of nodes in different racks */
} fc_peer_path_t;

/* What makes two groups comparable. */
typedef struct fc_peer_shape {
    int nhosts;                 /* nodes in the group */
    int nranks;                 /* ranks in the group */
    fc_peer_path_t path;        /* pairs only; FC_PEER_PATH_NONE otherwise */
} fc_peer_shape_t;

/* One group's reference under the relative rule. */
typedef struct fc_peer_ref {
    int applies;                /* 1: reference is set and the rule judges */
    double reference;           /* the class's (upper) median, GB/s */
    int members;                /* members the reference is taken over (the
                                 * others, for the median) */
    char class_desc[FC_PEER_TEXT_MAX];  /* "the median of the other 8 nodes of
                                         * 1 node x 2 ranks (intra-node)" */
    char why_not[FC_PEER_TEXT_MAX];     /* !applies: why, as a sentence */
} fc_peer_ref_t;

typedef enum fc_peer_stat {
    FC_PEER_MEDIAN = 0,         /* groups: the median (mean of the middle two) */
    FC_PEER_UPPER_MEDIAN,       /* pairs: element n/2 of the sorted figures */
} fc_peer_stat_t;

/* "intra-node" for a one-node group, "network" otherwise. */
const char *fc_peer_transport(const fc_peer_shape_t *shape);
/* Same class: same nodes, ranks and path. */
int fc_peer_same_class(const fc_peer_shape_t *a, const fc_peer_shape_t *b);
/* The path of a pair of nodes from their racks (rack indexes). */
fc_peer_path_t fc_peer_pair_path(int rack_a, int rack_b);
/* "3 racks of 3 nodes x 2 ranks (network)", "13 pairs in the same rack";
 * kind names one group ("rack", "node", "pair", "group"); for one member
 * the count is left out ("rack of 1 node x 1 rank (intra-node)"). */
void fc_peer_class_text(const fc_peer_shape_t *shape, int members, const char *kind,
                        char *buf, size_t len);

/* For n groups: shapes[g], figures[g] and has_figure[g] (0: the group gave
 * no figure: it did not run, or its figure means nothing, e.g. a bus
 * factor of 0). out[g] gets the reference of g's class, computed over the
 * class members with a figure, when at least one other member has one;
 * otherwise applies = 0 and why_not says which. */
void fc_peers_reference(const fc_peer_shape_t *shapes, const double *figures,
                        const int *has_figure, int n, fc_peer_stat_t stat,
                        const char *kind, fc_peer_ref_t *out);

#endif
