/*
 * tally_preload.c - faults planted on one host from outside fabcert, for
 * tests/attack/blame_tally (the harness that judges fabcert's blame as an
 * outside tester would). It shares no code with fabcert or with its own
 * test injector (tests/inject): it knows the MPI standard and nothing of
 * the stage programs. Loaded into every rank with
 *   fabcert run --env LD_PRELOAD=.../libtally_preload.so --env TALLY_...
 * it acts only in processes whose hostname is TALLY_HOST; everywhere else
 * every call goes straight through.
 *
 * Faults (TALLY_FAULT):
 *   nostart    the constructor ends the process with _exit(127) before
 *              main, as the dynamic loader does when a library is missing
 *              on that host: the program cannot start there.
 *   flip-recv  one bit flipped now and then in what the host's ranks
 *              receive from their peers, after the call that received it
 *              completed (an intermittent NIC, PCIe link or DIMM on the
 *              receive path). Receive sides wrapped: MPI_Recv,
 *              MPI_Sendrecv, MPI_Irecv/MPI_Iallreduce/MPI_Ibcast when they
 *              complete in MPI_Wait, MPI_Waitall, MPI_Waitany,
 *              MPI_Waitsome, MPI_Test, MPI_Testall, MPI_Testany,
 *              MPI_Testsome, and the outputs of MPI_Allreduce, MPI_Reduce
 *              (root), MPI_Bcast (not the root), MPI_Allgather,
 *              MPI_Alltoall and MPI_Gather (the blocks of the other
 *              ranks), MPI_Reduce_scatter_block.
 *              A receive is eligible when its communicator has more than
 *              one rank, its datatype is a typed one (not MPI_BYTE,
 *              MPI_CHAR, MPI_PACKED: control messages, text and structs
 *              stay whole, as a transport's checksum would keep them) and
 *              it moved at least TALLY_FLIP_MIN_BYTES (default 4096).
 *              Which eligible receives are hit: every TALLY_FLIP_EVERY-th
 *              (N > 0), else each with probability TALLY_FLIP_PROB
 *              (default 0.01); the byte and the bit are drawn from a
 *              generator seeded with TALLY_FLIP_SEED (default 1), the
 *              world rank and the program's name, so a run is repeatable.
 *
 * TALLY_LOG, a directory: each planted fault is one line in
 * TALLY_LOG/planted.HOST.PID (call, bytes, offset, bit), and a flipping
 * process's last line counts its eligible receives and flips, so the
 * harness can show that the fault really fired, and where.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TALLY_MAX_PENDING 256   /* nonblocking receives watched at once */

typedef struct tally_pending {
    MPI_Request req;            /* MPI_REQUEST_NULL: free slot */
    void *buf;
    long long bytes;            /* the most it can receive */
    int elem;                   /* the datatype's size */
    const char *call;
} tally_pending_t;

typedef struct tally_state {
    int on;                     /* flip-recv on this host */
    char host[256];
    char log_dir[512];
    long every;
    double prob;
    long long min_bytes;
    uint64_t rng;
    long long eligible, flipped;
    pthread_mutex_t lock;
    tally_pending_t pending[TALLY_MAX_PENDING];
} tally_state_t;

static tally_state_t tally = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t tally_next(void)
{   /* splitmix64 */
    uint64_t z = (tally.rng += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void tally_log(const char *fmt, ...)
{
    char path[800], line[1024];
    va_list ap;
    int fd, n;

    if (tally.log_dir[0] == '\0')
        return;
    snprintf(path, sizeof(path), "%s/planted.%s.%ld", tally.log_dir, tally.host,
             (long)getpid());
    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n)
        fprintf(stderr, "tally_preload: %s: short write: %s\n", path, strerror(errno));
    close(fd);
}

static const char *tally_exe(void)
{
    static char exe[256];

    if (exe[0] == '\0') {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        const char *slash;

        exe[n > 0 ? n : 0] = '\0';
        slash = strrchr(exe, '/');
        if (slash != NULL)
            memmove(exe, slash + 1, strlen(slash));
    }
    return exe;
}

__attribute__((constructor)) static void tally_init(void)
{
    const char *want = getenv("TALLY_HOST"), *fault = getenv("TALLY_FAULT");
    const char *v;
    uint64_t seed = 1;

    if (want == NULL || fault == NULL)
        return;
    if (gethostname(tally.host, sizeof(tally.host) - 1) != 0)
        return;
    if (strcmp(tally.host, want) != 0)
        return;
    v = getenv("TALLY_LOG");
    if (v != NULL)
        snprintf(tally.log_dir, sizeof(tally.log_dir), "%s", v);
    if (strcmp(fault, "nostart") == 0) {
        tally_log("nostart host=%s pid=%ld exe=%s status=127", tally.host, (long)getpid(),
                  tally_exe());
        _exit(127);
    }
    if (strcmp(fault, "flip-recv") != 0)
        return;
    tally.every = (v = getenv("TALLY_FLIP_EVERY")) ? strtol(v, NULL, 10) : 0;
    tally.prob = (v = getenv("TALLY_FLIP_PROB")) ? strtod(v, NULL) : 0.01;
    tally.min_bytes = (v = getenv("TALLY_FLIP_MIN_BYTES")) ? strtoll(v, NULL, 10) : 4096;
    if ((v = getenv("TALLY_FLIP_SEED")) != NULL)
        seed = strtoull(v, NULL, 10);
    /* the world rank as the launcher gives it, before MPI_Init */
    if ((v = getenv("OMPI_COMM_WORLD_RANK")) != NULL || (v = getenv("PMIX_RANK")) != NULL)
        seed ^= 0x100000001B3ULL * (strtoull(v, NULL, 10) + 1);
    for (const char *p = tally_exe(); *p; ++p)
        seed = (seed ^ (unsigned char)*p) * 0x100000001B3ULL;
    tally.rng = seed;
    for (int k = 0; k < TALLY_MAX_PENDING; ++k)
        tally.pending[k].req = MPI_REQUEST_NULL;
    tally.on = 1;
}

__attribute__((destructor)) static void tally_fini(void)
{
    if (tally.on)
        tally_log("summary host=%s pid=%ld exe=%s eligible=%lld flipped=%lld", tally.host,
                  (long)getpid(), tally_exe(), tally.eligible, tally.flipped);
}

/* A typed datatype's size, or 0 where the data is not eligible. */
static int tally_elem(MPI_Datatype dt)
{
    int size = 0;

    if (dt == MPI_BYTE || dt == MPI_CHAR || dt == MPI_SIGNED_CHAR ||
        dt == MPI_UNSIGNED_CHAR || dt == MPI_PACKED || dt == MPI_DATATYPE_NULL)
        return 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return size;
}

static int tally_comm_size(MPI_Comm comm)
{
    int n = 0;

    if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
        return 0;
    return n;
}

/* Count one eligible receive of BYTES at BUF (skipping SKIP_LEN bytes from
 * SKIP_AT: a rank's own block) and maybe flip one bit in it. */
static void tally_maybe_flip(const char *call, void *buf, long long bytes, long long skip_at,
                             long long skip_len)
{
    long long span = bytes - skip_len, off;
    int hit, bit;

    if (!tally.on || buf == NULL || bytes < tally.min_bytes || span <= 0)
        return;
    pthread_mutex_lock(&tally.lock);
    ++tally.eligible;
    if (tally.every > 0)
        hit = tally.eligible % tally.every == 0;
    else
        hit = (double)(tally_next() >> 11) / 9007199254740992.0 < tally.prob;
    if (!hit) {
        pthread_mutex_unlock(&tally.lock);
        return;
    }
    off = (long long)(tally_next() % (uint64_t)span);
    if (skip_len > 0 && off >= skip_at)
        off += skip_len;
    bit = (int)(tally_next() % 8);
    ((unsigned char *)buf)[off] ^= (unsigned char)(1u << bit);
    ++tally.flipped;
    pthread_mutex_unlock(&tally.lock);
    tally_log("flip host=%s pid=%ld exe=%s call=%s bytes=%lld offset=%lld bit=%d n=%lld",
              tally.host, (long)getpid(), tally_exe(), call, bytes, off, bit, tally.eligible);
}

/* The bytes a completed receive moved: its status's count where it has
 * one, else the posted size. */
static long long tally_received(const MPI_Status *st, MPI_Datatype dt, long long posted)
{
    int count = MPI_UNDEFINED, cancelled = 0;

    if (st == MPI_STATUS_IGNORE)
        return posted;
    if (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
        return 0;
    if (PMPI_Get_count(st, dt, &count) != MPI_SUCCESS || count == MPI_UNDEFINED)
        return posted;
    return (long long)count * (long long)tally_elem(dt);
}

/* ---- nonblocking receives: watched from their start to completion ---- */

static void tally_watch(MPI_Request req, void *buf, long long bytes, int elem, const char *call)
{
    if (!tally.on || req == MPI_REQUEST_NULL || bytes < tally.min_bytes)
        return;
    pthread_mutex_lock(&tally.lock);
    for (int k = 0; k < TALLY_MAX_PENDING; ++k)
        if (tally.pending[k].req == MPI_REQUEST_NULL) {
            tally.pending[k] = (tally_pending_t){ req, buf, bytes, elem, call };
            break;
        }
    pthread_mutex_unlock(&tally.lock);
}

/* REQ (its handle before the call) completed with status ST (or
 * MPI_STATUS_IGNORE): flip in what it received if it was watched. */
static void tally_completed(MPI_Request req, const MPI_Status *st)
{
    tally_pending_t p = { .req = MPI_REQUEST_NULL };
    int found = 0;

    if (!tally.on || req == MPI_REQUEST_NULL)
        return;
    pthread_mutex_lock(&tally.lock);
    for (int k = 0; k < TALLY_MAX_PENDING; ++k)
        if (tally.pending[k].req == req) {
            p = tally.pending[k];
            tally.pending[k].req = MPI_REQUEST_NULL;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&tally.lock);
    if (!found)
        return;
    if (st != MPI_STATUS_IGNORE) {
        int cancelled = 0, count = MPI_UNDEFINED;

        if (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
            return;
        if (strcmp(p.call, "MPI_Irecv") == 0 &&
            PMPI_Get_count(st, MPI_BYTE, &count) == MPI_SUCCESS && count != MPI_UNDEFINED &&
            count < p.bytes)
            p.bytes = count;
    }
    tally_maybe_flip(p.call, p.buf, p.bytes, 0, 0);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    int elem = tally.on ? tally_elem(dt) : 0;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1)
        tally_watch(*req, buf, (long long)count * elem, elem, "MPI_Irecv");
    return rc;
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    int rc = PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, req);
    int elem = tally.on ? tally_elem(dt) : 0;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1)
        tally_watch(*req, rbuf, (long long)count * elem, elem, "MPI_Iallreduce");
    return rc;
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req)
{
    int rc = PMPI_Ibcast(buf, count, dt, root, comm, req);
    int elem = tally.on ? tally_elem(dt) : 0, me = -1;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1 &&
        PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me != root)
        tally_watch(*req, buf, (long long)count * elem, elem, "MPI_Ibcast");
    return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    MPI_Request before = *req;
    MPI_Status mine;
    int rc = PMPI_Wait(req, st == MPI_STATUS_IGNORE ? &mine : st);

    if (rc == MPI_SUCCESS)
        tally_completed(before, st == MPI_STATUS_IGNORE ? &mine : st);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    MPI_Request before = *req;
    MPI_Status mine;
    int rc = PMPI_Test(req, flag, st == MPI_STATUS_IGNORE ? &mine : st);

    if (rc == MPI_SUCCESS && *flag)
        tally_completed(before, st == MPI_STATUS_IGNORE ? &mine : st);
    return rc;
}

/* The multi-request forms: the handles before the call, then each that
 * completed (its slot now MPI_REQUEST_NULL, or listed by index). */
static MPI_Request *tally_copy(int n, const MPI_Request *reqs)
{
    MPI_Request *c;

    if (!tally.on || n <= 0)
        return NULL;
    c = malloc(sizeof(*c) * (size_t)n);
    if (c != NULL)
        memcpy(c, reqs, sizeof(*c) * (size_t)n);
    return c;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    MPI_Request *before = tally_copy(n, reqs);
    int rc = PMPI_Waitall(n, reqs, sts);

    if (before != NULL && rc == MPI_SUCCESS)
        for (int k = 0; k < n; ++k)
            tally_completed(before[k], sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k]);
    free(before);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    MPI_Request *before = tally_copy(n, reqs);
    int rc = PMPI_Testall(n, reqs, flag, sts);

    if (before != NULL && rc == MPI_SUCCESS && *flag)
        for (int k = 0; k < n; ++k)
            tally_completed(before[k], sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k]);
    free(before);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *st)
{
    MPI_Request *before = tally_copy(n, reqs);
    int rc = PMPI_Waitany(n, reqs, index, st);

    if (before != NULL && rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        tally_completed(before[*index], st);
    free(before);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st)
{
    MPI_Request *before = tally_copy(n, reqs);
    int rc = PMPI_Testany(n, reqs, index, flag, st);

    if (before != NULL && rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        tally_completed(before[*index], st);
    free(before);
    return rc;
}

static void tally_some(const MPI_Request *before, int out, const int idx[], MPI_Status sts[])
{
    if (before == NULL || out == MPI_UNDEFINED)
        return;
    for (int k = 0; k < out; ++k)
        tally_completed(before[idx[k]], sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k]);
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    MPI_Request *before = tally_copy(n, reqs);
    int rc = PMPI_Waitsome(n, reqs, out, idx, sts);

    if (rc == MPI_SUCCESS)
        tally_some(before, *out, idx, sts);
    free(before);
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    MPI_Request *before = tally_copy(n, reqs);
    int rc = PMPI_Testsome(n, reqs, out, idx, sts);

    if (rc == MPI_SUCCESS)
        tally_some(before, *out, idx, sts);
    free(before);
    return rc;
}

/* ---- blocking receives ---- */

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    MPI_Status mine;
    MPI_Status *use = st == MPI_STATUS_IGNORE ? &mine : st;
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, use);
    int elem = tally.on ? tally_elem(dt) : 0;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1)
        tally_maybe_flip("MPI_Recv", buf, tally_received(use, dt, (long long)count * elem), 0, 0);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *st)
{
    MPI_Status mine;
    MPI_Status *use = st == MPI_STATUS_IGNORE ? &mine : st;
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                           comm, use);
    int elem = tally.on ? tally_elem(rtype) : 0;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1 && source != MPI_PROC_NULL)
        tally_maybe_flip("MPI_Sendrecv", rbuf,
                         tally_received(use, rtype, (long long)rcount * elem), 0, 0);
    return rc;
}

/* ---- collectives: what each rank ends up holding from the others ---- */

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    int rc = PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    int elem = tally.on ? tally_elem(dt) : 0;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1)
        tally_maybe_flip("MPI_Allreduce", rbuf, (long long)count * elem, 0, 0);
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    int rc = PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    int elem = tally.on ? tally_elem(dt) : 0, me = -1;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1 &&
        PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me == root)
        tally_maybe_flip("MPI_Reduce", rbuf, (long long)count * elem, 0, 0);
    return rc;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    int rc = PMPI_Reduce_scatter_block(sbuf, rbuf, count, dt, op, comm);
    int elem = tally.on ? tally_elem(dt) : 0;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1)
        tally_maybe_flip("MPI_Reduce_scatter_block", rbuf, (long long)count * elem, 0, 0);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rc = PMPI_Bcast(buf, count, dt, root, comm);
    int elem = tally.on ? tally_elem(dt) : 0, me = -1;

    if (rc == MPI_SUCCESS && elem > 0 && tally_comm_size(comm) > 1 &&
        PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me != root)
        tally_maybe_flip("MPI_Bcast", buf, (long long)count * elem, 0, 0);
    return rc;
}

/* the output holds one block per rank; this rank's own is not received */
static void tally_blocks(const char *call, void *rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm comm)
{
    int elem = tally_elem(rtype), n = tally_comm_size(comm), me = -1;
    long long block;

    if (elem <= 0 || n <= 1 || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS)
        return;
    block = (long long)rcount * elem;
    tally_maybe_flip(call, rbuf, block * n, block * me, block);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);

    if (rc == MPI_SUCCESS && tally.on)
        tally_blocks("MPI_Allgather", rbuf, rcount, rtype, comm);
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);

    if (rc == MPI_SUCCESS && tally.on)
        tally_blocks("MPI_Alltoall", rbuf, rcount, rtype, comm);
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    int me = -1;

    if (rc == MPI_SUCCESS && tally.on && PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me == root)
        tally_blocks("MPI_Gather", rbuf, rcount, rtype, comm);
    return rc;
}
