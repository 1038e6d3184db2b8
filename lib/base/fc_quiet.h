/*
 * fc_quiet.h - MPI waits that do not spin, for ranks that only wait while
 * others measure. Open MPI polls while it waits (mpi_yield_when_idle only
 * yields between polls), so on hosts whose cores the measured ranks share
 * (the virtual cluster's two cores, a node where ranks outnumber cores)
 * every waiting rank competes with the ones being timed: an "alone" probe
 * of two ranks ran beside ten pollers and was slowed up to twelve-fold,
 * then blamed on the pair. These waits test the request and sleep between
 * tests (50 us, doubling to 500 us): a waiter uses a few percent of a core,
 * enough for the hang diagnosis (runners/fc_diagnose_stuck.c) to tell it
 * from a stopped process, and leaves the rest to the measured ranks.
 * Used only where a rank waits for others' measurement (the pairs stage's
 * rounds and probes, the stages' gathers of point summaries and the
 * sweep confirmation alone); never inside a timed region. A checked
 * control exchange (lib/base/fc_ctl.h) stays a blocking call: a quiet barrier
 * before it lets every rank arrive without polling, then it completes at
 * once. Every wait is bounded by the stage's watchdog, as a blocking call
 * is.
 */
#ifndef FC_QUIET_H
#define FC_QUIET_H

#include <mpi.h>

/* MPI_Wait(req) without spinning. */
void fc_quiet_wait(MPI_Request *req);
/* MPI_Barrier, waited for quietly. */
void fc_quiet_barrier(MPI_Comm comm);
/* Sleep s seconds (none when 0 or less), a signal's interruption resumed:
 * rank 0's pause before measuring again one a host's CPU held, while the
 * others wait quietly. */
void fc_quiet_sleep(double s);

#endif
