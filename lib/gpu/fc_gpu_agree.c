/*
 * fc_gpu_agree.c - see fc_gpu_agree.h. Statuses are agreed with MPI_MAX on
 * their numeric value, as the engine does (fc_engine_agree): any failure
 * outweighs FC_OK.
 */
#include "fc_gpu_agree.h"

#include <stdio.h>
#include <string.h>

#include "fc_ctl.h"
#include "fc_ctl_frame.h"
#include "fc_log.h"

#define FC_NOTICE_TAG 7155
#define FC_NOTICE_WHAT "a peer's failure notice"
#define FC_NOTICE_BYTES (FC_CTL_HEAD + sizeof(int))

void fc_gpu_peer_open(fc_gpu_peer_t *peer, MPI_Comm comm, const char *device)
{
    memset(peer, 0, sizeof(*peer));
    peer->comm = comm;
    peer->device = device;
    if (MPI_Comm_dup(comm, &peer->notice) != MPI_SUCCESS)
        peer->notice = MPI_COMM_NULL;
}

/* Receive every notice already here; 1 if there was one (its sender and
 * status in *from_p, *status_p). */
static int fc_gpu_notice_take(fc_gpu_peer_t *peer, int *from_p, int *status_p)
{
    int flag = 1, got = 0;

    while (peer->notice != MPI_COMM_NULL && flag) {
        MPI_Status st;
        unsigned char frame[FC_NOTICE_BYTES];
        char why[256];
        int status = 0, bytes = 0;

        MPI_Iprobe(MPI_ANY_SOURCE, FC_NOTICE_TAG, peer->notice, &flag, &st);
        if (!flag)
            break;
        MPI_Recv(frame, (int)sizeof(frame), MPI_BYTE, st.MPI_SOURCE, FC_NOTICE_TAG,
                 peer->notice, &st);
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        if (fc_ctl_frame_open(frame, bytes > 0 ? (size_t)bytes : 0, FC_NOTICE_WHAT,
                              st.MPI_SOURCE, sizeof(int), why, sizeof(why)) != 0)
            fc_ctl_fail(FC_NOTICE_WHAT, fc_ctl_world_rank(peer->notice, st.MPI_SOURCE), "%s",
                        why);
        memcpy(&status, frame + FC_CTL_HEAD, sizeof(status));
        fc_ctl_check(status > FC_OK && status <= FC_ERR_INTERNAL, FC_NOTICE_WHAT,
                     fc_ctl_world_rank(peer->notice, st.MPI_SOURCE), "status %d", status);
        if (!got) {
            *from_p = st.MPI_SOURCE;
            *status_p = status;
        }
        got = 1;
    }
    return got;
}

void fc_gpu_peer_close(fc_gpu_peer_t *peer)
{
    int from, status;

    if (peer->notice == MPI_COMM_NULL)
        return;
    (void)fc_gpu_notice_take(peer, &from, &status);
    MPI_Comm_free(&peer->notice);
    peer->notice = MPI_COMM_NULL;
}

/* This rank failed: tell every peer now (small sends, not waited for). */
static void fc_gpu_notice_send(fc_gpu_peer_t *peer, fc_status_t st)
{
    static unsigned char frame[FC_NOTICE_BYTES];    /* the sends outlive the call */
    int me, n, status = (int)st, world = -1;

    if (peer->notice == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(peer->notice, &me);
    MPI_Comm_size(peer->notice, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    fc_ctl_frame_seal(frame, FC_NOTICE_WHAT, me, world, &status, sizeof(status));
    for (int r = 0; r < n; ++r) {
        MPI_Request req;

        if (r == me)
            continue;
        if (MPI_Isend(frame, (int)sizeof(frame), MPI_BYTE, r, FC_NOTICE_TAG, peer->notice,
                      &req) == MPI_SUCCESS)
            MPI_Request_free(&req);
    }
}

/* The wait of a call: the work's own ops, and the peers' notices. */
typedef struct fc_gpu_call_wait {
    const fc_gpu_wait_ops_t *inner;
    void *ctx;
    fc_gpu_peer_t *peer;
    int noticed;        /* the wait ended on a peer's notice */
} fc_gpu_call_wait_t;

static fc_gpu_poll_t fc_gpu_call_poll(void *ctx, char *why, size_t len)
{
    fc_gpu_call_wait_t *w = ctx;

    return w->inner->poll_func(w->ctx, why, len);
}

static int fc_gpu_call_async(void *ctx, char *why, size_t len)
{
    fc_gpu_call_wait_t *w = ctx;
    int from, status;

    if (w->inner->async_error_func && w->inner->async_error_func(w->ctx, why, len))
        return 1;
    if (fc_gpu_notice_take(w->peer, &from, &status)) {
        w->noticed = 1;
        snprintf(why, len, "rank %d of the communicator failed (%s), so this call cannot "
                 "complete", from, fc_status_str((fc_status_t)status));
        return 1;
    }
    return 0;
}

static const fc_gpu_wait_ops_t fc_gpu_call_ops = { fc_gpu_call_poll, fc_gpu_call_async };

static void fc_gpu_abort_once(fc_gpu_peer_t *peer, const fc_gpu_comm_ops_t *cops, void *ctx)
{
    if (!peer->aborted) {
        cops->abort_func(ctx);
        peer->aborted = 1;
    }
}

fc_status_t fc_gpu_agree(fc_gpu_peer_t *peer, fc_status_t mine, const fc_gpu_comm_ops_t *cops,
                         void *ctx, const char *what)
{
    int local = (int)mine, worst = (int)mine;

    fc_ctl_allreduce(peer->comm, "the GPU call's status", FC_CTL_INT, FC_CTL_MAX, &local, &worst,
                     1);
    fc_ctl_check(worst >= FC_OK && worst <= FC_ERR_INTERNAL, "the GPU call's status", -1,
                 "status %d", worst);
    if (worst == FC_OK)
        return FC_OK;
    if (mine == FC_OK)
        fc_error("%s on %s: a peer failed (%s); aborting the communicator with it", what,
                 peer->device, fc_status_str((fc_status_t)worst));
    fc_gpu_abort_once(peer, cops, ctx);
    return mine != FC_OK ? mine : FC_ERR_FAIL;
}

fc_status_t fc_gpu_call(fc_gpu_peer_t *peer, fc_status_t enqueued,
                        const fc_gpu_comm_ops_t *cops, const fc_gpu_wait_ops_t *wops,
                        void *ctx, double timeout_s, const char *what)
{
    fc_status_t st;
    char why[256];

    if (peer->aborted) {
        /* every rank aborted in the same agreement: none is waiting */
        cops->release_func(ctx);
        return FC_ERR_FAIL;
    }
    /* a local step (fill, verify...) failed on this rank since its last
     * call: the engine still makes this call, as its peers do, and this
     * agreement is where they learn it (the rank enqueued nothing) */
    if (peer->failed && !peer->told) {
        fc_error("%s on %s: a local step failed on this rank before this call; the ranks "
                 "agree and abort the communicator together", what, peer->device);
        peer->told = 1;
    }
    if (peer->failed)
        enqueued = fc_status_worst(enqueued, FC_ERR_FAIL);
    /* everyone enqueued (and this is the common start) */
    if ((st = fc_gpu_agree(peer, enqueued, cops, ctx, what)) != FC_OK) {
        /* aborted first, so the released work cannot wait for a peer */
        cops->release_func(ctx);
        return st;
    }
    cops->release_func(ctx);
    {
        fc_gpu_call_wait_t w = { wops, ctx, peer, 0 };

        st = fc_gpu_wait(&fc_gpu_call_ops, &w, timeout_s, why, sizeof(why));
        if (st != FC_OK) {
            fc_error("%s on %s: %s; the ranks agree before aborting the communicator", what,
                     peer->device, why);
            /* a failure of its own is told to the peers (not one they told) */
            if (!w.noticed)
                fc_gpu_notice_send(peer, st);
        }
    }
    return fc_gpu_agree(peer, st, cops, ctx, what);
}

void fc_gpu_fini(fc_gpu_peer_t *peer, const fc_gpu_comm_ops_t *cops, void *ctx)
{
    int local = peer->failed || peer->aborted, any = local;

    fc_ctl_allreduce(peer->comm, "a GPU communicator failed", FC_CTL_INT, FC_CTL_MAX, &local,
                     &any, 1);
    fc_ctl_check(any == 0 || any == 1, "a GPU communicator failed", -1, "%d", any);
    if (any)
        fc_gpu_abort_once(peer, cops, ctx);
    else
        cops->destroy_func(ctx);
}
