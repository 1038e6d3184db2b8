/*
 * fc_stage_counters.h - the link counters of every node of a stage over
 * one of its measuring intervals (a contention phase, a test point of the
 * rack and cluster stages, a soak window): the lowest rank of each node
 * snapshots its links (lib/counters/fc_counters_interval.h) when the interval opens
 * and again when it closes, outside any timed region, and rank 0 gathers
 * the nodes' deltas into the record's "counters" (of every host, or of the
 * hosts of one group). With counters.read false nothing is read and every
 * call is a no-op (the records carry no counters).
 */
#ifndef FC_STAGE_COUNTERS_H
#define FC_STAGE_COUNTERS_H

#include <jansson.h>

#include "fc_stage.h"

typedef struct fc_stage_ival {
    json_t *before;             /* this node's snapshot (its lowest rank) */
    const char *nic_pattern;    /* the links read */
    int on;                     /* read at all (the same on every rank) */
} fc_stage_ival_t;

/* The interval opens: the node's lowest rank snapshots its links (those
 * of counters.nic_pattern, if the stage reads counters and counters.read).
 * Local. */
void fc_stage_ival_open(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv);

/* The same, for the links of nic_pattern whatever the stage's counters:
 * (the soak's windows read soak.nic_pattern). Local. */
void fc_stage_ival_open_links(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv,
                              const char *nic_pattern);

/* The interval closes: the node's lowest rank snapshots again, and rank 0
 * gets the group of every host of the world (fc_interval_group: a host
 * that read nothing is in its not_read); the others, and every rank when
 * counters are not read, get NULL. Collective over MPI_COMM_WORLD. */
json_t *fc_stage_ival_close(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv);

/* Rank 0: a copy of a group's counters (fc_stage_ival_close) ready to be
 * judged with a record (fc_counters_check.h): its ranks_per_host those of
 * the measured ranks (rank_measures; every rank without it) of the group
 * of world rank r, and the stage's counters limits. */
json_t *fc_stage_ival_judged(const fc_stage_ctx_t *ctx, const json_t *counters, int r);

/* The same, but rank 0 gets each host's interval (by_host: {host:
 * interval}) for fc_stage_ival_group. Collective over MPI_COMM_WORLD. */
json_t *fc_stage_ival_close_hosts(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv);

/* Rank 0: the group (fc_interval_group) of the hosts of the world ranks r
 * with rank_first[r] == first (the world rank of their group's rank 0),
 * from by_host (fc_stage_ival_close_hosts), with "ranks_per_host": {host:
 * ranks of the group on it}; NULL when by_host is. */
json_t *fc_stage_ival_group(const fc_stage_ctx_t *ctx, const fc_stage_ival_t *iv,
                            const json_t *by_host, const int *rank_first, int first);

#endif
