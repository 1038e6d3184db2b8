/*
 * nic_tcp_connect.c - the tcp NIC transport's connect over MPI (lib/
 * fc_nic_tcp.c, its set-up exchange lib/nic/fc_nic_transport.c): two ranks on
 * loopback ("lo"), the program starting itself under `mpirun -np 2` when
 * it was not started by one (a skip if mpirun cannot be run). Points:
 *   1. both connect: 1 MiB from rank 1 arrives at rank 0 bitwise;
 *   2. rank 1 never connects: rank 0's connect is a TIMEOUT by its deadline
 *      (1 s; the set-up exchange was a blocking MPI_Sendrecv, which waited
 *      for rank 1 however long), naming the NIC and the peer rank;
 *   3. rank 1 connects afterwards: it takes rank 0's abandoned set-up data,
 *      finds no listener and fails at once, no hang, before its deadline;
 *   4. both connect again: connected, bytes bitwise (the leftover message
 *      of rank 1's late connect is dropped, not taken for this one's).
 * TAP from rank 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "fc_nic_transport.h"
#include "fc_tap.h"

#define MIB (1u << 20)

static int rank;
static unsigned char *buf;

/* One connect of this rank's lo to the other's, deadline `wait` s from
 * now; with `bytes`, rank 1 then sends them; returns the status, the
 * seconds it took in *took and the wrong bytes rank 0 saw in *wrong. */
static fc_status_t one(double wait, size_t bytes, double *took, size_t *wrong, char *why)
{
    const fc_nic_transport_t *t = &fc_nic_transport_tcp;
    fc_nic_ep_t *ep = NULL;
    double t0 = MPI_Wtime();
    fc_status_t st;

    *wrong = 0;
    why[0] = '\0';
    for (size_t i = 0; i < MIB; ++i)
        buf[i] = rank == 1 ? (unsigned char)(i * 131u + 7) : 0;
    st = t->connect("lo", MPI_COMM_WORLD, 1 - rank, buf, MIB, t0 + wait, &ep, why,
                    FC_NIC_WHY_MAX);
    *took = MPI_Wtime() - t0;
    if (st == FC_OK && bytes > 0) {
        st = t->transfer(ep, rank == 1, bytes, MPI_Wtime() + 10, why, FC_NIC_WHY_MAX);
        for (size_t i = 0; rank == 0 && i < bytes; ++i)
            *wrong += buf[i] != (unsigned char)(i * 131u + 7);
    }
    if (ep != NULL)
        t->close(ep);
    return st;
}

int main(int argc, char **argv)
{
    char why[FC_NIC_WHY_MAX], late_why[FC_NIC_WHY_MAX] = "";
    fc_tap_t tap;
    fc_status_t st, late = FC_OK;
    double took, late_took = 0;
    size_t wrong;
    int r[2];

    if (getenv("OMPI_COMM_WORLD_SIZE") == NULL && getenv("PMIX_RANK") == NULL) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
        execlp("mpirun", "mpirun", "-np", "2", argv[0], (char *)NULL);
        printf("1..0 # SKIP mpirun could not be run\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = malloc(MIB);
    fc_tap_init(&tap, stdout, rank == 0);
    fc_tap_plan(&tap, 8);

    st = one(10, MIB, &took, &wrong, why);
    r[0] = st;
    MPI_Allreduce(MPI_IN_PLACE, r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    fc_tap_is_int(&tap, st, FC_OK, "both connect over lo: 1 MiB arrives bitwise (%zu wrong; %s)",
                  wrong, why);
    fc_tap_is_int(&tap, r[0], FC_OK, "both connect over lo: 1 MiB arrives bitwise (%zu wrong; %s)"
                  " [r[0]]", wrong, why);
    fc_tap_is_int(&tap, wrong, 0, "both connect over lo: 1 MiB arrives bitwise (%zu wrong; %s)"
                  " [wrong]", wrong, why);

    if (rank == 0)
        st = one(1.0, 0, &took, &wrong, why);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        late = one(3.0, 0, &late_took, &wrong, late_why);
    MPI_Bcast(&late, 1, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Bcast(&late_took, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    MPI_Bcast(late_why, FC_NIC_WHY_MAX, MPI_CHAR, 1, MPI_COMM_WORLD);
    fc_tap_ok(&tap, rank != 0 || (st == FC_ERR_TIMEOUT && took >= 0.99 && took < 1.8 &&
                                  strstr(why, "lo 127.0.0.1: connect to rank 1: ") &&
                                  strstr(why, "before the deadline")),
              "rank 1 never connects: rank 0's connect times out by its 1 s deadline (%.2f s, "
              "%s: %s)", took, fc_status_str(st), why);
    fc_tap_ok(&tap, late != FC_OK && late_took < 2.5,
              "rank 1 connects after rank 0 gave up: it fails, no hang (%.2f s of 3, %s: %s)",
              late_took, fc_status_str(late), late_why);

    st = one(10, MIB, &took, &wrong, why);
    r[0] = st;
    MPI_Allreduce(MPI_IN_PLACE, r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    fc_tap_is_int(&tap, st, FC_OK,
                  "then both connect again: connected, 1 MiB bitwise (%zu wrong; %s)", wrong, why);
    fc_tap_is_int(&tap, r[0], FC_OK,
                  "then both connect again: connected, 1 MiB bitwise (%zu wrong; %s)"
                  " [r[0]]", wrong, why);
    fc_tap_is_int(&tap, wrong, 0,
                  "then both connect again: connected, 1 MiB bitwise (%zu wrong; %s)"
                  " [wrong]", wrong, why);
    r[0] = fc_tap_done(&tap);
    MPI_Bcast(r, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return r[0];
}
