/*
 * fc_stage_counters.h - the link counters of every node of a stage over
 * one of its measuring intervals (a contention phase): the lowest rank of
 * each node snapshots its links (lib/fc_counters_interval.h) when the
 * interval opens and again when it closes, outside any timed region, and
 * rank 0 gathers the nodes' deltas into the record's "counters". With
 * counters.read false nothing is read and every call is a no-op (the
 * records carry no counters).
 */
#ifndef FC_STAGE_COUNTERS_H
#define FC_STAGE_COUNTERS_H

#include <jansson.h>

#include "fc_stage.h"

typedef struct fc_stage_ival {
    json_t *before;             /* this node's snapshot (its lowest rank) */
} fc_stage_ival_t;

/* The interval opens: the node's lowest rank snapshots its links. Local. */
void fc_stage_ival_open(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv);

/* The interval closes: the node's lowest rank snapshots again, and rank 0
 * gets the group of every host of the world (fc_interval_group: a host
 * that read nothing is in its not_read); the others, and every rank when
 * counters are not read, get NULL. Collective over MPI_COMM_WORLD. */
json_t *fc_stage_ival_close(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv);

#endif
