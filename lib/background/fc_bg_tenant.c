/*
 * fc_bg_tenant.c - the tenant kind of background traffic: another
 * tenant's job among the background ranks. Step k sends one block to
 * (rank + shift_k) and receives one from (rank - shift_k); all_to_all
 * walks the shifts 1 .. size-1 in turn (the pairwise-exchange schedule of
 * an all-to-all), a permutation takes a pseudo-random shift each step.
 * Every rank computes the same shifts, so step k's sends and receives
 * match whatever pace each rank keeps; a rank posts step k+1 when step k
 * is done. After the stop the ranks agree on the highest step any of them
 * posted and each finishes its steps up to it with empty sends, so every
 * receive a faster rank posted is matched. The kind has a communicator of
 * its own: no message of another kind can match its receives.
 */
#include "fc_bg_kind.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_log.h"

#define FC_BG_TAG_TENANT 78

typedef struct fc_bg_tenant {
    const fc_bg_profile_t *b;       /* the kind's settings */
    MPI_Comm comm;                  /* its own duplicate of the engine's */
    void *rbuf;                     /* receives land here */
    MPI_Request req[2];             /* the step in flight: receive, send */
    unsigned long step;             /* steps posted this phase */
    double posted;                  /* bytes started this phase */
    double sent;                    /* ... and completed */
} fc_bg_tenant_t;

static fc_status_t fc_bg_tenant_init(fc_bg_t *bg, const int *racks, void **state_p)
{
    fc_bg_tenant_t *t = fc_xcalloc(1, sizeof(*t), "the tenant state");

    *state_p = t;
    t->b = &bg->cp->kinds[FC_BG_TENANT];
    t->comm = MPI_COMM_NULL;
    MPI_Comm_dup(bg->comm, &t->comm);
    /* sized by the profile's block (its input): an error naming the size,
     * not the out-of-memory policy (lib/base/fc_alloc.h) */
    if (posix_memalign(&t->rbuf, FC_BG_ALIGN, bg->buf_bytes) != 0) {
        t->rbuf = NULL;
        fc_error("out of memory for a %zu-byte tenant receive buffer", bg->buf_bytes);
        return FC_ERR_INTERNAL;
    }
    memset(t->rbuf, 0, bg->buf_bytes);
    return FC_OK;
}

static void fc_bg_tenant_post(fc_bg_t *bg, fc_bg_tenant_t *t, int bytes)
{
    unsigned span = (unsigned)bg->size - 1;
    int shift = 1 + (int)(t->b->permutation ? (t->step * 2654435761u) % span : t->step % span);
    int to = (bg->rank + shift) % bg->size, from = (bg->rank - shift + bg->size) % bg->size;

    MPI_Irecv(t->rbuf, (int)t->b->block, MPI_BYTE, from, FC_BG_TAG_TENANT, t->comm,
              &t->req[0]);
    MPI_Isend(bg->buf, bytes, MPI_BYTE, to, FC_BG_TAG_TENANT, t->comm, &t->req[1]);
    t->step++;
    t->posted += bytes;
}

static int fc_bg_tenant_start(fc_bg_t *bg, void *state, double t0)
{
    fc_bg_tenant_t *t = state;

    t->req[0] = t->req[1] = MPI_REQUEST_NULL;
    t->step = 0;
    t->posted = t->sent = 0;
    return 1;
}

/* Nothing after the stop: the drain finishes the steps. */
static int fc_bg_tenant_poll(fc_bg_t *bg, void *state, double el, int may_post)
{
    fc_bg_tenant_t *t = state;
    int done = 1;

    if (!may_post)
        return 0;
    if (t->req[0] != MPI_REQUEST_NULL) {
        MPI_Testall(2, t->req, &done, MPI_STATUSES_IGNORE);
        if (!done)
            return 0;
        t->sent += (double)t->b->block;
    }
    if (bg->size < 2 || !fc_bg_is_on(t->b, el) || !fc_bg_may_start(t->b, t->posted, el))
        return done;
    fc_bg_tenant_post(bg, t, (int)t->b->block);
    return 1;
}

/* Step k completes on every rank once every rank has posted it, and a
 * rank posts k+1 after k completes, so this ends. */
static void fc_bg_tenant_drain(fc_bg_t *bg, void *state)
{
    fc_bg_tenant_t *t = state;
    int in_flight = t->req[0] != MPI_REQUEST_NULL;
    unsigned long long step = t->step, last = 0;

    if (bg->size < 2)
        return;
    fc_ctl_allreduce(t->comm, "tenant: the last step posted", FC_CTL_UINT64, FC_CTL_MAX, &step,
                     &last, 1);
    MPI_Waitall(2, t->req, MPI_STATUSES_IGNORE);
    if (in_flight)
        t->sent += (double)t->b->block;
    while (t->step < last) {
        fc_bg_tenant_post(bg, t, 0);
        MPI_Waitall(2, t->req, MPI_STATUSES_IGNORE);
    }
}

static void fc_bg_tenant_tally(fc_bg_t *bg, void *state, fc_bg_tally_t *tally)
{
    const fc_bg_tenant_t *t = state;

    tally->generating[FC_BG_TENANT] = 1;
    tally->bytes[FC_BG_TENANT] = t->sent;
}

static void fc_bg_tenant_fini(fc_bg_t *bg, void *state)
{
    fc_bg_tenant_t *t = state;

    if (t->comm != MPI_COMM_NULL)
        MPI_Comm_free(&t->comm);
    free(t->rbuf);
    free(t);
}

const fc_bg_kind_ops_t fc_bg_tenant_ops = {
    .name = "tenant",
    .init_func = fc_bg_tenant_init,
    .start_func = fc_bg_tenant_start,
    .poll_func = fc_bg_tenant_poll,
    .drain_func = fc_bg_tenant_drain,
    .tally_func = fc_bg_tenant_tally,
    .fini_func = fc_bg_tenant_fini,
};
