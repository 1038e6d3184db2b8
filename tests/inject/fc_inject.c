/*
 * fc_inject.c - a fault injector for the end-to-end tests, planted from
 * outside the code under test: a shared library that interposes on the
 * MPI calls the stage programs measure (the MPI profiling interface: each
 * MPI_X here calls PMPI_X), loaded into every rank with
 *   fabcert run --env LD_PRELOAD=$PWD/build/libfc_inject.so --env FC_INJECT_...
 * and acting only on the ranks of one host. It never touches the stage's
 * own buffers after a call, so what the suite sees is what a faulty node
 * would do to its peers: the blame has to be found through the fabric.
 *
 * Configuration (environment; unset means "off"):
 *   FC_INJECT_HOST    the host whose ranks misbehave (gethostname); required
 *   FC_INJECT_RANK    only this world rank of that host (default: all of them)
 *   FC_INJECT_MODE    corrupt-send  flip one bit of what the rank sends (a
 *                                   scratch copy: its own buffer stays right)
 *                     kill          SIGKILL itself at the chosen call
 *                     stop          never return from the chosen call (alive,
 *                                   sleeping; signals still end it)
 *                     delay         sleep FC_INJECT_DELAY_US before every
 *                                   matching call (a slow rank)
 *                     error         the chosen call runs, then returns
 *                                   MPI_ERR_OTHER (that call only): a call
 *                                   that reports a failure to its caller
 *   FC_INJECT_PROGRAM only in this stage program (basename, e.g. "cluster")
 *   FC_INJECT_COLL    comma list of calls that count: allreduce, allgather,
 *                     reduce_scatter, bcast, alltoall, sendrecv, send
 *                     (default: all of them)
 *   FC_INJECT_CALL    act from the Nth matching call on (kill and stop: at
 *                     it); default 1
 *   FC_INJECT_TIMES   corrupt-send and delay: act on this many matching calls
 *                     only, then behave (an intermittent fault; counted per
 *                     process, so a new program starts counting again);
 *                     default 0, no end
 *   FC_INJECT_MIN_BYTES  calls smaller than this do not match (default 4096)
 *   FC_INJECT_DELAY_US   for delay (default 20000)
 *   FC_INJECT_INDEX, FC_INJECT_BIT  which element's bit corrupt-send flips
 *                     (default: element 0, bit 0 of its first byte)
 * Calls on MPI_BYTE and MPI_CHAR data never match: those are the stages'
 * control messages (profiles, reports), not the measured data.
 * Each action is announced once on stderr ("fc_inject: HOST rank R: ...").
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum fc_inject_mode { FC_INJECT_OFF, FC_INJECT_CORRUPT, FC_INJECT_KILL,
                      FC_INJECT_STOP, FC_INJECT_DELAY, FC_INJECT_ERROR };

static struct {
    int configured;
    enum fc_inject_mode mode;
    char colls[256];
    long call_at, times, min_bytes, delay_us, index, bit;
    long calls;                     /* matching calls seen */
    int announced;
    int fail_pending;               /* error: the current call reports one */
    char host[256];
} fc_inj;

static long fc_env_long(const char *name, long dflt)
{
    const char *v = getenv(name);

    return v && *v ? strtol(v, NULL, 10) : dflt;
}

static void fc_inject_configure(void)
{
    const char *host = getenv("FC_INJECT_HOST");
    const char *mode = getenv("FC_INJECT_MODE");
    const char *prog = getenv("FC_INJECT_PROGRAM");
    const char *rank = getenv("FC_INJECT_RANK");
    int world_rank = -1;

    fc_inj.configured = 1;
    fc_inj.mode = FC_INJECT_OFF;
    if (host == NULL || mode == NULL)
        return;
    gethostname(fc_inj.host, sizeof(fc_inj.host) - 1);
    if (strcmp(host, fc_inj.host) != 0)
        return;
    if (prog && *prog && strcmp(prog, program_invocation_short_name) != 0)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (rank && *rank && atoi(rank) != world_rank)
        return;
    if (strcmp(mode, "corrupt-send") == 0)
        fc_inj.mode = FC_INJECT_CORRUPT;
    else if (strcmp(mode, "kill") == 0)
        fc_inj.mode = FC_INJECT_KILL;
    else if (strcmp(mode, "stop") == 0)
        fc_inj.mode = FC_INJECT_STOP;
    else if (strcmp(mode, "delay") == 0)
        fc_inj.mode = FC_INJECT_DELAY;
    else if (strcmp(mode, "error") == 0)
        fc_inj.mode = FC_INJECT_ERROR;
    else
        fprintf(stderr, "fc_inject: FC_INJECT_MODE '%s' unknown; injecting nothing\n", mode);
    snprintf(fc_inj.colls, sizeof(fc_inj.colls), ",%s,",
             getenv("FC_INJECT_COLL") ? getenv("FC_INJECT_COLL") : "");
    fc_inj.call_at = fc_env_long("FC_INJECT_CALL", 1);
    fc_inj.times = fc_env_long("FC_INJECT_TIMES", 0);
    fc_inj.min_bytes = fc_env_long("FC_INJECT_MIN_BYTES", 4096);
    fc_inj.delay_us = fc_env_long("FC_INJECT_DELAY_US", 20000);
    fc_inj.index = fc_env_long("FC_INJECT_INDEX", 0);
    fc_inj.bit = fc_env_long("FC_INJECT_BIT", 0);
}

static void fc_inject_say(const char *what, const char *coll)
{
    int rank = -1;

    if (fc_inj.announced)
        return;
    fc_inj.announced = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "fc_inject: %s rank %d: %s at %s call %ld (pid %d)\n",
            fc_inj.host, rank, what, coll, fc_inj.calls, (int)getpid());
    fflush(stderr);
}

/* Does this call count? Then act on it: kill, stop and delay happen here;
 * returns 1 when the caller should corrupt what it sends. */
static int fc_inject_call(const char *coll, int count, MPI_Datatype dt)
{
    char key[64];
    int size = 0;

    if (!fc_inj.configured)
        fc_inject_configure();
    if (fc_inj.mode == FC_INJECT_OFF || dt == MPI_BYTE || dt == MPI_CHAR)
        return 0;
    snprintf(key, sizeof(key), ",%s,", coll);
    if (strcmp(fc_inj.colls, ",,") != 0 && strstr(fc_inj.colls, key) == NULL)
        return 0;
    PMPI_Type_size(dt, &size);
    if ((long)count * size < fc_inj.min_bytes)
        return 0;
    if (++fc_inj.calls < fc_inj.call_at)
        return 0;
    if (fc_inj.times > 0 && fc_inj.calls >= fc_inj.call_at + fc_inj.times)
        return 0;
    switch (fc_inj.mode) {
    case FC_INJECT_KILL:
        fc_inject_say("SIGKILL", coll);
        raise(SIGKILL);
        return 0;
    case FC_INJECT_STOP:
        fc_inject_say("stopping forever", coll);
        for (;;) {
            struct timespec ts = { 1, 0 };

            nanosleep(&ts, NULL);
        }
    case FC_INJECT_DELAY: {
        struct timespec ts = { fc_inj.delay_us / 1000000, (fc_inj.delay_us % 1000000) * 1000 };

        fc_inject_say("delaying", coll);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        return 0;
    }
    case FC_INJECT_CORRUPT:
        fc_inject_say("corrupting what it sends", coll);
        return (long)count * size > 0;
    case FC_INJECT_ERROR:
        if (fc_inj.calls == fc_inj.call_at) {
            fc_inject_say("returning MPI_ERR_OTHER", coll);
            fc_inj.fail_pending = 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* The return code of a wrapped call: the library's, or MPI_ERR_OTHER
 * once when error mode chose this call. */
static int fc_inject_rc(int rc)
{
    if (!fc_inj.fail_pending)
        return rc;
    fc_inj.fail_pending = 0;
    return MPI_ERR_OTHER;
}

/* A scratch copy of the send buffer with one bit flipped; the caller frees
 * it. Sends of rank-local data only: the rank's own buffer is untouched. */
static void *fc_inject_corrupt_copy(const void *buf, int count, MPI_Datatype dt)
{
    int size = 0;
    unsigned char *copy;
    long at;

    PMPI_Type_size(dt, &size);
    copy = malloc((size_t)count * size);
    if (copy == NULL)
        return NULL;
    memcpy(copy, buf, (size_t)count * size);
    at = (fc_inj.index % count) * size + fc_inj.bit / 8 % size;
    copy[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    return copy;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm)
{
    void *bad = NULL;
    int rc;

    if (fc_inject_call("allreduce", count, dt) && sendbuf != MPI_IN_PLACE)
        bad = fc_inject_corrupt_copy(sendbuf, count, dt);
    rc = PMPI_Allreduce(bad ? bad : sendbuf, recvbuf, count, dt, op, comm);
    free(bad);
    return fc_inject_rc(rc);
}

int MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                  int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    void *bad = NULL;
    int rc;

    if (fc_inject_call("allgather", scount, sdt) && sendbuf != MPI_IN_PLACE)
        bad = fc_inject_corrupt_copy(sendbuf, scount, sdt);
    rc = PMPI_Allgather(bad ? bad : sendbuf, scount, sdt, recvbuf, rcount, rdt, comm);
    free(bad);
    return fc_inject_rc(rc);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int rcount,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    void *bad = NULL;
    int n = 1, rc;

    PMPI_Comm_size(comm, &n);
    if (fc_inject_call("reduce_scatter", rcount * n, dt) && sendbuf != MPI_IN_PLACE)
        bad = fc_inject_corrupt_copy(sendbuf, rcount * n, dt);
    rc = PMPI_Reduce_scatter_block(bad ? bad : sendbuf, recvbuf, rcount, dt, op, comm);
    free(bad);
    return fc_inject_rc(rc);
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                 int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    void *bad = NULL;
    int n = 1, rc;

    PMPI_Comm_size(comm, &n);
    if (fc_inject_call("alltoall", scount * n, sdt) && sendbuf != MPI_IN_PLACE)
        bad = fc_inject_corrupt_copy(sendbuf, scount * n, sdt);
    rc = PMPI_Alltoall(bad ? bad : sendbuf, scount, sdt, recvbuf, rcount, rdt, comm);
    free(bad);
    return fc_inject_rc(rc);
}

/* Broadcast is in place: the root's buffer is what it sends. The root
 * flips the bit for the call and flips it back after, so its own copy is
 * right and every other rank receives the wrong bit. */
int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank = -1, size = 0, rc, flip;
    long at = 0;

    PMPI_Comm_rank(comm, &rank);
    flip = fc_inject_call("bcast", count, dt) && rank == root && count > 0;
    if (flip) {
        PMPI_Type_size(dt, &size);
        at = (fc_inj.index % count) * size + fc_inj.bit / 8 % size;
        ((unsigned char *)buf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    }
    rc = PMPI_Bcast(buf, count, dt, root, comm);
    if (flip)
        ((unsigned char *)buf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    return fc_inject_rc(rc);
}

int MPI_Sendrecv(const void *sendbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                 void *recvbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    void *bad = NULL;
    int rc;

    if (fc_inject_call("sendrecv", scount, sdt))
        bad = fc_inject_corrupt_copy(sendbuf, scount, sdt);
    rc = PMPI_Sendrecv(bad ? bad : sendbuf, scount, sdt, dest, stag, recvbuf, rcount, rdt,
                       source, rtag, comm, status);
    free(bad);
    return fc_inject_rc(rc);
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    void *bad = NULL;
    int rc;

    if (fc_inject_call("send", count, dt))
        bad = fc_inject_corrupt_copy(buf, count, dt);
    rc = PMPI_Send(bad ? bad : buf, count, dt, dest, tag, comm);
    free(bad);
    return fc_inject_rc(rc);
}
