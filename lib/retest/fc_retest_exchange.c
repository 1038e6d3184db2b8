/*
 * fc_retest_exchange.c - see fc_retest_exchange.h. The receive buffer is
 * filled with a byte no pattern holds before each exchange, so a message
 * that never arrived is wrong too.
 */
#include "fc_retest_exchange.h"

#include <mpi.h>
#include <string.h>

#include "fc_stats.h"

void fc_retest_exchange(const fc_pattern_t pat[2], int me, int partner, long iters, int set0,
                        int32_t *const sendbuf[2], int32_t *recvbuf, size_t count,
                        fc_exchange_t *ex)
{
    double times[1000];

    if (iters > 1000)
        iters = 1000;
    ex->sender = partner;
    ex->receiver = me;
    for (long it = 0; it < iters; ++it) {
        fc_mismatch_t m = { 0, 0, 0, 0 };
        int set = (int)((set0 + it) % 2);
        double t0;

        memset(recvbuf, 0xA5, count * sizeof(int32_t));
        t0 = MPI_Wtime();
        MPI_Sendrecv(sendbuf[set], (int)count, MPI_INT32_T, partner, FC_RETEST_TAG,
                     recvbuf, (int)count, MPI_INT32_T, partner, FC_RETEST_TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        times[it] = MPI_Wtime() - t0;
        fc_cpu_verify(&pat[set], partner, 0, recvbuf, count, 0, &m);
        ex->iters++;
        if (m.wrong == 0)
            continue;
        if (ex->wrong == 0) {
            ex->first_index = m.first_pos;
            ex->expected = m.expected_bits;
            ex->actual = m.actual_bits;
        }
        ex->wrong += m.wrong;
        ex->wrong_iters++;
    }
    ex->seconds = iters > 0 ? fc_stats_median(times, (size_t)iters) : 0;
}
