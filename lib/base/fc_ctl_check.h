/*
 * fc_ctl_check.h - the values a control message from another rank may
 * hold, once its frame was opened (lib/base/fc_ctl_frame.h): the checksum says
 * the bytes arrived as sent, these say the sender sent something a rank
 * of fabcert can send, before anything indexes a table with them. MPI-free
 * (the fuzz target feeds them).
 */
#ifndef FC_CTL_CHECK_H
#define FC_CTL_CHECK_H

#include "fc_engine.h"
#include "fc_localise.h"
#include "fc_pairs_stage.h"

/* A point's summary from another rank (nranks: the world's): a
 * placeholder (valid 0), or ranks in range, counts that fit, strings
 * ended, a status fabcert has. */
int fc_ctl_summary_ok(const fc_point_summary_t *s, int nranks);
/* One side of a pair (nnodes nodes, nsizes sizes): a placeholder, or
 * nodes and size in range, valid 1, its samples' count. */
int fc_ctl_side_ok(const fc_pair_side_t *s, int nnodes, int nsizes);
/* One direction of a retest's checked exchange (nranks ranks): none
 * (iters 0, ranks -1 or in range, nothing wrong), or ranks in range, wrong
 * buffers at most the buffers, wrong elements exactly when wrong buffers,
 * a time that is a number and not negative. */
int fc_ctl_exchange_ok(const fc_exchange_t *e, int nranks);

#endif
