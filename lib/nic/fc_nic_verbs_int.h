/*
 * fc_nic_verbs_int.h - the verbs transport's endpoint, shared by its set-up
 * (fc_nic_verbs.c: available, connect, close) and its data path
 * (fc_nic_verbs_io.c: transfer, pingpong). Built only with libibverbs
 * (FC_HAVE_VERBS).
 *
 * The protocol over one RC queue pair. Every message that arrives consumes
 * one of FC_VERBS_RECVS receives kept posted over the whole of buf, and
 * carries a 32-bit immediate: its kind in the top 4 bits and, below, the
 * number of the call both sides are in (they call in lockstep), so a
 * message of the wrong kind or call is named, never taken:
 *   CREDIT  a zero-byte send: "my buf is yours to write now"; sent by the
 *           receiving side on entering transfer, and on entering the first
 *           pingpong after anything else, so nothing lands in a buf whose
 *           owner may still be checking it;
 *   DATA    the immediate of the RDMA write that ends a transfer (the
 *           writes before it, for transfers over FC_VERBS_CHUNK, carry
 *           none): the receiver's completion means every byte is there;
 *   PING, PONG  pingpong's two sends of `bytes`, into the peer's buf.
 */
#ifndef FC_NIC_VERBS_INT_H
#define FC_NIC_VERBS_INT_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "fc_nic_verbs.h"
#include "fc_rdma_sysfs.h"

#define FC_VERBS_RECVS 16               /* receives kept posted */
#define FC_VERBS_CHUNK (1u << 30)       /* the longest single write (1 GiB) */
#define FC_VERBS_MAX_CHUNKS 64          /* so transfers of up to 64 GiB */

enum { FC_VERBS_CREDIT = 1, FC_VERBS_DATA = 2, FC_VERBS_PING = 3, FC_VERBS_PONG = 4 };

struct fc_nic_ep {
    char nic[64];               /* as the caller named it */
    fc_rdma_port_t port;        /* the device, port and GID it resolved to */
    int peer;                   /* the peer's rank in the pair communicator */
    int peer_world;             /* and in MPI_COMM_WORLD, for messages */
    char peer_host[64];
    char peer_dev[64];
    int peer_port;
    int mtu;                    /* the path MTU in bytes */
    const char *mem_path;       /* "host memory", "GPU dma-buf", ... */
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *send_cq;
    struct ibv_cq *recv_cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    char *buf;
    size_t len;
    uint32_t recv_len;          /* each receive's length: min(len, CHUNK) */
    uint64_t peer_addr;         /* the peer's buf, for RDMA writes */
    uint64_t peer_len;
    uint32_t peer_rkey;
    uint32_t call;              /* calls made on this endpoint */
    int last_pingpong;          /* the last call was a pingpong */
};

/* Post one receive over buf; 0 or an errno value. */
int fc_verbs_post_recv(fc_nic_ep_t *ep);
/* "mlx5_0 port 1 to rank 3 (mlx5_2 port 1 on node7)": the prefix of every
 * message of this endpoint. */
const char *fc_verbs_who(const fc_nic_ep_t *ep, char *out, size_t len);
/* The ops table's transfer and pingpong (fc_nic_verbs_io.c). */
fc_status_t fc_verbs_transfer(fc_nic_ep_t *ep, int sending, size_t bytes, double deadline,
                              char *why, size_t why_len);
fc_status_t fc_verbs_pingpong(fc_nic_ep_t *ep, int first, size_t bytes, double deadline,
                              char *why, size_t why_len);

#endif
