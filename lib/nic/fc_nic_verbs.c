/*
 * fc_nic_verbs.c - the "verbs" NIC transport (fc_nic_transport.h): one
 * libibverbs RC queue pair per pair of ranks on a rail, set up over the
 * pair's MPI communicator (no rdma_cm: the ranks already talk, and MPI is
 * the one channel every launcher gives them), with the caller's buffer
 * registered once at connect. This file is the set-up: available() (sysfs
 * through fc_rdma_sysfs.c, then whether libibverbs can open the device),
 * connect (device, PD, two CQs, the QP, the registration of host or GPU
 * memory, the exchange of LID/GID/QPN/PSN/rkey/address, INIT -> RTR ->
 * RTS), describe and close; the data path is fc_nic_verbs_io.c.
 *
 * Both sides of connect always exchange what they have, even when their
 * own set-up failed, so a side that cannot run tells its peer why instead
 * of leaving it waiting; the exchange (fc_nic_exchange: non-blocking,
 * polled) ends at the caller's deadline, so a peer that never connects is
 * a TIMEOUT naming the NIC and the peer; a second exchange after RTS means no
 * message is sent before the peer can receive it. Built without
 * libibverbs (no infiniband/verbs.h: FC_HAVE_VERBS unset), the table is
 * there and every call is a skip that says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_counters.h"
#include "fc_log.h"
#include "fc_nic_verbs.h"
#include "fc_rdma_sysfs.h"

#ifdef FC_HAVE_VERBS

#include "fc_nic_verbs_int.h"

#define FC_VERBS_TAG 1414       /* the set-up messages on the pair communicator */

/* What each side sends the other at connect. */
typedef struct fc_verbs_wire {
    int32_t status;             /* this side's set-up: FC_OK or why not */
    uint32_t qpn, psn, rkey;
    uint64_t addr, len;
    uint16_t lid;
    uint8_t port, link_layer, mtu, pad[3];
    uint8_t gid[16];
    char dev[64];
    char host[64];
    char why[FC_NIC_WHY_MAX];
} fc_verbs_wire_t;

static fc_status_t verbs_available(const char *nic, char *why, size_t why_len)
{
    fc_rdma_port_t p;
    struct ibv_device **list;
    struct ibv_context *ctx = NULL;
    struct ibv_port_attr attr;
    int n = 0, found = 0;
    fc_status_t st;

    memset(&attr, 0, sizeof(attr));
    st = fc_rdma_port_find(fc_sysfs_root(), nic, &p, why, why_len);

    if (st != FC_OK)
        return st;
    if ((list = ibv_get_device_list(&n)) == NULL) {
        snprintf(why, why_len, "verbs: NIC %s is %s port %d in sysfs, but libibverbs does not "
                 "list it (ibv_get_device_list: %s: no uverbs support in this kernel?)", nic,
                 p.dev, p.port, strerror(errno));
        return FC_ERR_SKIP;
    }
    for (int i = 0; i < n && !found; ++i)
        if (strcmp(ibv_get_device_name(list[i]), p.dev) == 0) {
            found = 1;
            ctx = ibv_open_device(list[i]);
        }
    ibv_free_device_list(list);
    if (!found) {
        snprintf(why, why_len, "verbs: NIC %s is %s port %d in sysfs, but libibverbs does not "
                 "list it (%d device(s) listed: no user-space provider such as libmlx5, or no "
                 "/dev/infiniband/uverbs*)", nic, p.dev, p.port, n);
        return FC_ERR_SKIP;
    }
    if (ctx == NULL) {
        snprintf(why, why_len, "verbs: cannot open %s for NIC %s: %s (permissions on "
                 "/dev/infiniband/uverbs*?)", p.dev, nic, strerror(errno));
        return FC_ERR_SKIP;
    }
    if (ibv_query_port(ctx, (uint8_t)p.port, &attr) != 0 || attr.state != IBV_PORT_ACTIVE) {
        snprintf(why, why_len, "verbs: %s port %d of NIC %s is not ACTIVE to libibverbs (%s)",
                 p.dev, p.port, nic, ibv_port_state_str(attr.state));
        st = FC_ERR_SKIP;
    }
    ibv_close_device(ctx);
    return st;
}

static void verbs_close(fc_nic_ep_t *ep)
{
    if (ep == NULL)
        return;
    if (ep->qp)
        ibv_destroy_qp(ep->qp);
    if (ep->mr)
        ibv_dereg_mr(ep->mr);
    if (ep->recv_cq)
        ibv_destroy_cq(ep->recv_cq);
    if (ep->send_cq)
        ibv_destroy_cq(ep->send_cq);
    if (ep->pd)
        ibv_dealloc_pd(ep->pd);
    if (ep->ctx)
        ibv_close_device(ep->ctx);
    free(ep);
}

/* Register buf once: host memory, or GPU memory by dma-buf, else as a
 * device pointer through peer memory (fc_nic_verbs.h). */
static fc_status_t register_buf(fc_nic_ep_t *ep, const fc_nic_verbs_mem_t *mem, char *why,
                                size_t why_len)
{
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    char dmabuf_err[96] = "no dma-buf given";

    if (mem == NULL || mem->kind == FC_NIC_MEM_HOST) {
        if ((ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->len, access)) == NULL) {
            snprintf(why, why_len, "verbs %s port %d: ibv_reg_mr of %zu bytes of host memory: %s",
                     ep->port.dev, ep->port.port, ep->len, strerror(errno));
            fc_error("%s", why);
            return FC_ERR_INTERNAL;
        }
        ep->mem_path = "host memory";
        return FC_OK;
    }
    if (mem->dmabuf_fd >= 0) {
        ep->mr = ibv_reg_dmabuf_mr(ep->pd, mem->dmabuf_offset, ep->len, (uintptr_t)ep->buf,
                                   mem->dmabuf_fd, access);
        if (ep->mr) {
            ep->mem_path = "GPU memory (dma-buf)";
            return FC_OK;
        }
        snprintf(dmabuf_err, sizeof(dmabuf_err), "ibv_reg_dmabuf_mr: %s", strerror(errno));
    }
    if ((ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->len, access)) != NULL) {
        ep->mem_path = "GPU memory (peer memory)";
        return FC_OK;
    }
    snprintf(why, why_len, "verbs %s port %d: no GPUDirect RDMA for %zu bytes of GPU memory: %s; "
             "ibv_reg_mr on the device pointer (peer memory): %s (nvidia-peermem not loaded?)",
             ep->port.dev, ep->port.port, ep->len, dmabuf_err, strerror(errno));
    fc_error("%s", why);
    return FC_ERR_SKIP;
}

/* This side: device, PD, CQs, QP in INIT with receives posted, buf
 * registered; what the peer needs into w. */
static fc_status_t setup_local(fc_nic_ep_t *ep, const fc_nic_verbs_mem_t *mem,
                               fc_verbs_wire_t *w, char *why, size_t why_len)
{
    struct ibv_device **list;
    struct ibv_port_attr attr;
    union ibv_gid gid;
    int n = 0;
    fc_status_t st;

    if ((st = verbs_available(ep->nic, why, why_len)) != FC_OK)
        return st;
    if ((st = fc_rdma_port_find(fc_sysfs_root(), ep->nic, &ep->port, why, why_len)) != FC_OK)
        return st;
    if ((list = ibv_get_device_list(&n)) != NULL) {
        for (int i = 0; i < n && ep->ctx == NULL; ++i)
            if (strcmp(ibv_get_device_name(list[i]), ep->port.dev) == 0)
                ep->ctx = ibv_open_device(list[i]);
        ibv_free_device_list(list);
    }
#define FC_VERBS_TRY(cond, what)                                                          \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            snprintf(why, why_len, "verbs %s port %d (NIC %s): %s: %s", ep->port.dev,      \
                     ep->port.port, ep->nic, what, strerror(errno));                       \
            fc_error("%s", why);                                                           \
            return FC_ERR_INTERNAL;                                                        \
        }                                                                                  \
    } while (0)
    FC_VERBS_TRY(ep->ctx != NULL, "ibv_open_device");
    FC_VERBS_TRY(ibv_query_port(ep->ctx, (uint8_t)ep->port.port, &attr) == 0, "ibv_query_port");
    FC_VERBS_TRY(ibv_query_gid(ep->ctx, (uint8_t)ep->port.port, ep->port.gid_index, &gid) == 0,
                 "ibv_query_gid");
    if (attr.link_layer != IBV_LINK_LAYER_ETHERNET && attr.lid == 0) {
        snprintf(why, why_len, "verbs %s port %d (NIC %s): InfiniBand port without a LID (no "
                 "subnet manager?)", ep->port.dev, ep->port.port, ep->nic);
        return FC_ERR_SKIP;
    }
    FC_VERBS_TRY((ep->pd = ibv_alloc_pd(ep->ctx)) != NULL, "ibv_alloc_pd");
    FC_VERBS_TRY((ep->send_cq = ibv_create_cq(ep->ctx, FC_VERBS_MAX_CHUNKS + 8, NULL, NULL, 0))
                 != NULL, "ibv_create_cq (send)");
    FC_VERBS_TRY((ep->recv_cq = ibv_create_cq(ep->ctx, FC_VERBS_RECVS + 8, NULL, NULL, 0))
                 != NULL, "ibv_create_cq (receive)");
    {
        struct ibv_qp_init_attr qa = {
            .send_cq = ep->send_cq, .recv_cq = ep->recv_cq, .qp_type = IBV_QPT_RC,
            .cap = {.max_send_wr = FC_VERBS_MAX_CHUNKS + 4, .max_recv_wr = FC_VERBS_RECVS,
                    .max_send_sge = 1, .max_recv_sge = 1},
            .sq_sig_all = 0,
        };
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0,
                                .port_num = (uint8_t)ep->port.port,
                                .qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
                                    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};

        FC_VERBS_TRY((ep->qp = ibv_create_qp(ep->pd, &qa)) != NULL, "ibv_create_qp (RC)");
        if ((st = register_buf(ep, mem, why, why_len)) != FC_OK)
            return st;
        errno = ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                              IBV_QP_ACCESS_FLAGS);
        FC_VERBS_TRY(errno == 0, "ibv_modify_qp to INIT");
    }
    ep->recv_len = ep->len < FC_VERBS_CHUNK ? (uint32_t)ep->len : FC_VERBS_CHUNK;
    for (int i = 0; i < FC_VERBS_RECVS; ++i) {
        errno = fc_verbs_post_recv(ep);
        FC_VERBS_TRY(errno == 0, "ibv_post_recv");
    }
#undef FC_VERBS_TRY
    ep->mtu = 128 << attr.active_mtu;
    w->qpn = ep->qp->qp_num;
    w->psn = (uint32_t)(getpid() ^ time(NULL) ^ (ep->qp->qp_num << 5)) & 0xffffff;
    w->rkey = ep->mr->rkey;
    w->addr = (uintptr_t)ep->buf;
    w->len = ep->len;
    w->lid = attr.lid;
    w->port = (uint8_t)ep->port.port;
    w->link_layer = attr.link_layer == IBV_LINK_LAYER_ETHERNET ? FC_RDMA_LL_ETHERNET
                                                                : FC_RDMA_LL_INFINIBAND;
    w->mtu = (uint8_t)attr.active_mtu;
    memcpy(w->gid, gid.raw, sizeof(w->gid));
    snprintf(w->dev, sizeof(w->dev), "%s", ep->port.dev);
    return FC_OK;
}

/* INIT -> RTR -> RTS towards the peer described by p. */
static fc_status_t to_rts(fc_nic_ep_t *ep, const fc_verbs_wire_t *mine, const fc_verbs_wire_t *p,
                          char *why, size_t why_len)
{
    enum ibv_mtu mtu = (enum ibv_mtu)(mine->mtu < p->mtu ? mine->mtu : p->mtu);
    struct ibv_qp_attr a;
    char who[200];
    int rc;

    if (mine->link_layer != p->link_layer) {
        snprintf(why, why_len, "%s: one end is InfiniBand, the other Ethernet",
                 fc_verbs_who(ep, who, sizeof(who)));
        return FC_ERR_INVALID;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = mtu;
    a.dest_qp_num = p->qpn;
    a.rq_psn = p->psn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;               /* 0.64 ms: receives are kept posted */
    a.ah_attr.port_num = (uint8_t)ep->port.port;
    if (mine->link_layer == FC_RDMA_LL_ETHERNET) {
        a.ah_attr.is_global = 1;        /* RoCE: addressed by GID, RoCE v2 routable */
        memcpy(a.ah_attr.grh.dgid.raw, p->gid, sizeof(p->gid));
        a.ah_attr.grh.sgid_index = (uint8_t)ep->port.gid_index;
        a.ah_attr.grh.hop_limit = 64;
    } else {
        a.ah_attr.dlid = p->lid;        /* InfiniBand, one subnet: by LID */
    }
    rc = ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                       IBV_QP_MIN_RNR_TIMER);
    if (rc == 0) {
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_RTS;
        a.timeout = 14;                 /* 4.096 us * 2^14 = 67 ms per try */
        a.retry_cnt = 7;                /* so a dead peer fails in about 0.5 s */
        a.rnr_retry = 7;                /* receiver not ready: retry; calls are bounded */
        a.sq_psn = mine->psn;
        a.max_rd_atomic = 1;
        rc = ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                           IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
        if (rc != 0)
            snprintf(why, why_len, "%s: ibv_modify_qp to RTS: %s",
                     fc_verbs_who(ep, who, sizeof(who)), strerror(rc));
    } else {
        snprintf(why, why_len, "%s: ibv_modify_qp to RTR (path MTU %d, peer QPN %u, LID %u): %s",
                 fc_verbs_who(ep, who, sizeof(who)), 128 << mtu, p->qpn, p->lid, strerror(rc));
    }
    if (rc != 0) {
        fc_error("%s", why);
        return FC_ERR_INTERNAL;
    }
    ep->mtu = 128 << mtu;
    return FC_OK;
}

/* Send this side's status and reason, receive the peer's: both sides
 * always call it the same number of times. The worse status wins; a
 * failure of the peer's is said as the peer's. */
static fc_status_t exchange(fc_nic_ep_t *ep, MPI_Comm pair, fc_verbs_wire_t *mine,
                            fc_verbs_wire_t *theirs, fc_status_t st, int phase,
                            double deadline, char *why, size_t why_len)
{
    char err[FC_NIC_WHY_MAX];
    fc_status_t xs;

    mine->status = (int32_t)st;
    snprintf(mine->why, sizeof(mine->why), "%s", st == FC_OK ? "" : why);
    xs = fc_nic_exchange(pair, ep->peer, FC_VERBS_TAG, phase, mine, theirs, sizeof(*mine),
                         deadline, err, sizeof(err));
    if (xs != FC_OK && st != FC_OK)
        return st;          /* this side's own failure is the reason */
    if (xs != FC_OK) {
        snprintf(why, why_len, "verbs NIC %s: connect to rank %d%s%s: %s", ep->nic,
                 ep->peer_world, ep->peer_host[0] ? " on " : "", ep->peer_host, err);
        if (xs != FC_ERR_TIMEOUT)
            fc_error("%s", why);
        return xs;
    }
    theirs->why[sizeof(theirs->why) - 1] = '\0';
    theirs->host[sizeof(theirs->host) - 1] = '\0';
    theirs->dev[sizeof(theirs->dev) - 1] = '\0';
    if (st != FC_OK)
        return st;
    if (theirs->status != FC_OK) {
        snprintf(why, why_len, "verbs NIC %s: peer rank %d on %s cannot connect: %s", ep->nic,
                 ep->peer_world, theirs->host, theirs->why);
        return (fc_status_t)theirs->status;
    }
    return FC_OK;
}

fc_status_t fc_nic_verbs_connect_mem(const char *nic, MPI_Comm pair, int peer, void *buf,
                                     size_t len, const fc_nic_verbs_mem_t *mem, double deadline,
                                     fc_nic_ep_t **ep_p, char *why, size_t why_len)
{
    fc_verbs_wire_t mine, theirs;
    fc_nic_ep_t *ep;
    MPI_Group pg, wg;
    fc_status_t st;

    if ((ep = calloc(1, sizeof(*ep))) == NULL) {
        snprintf(why, why_len, "verbs NIC %s: out of memory", nic);
        return FC_ERR_INTERNAL;
    }
    memset(&mine, 0, sizeof(mine));
    snprintf(ep->nic, sizeof(ep->nic), "%s", nic);
    ep->peer = peer;
    ep->peer_world = peer;
    ep->buf = buf;
    ep->len = len;
    if (MPI_Comm_group(pair, &pg) == MPI_SUCCESS) {
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(pg, 1, &peer, wg, &ep->peer_world);
        MPI_Group_free(&pg);
        MPI_Group_free(&wg);
    }
    gethostname(mine.host, sizeof(mine.host) - 1);
    if (buf == NULL || len == 0) {
        snprintf(why, why_len, "verbs NIC %s: no buffer to register (%zu bytes)", nic, len);
        st = FC_ERR_INVALID;
    } else {
        st = setup_local(ep, mem, &mine, why, why_len);
    }
    st = exchange(ep, pair, &mine, &theirs, st, 0, deadline, why, why_len);
    if (st == FC_OK) {
        snprintf(ep->peer_host, sizeof(ep->peer_host), "%s", theirs.host);
        snprintf(ep->peer_dev, sizeof(ep->peer_dev), "%s", theirs.dev);
        ep->peer_port = theirs.port;
        ep->peer_addr = theirs.addr;
        ep->peer_len = theirs.len;
        ep->peer_rkey = theirs.rkey;
        st = to_rts(ep, &mine, &theirs, why, why_len);
        /* the second round: neither side sends before both are in RTS */
        st = exchange(ep, pair, &mine, &theirs, st, 1, deadline, why, why_len);
    }
    if (st != FC_OK) {
        verbs_close(ep);
        return st;
    }
    *ep_p = ep;
    return FC_OK;
}

static fc_status_t verbs_connect(const char *nic, MPI_Comm pair, int peer, void *buf, size_t len,
                                 double deadline, fc_nic_ep_t **ep_p, char *why, size_t why_len)
{
    return fc_nic_verbs_connect_mem(nic, pair, peer, buf, len, NULL, deadline, ep_p, why,
                                    why_len);
}

const char *fc_nic_verbs_describe(const fc_nic_ep_t *ep, char *out, size_t len)
{
    char addr[96];

    if (ep->port.link_layer == FC_RDMA_LL_ETHERNET)
        snprintf(addr, sizeof(addr), "RoCE v2 GID %d, %s", ep->port.gid_index, ep->port.ipv4);
    else
        snprintf(addr, sizeof(addr), "InfiniBand");
    snprintf(out, len, "%s port %d (%s, %s, MTU %d) to rank %d (%s port %d on %s), buffer %s",
             ep->port.dev, ep->port.port, addr, ep->port.rate_text[0] ? ep->port.rate_text :
             "rate unknown", ep->mtu, ep->peer_world, ep->peer_dev, ep->peer_port,
             ep->peer_host, ep->mem_path);
    return out;
}

const fc_nic_transport_t fc_nic_transport_verbs = {
    .name = "verbs",
    .available = verbs_available,
    .connect = verbs_connect,
    .transfer = fc_verbs_transfer,
    .pingpong = fc_verbs_pingpong,
    .close = verbs_close,
};

#else /* !FC_HAVE_VERBS: the table, and every call a skip that says why */

#define FC_VERBS_ABSENT "verbs: this fabcert was built without libibverbs (install " \
                        "libibverbs-dev and rebuild)"

/* The port is still looked up, so a node without RDMA says that first. */
static fc_status_t absent_available(const char *nic, char *why, size_t why_len)
{
    fc_rdma_port_t p;
    fc_status_t st = fc_rdma_port_find(fc_sysfs_root(), nic, &p, why, why_len);

    if (st != FC_OK)
        return st;
    snprintf(why, why_len, "NIC %s is %s port %d, but %s", nic, p.dev, p.port, FC_VERBS_ABSENT);
    return FC_ERR_SKIP;
}

fc_status_t fc_nic_verbs_connect_mem(const char *nic, MPI_Comm pair, int peer, void *buf,
                                     size_t len, const fc_nic_verbs_mem_t *mem, double deadline,
                                     fc_nic_ep_t **ep_p, char *why, size_t why_len)
{
    return absent_available(nic, why, why_len);
}

static fc_status_t absent_connect(const char *nic, MPI_Comm pair, int peer, void *buf,
                                  size_t len, double deadline, fc_nic_ep_t **ep_p, char *why,
                                  size_t why_len)
{
    return absent_available(nic, why, why_len);
}

static fc_status_t absent_io(fc_nic_ep_t *ep, int flag, size_t bytes, double deadline,
                             char *why, size_t why_len)
{
    snprintf(why, why_len, "%s", FC_VERBS_ABSENT);
    return FC_ERR_SKIP;
}

static void absent_close(fc_nic_ep_t *ep)
{
}

const char *fc_nic_verbs_describe(const fc_nic_ep_t *ep, char *out, size_t len)
{
    snprintf(out, len, "%s", FC_VERBS_ABSENT);
    return out;
}

const fc_nic_transport_t fc_nic_transport_verbs = {
    .name = "verbs",
    .available = absent_available,
    .connect = absent_connect,
    .transfer = absent_io,
    .pingpong = absent_io,
    .close = absent_close,
};

#endif
