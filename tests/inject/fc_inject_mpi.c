/*
 * fc_inject_mpi.c - the injector's MPI wrappers (see fc_inject.c for what
 * each mode does and how it is configured): each MPI_X asks fc_inject_call
 * whether the call counts, acts on it, and calls PMPI_X. What a rank
 * receives is damaged (corrupt-recv) only after the call returned right,
 * in the part of the output that came from a peer. The nonblocking
 * point-to-point calls (the pairs stage's exchanges) act when their request
 * completes in MPI_Wait or MPI_Test: until then a corrupted or stale send
 * copy is held, and a receive is damaged only once it has arrived.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_inject.h"

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
    if (rc == MPI_SUCCESS)
        fc_inject_recv(act, recvbuf, 0, count, dt);
    fc_inject_received("allreduce", recvbuf, (long)count * fc_inject_size(dt), dt);
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
    if (rc == MPI_SUCCESS && rank == root)
        fc_inject_recv(act, recvbuf, 0, count, dt);
    if (rank == root)
        fc_inject_received("reduce", recvbuf, (long)count * fc_inject_size(dt), dt);
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
    int rc, rank = 0, n = 1, act = fc_inject_call("allgather", sendbuf == MPI_IN_PLACE ? rcount : scount,
                                           sendbuf == MPI_IN_PLACE ? rdt : sdt);
    long flipped;

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
    PMPI_Comm_size(comm, &n);
    if (rc == MPI_SUCCESS && n > 1)     /* a peer's block: what it received */
        fc_inject_recv(act, recvbuf, (long)((rank + 1) % n) * rcount, rcount, rdt);
    fc_inject_received("allgather", recvbuf, (long)rcount * n * fc_inject_size(rdt), rdt);
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
    if (rc == MPI_SUCCESS && n > 1)
        fc_inject_recv(act, recvbuf, 0, rcount, dt);
    fc_inject_received("reduce_scatter", recvbuf, (long)rcount * fc_inject_size(dt), dt);
    return fc_inject_rc(rc);
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                 int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    void *bad = NULL;
    int n = 1, rc, act;

    PMPI_Comm_size(comm, &n);
    act = fc_inject_call("alltoall", scount * n, sdt);
    if (act == FC_ACT_NOOP)
        return MPI_SUCCESS;
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    rc = PMPI_Alltoall(fc_inject_send(act, sendbuf, scount * n, sdt, &bad), scount, sdt,
                       recvbuf, rcount, rdt, comm);
    free(bad);
    if (rc == MPI_SUCCESS && n > 1) {
        int rank = 0;

        PMPI_Comm_rank(comm, &rank);
        fc_inject_recv(act, recvbuf, (long)((rank + 1) % n) * rcount, rcount, rdt);
    }
    fc_inject_received("alltoall", recvbuf, (long)rcount * n * fc_inject_size(rdt), rdt);
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
    if (rc == MPI_SUCCESS && rank != root)
        fc_inject_recv(act, buf, 0, count, dt);
    if (rank != root)
        fc_inject_received("bcast", buf, (long)count * fc_inject_size(dt), dt);
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
    if (rc == MPI_SUCCESS)
        fc_inject_recv(act, recvbuf, 0, rcount, rdt);
    if (rc == MPI_SUCCESS && PMPI_Get_count(status, rdt, &got) == MPI_SUCCESS && got > 0)
        fc_inject_received("sendrecv", recvbuf, (long)got * fc_inject_size(rdt), rdt);
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

/* Calls only flip-recv and count act on (after the library's call). */
int MPI_Gather(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int rc = PMPI_Gather(sendbuf, scount, sdt, recvbuf, rcount, rdt, root, comm), rank = -1, n = 1;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &n);
    if (rank == root)
        fc_inject_received("gather", recvbuf, (long)rcount * n * fc_inject_size(rdt), rdt);
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
        fc_inject_received("gatherv", recvbuf, fc_inject_extent(rcounts, displs, n, rdt), rdt);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    int rc = PMPI_Allgatherv(sendbuf, scount, sdt, recvbuf, rcounts, displs, rdt, comm), n = 1;

    PMPI_Comm_size(comm, &n);
    fc_inject_received("allgatherv", recvbuf, fc_inject_extent(rcounts, displs, n, rdt), rdt);
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
        fc_inject_received("recv", buf, (long)got * fc_inject_size(dt), dt);
    return rc;
}

/* Nonblocking sends and receives acted on, until their request completes:
 * the send copy to free, the receive to damage. A request past the table's
 * end keeps its copy (a test tool's leak, said once), never freed early. */
#define FC_INJECT_PENDING 64
static struct fc_inject_pending {
    MPI_Request req;
    void *copy;                 /* the send's corrupted or stale copy */
    void *rbuf;                 /* the receive's buffer, or NULL */
    int act, count;
    MPI_Datatype dt;
} fc_pending[FC_INJECT_PENDING];

static void fc_inject_hold(MPI_Request req, void *copy, int act, void *rbuf, int count,
                           MPI_Datatype dt)
{
    static int said;

    for (int k = 0; k < FC_INJECT_PENDING; ++k)
        if (!fc_pending[k].copy && !fc_pending[k].rbuf) {
            fc_pending[k] = (struct fc_inject_pending){ req, copy, rbuf, act, count, dt };
            return;
        }
    if (!said++)
        fc_inject_say("more nonblocking calls in flight than it tracks: a copy kept", "isend");
}

/* The request req (its handle before the call completed it) is done. */
static void fc_inject_done(MPI_Request req, int rc)
{
    for (int k = 0; req != MPI_REQUEST_NULL && k < FC_INJECT_PENDING; ++k) {
        struct fc_inject_pending *p = &fc_pending[k];

        if (p->req != req || (!p->copy && !p->rbuf))
            continue;
        free(p->copy);
        fc_inj.matched = 1;         /* the call counted when it was made */
        if (p->rbuf && rc == MPI_SUCCESS)
            fc_inject_recv(p->act, p->rbuf, 0, p->count, p->dt);
        memset(p, 0, sizeof(*p));
        p->req = MPI_REQUEST_NULL;
        return;
    }
}

/* One exchange is one matching call, as with MPI_Sendrecv: the send
 * counts, but under corrupt-recv, where the receive does. */
static int fc_inject_counts_recv(void)
{
    if (!fc_inj.configured)
        fc_inject_configure();
    return fc_inj.mode == FC_INJECT_CORRUPT_RECV;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    void *bad = NULL;
    int rc, act = fc_inject_counts_recv() ? FC_ACT_NONE : fc_inject_call("isend", count, dt);

    if (act == FC_ACT_NOOP) {
        *req = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    rc = PMPI_Isend(fc_inject_send(act, buf, count, dt, &bad), count, dt, dest, tag, comm, req);
    if (rc != MPI_SUCCESS)
        free(bad);
    else if (bad)
        fc_inject_hold(*req, bad, act, NULL, 0, dt);
    return fc_inject_rc(rc);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    int rc, act = fc_inject_counts_recv() ? fc_inject_call("irecv", count, dt) : FC_ACT_NONE;

    if (act == FC_ACT_NOOP) {
        *req = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (act == FC_ACT_FAIL)
        return fc_inject_fail(comm);
    rc = PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    if (rc == MPI_SUCCESS && act == FC_ACT_CORRUPT_RECV)
        fc_inject_hold(*req, NULL, act, buf, count, dt);
    return fc_inject_rc(rc);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Request was = *req;
    int rc = PMPI_Wait(req, status);

    fc_inject_done(was, rc);
    return rc;
}

/* The overlap stage's collective (suites/overlap.c): blocking acts on it
 * at the call; what it receives is there when its request completes
 * (MPI_Wait, MPI_Test), where corrupt-recv acts and the tally counts it. */
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    int act = fc_inject_call("iallreduce", count, dt), rc;

    if (act == FC_ACT_BLOCK) {
        rc = PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
        *req = MPI_REQUEST_NULL;
        if (rc == MPI_SUCCESS)
            fc_inject_recv(act, recvbuf, 0, count, dt);
        return rc;
    }
    rc = PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, req);
    if (rc == MPI_SUCCESS && fc_inj.matched)
        fc_inject_hold(*req, NULL, act, recvbuf, count, dt);
    return rc;
}

/* test-waits: the poll that moves the whole collective (see the top). */
int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!fc_inj.configured)
        fc_inject_configure();
    if (fc_inj.mode == FC_INJECT_TEST_WAITS) {
        int rc;

        ++fc_inj.calls;
        fc_inject_say("waiting for the request inside MPI_Test (serial progress)", "test");
        rc = MPI_Wait(req, status);
        *flag = 1;
        return rc;
    }
    {
        MPI_Request was = *req;
        int rc = PMPI_Test(req, flag, status);

        if (*flag)
            fc_inject_done(was, rc);
        return rc;
    }
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
