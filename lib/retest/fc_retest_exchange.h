/*
 * fc_retest_exchange.h - one checked point-to-point exchange of the
 * retests (suites/retest.c after a stage, suites/retest_hosts.c on the
 * hosts common to every wrong result): both ranks send a known pattern
 * with MPI_Sendrecv, and what arrived is checked bitwise against the
 * partner's pattern. The two input sets alternate, so a buffer delivered
 * again (a stale copy) is wrong for the set it stands in for.
 */
#ifndef FC_RETEST_EXCHANGE_H
#define FC_RETEST_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "fc_kernels.h"
#include "fc_localise.h"

#define FC_RETEST_TAG 4343

/* Exchange with partner `iters` times (at most 1000) on MPI_COMM_WORLD,
 * input set (set0 + it) % 2 each time (sendbuf[k] holds this rank's
 * pattern pat[k]); what this rank received is added into *ex (sender the
 * partner, receiver me; buffers, wrong buffers and elements, the first
 * wrong element, the median time of this call's exchanges). MPI errors are
 * fatal (the world's default handler): the runner records a retest that
 * died as such. */
void fc_retest_exchange(const fc_pattern_t pat[2], int me, int partner, long iters, int set0,
                        int32_t *const sendbuf[2], int32_t *recvbuf, size_t count,
                        fc_exchange_t *ex);

#endif
