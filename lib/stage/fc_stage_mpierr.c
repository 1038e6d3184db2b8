/*
 * fc_stage_mpierr.c - see fc_stage_mpierr.h: an MPI error handler that
 * speaks before it aborts.
 */
#include "fc_stage_mpierr.h"

#include <mpi.h>
#include <stdio.h>

#include "fc_log.h"
#include "fc_status.h"
#include "fc_watchdog.h"

static void fc_stage_on_mpi_error(MPI_Comm *comm, int *code, ...)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0, error_class = -1;

    (void)comm;
    MPI_Error_string(*code, text, &len);
    MPI_Error_class(*code, &error_class);
    fc_watchdog_mpi_error(text, error_class);
    fc_error("an MPI call failed (%s): this rank observed a fault and ends the job", text);
    MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
}

void fc_stage_catch_mpi_errors(void)
{
    MPI_Errhandler handler;

    if (MPI_Comm_create_errhandler(fc_stage_on_mpi_error, &handler) != MPI_SUCCESS)
        return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    MPI_Errhandler_free(&handler);
}
