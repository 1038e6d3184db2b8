/*
 * fc_bg_storage_net.c - the storage_net kind of background traffic:
 * many-to-few incast, the checkpoint pattern. The last `targets` ranks of
 * the last rack (by background rank) act as storage; every other rank
 * (outside that rack, with placement cross-rack) is a client of one of
 * them, in turn, and sends it large messages in on/off bursts. A client
 * keeps up to FC_BG_NET_WINDOW blocks in flight to its target; a target
 * keeps one receive posted per client, each into its own block. At the
 * stop a client sends an empty message after its data (MPI keeps the
 * order between one sender and one receiver), and a target receives
 * until every client's empty message has come, so no message is left
 * unmatched. The kind has a communicator of its own: no message of
 * another kind can match its receives.
 */
#include "fc_bg_kind.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_log.h"

#define FC_BG_NET_WINDOW 2          /* blocks in flight per client */
#define FC_BG_TAG_NET 77

typedef struct fc_bg_net {
    const fc_bg_profile_t *b;       /* the kind's settings */
    MPI_Comm comm;                  /* its own duplicate of the engine's */
    int nclients;                   /* a target: how many clients send to it */
    int *clients;                   /* ... their ranks in comm */
    int my_target;                  /* a client: its target's rank, or -1 */
    int roles;                      /* some rank has a role (else: idle) */
    void *rbufs;                    /* a target: one block per client */
    MPI_Request send[FC_BG_NET_WINDOW]; /* a client's blocks in flight */
    MPI_Request *recv;              /* a target: per client */
    int *client_done;               /* a target: the client's end has come */
    int ndone;                      /* ... for this many clients */
    double posted;                  /* bytes a client started this phase */
    double sent;                    /* ... and completed */
} fc_bg_net_t;

/* Targets are the last `targets` ranks of the last rack; clients are the
 * ranks outside that rack (cross-rack) or all the others, the c-th
 * sending to the (c mod ntargets)-th target. */
static void fc_bg_net_roles(fc_bg_net_t *n, const fc_bg_t *bg, const int *racks)
{
    int *is_target = fc_xcalloc((size_t)bg->size, sizeof(int), "the storage_net targets");
    int target_rack = racks[bg->size - 1], ntargets = 0;

    n->clients = fc_xcalloc((size_t)bg->size, sizeof(int), "the storage_net clients");
    for (int r = bg->size - 1; r >= 0 && ntargets < n->b->targets; --r)
        if (racks[r] == target_rack && r > 0) {
            is_target[r] = 1;
            ++ntargets;
        }
    for (int r = 0, c = 0; r < bg->size; ++r) {
        int t;

        if (is_target[r] || (n->b->cross_rack && racks[r] == target_rack &&
                             racks[0] != target_rack))
            continue;
        t = bg->size - 1;
        for (int skip = c % ntargets; t >= 0; --t)
            if (is_target[t] && skip-- == 0)
                break;
        if (r == bg->rank)
            n->my_target = t;
        if (t == bg->rank)
            n->clients[n->nclients++] = r;
        ++c;
    }
    free(is_target);
}

static fc_status_t fc_bg_net_init(fc_bg_t *bg, const int *racks, void **state_p)
{
    fc_bg_net_t *n = fc_xcalloc(1, sizeof(*n), "the storage_net state");
    int role;

    *state_p = n;
    n->b = &bg->cp->kinds[FC_BG_STORAGE_NET];
    n->my_target = -1;
    n->comm = MPI_COMM_NULL;
    MPI_Comm_dup(bg->comm, &n->comm);
    if (bg->size >= 2)
        fc_bg_net_roles(n, bg, racks);
    role = n->my_target >= 0 || n->nclients > 0;
    fc_ctl_allreduce(bg->comm, "storage_net: any rank with a role", FC_CTL_INT, FC_CTL_MAX, &role,
                     &n->roles, 1);
    fc_ctl_check(n->roles == 0 || n->roles == 1, "storage_net: any rank with a role", -1, "%d",
                 n->roles);
    n->recv = fc_xcalloc((size_t)n->nclients + 1, sizeof(MPI_Request),
                         "the storage_net receive requests");
    n->client_done = fc_xcalloc((size_t)n->nclients + 1, sizeof(int),
                                "the storage_net clients done");
    /* one block per client, sized by the profile's block (its input): an
     * error naming the size, not the out-of-memory policy (fc_alloc.h) */
    if (n->nclients > 0 &&
        posix_memalign(&n->rbufs, FC_BG_ALIGN, (size_t)n->nclients * bg->buf_bytes) != 0) {
        n->rbufs = NULL;
        fc_error("out of memory for %d storage_net receive buffers of %zu bytes",
                 n->nclients, bg->buf_bytes);
        return FC_ERR_INTERNAL;
    }
    return FC_OK;
}

/* A target's receive from its c-th client, into that client's block. */
static void fc_bg_net_post_recv(fc_bg_t *bg, fc_bg_net_t *n, int c)
{
    MPI_Irecv((char *)n->rbufs + (size_t)c * bg->buf_bytes, (int)n->b->block, MPI_BYTE,
              n->clients[c], FC_BG_TAG_NET, n->comm, &n->recv[c]);
}

static int fc_bg_net_start(fc_bg_t *bg, void *state, double t0)
{
    fc_bg_net_t *n = state;

    for (int w = 0; w < FC_BG_NET_WINDOW; ++w)
        n->send[w] = MPI_REQUEST_NULL;
    memset(n->client_done, 0, ((size_t)n->nclients + 1) * sizeof(int));
    n->ndone = 0;
    n->posted = n->sent = 0;
    if (!n->roles)
        return 0;
    for (int c = 0; c < n->nclients; ++c)
        fc_bg_net_post_recv(bg, n, c);
    return 1;
}

static int fc_bg_net_poll(fc_bg_t *bg, void *state, double el, int may_post)
{
    fc_bg_net_t *n = state;
    int moved = 0, done;
    MPI_Status st;

    for (int w = 0; w < FC_BG_NET_WINDOW; ++w) {
        if (n->send[w] == MPI_REQUEST_NULL)
            continue;
        MPI_Test(&n->send[w], &done, MPI_STATUS_IGNORE);
        if (done) {
            n->sent += (double)n->b->block;
            moved = 1;
        }
    }
    for (int c = 0; c < n->nclients; ++c) {
        int count = 0;

        if (n->client_done[c])
            continue;
        MPI_Test(&n->recv[c], &done, &st);
        if (!done)
            continue;
        moved = 1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count == 0) {
            n->client_done[c] = 1;
            n->ndone++;
            continue;
        }
        fc_bg_net_post_recv(bg, n, c);
    }
    if (!may_post || n->my_target < 0 || !fc_bg_is_on(n->b, el) ||
        !fc_bg_may_start(n->b, n->posted, el))
        return moved;
    for (int w = 0; w < FC_BG_NET_WINDOW; ++w)
        if (n->send[w] == MPI_REQUEST_NULL) {
            MPI_Isend(bg->buf, (int)n->b->block, MPI_BYTE, n->my_target, FC_BG_TAG_NET,
                      n->comm, &n->send[w]);
            n->posted += (double)n->b->block;
            return 1;
        }
    return moved;
}

static void fc_bg_net_drain(fc_bg_t *bg, void *state)
{
    fc_bg_net_t *n = state;
    MPI_Request end = MPI_REQUEST_NULL;

    if (n->my_target >= 0)
        MPI_Isend(bg->buf, 0, MPI_BYTE, n->my_target, FC_BG_TAG_NET, n->comm, &end);
    for (;;) {
        int sending = 0;

        for (int w = 0; w < FC_BG_NET_WINDOW; ++w)
            sending |= n->send[w] != MPI_REQUEST_NULL;
        if (!sending && n->ndone == n->nclients)
            break;
        if (!fc_bg_net_poll(bg, n, 0, 0))
            usleep(200);
    }
    MPI_Wait(&end, MPI_STATUS_IGNORE);
}

static void fc_bg_net_tally(fc_bg_t *bg, void *state, fc_bg_tally_t *tally)
{
    const fc_bg_net_t *n = state;

    tally->generating[FC_BG_STORAGE_NET] = n->my_target >= 0;
    tally->bytes[FC_BG_STORAGE_NET] = n->sent;
}

static void fc_bg_net_fini(fc_bg_t *bg, void *state)
{
    fc_bg_net_t *n = state;

    if (n->comm != MPI_COMM_NULL)
        MPI_Comm_free(&n->comm);
    free(n->clients);
    free(n->rbufs);
    free(n->recv);
    free(n->client_done);
    free(n);
}

const fc_bg_kind_ops_t fc_bg_storage_net_ops = {
    .name = "storage_net",
    .init_func = fc_bg_net_init,
    .start_func = fc_bg_net_start,
    .poll_func = fc_bg_net_poll,
    .drain_func = fc_bg_net_drain,
    .tally_func = fc_bg_net_tally,
    .fini_func = fc_bg_net_fini,
};
