/*
 * fc_runq.h - how long the calling thread has waited for a CPU: runnable,
 * but another task ran on its core (the kernel's run-queue delay,
 * /proc/thread-self/schedstat). A measurement whose ranks waited most of
 * its time for a CPU measured the host's processors, not the fabric: a
 * CPU-bound process sharing a rank's core holds each message for one of
 * its scheduler turns (about 4 ms here), which reads as a slow link in
 * the rounds and alone alike. The pairs stage reads it before and after
 * each timed exchange (outside the timed region), and its confirmation
 * judges a slow alone measurement again without it
 * (lib/pairs/fc_pairs_passes.c).
 */
#ifndef FC_RUNQ_H
#define FC_RUNQ_H

/* Seconds the calling thread has spent waiting on a run queue since it
 * started; -1 when the kernel does not say (no schedstat file). */
double fc_runq_wait_s(void);

/* The wait between two readings w0 and w1 of fc_runq_wait_s() (seconds,
 * 0 or more); -1 when either is -1. */
double fc_runq_between(double w0, double w1);

#endif
