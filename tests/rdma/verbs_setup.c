/*
 * verbs_setup.c - the verbs transport's set-up (lib/nic/fc_nic_verbs.c:
 * available, connect, connect_mem, describe, close) without an RDMA
 * device: two MPI ranks, each with a stand-in for the libibverbs calls the
 * transport makes (defined here, so the program's own definitions are the
 * ones linked: device list, open, query port and GID, PD, CQ, QP,
 * registrations, modify QP), over the fixture sysfs tree
 * tests/fixtures/sysfs/rdma (FC_SYSFS_ROOT). Run by tests/e2e/rdma_checks.t:
 *
 *     FC_SYSFS_ROOT=tests/fixtures/sysfs/rdma mpirun -np 2 -x FC_SYSFS_ROOT \
 *         build/tests/verbs_setup
 *
 * Each point is both ranks' checks of one connect: what the queue pair was
 * moved to RTR and RTS with (the peer's QPN, PSN, LID or GID, the smaller
 * MTU, the retry counts), the GID index sysfs chose, what was registered
 * and how, that a failure on one side (a planted ibv_create_qp error, a
 * DOWN port, mixed link layers, GPU memory no path registers) reaches the
 * other side with its reason instead of a hang, and that every object
 * made is destroyed, after a failure too. TAP from rank 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "fc_tap.h"

#ifndef FC_HAVE_VERBS
int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("1..0 # SKIP built without libibverbs (no infiniband/verbs.h)\n");
    MPI_Finalize();
    return 0;
}
#else

#include "fc_nic_verbs_int.h"

static int rank;
static int alive;                       /* objects made and not yet destroyed */
static int posted;                      /* receives posted */
static int plant_qp, plant_dmabuf, plant_reg;   /* make that call fail here */
static int gid_index_asked = -1;
static struct ibv_qp_attr rtr, rts;
static uint32_t my_qpn, qps_made;
static struct { int fd; uint64_t offset, iova; int host; } reg;
static struct ibv_device devs[5];
static const char *dev_names[5] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx4_0"};

typedef struct fake_ctx {
    struct ibv_context ctx;
    char dev[64];
} fake_ctx_t;

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    ++posted;
    return 0;
}

struct ibv_device **ibv_get_device_list(int *n)
{
    struct ibv_device **l = calloc(6, sizeof(*l));

    for (int i = 0; i < 5; ++i) {
        snprintf(devs[i].name, sizeof(devs[i].name), "%s", dev_names[i]);
        l[i] = &devs[i];
    }
    ++alive;
    if (n)
        *n = 5;
    return l;
}

void ibv_free_device_list(struct ibv_device **l)
{
    free(l);
    --alive;
}

const char *ibv_get_device_name(struct ibv_device *d)
{
    return d->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
    fake_ctx_t *c = calloc(1, sizeof(*c));

    c->ctx.device = d;
    c->ctx.ops.post_recv = fake_post_recv;
    snprintf(c->dev, sizeof(c->dev), "%s", d->name);
    ++alive;
    return &c->ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
    free(ctx);
    --alive;
    return 0;
}

/* mlx5_0, mlx4_0: InfiniBand, LID 0x10 + rank; the others RoCE. Rank 0's
 * MTU is 4096, rank 1's 2048. */
int (ibv_query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *p)
{
    struct ibv_port_attr *a = (struct ibv_port_attr *)p;
    const char *dev = ((fake_ctx_t *)ctx)->dev;
    int ib = strcmp(dev, "mlx5_0") == 0 || strcmp(dev, "mlx4_0") == 0;

    a->state = IBV_PORT_ACTIVE;
    a->active_mtu = rank == 0 ? IBV_MTU_4096 : IBV_MTU_2048;
    a->link_layer = ib ? IBV_LINK_LAYER_INFINIBAND : IBV_LINK_LAYER_ETHERNET;
    a->lid = ib ? (uint16_t)(0x10 + rank) : 0;
    return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    gid->raw[10] = gid->raw[11] = 0xff;         /* ::ffff:10.10.1.(7 + rank) */
    gid->raw[12] = 10;
    gid->raw[13] = 10;
    gid->raw[14] = 1;
    gid->raw[15] = (uint8_t)(7 + rank);
    gid_index_asked = index;
    return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
    struct ibv_pd *pd = calloc(1, sizeof(*pd));

    pd->context = ctx;
    ++alive;
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
    free(pd);
    --alive;
    return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_ctx,
                             struct ibv_comp_channel *ch, int vec)
{
    struct ibv_cq *cq = calloc(1, sizeof(*cq));

    cq->context = ctx;
    ++alive;
    return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
    free(cq);
    --alive;
    return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qa)
{
    struct ibv_qp *qp;

    if (plant_qp) {
        errno = ENOMEM;
        return NULL;
    }
    qp = calloc(1, sizeof(*qp));
    qp->context = pd->context;
    qp->pd = pd;
    qp->qp_num = my_qpn = (uint32_t)(100 + rank * 1000 + ++qps_made);  /* never the same twice */
    ++alive;
    return qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
    free(qp);
    --alive;
    return 0;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
    if (a->qp_state == IBV_QPS_RTR)
        rtr = *a;
    else if (a->qp_state == IBV_QPS_RTS)
        rts = *a;
    return 0;
}

static struct ibv_mr *new_mr(struct ibv_pd *pd, void *addr, size_t len)
{
    struct ibv_mr *mr = calloc(1, sizeof(*mr));

    mr->pd = pd;
    mr->addr = addr;
    mr->length = len;
    mr->lkey = mr->rkey = (uint32_t)(0x1000 + rank);
    ++alive;
    return mr;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access)
{
    if (plant_reg) {
        errno = EFAULT;
        return NULL;
    }
    reg.host = 1;
    return new_mr(pd, addr, len);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
                                unsigned int access)
{
    return (ibv_reg_mr)(pd, addr, len, (int)access);
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len, uint64_t iova,
                                 int fd, int access)
{
    reg.fd = fd;
    reg.offset = offset;
    reg.iova = iova;
    if (plant_dmabuf) {
        errno = EOPNOTSUPP;
        return NULL;
    }
    return new_mr(pd, (void *)(uintptr_t)iova, len);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
    free(mr);
    --alive;
    return 0;
}

/* ---- the cases ---------------------------------------------------------- */

typedef struct seen {                   /* one rank's view, for the other's checks */
    uint32_t qpn, sq_psn;
    uint8_t gid15;
} seen_t;

static fc_tap_t tap;
static char buf[1 << 16];

/* Both ranks' verdicts on one case into one point. */
static void point(int ok, const char *msg, const char *what)
{
    struct { int ok; char msg[600]; } mine, all[2];

    memset(&mine, 0, sizeof(mine));
    mine.ok = ok;
    snprintf(mine.msg, sizeof(mine.msg), "%s", msg);
    MPI_Gather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        fc_tap_ok(&tap, all[0].ok && all[1].ok, "%s%s%s%s%s", what,
                  all[0].ok ? "" : "; rank 0: ", all[0].ok ? "" : all[0].msg,
                  all[1].ok ? "" : "; rank 1: ", all[1].ok ? "" : all[1].msg);
}

/* Connect on nic with mem (NULL: host); close what connected. */
static fc_status_t run(const char *nic, const fc_nic_verbs_mem_t *mem, char *why, char *desc,
                       seen_t *peer)
{
    fc_nic_ep_t *ep = NULL;
    seen_t me;
    fc_status_t st;

    memset(&rtr, 0, sizeof(rtr));
    memset(&rts, 0, sizeof(rts));
    memset(&reg, 0, sizeof(reg));
    reg.fd = -2;
    posted = 0;
    gid_index_asked = -1;
    why[0] = desc[0] = '\0';
    st = fc_nic_verbs_connect_mem(nic, MPI_COMM_WORLD, 1 - rank, buf, sizeof(buf), mem,
                                  MPI_Wtime() + 30, &ep, why, FC_NIC_WHY_MAX);
    if (st == FC_OK) {
        fc_nic_verbs_describe(ep, desc, 512);
        fc_nic_transport_verbs.close(ep);
    }
    me.qpn = my_qpn;
    me.sq_psn = rts.sq_psn;
    me.gid15 = (uint8_t)(7 + rank);
    MPI_Sendrecv(&me, sizeof(me), MPI_BYTE, 1 - rank, 5, peer, sizeof(*peer), MPI_BYTE,
                 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return st;
}

int main(int argc, char **argv)
{
    char why[FC_NIC_WHY_MAX], desc[512], msg[1024], want[256];
    fc_nic_verbs_mem_t gpu = {.kind = FC_NIC_MEM_GPU, .dmabuf_fd = 42, .dmabuf_offset = 4096};
    seen_t peer;
    fc_status_t st;
    int ok;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srand((unsigned)getpid());
    fc_tap_init(&tap, stdout, rank == 0);
    fc_tap_plan(&tap, 11);

    st = fc_nic_transport_verbs.available("ib0", why, sizeof(why));
    snprintf(msg, sizeof(msg), "%s: %s (%d objects left)", fc_status_str(st), why, alive);
    point(st == FC_OK && alive == 0, msg, "available(ib0): mlx5_0 port 1, listed and ACTIVE");

    st = run("mlx5_0", NULL, why, desc, &peer);
    ok = st == FC_OK && rtr.dest_qp_num == peer.qpn && rtr.rq_psn == peer.sq_psn &&
         rtr.ah_attr.dlid == 0x10 + (1 - rank) && !rtr.ah_attr.is_global &&
         rtr.path_mtu == IBV_MTU_2048 && rts.timeout == 14 && rts.retry_cnt == 7 &&
         rts.rnr_retry == 7 && posted == FC_VERBS_RECVS && reg.host && alive == 0;
    snprintf(want, sizeof(want), "mlx5_0 port 1 (InfiniBand, 400 Gb/sec (4X NDR), MTU 2048) to "
             "rank %d (mlx5_0 port 1 on ", 1 - rank);
    ok = ok && strstr(desc, want) && strstr(desc, "buffer host memory");
    snprintf(msg, sizeof(msg), "%s %s; RTR qpn %u (peer %u) psn %u (peer %u) dlid %u global %d "
             "mtu %d; RTS timeout %d retry %d rnr %d; %d receives; %d objects left; %s",
             fc_status_str(st), why, rtr.dest_qp_num, peer.qpn, rtr.rq_psn, peer.sq_psn,
             rtr.ah_attr.dlid, rtr.ah_attr.is_global, rtr.path_mtu, rts.timeout, rts.retry_cnt,
             rts.rnr_retry, posted, alive, desc);
    point(ok, msg, "InfiniBand: RTR to the peer's QPN, PSN and LID, the smaller MTU (2048), "
          "RTS timeout 14, 7 retries; 16 receives posted; host memory; all destroyed");

    st = run("ens1f0np0", NULL, why, desc, &peer);
    ok = st == FC_OK && rtr.ah_attr.is_global && rtr.ah_attr.grh.sgid_index == 3 &&
         gid_index_asked == 3 && rtr.ah_attr.grh.dgid.raw[15] == peer.gid15 &&
         rtr.ah_attr.grh.dgid.raw[10] == 0xff && rtr.ah_attr.grh.hop_limit == 64 &&
         strstr(desc, "mlx5_1 port 1 (RoCE v2 GID 3, 10.10.1.7, 200 Gb/sec (2X NDR)") &&
         alive == 0;
    snprintf(msg, sizeof(msg), "%s %s; global %d sgid_index %d (asked %d) dgid ..%u (peer %u) "
             "hop %d; %d left; %s", fc_status_str(st), why, rtr.ah_attr.is_global,
             rtr.ah_attr.grh.sgid_index, gid_index_asked, rtr.ah_attr.grh.dgid.raw[15],
             peer.gid15, rtr.ah_attr.grh.hop_limit, alive, desc);
    point(ok, msg, "RoCE (ens1f0np0): addressed by GID, the RoCE v2 IPv4 GID 3 sysfs chose, "
          "to the peer's GID");

    st = run(rank == 0 ? "mlx5_0" : "ens1f0np0", NULL, why, desc, &peer);
    snprintf(msg, sizeof(msg), "%s: %s; %d left", fc_status_str(st), why, alive);
    point(st == FC_ERR_INVALID && strstr(why, "one end is InfiniBand, the other Ethernet") &&
          alive == 0, msg, "InfiniBand to RoCE: invalid on both sides, all destroyed");

    plant_qp = rank == 1;
    st = run("mlx5_0", NULL, why, desc, &peer);
    plant_qp = 0;
    snprintf(msg, sizeof(msg), "%s: %s; %d left", fc_status_str(st), why, alive);
    point(st == FC_ERR_INTERNAL && strstr(why, rank == 1 ? "verbs mlx5_0 port 1 (NIC mlx5_0): "
          "ibv_create_qp (RC): Cannot allocate memory" : "verbs NIC mlx5_0: peer rank 1 on ") &&
          strstr(why, "ibv_create_qp (RC): Cannot allocate memory") && alive == 0, msg,
          "ibv_create_qp planted to fail on rank 1: rank 0 is told why, no hang, all destroyed");

    st = run(rank == 0 ? "mlx5_0" : "mlx5_2", NULL, why, desc, &peer);
    snprintf(msg, sizeof(msg), "%s: %s; %d left", fc_status_str(st), why, alive);
    point(st == FC_ERR_SKIP && strstr(why, "RDMA port not ACTIVE for NIC mlx5_2: mlx5_2 port 1 "
          "state \"1: DOWN\"") && (rank == 1 || strstr(why, "peer rank 1 on ")) && alive == 0,
          msg, "rank 1's port DOWN: a skip on both sides, with its reason");

    st = run("mlx5_0", &gpu, why, desc, &peer);
    snprintf(msg, sizeof(msg), "%s: %s; dma-buf fd %d offset %llu iova %s; host %d; %s",
             fc_status_str(st), why, reg.fd, (unsigned long long)reg.offset,
             reg.iova == (uintptr_t)buf ? "buf" : "not buf", reg.host, desc);
    point(st == FC_OK && reg.fd == 42 && reg.offset == 4096 && reg.iova == (uintptr_t)buf &&
          !reg.host && strstr(desc, "buffer GPU memory (dma-buf)") && alive == 0, msg,
          "GPU memory with a dma-buf: ibv_reg_dmabuf_mr(fd, offset, iova = buf)");

    plant_dmabuf = 1;
    st = run("mlx5_0", &gpu, why, desc, &peer);
    snprintf(msg, sizeof(msg), "%s: %s; host %d; %s", fc_status_str(st), why, reg.host, desc);
    point(st == FC_OK && reg.fd == 42 && reg.host && strstr(desc, "buffer GPU memory (peer "
          "memory)") && alive == 0, msg, "dma-buf refused (EOPNOTSUPP): the device pointer "
          "registered as peer memory, and said");

    plant_reg = rank == 0;
    st = run("mlx5_0", &gpu, why, desc, &peer);
    plant_reg = plant_dmabuf = 0;
    snprintf(msg, sizeof(msg), "%s: %s; %d left", fc_status_str(st), why, alive);
    point(st == FC_ERR_SKIP && strstr(why, "no GPUDirect RDMA for 65536 bytes of GPU memory: "
          "ibv_reg_dmabuf_mr: Operation not supported; ibv_reg_mr on the device pointer (peer "
          "memory): Bad address") && alive == 0, msg,
          "neither registers on rank 0: a skip naming both errors, on both sides");

    /* rank 1 never connects: rank 0 gives up at its deadline; rank 1,
     * connecting afterwards, takes rank 0's abandoned set-up data and ends
     * by its own deadline; neither leaves an object behind */
    {
        fc_nic_ep_t *ep = NULL;
        double t0 = MPI_Wtime(), took[2];
        fc_status_t sts[2];
        int left[2];

        why[0] = '\0';
        if (rank == 0)
            st = fc_nic_verbs_connect_mem("mlx5_0", MPI_COMM_WORLD, 1, buf, sizeof(buf), NULL,
                                          t0 + 1.0, &ep, why, FC_NIC_WHY_MAX);
        took[0] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (rank == 1)
            st = fc_nic_verbs_connect_mem("mlx5_0", MPI_COMM_WORLD, 0, buf, sizeof(buf), NULL,
                                          t0 + 1.0, &ep, why, FC_NIC_WHY_MAX);
        took[1] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        sts[rank] = st;
        left[rank] = alive;
        MPI_Sendrecv(&sts[rank], 1, MPI_INT, 1 - rank, 6, &sts[1 - rank], 1, MPI_INT, 1 - rank,
                     6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&left[rank], 1, MPI_INT, 1 - rank, 7, &left[1 - rank], 1, MPI_INT,
                     1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&took[rank], 1, MPI_DOUBLE, 1 - rank, 8, &took[1 - rank], 1, MPI_DOUBLE,
                     1 - rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        snprintf(msg, sizeof(msg), "rank 0: %s in %.2f s; rank 1 late: %s in %.2f s; rank %d "
                 "says: %s; %d and %d left", fc_status_str(sts[0]), took[0],
                 fc_status_str(sts[1]), took[1], rank, why, left[0], left[1]);
        point(sts[0] == FC_ERR_TIMEOUT && took[0] >= 0.99 && took[0] < 1.8 &&
              sts[1] != FC_OK && took[1] < 1.8 && left[0] == 0 && left[1] == 0 &&
              (rank == 1 || (strstr(why, "verbs NIC mlx5_0: connect to rank 1: ") &&
                             strstr(why, "before the deadline"))), msg,
              "a peer that never connects: a TIMEOUT by the 1 s deadline naming the NIC and "
              "the peer (not a wait in MPI_Sendrecv); the peer, coming late, ends by its own");
    }

    st = run("mlx5_0", NULL, why, desc, &peer);
    snprintf(msg, sizeof(msg), "%s %s; RTR qpn %u (peer %u); %d left", fc_status_str(st), why,
             rtr.dest_qp_num, peer.qpn, alive);
    point(st == FC_OK && rtr.dest_qp_num == peer.qpn && alive == 0, msg,
          "then a connect of both: RTR to the peer's new QPN, not the abandoned connect's");

    ok = fc_tap_done(&tap);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 1 : 0;
}

#endif
