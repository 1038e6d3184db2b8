/*
 * fc_rails_stage.h - what the rails stage's program (suites/rails.c: one
 * rank per NIC, each rail's round-robin tournament on its own
 * communicator, every rail at once) and its judgement (lib/rails/fc_rails_judge.c,
 * rank 0) share. Each rail is judged as the pairs stage judges nodes, by
 * the same functions (lib/pairs/fc_pairs_judge.c) over an fc_pairs_run_t whose
 * endpoints are the rail's NICs, named "host:nic": a NIC slow with most of
 * its partners, confirmed alone, is named. Then the rails are compared
 * with each other (fc_rails_rule): a rail whose pairs of a path kind (same
 * rack, across the spine) are, as an upper median, slow beside another
 * rail's same pairs is its own leaf switches or uplinks, confirmed alone
 * against the other rail's same pair before it is named.
 */
#ifndef FC_RAILS_STAGE_H
#define FC_RAILS_STAGE_H

#include "fc_nic_transport.h"
#include "fc_pairs_stage.h"
#include "fc_rails.h"

/* One side of one pair at one size on one rail (what each rank sends to
 * world rank 0 after a round or a probe). */
typedef struct fc_rail_side {
    fc_pair_side_t side;    /* median_s: this side's sending time; cpu_wait,
                             * free_median_s and calm: its waits for a CPU
                             * while it sent (with the gaps before) */
    double recv_wait;       /* the share of its receiving time it waited
                             * for a CPU (with the gaps), -1 not known ... */
    uint64_t recv_calm;     /* ... and its calm receives (fc_pairs_calm_bits):
                             * a receiver off its core slows its partner's
                             * sends, not its own */
    int32_t rail;
    int32_t wait_node;      /* joined (fc_rails_sides_joined): the node whose
                             * waits cpu_wait is, the sender's or the
                             * receiver's */
    int32_t failed;         /* the transport failed: why says how */
    char why[160];
} fc_rail_side_t;

/* The rail rule's finding on one rail and path kind (rank 0). */
typedef struct fc_rail_class {
    int rail, kind;         /* kind: 0 same rack, 1 across the spine */
    int size_index;
    double median;          /* this rail's upper median of the kind's pairs */
    double ref;             /* the best other rail's */
    int ref_rail, members;
    int slow;               /* below the allowed share of ref in the rounds */
    int pa, pb;             /* the pair measured alone to confirm it */
    int meas[3], nmeas;     /* FC_CONFIRM_MEAS_* of each alone measurement */
    double alone_bw[3], alone_ref[3];
    int decision;           /* fc_confirm_decision_t */
    int explained;          /* its rail's NICs explain the slow pairs at
                             * this size (fc_rails_rule): 1 NICs, named in
                             * suspect; 2 a NIC alone in its rack on the
                             * rail, which cannot be told from the rail */
    int fa, fb;             /* explained: a fast pair of the rail */
    double fast_bw;
} fc_rail_class_t;

typedef struct fc_rails_run {
    fc_stage_ctx_t *ctx;
    int nrails, nnodes;
    fc_pairs_run_t *rails;  /* rank 0: one per rail; their node_hosts are
                             * "host:nic" */
    char (*hosts)[FC_HOST_MAX];             /* rank 0: node v's host */
    char (*nics)[FC_RAIL_NIC_MAX];          /* rank 0: [rail * nnodes + v] */
    char (*pci)[32];                        /* rank 0: the same, "" unknown */
    double *dirbw;          /* rank 0: [((rail * n + from) * n + to) * nz + z] GB/s */
    char (*errs)[160];      /* rank 0: [rail * n + v]: the first transport
                             * failure seen by that NIC, "" none */
    fc_rail_class_t *classes;   /* rank 0: nrails * 2 * nsizes */
    unsigned char *undriven;    /* rank 0: [rail * n + v]: the transport
                                 * cannot drive that NIC (none found for
                                 * the rail, no address, no carrier) */
    unsigned char *flapped;     /* rank 0: [rail * n + v]: that NIC's link
                                 * went down and up during the stage */
    unsigned char *suspect; /* rank 0: [(rail * nz + z) * n + v]: NIC v
                             * slow with every partner, against the
                             * reference rails (fc_rails_rule's, its own) */
} fc_rails_run_t;

/* A rank's part in the stage (suites/rails.c): one NIC of one node. */
typedef struct fc_rails_local {
    fc_stage_ctx_t *ctx;
    const fc_nic_transport_t *tr;
    MPI_Comm rail_comm;
    int rail, node, nnodes, nrails;
    char nic[FC_RAIL_NIC_MAX];
    char pci[32];
    int usable;             /* the transport can drive the NIC */
    char why[FC_NIC_WHY_MAX];
    void *buf;
    size_t len;
    fc_rail_side_t *mine, *all;     /* nsizes; all: world_size * nsizes (rank 0) */
    fc_rails_run_t *rr;     /* rank 0 */
    double measure_max_s, round_max_s;
    int out_of_time;
} fc_rails_local_t;


/* lib/rails/fc_rails_measure.c. Both ranks of a pair: this NIC against
 * partner's (-1: none this round) at every size, into L->mine. */
void fc_rails_pair(fc_rails_local_t *L, int partner);
/* Every rank: L->mine to world rank 0's L->all. */
void fc_rails_gather(fc_rails_local_t *L);
/* Rank 0: one side merged into its pair (the slower direction is the
 * pair's; an empty pair: fc_pairs_pair_new); a round's sides into every
 * rail's tournament. */
void fc_rails_merge_side(fc_rails_run_t *rr, fc_pair_t *p, const fc_rail_side_t *rs);
/* The two sides x and y of one measurement as the pairs stage's rule 6
 * reads them (lib/pairs/fc_pairs_passes.c): each direction's sender side
 * with its receiver's waits joined to its own (x's sends held by y's
 * receives too): the calm iterations those calm on both, the wait share
 * the larger, the time without waits estimated from it where the
 * receiver's is the larger; unknown where either is. */
void fc_rails_sides_joined(const fc_rail_side_t *x, const fc_rail_side_t *y,
                           fc_rail_side_t *ox, fc_rail_side_t *oy);
void fc_rails_merge_round(fc_rails_local_t *L);

/* Rank 0: the rail rule's reference for every rail, kind and size, into
 * rr->classes (fc_rail_class_t.slow set). */
void fc_rails_rule(fc_rails_run_t *rr);
/* Rank 0: write rail r's pairs' records as the pairs stage writes them,
 * each endpoint "host:nic" split into host, nic, rail and pci, and a NIC
 * the confirmation blames quarantined for its rail alone (implicates part
 * "nic"); then one rail_nic record per NIC (its figures) and one rail
 * record per rail (the rail rule). Returns the failed checks. */
int fc_rails_report(fc_rails_run_t *rr);

#endif
