/*
 * fc_quiet.c - see fc_quiet.h: the nonblocking call, then MPI_Test and a
 * short sleep until it completes.
 */
#include "fc_quiet.h"

#include <errno.h>
#include <time.h>

#define FC_QUIET_FIRST_NS 50000L    /* the first sleep between tests */
#define FC_QUIET_MAX_NS 500000L     /* the longest */

void fc_quiet_wait(MPI_Request *req)
{
    long ns = FC_QUIET_FIRST_NS;
    int done = 0;

    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = { 0, ns };

        nanosleep(&ts, NULL);
        if (ns < FC_QUIET_MAX_NS)
            ns = 2 * ns < FC_QUIET_MAX_NS ? 2 * ns : FC_QUIET_MAX_NS;
    }
}

void fc_quiet_barrier(MPI_Comm comm)
{
    MPI_Request req;

    MPI_Ibarrier(comm, &req);
    fc_quiet_wait(&req);
}

void fc_quiet_sleep(double s)
{
    struct timespec ts;

    if (s <= 0)
        return;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}
