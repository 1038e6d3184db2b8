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
 *                     corrupt-recv  flip one bit of what the rank receives,
 *                                   after the call (its output, or the block a
 *                                   peer sent it; a broadcast's non-root, a
 *                                   reduce's root): a NIC or DIMM that damages
 *                                   what arrives, seen on this node's own
 *                                   output and nobody else's
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
 *   FC_INJECT_PROGRAM only in this stage program (basename, e.g. "cluster")
 *   FC_INJECT_COLL    comma list of calls that count: allreduce, allgather,
 *                     reduce_scatter, bcast, alltoall, sendrecv, send, reduce
 *                     (default: all of them)
 *   FC_INJECT_CALL    act from the Nth matching call on (kill and stop: at
 *                     it); default 1
 *   FC_INJECT_TIMES   corrupt-send, corrupt-recv and delay: act on this many matching calls
 *                     only, then behave (an intermittent fault; counted per
 *                     process, so a new program starts counting again);
 *                     default 0, no end
 *   FC_INJECT_EVERY   corrupt-send, corrupt-recv, delay, stale: act on every
 *                     Nth matching call only (from FC_INJECT_CALL on);
 *                     default 0, every call
 *   FC_INJECT_PROB    the same modes: act on a matching call with this
 *                     probability (0 < P <= 1), drawn from a generator
 *                     seeded with FC_INJECT_SEED (default 1) plus the world
 *                     rank, so a run is repeatable; default 0, every call
 *                     (with FC_INJECT_EVERY, both must choose the call)
 *   FC_INJECT_TALLY   a file to which each process whose injection is on
 *                     appends one line at MPI_Finalize: "PROGRAM HOST RANK
 *                     calls=C received=R flipped=F": the matching calls it
 *                     made, those in which it received data, and the bits
 *                     corrupt-recv flipped (a test's own count of the calls,
 *                     beside the one the stage reports)
 *   FC_INJECT_MIN_BYTES  calls smaller than this do not match (default 4096)
 *   FC_INJECT_MAX_BYTES  flip-recv, count: calls that deliver more than this
 *                     do not count (default 1048576)
 *   FC_INJECT_DELAY_US   for delay (default 20000)
 *   FC_INJECT_STATUS     for exit (default 2)
 *   FC_INJECT_INDEX, FC_INJECT_BIT  which element's bit corrupt-send and
 *                     corrupt-recv flip
 *                     (default: element 0, bit 0 of its first byte)
 * Calls on MPI_BYTE and MPI_CHAR data never match (but in flip-recv and
 * count): those are the stages' control messages (profiles, reports), not
 * the measured data.
 * Each action is announced once on stderr ("fc_inject: HOST rank R: ...").
 * The MPI wrappers are in fc_inject_mpi.c; the state they share in
 * fc_inject.h.
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

#include "fc_inject.h"

fc_inject_state_t fc_inj;

static long fc_env_long(const char *name, long dflt)
{
    const char *v = getenv(name);

    return v && *v ? strtol(v, NULL, 10) : dflt;
}

void fc_inject_configure(void)
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
    else if (strcmp(mode, "corrupt-recv") == 0)
        fc_inj.mode = FC_INJECT_CORRUPT_RECV;
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
    fc_inj.every = fc_env_long("FC_INJECT_EVERY", 0);
    fc_inj.prob = getenv("FC_INJECT_PROB") ? atof(getenv("FC_INJECT_PROB")) : 0;
    fc_inj.rng = (uint64_t)fc_env_long("FC_INJECT_SEED", 1) * 0x9E3779B97F4A7C15ull +
                 (uint64_t)world_rank + 1;
}

/* The next draw in [0, 1) of the per-process generator (splitmix64). */
static double fc_inject_draw(void)
{
    uint64_t z = (fc_inj.rng += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* An intermittent fault: does this matching call escape it? Only the
 * modes that act on every call are made intermittent. */
static int fc_inject_spared(void)
{
    enum fc_inject_mode m = fc_inj.mode;

    if (m != FC_INJECT_CORRUPT && m != FC_INJECT_CORRUPT_RECV && m != FC_INJECT_DELAY &&
        m != FC_INJECT_STALE)
        return 0;
    if (fc_inj.every > 1 && (fc_inj.calls - fc_inj.call_at) % fc_inj.every != 0)
        return 1;
    return fc_inj.prob > 0 && fc_inject_draw() >= fc_inj.prob;
}

void fc_inject_say(const char *what, const char *coll)
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

int fc_inject_call(const char *coll, int count, MPI_Datatype dt)
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
    if (fc_inject_spared())
        return 0;
    fc_inj.acted++;
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
    case FC_INJECT_CORRUPT_RECV:
        fc_inject_say("corrupting what it receives", coll);
        return (long)count * size > 0 ? FC_ACT_CORRUPT_RECV : FC_ACT_NONE;
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

/* The return code of a wrapped call: the library's, or MPI_ERR_OTHER
 * once when error mode chose this call. */
int fc_inject_rc(int rc)
{
    if (!fc_inj.fail_pending)
        return rc;
    fc_inj.fail_pending = 0;
    return MPI_ERR_OTHER;
}

/* fail: the call did not run; the library hands the error to the
 * communicator's handler (which may end the process), and returns it. */
int fc_inject_fail(MPI_Comm comm)
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
void *fc_inject_stale_copy(const void *buf, int count, MPI_Datatype dt)
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
const void *fc_inject_send(int act, const void *buf, int count, MPI_Datatype dt,
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
long fc_inject_inplace(int act, const void *sendbuf, void *recvbuf, long first,
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

void fc_inject_recv(int act, void *buf, long first, int count, MPI_Datatype dt)
{
    int size = 0;
    long at;

    if (!fc_inj.matched || count <= 0 || buf == NULL || buf == MPI_IN_PLACE)
        return;
    fc_inj.received++;
    if (act != FC_ACT_CORRUPT_RECV)
        return;
    PMPI_Type_size(dt, &size);
    at = (first + fc_inj.index % count) * size + fc_inj.bit / 8 % size;
    ((unsigned char *)buf)[at] ^= (unsigned char)(1u << (fc_inj.bit % 8));
    fc_inj.flipped++;
}

void fc_inject_tally(void)
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
    /* one write with O_APPEND: the ranks' lines never interleave */
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0 || write(fd, line, (size_t)len) != len)
        fprintf(stderr, "fc_inject: cannot append to %s: %s\n", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* flip-recv and count: the call `coll` delivered `bytes` bytes of type dt
 * into buf on this rank (after the library's call returned). */
void fc_inject_received(const char *coll, void *buf, long bytes, MPI_Datatype dt)
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

long fc_inject_size(MPI_Datatype dt)
{
    int size = 0;

    PMPI_Type_size(dt, &size);
    return size;
}

long fc_inject_extent(const int *counts, const int *displs, int n, MPI_Datatype dt)
{
    long end = 0;

    for (int r = 0; counts && displs && r < n; ++r)
        if ((long)displs[r] + counts[r] > end)
            end = (long)displs[r] + counts[r];
    return end * fc_inject_size(dt);
}
