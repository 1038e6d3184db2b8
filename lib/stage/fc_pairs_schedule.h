/*
 * fc_pairs_schedule.h - the rounds the pairs stage runs, full or sampled,
 * over its nodes as the stage numbers them (one per host, in the order of
 * the hosts' first ranks), kept apart from MPI so that the stage
 * (suites/pairs.c), the report (reports/fc_verdict_sweep.c, which holds
 * the stage's pair records to this plan) and the unit test derive the
 * same pairs from the same inputs.
 *
 *   - full: the round-robin tournament (fc_pairs.h), every pair once;
 *   - sampled: the sampled plan (fc_pairs_sample.h) over the nodes laid
 *     out by rack: racks in the order of their first node, a rack's nodes
 *     in node order, every rack padded to the largest (a node whose
 *     partner slot is empty sits the round out). `partners` K is the
 *     rounds a node takes part in at most: 2 inside its rack (fewer when
 *     the rack's own tournament is shorter), the rest across racks (at
 *     most the rack-matchings), what does not fit on one side given to
 *     the other; K 0 is the default, fc_pairs_default_partners(n). Where
 *     the padding leaves a node fewer than 2 partners, rounds are added
 *     (inside racks first, then across) until none does or none is left:
 *     the K as used (`partners` below) is then larger than asked. Where
 *     there are two racks or more, one round at least goes across
 *     racks (K 2 gave 2 inside and none across: no rack's uplink was
 *     ever measured). Where a node still has one partner (a rack of one
 *     beside one other rack) or the sample would take more rounds than
 *     the full tournament, the schedule is the full one (sampled 0,
 *     full_why says why): every node then meets every other.
 *
 * The profile's pairs stage chooses with `mode: full | sampled | auto`
 * (auto: sampled above FC_PAIRS_AUTO_NODES nodes) and `partners: K`.
 */
#ifndef FC_PAIRS_SCHEDULE_H
#define FC_PAIRS_SCHEDULE_H

#include <stddef.h>

#include "fc_pairs_sample.h"

enum { FC_PAIRS_MODE_FULL = 0, FC_PAIRS_MODE_SAMPLED = 1, FC_PAIRS_MODE_AUTO = 2 };

/* mode: auto samples above this many nodes (the full tournament's n - 1
 * rounds are then an hour or more at a few seconds a round) */
#define FC_PAIRS_AUTO_NODES 64

typedef struct fc_pairs_schedule {
    int n;                  /* nodes */
    int sampled;            /* 1: the sampled plan, 0: the full tournament */
    int partners;           /* sampled: K as used (intra + inter) */
    int rounds;
    fc_pairs_sample_t plan; /* sampled: racks, per_rack, intra, inter */
    int *slot;              /* sampled: node -> its slot in the padded plan */
    int *node_of_slot;      /* sampled: slot -> node, or -1 (padding) */
    char full_why[96];      /* asked sampled, given the full matrix: why
                             * ("" otherwise) */
} fc_pairs_schedule_t;

/* K when the profile leaves it out: ceil(log2 n), at least 3 (the node
 * rule needs two slow partners of more than half). */
int fc_pairs_default_partners(int n);
/* The mode mode (FC_PAIRS_MODE_*) comes to for n nodes: full or sampled. */
int fc_pairs_mode_for(int mode, int n);
/* "full", "sampled", "auto" (FC_PAIRS_MODE_*). */
const char *fc_pairs_mode_name(int mode);

/* The schedule for n nodes (n >= 2) in racks rack[v] (any labels, equal
 * for nodes of one rack), mode FC_PAIRS_MODE_*, partners K (0: default).
 * 0, or -1 when no such plan exists (a message in why). */
int fc_pairs_schedule_init(fc_pairs_schedule_t *s, int n, const int *rack, int mode,
                           int partners, char *why, size_t len);
void fc_pairs_schedule_free(fc_pairs_schedule_t *s);
/* The rounds of that schedule, or 0 when there is none (fewer than 2
 * nodes). */
int fc_pairs_schedule_rounds(int n, const int *rack, int mode, int partners);
/* The fewest partners a node meets (full: n - 1). */
int fc_pairs_schedule_min_partners(const fc_pairs_schedule_t *s);
/* The node `node` meets in `round`, or -1 when it sits out. */
int fc_pairs_schedule_partner(const fc_pairs_schedule_t *s, int round, int node);
/* planned[a * n + b] = planned[b * n + a] = 1 for every pair the schedule
 * meets (n * n entries); returns the number of distinct pairs. */
long fc_pairs_schedule_pairs(const fc_pairs_schedule_t *s, unsigned char *planned);

#endif
