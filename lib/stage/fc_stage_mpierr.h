/*
 * fc_stage_mpierr.h - what a stage rank does when an MPI call fails. The
 * default handler (MPI_ERRORS_ARE_FATAL) aborts the job without a word
 * the runner can read, and Open MPI names the first rank to end: when one
 * host's link dies hard, its healthy peers' calls fail and one of them,
 * an observer, took the blame and the quarantine. Installed on
 * MPI_COMM_WORLD right after MPI_Init (so every communicator the stage
 * derives from it inherits it), this handler has the rank say that its
 * call failed and on what (the FABCERT-MPIERR line, lib/base/fc_watchdog.h),
 * then ends the job as the default would (MPI_Abort). The runner takes
 * such ranks for observers and places the fault with its point-to-point
 * probe (runners/fc_diagnose_crash.c).
 */
#ifndef FC_STAGE_MPIERR_H
#define FC_STAGE_MPIERR_H

/* After MPI_Init and fc_watchdog_start, before any communicator is made. */
void fc_stage_catch_mpi_errors(void);

#endif
