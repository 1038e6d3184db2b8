/*
 * fc_inject.h - the injector's state and the helpers its MPI wrappers
 * share (tests/inject/fc_inject.c decides and configures, fc_inject_mpi.c
 * wraps the calls). The configuration is described at the top of
 * fc_inject.c.
 */
#ifndef FC_INJECT_H
#define FC_INJECT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum fc_inject_mode { FC_INJECT_OFF, FC_INJECT_CORRUPT, FC_INJECT_KILL,
                      FC_INJECT_STOP, FC_INJECT_DELAY, FC_INJECT_ERROR, FC_INJECT_NOOP,
                      FC_INJECT_STALE, FC_INJECT_SCRIBBLE, FC_INJECT_FAIL,
                      FC_INJECT_BLOCKING, FC_INJECT_TEST_WAITS, FC_INJECT_EXIT,
                      FC_INJECT_KILL_AT_END, FC_INJECT_CORRUPT_RECV,
                      FC_INJECT_FLIP_RECV, FC_INJECT_COUNT };

/* What a wrapper does with a matching call. */
enum fc_inject_act { FC_ACT_NONE = 0, FC_ACT_CORRUPT, FC_ACT_NOOP, FC_ACT_STALE,
                     FC_ACT_SCRIBBLE, FC_ACT_FAIL, FC_ACT_BLOCK, FC_ACT_CORRUPT_RECV };

typedef struct fc_inject_state {
    int configured;
    enum fc_inject_mode mode;
    char colls[256];
    long call_at, times, min_bytes, delay_us, index, bit, status;
    long every;                     /* act on every Nth matching call (0: each) */
    double prob;                    /* act with this probability (0: always) */
    uint64_t rng;                   /* its generator's state */
    long calls;                     /* matching calls seen */
    long acted;                     /* of those, the calls acted on */
    long received, flipped;         /* of them: with data received, bits
                                     * corrupt-recv flipped (the tally) */
    int matched;                    /* the current call is one of them */
    long max_bytes, recvs;          /* flip-recv, count: the calls counted */
    int announced;
    int fail_pending;               /* error: the current call reports one */
    char host[256];
    void *stale;                    /* stale: the previous call's data */
    size_t stale_bytes;
} fc_inject_state_t;

extern fc_inject_state_t fc_inj;

void fc_inject_configure(void);
void fc_inject_say(const char *what, const char *coll);
/* Does this call count? Then act on it (kill, stop and delay happen
 * inside); returns what the caller should do (enum fc_inject_act). */
int fc_inject_call(const char *coll, int count, MPI_Datatype dt);
int fc_inject_rc(int rc);
int fc_inject_fail(MPI_Comm comm);
void *fc_inject_stale_copy(const void *buf, int count, MPI_Datatype dt);
const void *fc_inject_send(int act, const void *buf, int count, MPI_Datatype dt,
                           void **copy_p);
long fc_inject_inplace(int act, const void *sendbuf, void *recvbuf, long first, int count,
                       MPI_Datatype dt);
/* corrupt-recv, after a call that delivered data into buf: flip the chosen
 * bit of element `first` + FC_INJECT_INDEX (modulo count) there. */
void fc_inject_recv(int act, void *buf, long first, int count, MPI_Datatype dt);
/* flip-recv and count, after a call `coll` delivered `bytes` bytes of type
 * dt into buf on this rank (any type: control messages included). */
void fc_inject_received(const char *coll, void *buf, long bytes, MPI_Datatype dt);
long fc_inject_size(MPI_Datatype dt);
/* FC_INJECT_TALLY: this process's counts, one line appended at the end. */
void fc_inject_tally(void);
/* The bytes a call with per-rank counts and displacements filled. */
long fc_inject_extent(const int *counts, const int *displs, int n, MPI_Datatype dt);

#endif
