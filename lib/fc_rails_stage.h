/*
 * fc_rails_stage.h - what the rails stage's program (suites/rails.c: one
 * rank per NIC, each rail's round-robin tournament on its own
 * communicator, every rail at once) and its judgement (lib/fc_rails_judge.c,
 * rank 0) share. Each rail is judged as the pairs stage judges nodes, by
 * the same functions (lib/fc_pairs_*.c) over an fc_pairs_run_t whose
 * endpoints are the rail's NICs, named "host:nic": a NIC slow with most of
 * its partners, confirmed alone, is named. Then the rails are compared
 * with each other (fc_rails_rule): a rail whose pairs of a path kind (same
 * rack, across the spine) are, as an upper median, slow beside another
 * rail's same pairs is its own leaf switches or uplinks, confirmed alone
 * against the other rail's same pair before it is named.
 */
#ifndef FC_RAILS_STAGE_H
#define FC_RAILS_STAGE_H

#include "fc_pairs_stage.h"
#include "fc_rails.h"

/* One side of one pair at one size on one rail (what each rank sends to
 * world rank 0 after a round or a probe). */
typedef struct fc_rail_side {
    fc_pair_side_t side;    /* median_s: this side's sending time */
    int32_t rail;
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
} fc_rails_run_t;

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
