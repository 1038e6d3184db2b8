/*
 * fc_nic_verbs_io.c - the verbs transport's data path: transfer (RDMA
 * write of the sender's buf into the peer's, ended by an immediate the
 * receiver waits for) and pingpong (a send each way), over the endpoint
 * fc_nic_verbs.c set up, with the receives it posts and the name of an
 * endpoint in messages (which the set-up uses too). The protocol
 * (credits, immediates numbered by call) is in fc_nic_verbs_int.h.
 *
 * Every wait polls its completion queue against the caller's deadline
 * (MPI_Wtime seconds) and never blocks in the kernel: past the deadline it
 * is FC_ERR_TIMEOUT naming what did not come. A completion with an error
 * is FC_ERR_FAIL naming the device, port, peer and ibv_wc_status_str: a
 * link that drops packets until the transport's retries run out is a
 * fabric fault, not an internal one. After any error the endpoint's calls
 * are out of step with the peer's: the caller closes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "fc_log.h"
#include "fc_nic_verbs.h"

#ifdef FC_HAVE_VERBS

#include "fc_nic_verbs_int.h"

#define FC_VERBS_SEQ_MASK 0x0fffffffu

const char *fc_verbs_who(const fc_nic_ep_t *ep, char *out, size_t len)
{
    snprintf(out, len, "verbs %s port %d (NIC %s) to rank %d (%s port %d on %s)", ep->port.dev,
             ep->port.port, ep->nic, ep->peer_world, ep->peer_dev[0] ? ep->peer_dev : "?",
             ep->peer_port, ep->peer_host[0] ? ep->peer_host : "?");
    return out;
}

int fc_verbs_post_recv(fc_nic_ep_t *ep)
{
    struct ibv_sge sge = {.addr = (uintptr_t)ep->buf, .length = ep->recv_len,
                          .lkey = ep->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 0, .sg_list = &sge, .num_sge = ep->recv_len ? 1 : 0};
    struct ibv_recv_wr *bad;

    return ibv_post_recv(ep->qp, &wr, &bad);
}

static const char *kind_name(unsigned kind)
{
    switch (kind) {
    case FC_VERBS_CREDIT: return "credit";
    case FC_VERBS_DATA: return "RDMA write immediate";
    case FC_VERBS_PING: return "ping";
    case FC_VERBS_PONG: return "pong";
    default: return "unknown message";
    }
}

/* One completion from cq into wc, polling until the deadline. */
static fc_status_t poll_one(fc_nic_ep_t *ep, struct ibv_cq *cq, struct ibv_wc *wc,
                            double deadline, const char *what, char *why, size_t why_len)
{
    double start = MPI_Wtime();
    char who[200];

    for (unsigned long spin = 0;; ++spin) {
        int n = ibv_poll_cq(cq, 1, wc);

        if (n > 0) {
            if (wc->status == IBV_WC_SUCCESS)
                return FC_OK;
            snprintf(why, why_len, "%s: %s: completion error: %s (wc status %d, vendor error "
                     "0x%x)", fc_verbs_who(ep, who, sizeof(who)), what,
                     ibv_wc_status_str(wc->status), (int)wc->status, wc->vendor_err);
            fc_error("%s", why);
            return FC_ERR_FAIL;
        }
        if (n < 0) {
            snprintf(why, why_len, "%s: %s: ibv_poll_cq failed (%d)",
                     fc_verbs_who(ep, who, sizeof(who)), what, n);
            fc_error("%s", why);
            return FC_ERR_INTERNAL;
        }
        if ((spin & 15) == 15 && MPI_Wtime() > deadline) {
            if (ibv_poll_cq(cq, 1, wc) != 0)    /* it came as the time ran out */
                continue;
            snprintf(why, why_len, "%s: no %s within the deadline (waited %.3f s)",
                     fc_verbs_who(ep, who, sizeof(who)), what, MPI_Wtime() - start);
            fc_error("%s", why);
            return FC_ERR_TIMEOUT;
        }
    }
}

/* The next arrival, which must be a message of kind for call `call`;
 * its length into *bytes_p (may be NULL). One receive is posted again. */
static fc_status_t wait_recv(fc_nic_ep_t *ep, unsigned kind, uint32_t call, double deadline,
                             uint32_t *bytes_p, char *why, size_t why_len)
{
    struct ibv_wc wc;
    char what[64], who[200];
    uint32_t imm;
    int rc;
    enum ibv_wc_opcode want_op = kind == FC_VERBS_DATA ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
    fc_status_t st;

    snprintf(what, sizeof(what), "%s of call %u", kind_name(kind), call);
    if ((st = poll_one(ep, ep->recv_cq, &wc, deadline, what, why, why_len)) != FC_OK)
        return st;
    if ((rc = fc_verbs_post_recv(ep)) != 0) {
        snprintf(why, why_len, "%s: ibv_post_recv: %s", fc_verbs_who(ep, who, sizeof(who)),
                 strerror(rc));
        fc_error("%s", why);
        return FC_ERR_INTERNAL;
    }
    imm = (wc.wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc.imm_data) : 0;
    if (wc.opcode != want_op || !(wc.wc_flags & IBV_WC_WITH_IMM) || imm >> 28 != kind ||
        (imm & FC_VERBS_SEQ_MASK) != call) {
        snprintf(why, why_len, "%s: expected the %s, got a %s of call %u (opcode %d): the two "
                 "sides' calls are out of step", fc_verbs_who(ep, who, sizeof(who)), what,
                 kind_name(imm >> 28), imm & FC_VERBS_SEQ_MASK, (int)wc.opcode);
        fc_error("%s", why);
        return FC_ERR_INTERNAL;
    }
    if (bytes_p)
        *bytes_p = wc.byte_len;
    return FC_OK;
}

/* A send with immediate (kind, call) of the first `bytes` of buf. */
static fc_status_t post_send(fc_nic_ep_t *ep, unsigned kind, uint32_t call, size_t bytes,
                             char *why, size_t why_len)
{
    struct ibv_sge sge = {.addr = (uintptr_t)ep->buf, .length = (uint32_t)bytes,
                          .lkey = ep->mr->lkey};
    struct ibv_send_wr wr, *bad;
    char who[200];
    int rc;

    memset(&wr, 0, sizeof(wr));
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list = &sge;
    wr.num_sge = bytes ? 1 : 0;
    wr.imm_data = htonl((uint32_t)kind << 28 | call);
    if ((rc = ibv_post_send(ep->qp, &wr, &bad)) != 0) {
        snprintf(why, why_len, "%s: ibv_post_send (%s, %zu bytes): %s",
                 fc_verbs_who(ep, who, sizeof(who)), kind_name(kind), bytes, strerror(rc));
        fc_error("%s", why);
        return FC_ERR_INTERNAL;
    }
    return FC_OK;
}

/* The RDMA writes of the first `bytes` of buf to the peer's buf, in
 * chunks of FC_VERBS_CHUNK, the last with the immediate and signalled. */
static fc_status_t post_writes(fc_nic_ep_t *ep, uint32_t call, size_t bytes, char *why,
                               size_t why_len)
{
    struct ibv_sge sge[FC_VERBS_MAX_CHUNKS];
    struct ibv_send_wr wr[FC_VERBS_MAX_CHUNKS], *bad;
    size_t n = bytes ? (bytes + FC_VERBS_CHUNK - 1) / FC_VERBS_CHUNK : 1;
    char who[200];
    int rc;

    memset(wr, 0, sizeof(wr[0]) * n);
    for (size_t i = 0; i < n; ++i) {
        size_t off = i * (size_t)FC_VERBS_CHUNK;
        size_t len = bytes - off < FC_VERBS_CHUNK ? bytes - off : FC_VERBS_CHUNK;

        sge[i].addr = (uintptr_t)ep->buf + off;
        sge[i].length = (uint32_t)len;
        sge[i].lkey = ep->mr->lkey;
        wr[i].sg_list = &sge[i];
        wr[i].num_sge = len ? 1 : 0;
        wr[i].opcode = IBV_WR_RDMA_WRITE;
        wr[i].wr.rdma.remote_addr = ep->peer_addr + off;
        wr[i].wr.rdma.rkey = ep->peer_rkey;
        wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
    }
    wr[n - 1].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr[n - 1].imm_data = htonl((uint32_t)FC_VERBS_DATA << 28 | call);
    wr[n - 1].send_flags = IBV_SEND_SIGNALED;
    if ((rc = ibv_post_send(ep->qp, wr, &bad)) != 0) {
        snprintf(why, why_len, "%s: ibv_post_send (RDMA write of %zu bytes in %zu piece(s)): %s",
                 fc_verbs_who(ep, who, sizeof(who)), bytes, n, strerror(rc));
        fc_error("%s", why);
        return FC_ERR_INTERNAL;
    }
    return FC_OK;
}

static fc_status_t wait_send(fc_nic_ep_t *ep, const char *what, double deadline, char *why,
                             size_t why_len)
{
    struct ibv_wc wc;

    return poll_one(ep, ep->send_cq, &wc, deadline, what, why, why_len);
}

fc_status_t fc_verbs_transfer(fc_nic_ep_t *ep, int sending, size_t bytes, double deadline,
                              char *why, size_t why_len)
{
    uint32_t call = ep->call++ & FC_VERBS_SEQ_MASK, got = 0;
    size_t last = bytes % FC_VERBS_CHUNK == 0 && bytes ? FC_VERBS_CHUNK : bytes % FC_VERBS_CHUNK;
    char who[200];

    ep->last_pingpong = 0;
    if (bytes > ep->len || bytes > ep->peer_len ||
        bytes > (size_t)FC_VERBS_CHUNK * FC_VERBS_MAX_CHUNKS) {
        snprintf(why, why_len, "%s: a transfer of %zu bytes, beyond this buffer (%zu), the "
                 "peer's (%llu) or %u GiB", fc_verbs_who(ep, who, sizeof(who)), bytes, ep->len,
                 (unsigned long long)ep->peer_len, FC_VERBS_MAX_CHUNKS);
        return FC_ERR_INVALID;
    }
    if (!sending) {
        /* this buf is the peer's to write from now until the immediate */
        FC_CHECK(post_send(ep, FC_VERBS_CREDIT, call, 0, why, why_len));
        FC_CHECK(wait_send(ep, "credit send completion", deadline, why, why_len));
        FC_CHECK(wait_recv(ep, FC_VERBS_DATA, call, deadline, &got, why, why_len));
        if (got != last) {
            snprintf(why, why_len, "%s: the transfer's last write carried %u bytes, %zu "
                     "expected (the sender moved another size)",
                     fc_verbs_who(ep, who, sizeof(who)), got, last);
            fc_error("%s", why);
            return FC_ERR_FAIL;
        }
        return FC_OK;
    }
    FC_CHECK(wait_recv(ep, FC_VERBS_CREDIT, call, deadline, NULL, why, why_len));
    FC_CHECK(post_writes(ep, call, bytes, why, why_len));
    return wait_send(ep, "RDMA write completion", deadline, why, why_len);
}

fc_status_t fc_verbs_pingpong(fc_nic_ep_t *ep, int first, size_t bytes, double deadline,
                              char *why, size_t why_len)
{
    uint32_t call = ep->call++ & FC_VERBS_SEQ_MASK, got = 0;
    uint64_t peer_recv = ep->peer_len < FC_VERBS_CHUNK ? ep->peer_len : FC_VERBS_CHUNK;
    int credit = !ep->last_pingpong;    /* the first of a run waits for the peer */
    char who[200];

    ep->last_pingpong = 1;
    if (bytes > ep->recv_len || bytes > peer_recv) {
        snprintf(why, why_len, "%s: a pingpong of %zu bytes, beyond what either side receives "
                 "in one message (%u, %llu)", fc_verbs_who(ep, who, sizeof(who)), bytes,
                 ep->recv_len, (unsigned long long)peer_recv);
        return FC_ERR_INVALID;
    }
    if (first) {
        if (credit)
            FC_CHECK(wait_recv(ep, FC_VERBS_CREDIT, call, deadline, NULL, why, why_len));
        FC_CHECK(post_send(ep, FC_VERBS_PING, call, bytes, why, why_len));
        FC_CHECK(wait_send(ep, "ping send completion", deadline, why, why_len));
        FC_CHECK(wait_recv(ep, FC_VERBS_PONG, call, deadline, &got, why, why_len));
    } else {
        if (credit) {
            FC_CHECK(post_send(ep, FC_VERBS_CREDIT, call, 0, why, why_len));
            FC_CHECK(wait_send(ep, "credit send completion", deadline, why, why_len));
        }
        FC_CHECK(wait_recv(ep, FC_VERBS_PING, call, deadline, &got, why, why_len));
        if (got == bytes) {
            FC_CHECK(post_send(ep, FC_VERBS_PONG, call, bytes, why, why_len));
            FC_CHECK(wait_send(ep, "pong send completion", deadline, why, why_len));
        }
    }
    if (got != bytes) {
        snprintf(why, why_len, "%s: the %s carried %u bytes, %zu expected",
                 fc_verbs_who(ep, who, sizeof(who)), first ? "pong" : "ping", got, bytes);
        fc_error("%s", why);
        return FC_ERR_FAIL;
    }
    return FC_OK;
}

#endif
