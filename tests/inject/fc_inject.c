/*
 * fc_inject.c - a fault injector for the end-to-end tests, planted from
 * outside the code under test: a shared library that interposes on the
 * MPI calls the stage programs measure (the MPI profiling interface: each
 * MPI_X here calls PMPI_X), loaded into every rank with
 *   fabcert run --env LD_PRELOAD=$PWD/build/libfc_inject.so --env FC_INJECT_...
 * and acting only on the ranks of one host. It never touches the stage's
 * own buffers after a call (but for scribble, which is a call writing
 * where it must not), so what the suite sees is what a faulty node would
 * do to its peers: the blame has to be found through the fabric.
 *
 * Configuration (environment; unset means "off"):
 *   FC_INJECT_HOST    the host whose ranks misbehave (gethostname), or "*"
 *                     for every host (a load the whole machine shares);
 *                     required
 *   FC_INJECT_RANK    only this world rank of that host (default: all of them)
 *   FC_INJECT_MODE    corrupt-send  flip one bit of what the rank sends (a
 *                                   scratch copy: its own buffer stays right;
 *                                   in place (MPI_IN_PLACE), the bit is
 *                                   flipped in its contribution inside the
 *                                   recv buffer before the call, and its own
 *                                   all_gather block flipped back after)
 *                     kill          SIGKILL itself at the chosen call
 *                     exit          _exit(FC_INJECT_STATUS, default 2) at the
 *                                   chosen call: a library on that node
 *                                   ending the process with a status (2 is
 *                                   also what a stage that rejects its input
 *                                   returns: a death must not read as that)
 *                     kill-at-end   SIGKILL itself in MPI_Finalize, after the
 *                                   stage wrote its end (every check done):
 *                                   a process that dies as the stage ends
 *                     stop          never return from the chosen call (alive,
 *                                   sleeping; signals still end it)
 *                     delay         sleep FC_INJECT_DELAY_US before every
 *                                   matching call (a slow rank)
 *                     error         the chosen call runs, then returns
 *                                   MPI_ERR_OTHER (that call only): a call
 *                                   that reports a failure to its caller
 *                     fail          the chosen call does not run: the
 *                                   communicator's error handler is called
 *                                   with MPI_ERR_OTHER, as the library does
 *                                   when a transport error hits a call (a
 *                                   peer's link died); the default handler
 *                                   aborts the job. Plant it on a healthy
 *                                   host: the observer of a fault
 *                     noop          the matching calls return success at once
 *                                   and write nothing (a transport that drops
 *                                   the operation); plant it on every rank of
 *                                   the job (one host) or the others wait
 *                     stale         send what the previous matching call of
 *                                   the same size sent (a transport that
 *                                   re-sends a stale copy of the buffer)
 *                     blocking      MPI_Iallreduce runs to completion inside
 *                                   the call (as MPI_Allreduce) and returns a
 *                                   finished request: a transport that moves
 *                                   data only inside a blocking call, so
 *                                   nothing overlaps the caller's compute
 *                                   (the calls count as "iallreduce")
 *                     test-waits    MPI_Test waits for the request
 *                                   (PMPI_Wait) and reports it finished: a
 *                                   progress engine that moves the whole
 *                                   collective inside the first poll,
 *                                   serially with the caller's compute,
 *                                   while the wall times stay those of an
 *                                   overlap (no other variable counts)
 *                     flip-recv     flip one bit of what this rank received in
 *                                   the Nth call that delivered it at most
 *                                   FC_INJECT_MAX_BYTES (FC_INJECT_CALL; once),
 *                                   of any datatype, MPI_BYTE and MPI_CHAR
 *                                   included: a control message (a status, a
 *                                   count, a gathered report, the profile)
 *                                   changed on the way in. Byte FC_INJECT_INDEX
 *                                   of what arrived (modulo its size; default
 *                                   the middle one), bit FC_INJECT_BIT % 8.
 *                                   Counted: bcast (off the root), gather,
 *                                   gatherv and reduce (on the root),
 *                                   allgather, allgatherv, allreduce,
 *                                   alltoall, reduce_scatter, sendrecv, recv
 *                     count         flip nothing; say each call that
 *                                   flip-recv counts (its number, the call,
 *                                   its bytes and datatype) on stderr
 *                                   ("fc_inject: HOST rank R: receive N: ..."),
 *                                   and the total in MPI_Finalize
 *                     scribble      MPI_Reduce off the root: flip one bit
 *                                   (FC_INJECT_INDEX, FC_INJECT_BIT) of the
 *                                   recv buffer, which the call must leave
 *                                   alone (a transport writing where it
 *                                   must not); only the calls on which the
 *                                   rank is not the root count
 *                     flip-coll     after the call, flip one bit (FC_INJECT_INDEX,
 *                                   FC_INJECT_BIT) of what this rank received
 *                                   in it: element INDEX of the part of the
 *                                   output a peer wrote (all_gather and
 *                                   all_to_all: the next rank's block; a
 *                                   reduce off the root and a broadcast's
 *                                   root receive nothing, and nothing is
 *                                   flipped there), as a NIC or a link that
 *                                   corrupts a message after its checksum
 *                                   would; every matching call counts,
 *                                   whether or not the rank receives in it;
 *                                   the measured data, where flip-recv is any
 *                                   message received
 *                     count-coll    nothing but the tally (FC_INJECT_TALLY)
 *   FC_INJECT_TALLY   a file to which each process whose injection is on
 *                     appends one line at MPI_Finalize: "PROGRAM HOST RANK
 *                     calls=C received=R flipped=F": the matching calls it
 *                     made, those in which it received data, and the bits
 *                     flip-coll flipped (the test's own count of the calls,
 *                     beside the one the stage reports)
 *   FC_INJECT_PROGRAM only in this stage program (basename, e.g. "cluster")
 *   FC_INJECT_COLL    comma list of calls that count: allreduce, allgather,
 *                     reduce_scatter, bcast, alltoall, sendrecv, send, reduce,
 *                     iallreduce
 *                     (default: all of them)
 *   FC_INJECT_CALL    act from the Nth matching call on (kill and stop: at
 *                     it); default 1
 *   FC_INJECT_TIMES   corrupt-send, flip-coll and delay: act on this many matching calls
 *                     only, then behave (an intermittent fault; counted per
 *                     process, so a new program starts counting again);
 *                     default 0, no end
 *   FC_INJECT_MIN_BYTES  calls smaller than this do not match (default 4096)
 *   FC_INJECT_MAX_BYTES  flip-recv, count: calls that deliver more than this
 *                     do not count (default 1048576)
 *   FC_INJECT_DELAY_US   for delay (default 20000)
 *   FC_INJECT_STATUS     for exit (default 2)
 *   FC_INJECT_INDEX, FC_INJECT_BIT  which element's bit corrupt-send flips
 *                     (default: element 0, bit 0 of its first byte)
 * Calls on MPI_BYTE and MPI_CHAR data never match (but in flip-recv and
 * count): those are the stages' control messages (profiles, reports), not
 * the measured data.
 * Each action is announced once on stderr ("fc_inject: HOST rank R: ...").
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum fc_inject_mode { FC_INJECT_OFF, FC_INJECT_CORRUPT, FC_INJECT_KILL,
                      FC_INJECT_STOP, FC_INJECT_DELAY, FC_INJECT_ERROR, FC_INJECT_NOOP,
                      FC_INJECT_STALE, FC_INJECT_SCRIBBLE, FC_INJECT_FAIL,
                      FC_INJECT_BLOCKING, FC_INJECT_TEST_WAITS, FC_INJECT_EXIT,
                      FC_INJECT_KILL_AT_END, FC_INJECT_FLIP_RECV, FC_INJECT_COUNT,
                      FC_INJECT_FLIP_COLL, FC_INJECT_COUNT_COLL };

/* What a wrapper does with a matching call. */
enum fc_inject_act { FC_ACT_NONE = 0, FC_ACT_CORRUPT, FC_ACT_NOOP, FC_ACT_STALE,
                     FC_ACT_SCRIBBLE, FC_ACT_FAIL, FC_ACT_BLOCK, FC_ACT_FLIP_COLL };

static struct {
    int configured;
    enum fc_inject_mode mode;
    char colls[256];
    long call_at, times, min_bytes, delay_us, index, bit, status;
    long calls;                     /* matching calls seen */
    long received, flipped;         /* of them: with data received, bits flipped */
    int matched;                    /* the current call is one of them */
    long max_bytes, recvs;          /* flip-recv, count: the calls counted */
    int announced;
    int fail_pending;               /* error: the current call reports one */
    char host[256];
    void *stale;                    /* stale: the previous call's data */
    size_t stale_bytes;
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
    if (strcmp(host, "*") != 0 && strcmp(host, fc_inj.host) != 0)
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
    else if (strcmp(mode, "kill-at-end") == 0)
        fc_inj.mode = FC_INJECT_KILL_AT_END;
    else if (strcmp(mode, "exit") == 0)
        fc_inj.mode = FC_INJECT_EXIT;
    else if (strcmp(mode, "stop") == 0)
        fc_inj.mode = FC_INJECT_STOP;
    else if (strcmp(mode, "delay") == 0)
        fc_inj.mode = FC_INJECT_DELAY;
    else if (strcmp(mode, "error") == 0)
        fc_inj.mode = FC_INJECT_ERROR;
    else if (strcmp(mode, "noop") == 0)
        fc_inj.mode = FC_INJECT_NOOP;
    else if (strcmp(mode, "stale") == 0)
        fc_inj.mode = FC_INJECT_STALE;
    else if (strcmp(mode, "scribble") == 0)
        fc_inj.mode = FC_INJECT_SCRIBBLE;
    else if (strcmp(mode, "fail") == 0)
        fc_inj.mode = FC_INJECT_FAIL;
    else if (strcmp(mode, "blocking") == 0)
        fc_inj.mode = FC_INJECT_BLOCKING;
    else if (strcmp(mode, "test-waits") == 0)
        fc_inj.mode = FC_INJECT_TEST_WAITS;
    else if (strcmp(mode, "flip-recv") == 0)
        fc_inj.mode = FC_INJECT_FLIP_RECV;
    else if (strcmp(mode, "count") == 0)
        fc_inj.mode = FC_INJECT_COUNT;
    else if (strcmp(mode, "flip-coll") == 0)
        fc_inj.mode = FC_INJECT_FLIP_COLL;
    else if (strcmp(mode, "count-coll") == 0)
        fc_inj.mode = FC_INJECT_COUNT_COLL;
    else
        fprintf(stderr, "fc_inject: FC_INJECT_MODE '%s' unknown; injecting nothing\n", mode);
    snprintf(fc_inj.colls, sizeof(fc_inj.colls), ",%s,",
             getenv("FC_INJECT_COLL") ? getenv("FC_INJECT_COLL") : "");
    fc_inj.call_at = fc_env_long("FC_INJECT_CALL", 1);
    fc_inj.times = fc_env_long("FC_INJECT_TIMES", 0);
    fc_inj.min_bytes = fc_env_long("FC_INJECT_MIN_BYTES", 4096);
    fc_inj.delay_us = fc_env_long("FC_INJECT_DELAY_US", 20000);
    fc_inj.max_bytes = fc_env_long("FC_INJECT_MAX_BYTES", 1048576);
    fc_inj.index = fc_env_long("FC_INJECT_INDEX", fc_inj.mode == FC_INJECT_FLIP_RECV ? -1 : 0);
    fc_inj.bit = fc_env_long("FC_INJECT_BIT", 0);
    fc_inj.status = fc_env_long("FC_INJECT_STATUS", 2);
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
 * returns what the caller should do (fc_inject_act). */
static int fc_inject_call(const char *coll, int count, MPI_Datatype dt)
{
    char key[64];
    int size = 0;

    if (!fc_inj.configured)
        fc_inject_configure();
    fc_inj.matched = 0;
    if (fc_inj.mode == FC_INJECT_OFF || dt == MPI_BYTE || dt == MPI_CHAR)
        return 0;
    snprintf(key, sizeof(key), ",%s,", coll);
    if (strcmp(fc_inj.colls, ",,") != 0 && strstr(fc_inj.colls, key) == NULL)
        return 0;
    PMPI_Type_size(dt, &size);
    if ((long)count * size < fc_inj.min_bytes)
        return 0;
    fc_inj.matched = 1;
    if (++fc_inj.calls < fc_inj.call_at)
        return 0;
    if (fc_inj.times > 0 && fc_inj.calls >= fc_inj.call_at + fc_inj.times)
        return 0;
    switch (fc_inj.mode) {
    case FC_INJECT_KILL:
        fc_inject_say("SIGKILL", coll);
        raise(SIGKILL);
        return 0;
    case FC_INJECT_EXIT:
        fc_inject_say("exiting", coll);
        _exit((int)fc_inj.status);
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
        return (long)count * size > 0 ? FC_ACT_CORRUPT : FC_ACT_NONE;
    case FC_INJECT_NOOP:
        fc_inject_say("doing nothing", coll);
        return FC_ACT_NOOP;
    case FC_INJECT_STALE:
        fc_inject_say("sending the previous call's data", coll);
        return FC_ACT_STALE;
    case FC_INJECT_SCRIBBLE:
        fc_inject_say("writing into a recv buffer the call must leave alone", coll);
        return FC_ACT_SCRIBBLE;
    case FC_INJECT_BLOCKING:
        fc_inject_say("completing it inside the call (no overlap)", coll);
        return FC_ACT_BLOCK;
    case FC_INJECT_FLIP_COLL:
        return FC_ACT_FLIP_COLL;    /* announced where it flips (fc_inject_received) */
    case FC_INJECT_FAIL:
        if (fc_inj.calls != fc_inj.call_at)
            return 0;
        fc_inject_say("failing it through the communicator's error handler", coll);
        return FC_ACT_FAIL;
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

/* flip-recv and count: the call `coll` delivered `bytes` bytes of type dt
 * into buf on this rank (after the library's call returned). */
static void fc_inject_recv(const char *coll, void *buf, long bytes, MPI_Datatype dt)
{
    char key[64], what[160];
    int rank = -1;
    long at;

    if (!fc_inj.configured)
        fc_inject_configure();
    if ((fc_inj.mode != FC_INJECT_FLIP_RECV && fc_inj.mode != FC_INJECT_COUNT) ||
        buf == NULL || buf == MPI_IN_PLACE || bytes <= 0 || bytes > fc_inj.max_bytes)
        return;
    snprintf(key, sizeof(key), ",%s,", coll);
    if (strcmp(fc_inj.colls, ",,") != 0 && strstr(fc_inj.colls, key) == NULL)
        return;
    ++fc_inj.recvs;
    if (fc_inj.mode == FC_INJECT_COUNT) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "fc_inject: %s rank %d: receive %ld: %s %ld bytes %s\n", fc_inj.host,
                rank, fc_inj.recvs, coll, bytes,
                dt == MPI_BYTE ? "byte" : dt == MPI_CHAR ? "char" : "typed");
        return;
    }
    if (fc_inj.recvs != fc_inj.call_at)
        return;
    at = fc_inj.index >= 0 ? fc_inj.index % bytes : bytes / 2;
    ((unsigned char *)buf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    snprintf(what, sizeof(what), "flipped bit %ld of byte %ld of the %ld bytes it received",
             fc_inj.bit % 8, at, bytes);
    fc_inj.calls = fc_inj.recvs;
    fc_inject_say(what, coll);
}

static long fc_inject_size(MPI_Datatype dt)
{
    int size = 0;

    PMPI_Type_size(dt, &size);
    return size;
}

/* The bytes a call with per-rank counts and displacements filled. */
static long fc_inject_extent(const int *counts, const int *displs, int n, MPI_Datatype dt)
{
    long end = 0;

    for (int r = 0; counts && displs && r < n; ++r)
        if ((long)displs[r] + counts[r] > end)
            end = (long)displs[r] + counts[r];
    return end * fc_inject_size(dt);
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

/* fail: the call did not run; the library hands the error to the
 * communicator's handler (which may end the process), and returns it. */
static int fc_inject_fail(MPI_Comm comm)
{
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
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

/* stale: the data the previous matching call sent when it had the same
 * size (the current data is kept for the next call); NULL otherwise. The
 * caller frees what is returned. */
static void *fc_inject_stale_copy(const void *buf, int count, MPI_Datatype dt)
{
    int size = 0;
    size_t bytes;
    void *prev = NULL;

    PMPI_Type_size(dt, &size);
    bytes = (size_t)count * size;
    if (fc_inj.stale && fc_inj.stale_bytes == bytes)
        prev = fc_inj.stale;
    else
        free(fc_inj.stale);
    fc_inj.stale = malloc(bytes ? bytes : 1);
    fc_inj.stale_bytes = bytes;
    if (fc_inj.stale)
        memcpy(fc_inj.stale, buf, bytes);
    return prev;
}

/* The buffer a wrapped call sends, after the action: a corrupted or a
 * stale copy (*copy_p, to free), or buf itself. */
static const void *fc_inject_send(int act, const void *buf, int count, MPI_Datatype dt,
                                  void **copy_p)
{
    *copy_p = NULL;
    if (buf == MPI_IN_PLACE)
        return buf;
    if (act == FC_ACT_CORRUPT)
        *copy_p = fc_inject_corrupt_copy(buf, count, dt);
    else if (act == FC_ACT_STALE)
        *copy_p = fc_inject_stale_copy(buf, count, dt);
    return *copy_p ? *copy_p : buf;
}

/* corrupt-send on an in-place call: the rank's contribution is in recvbuf
 * (from element `first`, count of them); flip the chosen bit there before
 * the call, as fc_inject_corrupt_copy does in a copy. A reduction
 * overwrites it with its result; all_gather leaves the rank's own block
 * alone, so the caller flips it back after. Returns the byte flipped, or
 * -1 when nothing was. */
static long fc_inject_inplace(int act, const void *sendbuf, void *recvbuf, long first,
                              int count, MPI_Datatype dt)
{
    int size = 0;
    long at;

    if (sendbuf != MPI_IN_PLACE || act != FC_ACT_CORRUPT || count <= 0 || recvbuf == NULL)
        return -1;
    PMPI_Type_size(dt, &size);
    at = (first + fc_inj.index % count) * size + fc_inj.bit / 8 % size;
    ((unsigned char *)recvbuf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    return at;
}

/* After a matching call that succeeded: the part of recvbuf that a peer
 * wrote on this rank (elements [first, first + len) of dt; len 0: the
 * rank received nothing) is tallied, and flip-coll flips its chosen bit
 * there. */
static void fc_inject_received(int act, int rc, const char *coll, void *recvbuf, long first,
                               long len, MPI_Datatype dt)
{
    int size = 0;
    long at;

    if (!fc_inj.matched || rc != MPI_SUCCESS || len <= 0 || recvbuf == NULL)
        return;
    fc_inj.received++;
    if (act != FC_ACT_FLIP_COLL)
        return;
    PMPI_Type_size(dt, &size);
    at = (first + fc_inj.index % len) * size + fc_inj.bit / 8 % size;
    ((unsigned char *)recvbuf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    fc_inj.flipped++;
    fc_inject_say("flipping a bit of what it received", coll);
}

/* all_gather and all_to_all: the block the next rank wrote (none on one
 * rank: its only block is its own) */
static long fc_inject_peer_block(MPI_Comm comm, long block, long *len_p)
{
    int rank = 0, n = 1;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &n);
    *len_p = n > 1 ? block : 0;
    return (long)((rank + 1) % n) * block;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm)
{
    void *bad = NULL;
    int rc, act = fc_inject_call("allreduce", count, dt);

    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    fc_inject_inplace(act, sendbuf, recvbuf, 0, count, dt);
    rc = PMPI_Allreduce(fc_inject_send(act, sendbuf, count, dt, &bad), recvbuf, count, dt,
                        op, comm);
    free(bad);
    fc_inject_received(act, rc, "allreduce", recvbuf, 0, count, dt);
    fc_inject_recv("allreduce", recvbuf, (long)count * fc_inject_size(dt), dt);
    return fc_inject_rc(rc);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
               int root, MPI_Comm comm)
{
    void *bad = NULL;
    int rc, act, rank = -1, size = 0;

    PMPI_Comm_rank(comm, &rank);
    if (!fc_inj.configured)
        fc_inject_configure();
    fc_inj.matched = 0;
    /* scribble counts only the calls off the root */
    act = fc_inj.mode == FC_INJECT_SCRIBBLE && rank == root ? 0
                                                             : fc_inject_call("reduce", count, dt);
    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    fc_inject_inplace(act, sendbuf, recvbuf, 0, count, dt);
    rc = PMPI_Reduce(fc_inject_send(act, sendbuf, count, dt, &bad), recvbuf, count, dt, op,
                     root, comm);
    free(bad);
    fc_inject_received(act, rc, "reduce", recvbuf, 0, rank == root ? count : 0, dt);
    if (rank == root)
        fc_inject_recv("reduce", recvbuf, (long)count * fc_inject_size(dt), dt);
    if (act == FC_ACT_SCRIBBLE && count > 0) {
        long at;

        PMPI_Type_size(dt, &size);
        at = (fc_inj.index % count) * size + fc_inj.bit / 8 % size;
        ((unsigned char *)recvbuf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    }
    return fc_inject_rc(rc);
}

int MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                  int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    void *bad = NULL;
    int rc, rank = 0, act = fc_inject_call("allgather", sendbuf == MPI_IN_PLACE ? rcount : scount,
                                           sendbuf == MPI_IN_PLACE ? rdt : sdt);
    long flipped, first, len;

    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    PMPI_Comm_rank(comm, &rank);
    flipped = fc_inject_inplace(act, sendbuf, recvbuf, (long)rank * rcount, rcount, rdt);
    rc = PMPI_Allgather(fc_inject_send(act, sendbuf, scount, sdt, &bad), scount, sdt, recvbuf,
                        rcount, rdt, comm);
    free(bad);
    if (flipped >= 0)       /* its own block, right in its own output */
        ((unsigned char *)recvbuf)[flipped] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    first = fc_inject_peer_block(comm, rcount, &len);
    fc_inject_received(act, rc, "allgather", recvbuf, first, len, rdt);
    {
        int n = 1;

        PMPI_Comm_size(comm, &n);
        fc_inject_recv("allgather", recvbuf, (long)rcount * n * fc_inject_size(rdt), rdt);
    }
    return fc_inject_rc(rc);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int rcount,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    void *bad = NULL;
    int n = 1, rc, act;

    PMPI_Comm_size(comm, &n);
    act = fc_inject_call("reduce_scatter", rcount * n, dt);
    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    fc_inject_inplace(act, sendbuf, recvbuf, 0, rcount * n, dt);
    rc = PMPI_Reduce_scatter_block(fc_inject_send(act, sendbuf, rcount * n, dt, &bad), recvbuf,
                                   rcount, dt, op, comm);
    free(bad);
    fc_inject_received(act, rc, "reduce_scatter", recvbuf, 0, rcount, dt);
    fc_inject_recv("reduce_scatter", recvbuf, (long)rcount * fc_inject_size(dt), dt);
    return fc_inject_rc(rc);
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                 int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    void *bad = NULL;
    int n = 1, rc, act;
    long first, len;

    PMPI_Comm_size(comm, &n);
    act = fc_inject_call("alltoall", scount * n, sdt);
    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    rc = PMPI_Alltoall(fc_inject_send(act, sendbuf, scount * n, sdt, &bad), scount, sdt,
                       recvbuf, rcount, rdt, comm);
    free(bad);
    first = fc_inject_peer_block(comm, rcount, &len);
    fc_inject_received(act, rc, "alltoall", recvbuf, first, len, rdt);
    fc_inject_recv("alltoall", recvbuf, (long)rcount * n * fc_inject_size(rdt), rdt);
    return fc_inject_rc(rc);
}

/* Broadcast is in place: the root's buffer is what it sends. The root
 * flips the bit for the call and flips it back after, so its own copy is
 * right and every other rank receives the wrong bit. */
int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank = -1, size = 0, rc, flip;
    long at = 0;

    int act = fc_inject_call("bcast", count, dt);
    void *stale = NULL;

    PMPI_Comm_rank(comm, &rank);
    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    if (act == FC_ACT_STALE && rank == root) {
        /* the root's data is its buffer: broadcast the previous call's,
         * then put this call's back on the root */
        void *now = malloc((size_t)count * 8 + 1);

        PMPI_Type_size(dt, &size);
        stale = fc_inject_stale_copy(buf, count, dt);
        if (stale && now) {
            memcpy(now, buf, (size_t)count * size);
            memcpy(buf, stale, (size_t)count * size);
            rc = PMPI_Bcast(buf, count, dt, root, comm);
            memcpy(buf, now, (size_t)count * size);
            free(now);
            free(stale);
            return fc_inject_rc(rc);
        }
        free(now);
        free(stale);
    }
    flip = act == FC_ACT_CORRUPT && rank == root && count > 0;
    if (flip) {
        PMPI_Type_size(dt, &size);
        at = (fc_inj.index % count) * size + fc_inj.bit / 8 % size;
        ((unsigned char *)buf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    }
    rc = PMPI_Bcast(buf, count, dt, root, comm);
    if (flip)
        ((unsigned char *)buf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    fc_inject_received(act, rc, "bcast", buf, 0, rank == root ? 0 : count, dt);
    if (rank != root)
        fc_inject_recv("bcast", buf, (long)count * fc_inject_size(dt), dt);
    return fc_inject_rc(rc);
}

int MPI_Sendrecv(const void *sendbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                 void *recvbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    void *bad = NULL;
    MPI_Status own;
    int rc, got = 0, act = fc_inject_call("sendrecv", scount, sdt);

    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    rc = PMPI_Sendrecv(fc_inject_send(act, sendbuf, scount, sdt, &bad), scount, sdt, dest, stag,
                       recvbuf, rcount, rdt, source, rtag, comm, status);
    free(bad);
    if (rc == MPI_SUCCESS && PMPI_Get_count(status, rdt, &got) == MPI_SUCCESS && got > 0)
        fc_inject_recv("sendrecv", recvbuf, (long)got * fc_inject_size(rdt), rdt);
    fc_inject_received(act, rc, "sendrecv", recvbuf, 0, rcount, rdt);
    return fc_inject_rc(rc);
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    void *bad = NULL;
    int rc, act = fc_inject_call("send", count, dt);

    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    rc = PMPI_Send(fc_inject_send(act, buf, count, dt, &bad), count, dt, dest, tag, comm);
    free(bad);
    return fc_inject_rc(rc);
}

/* A matching MPI_Iallreduce in flight: what it receives is there when
 * its request completes (MPI_Wait, MPI_Test), where flip-coll acts and
 * the tally counts it. One at a time (the overlap stage's). */
static struct {
    int pending;
    MPI_Request req;
    void *recv;
    int count, act;
    MPI_Datatype dt;
} fc_inj_req;

static void fc_inject_completed(MPI_Request req, int rc)
{
    if (!fc_inj_req.pending || req != fc_inj_req.req)
        return;
    fc_inj_req.pending = 0;
    fc_inj.matched = 1;
    fc_inject_received(fc_inj_req.act, rc, "iallreduce", fc_inj_req.recv, 0, fc_inj_req.count,
                       fc_inj_req.dt);
}

/* Calls only flip-recv and count act on (after the library's call). */
int MPI_Gather(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int rc = PMPI_Gather(sendbuf, scount, sdt, recvbuf, rcount, rdt, root, comm), rank = -1, n = 1;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &n);
    if (rank == root)
        fc_inject_recv("gather", recvbuf, (long)rcount * n * fc_inject_size(rdt), rdt);
    return rc;
}

int MPI_Gatherv(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                MPI_Comm comm)
{
    int rc = PMPI_Gatherv(sendbuf, scount, sdt, recvbuf, rcounts, displs, rdt, root, comm);
    int rank = -1, n = 1;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &n);
    if (rank == root)
        fc_inject_recv("gatherv", recvbuf, fc_inject_extent(rcounts, displs, n, rdt), rdt);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    int rc = PMPI_Allgatherv(sendbuf, scount, sdt, recvbuf, rcounts, displs, rdt, comm), n = 1;

    PMPI_Comm_size(comm, &n);
    fc_inject_recv("allgatherv", recvbuf, fc_inject_extent(rcounts, displs, n, rdt), rdt);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Status own;
    int rc, got = 0;

    if (status == MPI_STATUS_IGNORE)
        status = &own;
    rc = PMPI_Recv(buf, count, dt, source, tag, comm, status);
    if (rc == MPI_SUCCESS && PMPI_Get_count(status, dt, &got) == MPI_SUCCESS && got > 0)
        fc_inject_recv("recv", buf, (long)got * fc_inject_size(dt), dt);
    return rc;
}

/* The overlap stage's collective (suites/overlap.c); blocking acts on it
 * at the call, flip-coll when it completes. */
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    int act = fc_inject_call("iallreduce", count, dt), rc;

    if (act == FC_ACT_BLOCK) {
        rc = PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
        *req = MPI_REQUEST_NULL;
        fc_inject_received(act, rc, "iallreduce", recvbuf, 0, count, dt);
        return rc;
    }
    rc = PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, req);
    if (fc_inj.matched && rc == MPI_SUCCESS)
        fc_inj_req = (__typeof__(fc_inj_req)){ 1, *req, recvbuf, count, act, dt };
    return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Request r = *req;
    int rc = PMPI_Wait(req, status);

    fc_inject_completed(r, rc);
    return rc;
}

/* test-waits: the poll that moves the whole collective (see the top). */
int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Request r = *req;
    int rc;

    if (!fc_inj.configured)
        fc_inject_configure();
    if (fc_inj.mode == FC_INJECT_TEST_WAITS) {
        ++fc_inj.calls;
        fc_inject_say("waiting for the request inside MPI_Test (serial progress)", "test");
        rc = PMPI_Wait(req, status);
        *flag = 1;
        fc_inject_completed(r, rc);
        return rc;
    }
    rc = PMPI_Test(req, flag, status);
    if (*flag)
        fc_inject_completed(r, rc);
    return rc;
}

/* FC_INJECT_TALLY: this process's line, appended whole (O_APPEND, one
 * write), so that the ranks' lines never interleave. */
static void fc_inject_tally(void)
{
    const char *path = getenv("FC_INJECT_TALLY");
    char line[512];
    int rank = -1, fd, len;

    if (path == NULL || *path == 0 || fc_inj.mode == FC_INJECT_OFF)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    len = snprintf(line, sizeof(line), "%s %s %d calls=%ld received=%ld flipped=%ld\n",
                   program_invocation_short_name, fc_inj.host, rank, fc_inj.calls,
                   fc_inj.received, fc_inj.flipped);
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0 || write(fd, line, (size_t)len) != len)
        fprintf(stderr, "fc_inject: cannot append to %s: %s\n", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* kill-at-end: the process dies inside MPI_Finalize (see the top). */
int MPI_Finalize(void)
{
    if (!fc_inj.configured)
        fc_inject_configure();
    if (fc_inj.mode == FC_INJECT_KILL_AT_END) {
        fc_inject_say("SIGKILL in MPI_Finalize", "finalize");
        raise(SIGKILL);
    }
    fc_inject_tally();
    if (fc_inj.mode == FC_INJECT_COUNT) {
        int rank = -1;

        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "fc_inject: %s rank %d: %ld receiving calls counted\n", fc_inj.host,
                rank, fc_inj.recvs);
    }
    return PMPI_Finalize();
}
