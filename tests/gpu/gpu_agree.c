/*
 * gpu_agree.c - the GPU ranks' failure protocol (lib/gpu/fc_gpu_agree.c)
 * run on the host under mpirun with the stand-in communicator of
 * tests/standin/fc_comm_standin.c: an init (agreed; aborted on failure),
 * two calls and the end, exactly as the nccl backend makes them. Usage:
 *     mpirun -np N build/tests/gpu_agree SCENARIOS TIMEOUT_S
 * Rank 0 prints one line per rank:
 *     rank R: init=S call1=S call2=S releases=N aborts=N destroys=N seconds=T
 * and tests/e2e/gpu_agree.t checks them: every rank ends with the same
 * outcome, a failure anywhere aborts every communicator exactly once and
 * destroys none, no rank waits longer than the timeout, and the program
 * ends (no rank is left in a collective its peers never reach).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_comm_standin.h"
#include "fc_log.h"

typedef struct fc_agree_report {
    int init, call1, call2, releases, aborts, destroys;
    double seconds;
} fc_agree_report_t;

int main(int argc, char **argv)
{
    fc_comm_standin_t s;
    fc_gpu_peer_t peer;
    fc_agree_report_t rep, *all = NULL;
    double timeout_s, t0;
    int rank, size;
    char host[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(host, sizeof(host), "standin%d", rank);
    fc_log_set_identity(host, rank);
    if (argc != 3 || fc_standin_init(&s, argv[1], rank) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N gpu_agree SCENARIOS TIMEOUT_S (a word per rank)\n");
        MPI_Finalize();
        return 2;
    }
    timeout_s = atof(argv[2]);
    /* FC_AGREE_NO_NOTICE=1: without early notices (each rank waits out its
     * own timeout), to show what they save */
    fc_gpu_peer_open(&peer, MPI_COMM_WORLD, "stand-in GPU");
    if (getenv("FC_AGREE_NO_NOTICE"))
        fc_gpu_peer_close(&peer);
    memset(&rep, 0, sizeof(rep));
    t0 = fc_gpu_wall();
    /* init: agreed; a failure anywhere aborts everywhere */
    rep.init = fc_gpu_agree(&peer, strcmp(s.mine, "initfail") == 0 ? FC_ERR_FAIL : FC_OK,
                            &fc_standin_comm_ops, &s, "ncclCommInitRank");
    rep.call1 = rep.call2 = -1;
    if (rep.init == FC_OK) {
        rep.call1 = fc_gpu_call(&peer, strcmp(s.mine, "enqueue") == 0 ? FC_ERR_FAIL : FC_OK,
                                &fc_standin_comm_ops, &fc_standin_wait_ops, &s, timeout_s,
                                "all_reduce");
        /* a local step failed after the call (argv names it "localfail") */
        if (strstr(argv[1], "localfail")) {
            char list[256], *save = NULL, *w;
            int r = 0;

            snprintf(list, sizeof(list), "%s", argv[1]);
            for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save), ++r)
                if (r == rank && strcmp(w, "localfail") == 0)
                    peer.failed = 1;
        }
        fc_standin_rearm(&s);
        rep.call2 = fc_gpu_call(&peer, FC_OK, &fc_standin_comm_ops, &fc_standin_wait_ops, &s,
                                timeout_s, "all_reduce");
        fc_gpu_fini(&peer, &fc_standin_comm_ops, &s);
    }
    rep.seconds = fc_gpu_wall() - t0;
    fc_gpu_peer_close(&peer);
    rep.releases = s.releases;
    rep.aborts = s.aborts;
    rep.destroys = s.destroys;
    if (rank == 0)
        all = calloc((size_t)size, sizeof(*all));
    MPI_Gather(&rep, sizeof(rep), MPI_BYTE, all, sizeof(rep), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; ++r)
            printf("rank %d: init=%s call1=%s call2=%s releases=%d aborts=%d destroys=%d "
                   "seconds=%.2f\n", r, fc_status_str((fc_status_t)all[r].init),
                   all[r].call1 < 0 ? "none" : fc_status_str((fc_status_t)all[r].call1),
                   all[r].call2 < 0 ? "none" : fc_status_str((fc_status_t)all[r].call2),
                   all[r].releases, all[r].aborts, all[r].destroys, all[r].seconds);
    free(all);
    MPI_Finalize();
    return 0;
}
