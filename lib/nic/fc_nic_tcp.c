/*
 * fc_nic_tcp.c - the tcp NIC transport (lib/nic/fc_nic_transport.h): one TCP
 * connection per pair of NICs, each end bound to its own interface's IPv4
 * address (and device, where the system allows), so the bytes of rail r
 * cross rail r's NICs, cables and leaf: Ethernet clusters without RDMA and
 * the virtual cluster (runners/vcluster --rails), where the tests run it.
 * The lower rank of the pair listens, the two exchange addresses over the
 * pair's MPI communicator (fc_nic_exchange, bounded by the caller's
 * deadline, as the accept, the dial and the hello are), the higher dials. A transfer's receiver answers
 * one byte once every byte has arrived, so the sender's call ends when
 * the transfer has: both sides may time it. Socket layer: fc_nic_tcp_sock.c.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_nic_tcp.h"
#include "fc_nic_transport.h"

#define FC_NIC_TCP_TAG 4343
#define FC_NIC_TCP_HELLO 0x66636e31u    /* "fcn1" */

struct fc_nic_ep {
    int fd;
    char *buf;
    size_t len;
    char what[96];          /* "eth1 172.17.1.2 <-> 172.17.2.1" */
};

typedef struct fc_nic_tcp_msg {
    int32_t ok;
    uint32_t addr;          /* network order */
    uint16_t port;          /* network order */
    uint16_t pad;
} fc_nic_tcp_msg_t;

static fc_status_t fc_nic_tcp_available(const char *nic, char *why, size_t why_len)
{
    struct sockaddr_in sa;

    return fc_nic_tcp_addr(nic, &sa, why, why_len);
}

static fc_status_t fc_nic_tcp_connect(const char *nic, MPI_Comm pair, int peer, void *buf,
                                      size_t len, double deadline, fc_nic_ep_t **ep_p,
                                      char *why, size_t why_len)
{
    struct sockaddr_in mine, theirs;
    fc_nic_tcp_msg_t out = { 0 }, in = { 0 };
    char err[FC_NIC_WHY_MAX] = "", a[INET_ADDRSTRLEN] = "?", b[INET_ADDRSTRLEN] = "?";
    fc_status_t st = FC_OK;
    int me, lfd = -1, fd = -1;
    fc_status_t xs;

    *ep_p = NULL;
    MPI_Comm_rank(pair, &me);
    memset(&mine, 0, sizeof(mine));
    st = fc_nic_tcp_addr(nic, &mine, err, sizeof(err));
    if (st == FC_OK && me < peer && (lfd = fc_nic_tcp_listen(nic, &mine, err, sizeof(err))) < 0)
        st = FC_ERR_FAIL;
    out.ok = st == FC_OK;
    out.addr = mine.sin_addr.s_addr;
    out.port = mine.sin_port;
    /* both sides always exchange, so a side that cannot take part never
     * leaves its peer waiting; a peer that never comes is a timeout */
    xs = fc_nic_exchange(pair, peer, FC_NIC_TCP_TAG, 0, &out, &in, sizeof(out), deadline, err,
                         sizeof(err));
    inet_ntop(AF_INET, &mine.sin_addr, a, sizeof(a));
    if (xs != FC_OK) {
        int pw = peer;
        MPI_Group pg, wg;

        if (MPI_Comm_group(pair, &pg) == MPI_SUCCESS) {
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Group_translate_ranks(pg, 1, &peer, wg, &pw);
            MPI_Group_free(&pg);
            MPI_Group_free(&wg);
        }
        snprintf(why, why_len, "%s %s: connect to rank %d: %s", nic, a, pw, err);
        if (lfd >= 0)
            close(lfd);
        return xs;
    }
    inet_ntop(AF_INET, &in.addr, b, sizeof(b));
    if (st != FC_OK || !in.ok) {
        snprintf(why, why_len, "%s", st != FC_OK ? err : "the peer's NIC cannot take part");
        if (lfd >= 0)
            close(lfd);
        return st != FC_OK ? st : FC_ERR_SKIP;
    }
    memset(&theirs, 0, sizeof(theirs));
    theirs.sin_family = AF_INET;
    theirs.sin_addr.s_addr = in.addr;
    theirs.sin_port = in.port;
    if (me < peer) {
        fd = fc_nic_tcp_accept(lfd, deadline, &st, err, sizeof(err));
        close(lfd);
    } else {
        fd = fc_nic_tcp_dial(nic, &mine, &theirs, deadline, &st, err, sizeof(err));
    }
    if (fd >= 0) {
        uint32_t hello = FC_NIC_TCP_HELLO, back = 0;

        st = fc_nic_tcp_send_all(fd, &hello, sizeof(hello), deadline, err, sizeof(err));
        if (st == FC_OK)
            st = fc_nic_tcp_recv_all(fd, &back, sizeof(back), deadline, err, sizeof(err));
        if (st == FC_OK && back != FC_NIC_TCP_HELLO) {
            snprintf(err, sizeof(err), "the connection did not come from the peer");
            st = FC_ERR_FAIL;
        }
    }
    if (st != FC_OK) {
        snprintf(why, why_len, "%s %s <-> %s: %s", nic, a, b, err);
        if (fd >= 0)
            close(fd);
        return st;
    }
    *ep_p = calloc(1, sizeof(**ep_p));
    if (*ep_p == NULL) {
        close(fd);
        snprintf(why, why_len, "%s: out of memory", nic);
        return FC_ERR_INTERNAL;
    }
    (*ep_p)->fd = fd;
    (*ep_p)->buf = buf;
    (*ep_p)->len = len;
    snprintf((*ep_p)->what, sizeof((*ep_p)->what), "%s %s <-> %s", nic, a, b);
    return FC_OK;
}

static fc_status_t fc_nic_tcp_said(fc_nic_ep_t *ep, fc_status_t st, const char *err,
                                   char *why, size_t why_len)
{
    if (st != FC_OK)
        snprintf(why, why_len, "%s: %s", ep->what, err);
    return st;
}

static fc_status_t fc_nic_tcp_transfer(fc_nic_ep_t *ep, int sending, size_t bytes,
                                       double deadline, char *why, size_t why_len)
{
    char err[FC_NIC_WHY_MAX], ack = 1;
    fc_status_t st;

    if (bytes > ep->len) {
        snprintf(why, why_len, "%s: %zu bytes, the buffer holds %zu", ep->what, bytes, ep->len);
        return FC_ERR_INVALID;
    }
    if (sending) {
        st = fc_nic_tcp_send_all(ep->fd, ep->buf, bytes, deadline, err, sizeof(err));
        if (st == FC_OK)
            st = fc_nic_tcp_recv_all(ep->fd, &ack, 1, deadline, err, sizeof(err));
    } else {
        st = fc_nic_tcp_recv_all(ep->fd, ep->buf, bytes, deadline, err, sizeof(err));
        if (st == FC_OK)
            st = fc_nic_tcp_send_all(ep->fd, &ack, 1, deadline, err, sizeof(err));
    }
    return fc_nic_tcp_said(ep, st, err, why, why_len);
}

static fc_status_t fc_nic_tcp_pingpong(fc_nic_ep_t *ep, int first, size_t bytes,
                                       double deadline, char *why, size_t why_len)
{
    char err[FC_NIC_WHY_MAX];
    fc_status_t st;

    if (bytes > ep->len) {
        snprintf(why, why_len, "%s: %zu bytes, the buffer holds %zu", ep->what, bytes, ep->len);
        return FC_ERR_INVALID;
    }
    if (first) {
        st = fc_nic_tcp_send_all(ep->fd, ep->buf, bytes, deadline, err, sizeof(err));
        if (st == FC_OK)
            st = fc_nic_tcp_recv_all(ep->fd, ep->buf, bytes, deadline, err, sizeof(err));
    } else {
        st = fc_nic_tcp_recv_all(ep->fd, ep->buf, bytes, deadline, err, sizeof(err));
        if (st == FC_OK)
            st = fc_nic_tcp_send_all(ep->fd, ep->buf, bytes, deadline, err, sizeof(err));
    }
    return fc_nic_tcp_said(ep, st, err, why, why_len);
}

static void fc_nic_tcp_close(fc_nic_ep_t *ep)
{
    if (ep == NULL)
        return;
    close(ep->fd);
    free(ep);
}

const fc_nic_transport_t fc_nic_transport_tcp = {
    .name = "tcp",
    .available = fc_nic_tcp_available,
    .connect = fc_nic_tcp_connect,
    .transfer = fc_nic_tcp_transfer,
    .pingpong = fc_nic_tcp_pingpong,
    .close = fc_nic_tcp_close,
};
