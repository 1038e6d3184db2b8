/*
 * fc_nic_exchange.c - see fc_nic_transport.h: the exchange every NIC
 * transport uses at connect: set-up data sent and
 * received over the pair's communicator with non-blocking calls polled
 * until the caller's deadline, so a peer that never connects costs its
 * partner the deadline, not the stage's watchdog. Each message carries the
 * pair's connect number (an attribute cached on the communicator, one
 * counter per peer) and its step. Both sides make the same connects with
 * each other in the same order (the rails stage's schedule), one perhaps
 * late: the late side takes what the other sent before giving up, and
 * fails by its own deadline (the other is gone); what the late side sent
 * meanwhile is recognised by its number when the next connect comes and
 * dropped, never taken for that connect's set-up data. A leaf: the
 * transports call it, and the table of transports (fc_nic_transport.c)
 * names them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_nic_transport.h"

#include <xxhash.h>

#include "fc_ctl.h"

static int fc_nic_seq_key = MPI_KEYVAL_INVALID;

static int fc_nic_seq_free(MPI_Comm comm, int key, void *val, void *extra)
{
    free(val);
    return MPI_SUCCESS;
}

/* This side's connect counter with peer on comm (an array cached on the
 * communicator, one per peer); NULL when out of memory. */
static uint32_t *fc_nic_seq(MPI_Comm comm, int peer)
{
    uint32_t *seq = NULL;
    int found = 0, size = 0;

    if (fc_nic_seq_key == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fc_nic_seq_free, &fc_nic_seq_key, NULL);
    MPI_Comm_get_attr(comm, fc_nic_seq_key, &seq, &found);
    if (!found || seq == NULL) {
        MPI_Comm_size(comm, &size);
        if ((seq = calloc((size_t)size + 1, sizeof(*seq))) == NULL)
            return NULL;
        MPI_Comm_set_attr(comm, fc_nic_seq_key, seq);
    }
    return &seq[peer];
}

typedef struct fc_nic_xhdr {
    uint32_t seq;           /* the pair's connect number */
    uint32_t phase;         /* which exchange of that connect */
    uint32_t len;
    uint32_t sum;           /* XXH32 of this head (sum 0) and the data */
} fc_nic_xhdr_t;

#define FC_NIC_XCHG_WHAT "a NIC's set-up data"

static uint32_t fc_nic_xsum(const fc_nic_xhdr_t *h, const void *data)
{
    fc_nic_xhdr_t z = *h;

    z.sum = 0;
    return XXH32(data, h->len, XXH32(&z, sizeof(z), 0));
}

static fc_status_t fc_nic_post(MPI_Comm comm, int peer, int tag, const fc_nic_xhdr_t *h,
                               const void *out, char **sbuf, MPI_Request *sreq)
{
    size_t n = sizeof(*h) + h->len;

    if ((*sbuf = malloc(n)) == NULL)
        return FC_ERR_INTERNAL;
    memcpy(*sbuf, h, sizeof(*h));
    memcpy(*sbuf + sizeof(*h), out, h->len);
    ((fc_nic_xhdr_t *)*sbuf)->sum = fc_nic_xsum(h, out);
    return MPI_Isend(*sbuf, (int)n, MPI_BYTE, peer, tag, comm, sreq) == MPI_SUCCESS
               ? FC_OK : FC_ERR_INTERNAL;
}

fc_status_t fc_nic_exchange(MPI_Comm comm, int peer, int tag, int phase, const void *out,
                            void *in, size_t len, double deadline, char *err, size_t err_len)
{
    size_t n = sizeof(fc_nic_xhdr_t) + len;
    char *sbuf = NULL, *rbuf = malloc(n);
    uint32_t *seq = fc_nic_seq(comm, peer);
    MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
    fc_nic_xhdr_t h, got;
    int sdone = 0, rdone = 0, dropped = 0;
    fc_status_t st = FC_OK;

    if (rbuf == NULL || seq == NULL) {
        snprintf(err, err_len, "out of memory for the set-up exchange");
        free(rbuf);
        return FC_ERR_INTERNAL;
    }
    if (phase == 0)
        ++*seq;
    h = (fc_nic_xhdr_t){ *seq, (uint32_t)phase, (uint32_t)len, 0 };
    st = fc_nic_post(comm, peer, tag, &h, out, &sbuf, &sreq);
    if (st == FC_OK && MPI_Irecv(rbuf, (int)n, MPI_BYTE, peer, tag, comm, &rreq) != MPI_SUCCESS)
        st = FC_ERR_INTERNAL;
    if (st != FC_OK)
        snprintf(err, err_len, "the set-up exchange could not be posted");
    while (st == FC_OK) {
        if (!sdone)
            MPI_Test(&sreq, &sdone, MPI_STATUS_IGNORE);
        if (!rdone)
            MPI_Test(&rreq, &rdone, MPI_STATUS_IGNORE);
        if (rdone) {
            memcpy(&got, rbuf, sizeof(got));
            /* a control message like the stage's (lib/base/fc_ctl.h): one that
             * changed on the way ends the job from this rank, naming it */
            if (got.len > h.len || got.sum != fc_nic_xsum(&got, rbuf + sizeof(got)))
                fc_ctl_fail(FC_NIC_XCHG_WHAT, fc_ctl_world_rank(comm, peer), "connect %u step "
                            "%u: %s", h.seq, h.phase, got.len > h.len ? "it announces more "
                            "bytes than arrived" : "its checksum does not match: a bit "
                            "changed on the way");
            if (got.seq < h.seq || (got.seq == h.seq && got.phase < h.phase)) {
                /* the peer's message for a connect this side gave up on */
                ++dropped;
                rdone = 0;
                MPI_Irecv(rbuf, (int)n, MPI_BYTE, peer, tag, comm, &rreq);
                continue;
            }
            if (got.seq != h.seq || got.phase != h.phase || got.len != h.len) {
                /* the peer made a connect with this side that this side
                 * never made: the two no longer agree on the schedule */
                snprintf(err, err_len, "set-up data out of step: the peer's connect %u step %u "
                         "(%u bytes), this side's %u step %u (%zu bytes)", got.seq, got.phase,
                         got.len, h.seq, h.phase, len);
                st = FC_ERR_FAIL;
                break;
            }
        }
        if (sdone && rdone)
            break;
        if (MPI_Wtime() > deadline) {
            snprintf(err, err_len, "no set-up data from the peer before the deadline%s",
                     dropped ? " (only a stale connect's)" : "");
            st = FC_ERR_TIMEOUT;
            break;
        }
        usleep(200);
    }
    if (!rdone && rreq != MPI_REQUEST_NULL) {
        /* a message that matched before the cancel is lost with this
         * connect: the peer's next connect has a higher number */
        MPI_Cancel(&rreq);
        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    }
    if (!sdone && sreq != MPI_REQUEST_NULL) {
        /* still on its way: the peer may take it later (its connect then
         * finds this side gone and fails by its own deadline), so the
         * buffer must outlive this call: it is left to MPI, a few bytes */
        MPI_Request_free(&sreq);
        sbuf = NULL;
    }
    if (st == FC_OK)
        memcpy(in, rbuf + sizeof(fc_nic_xhdr_t), len);
    free(sbuf);
    free(rbuf);
    return st;
}
