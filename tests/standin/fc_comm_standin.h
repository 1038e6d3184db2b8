/*
 * fc_comm_standin.h - a stand-in for one rank's CUDA stream and NCCL
 * communicator, behind the same two tables the nccl backend gives
 * lib/gpu/fc_gpu_wait.h and lib/gpu/fc_gpu_agree.h, so the protocol by
 * which ranks fail together is tested on a host without a GPU
 * (tests/gpu/gpu_agree.c, tests/e2e/gpu_agree.t). Each rank is given the
 * scenario of every rank ("ok,hang,ok": a comma list, one word per rank):
 *   ok        the call completes 20 ms after the gate opens, if every rank
 *             is ok or slow; otherwise it never completes (a collective
 *             with a missing or broken peer does not finish, as in NCCL)
 *   slow      like ok, after 300 ms
 *   hang      never completes (a wedged GPU or link)
 *   error     the stream reports an error 10 ms after the gate opens
 *   async     the communicator reports an asynchronous error after 30 ms
 *   enqueue   the call could not be enqueued
 *   initfail  ncclCommInitRank failed on this rank
 *   localfail a local step (fill, verify) failed on this rank after the call
 * and counts what the protocol did to it: gate releases, aborts, destroys.
 */
#ifndef FC_COMM_STANDIN_H
#define FC_COMM_STANDIN_H

#include "gpu/fc_gpu_agree.h"

typedef struct fc_comm_standin {
    char mine[16];          /* this rank's scenario */
    int all_ok;             /* every rank's scenario lets a call complete */
    double released_at;     /* when the gate opened (0: not yet) */
    int releases, aborts, destroys;
} fc_comm_standin_t;

extern const fc_gpu_wait_ops_t fc_standin_wait_ops;
extern const fc_gpu_comm_ops_t fc_standin_comm_ops;

/* This rank's stand-in from the scenario list; 0, or -1 if the list has
 * no word for rank. */
int fc_standin_init(fc_comm_standin_t *s, const char *scenarios, int rank);
/* Ready for the next call (the gate closed again). */
void fc_standin_rearm(fc_comm_standin_t *s);

#endif
