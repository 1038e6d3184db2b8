/*
 * fc_watchdog.h - the in-process watchdog that makes every stage end.
 *
 * Each rank starts one at stage start with the stage's timeout. The main
 * thread marks its progress (the point or round it is entering); if the
 * deadline passes, the watchdog thread prints one line on stderr,
 *
 *     FABCERT-WATCHDOG {"stage":..,"rank":..,"host":..,"index":..,"at":..}
 *
 * saying where this rank was stuck, waits a few seconds so that the other
 * ranks' lines get through mpirun, and ends the process with exit status 1.
 * A rank that is dead prints nothing, and one that was stopped prints late
 * (late_s, the seconds between its deadline and its report, gives it
 * away): the runner reads these lines, and the ranks of the stage that did
 * not report in time are the ones that did not arrive. The watchdog uses no MPI, so it works while MPI is stuck.
 */
#ifndef FC_WATCHDOG_H
#define FC_WATCHDOG_H

#include "fc_status.h"

#define FC_WATCHDOG_TAG "FABCERT-WATCHDOG "

fc_status_t fc_watchdog_start(double timeout_s, const char *stage, int rank,
                              const char *host);
/* Entering work item `index` (a point, a round), described by `what`. */
void fc_watchdog_progress(int index, const char *what);
void fc_watchdog_stop(void);

#endif
