/*
 * fc_nic_verbs.h - what the verbs transport (lib/nic/fc_nic_verbs.c, the ops
 * table fc_nic_transport_verbs) offers beyond the ops table: connecting
 * with GPU memory as the RDMA buffer, so the rails stage tests the
 * GPUDirect path, and a line saying which port and which registration an
 * endpoint uses, for the stage's records.
 *
 * The ops table's connect registers host memory (ibv_reg_mr). GPU memory
 * goes through fc_nic_verbs_connect_mem with a descriptor the caller fills
 * from the GPU plugin:
 *   - a dma-buf of the allocation (dmabuf_fd >= 0): ibv_reg_dmabuf_mr, the
 *     upstream path (Linux 5.12+, rdma-core 34+, an NVIDIA open kernel
 *     module); if the kernel or device refuses it, the device pointer is
 *     registered with ibv_reg_mr instead (next line), and the endpoint says
 *     which path it took;
 *   - no dma-buf (dmabuf_fd -1): ibv_reg_mr on the device pointer, which
 *     works only where a peer-memory client (nvidia-peermem) is loaded.
 * If neither registers, connect is a skip that names both errors: the
 * GPUDirect path is not there, and that is never a pass.
 *
 * The GPU plugin's side is not written yet (it is the GPU session's): a
 * member, at the next ABI, of fc_gpu_plugin_t (lib/base/fc_plugin.h),
 *     int (*dmabuf_fd_func)(void *dptr, size_t len, uint64_t *offset_p,
 *                           char *why, size_t why_len);
 * returning a dma-buf file descriptor for the device allocation that
 * holds [dptr, dptr+len) (cuMemGetAddressRange for its base, then
 * cuMemGetHandleForAddressRange(&fd, base, size,
 * CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0); both page-aligned) and dptr's
 * offset in it, or -1 with the reason (driver older than R515, no dma-buf
 * support: the caller then passes -1 and peer memory is tried). The caller
 * closes the fd after close(); the transport does not own it.
 */
#ifndef FC_NIC_VERBS_H
#define FC_NIC_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include "fc_nic_transport.h"

typedef enum fc_nic_mem_kind {
    FC_NIC_MEM_HOST = 0,    /* host memory: ibv_reg_mr */
    FC_NIC_MEM_GPU = 1,     /* device memory: dma-buf, else peer memory */
} fc_nic_mem_kind_t;

typedef struct fc_nic_verbs_mem {
    fc_nic_mem_kind_t kind;
    int dmabuf_fd;          /* GPU: the allocation's dma-buf, or -1 */
    uint64_t dmabuf_offset; /* GPU: buf's offset within that dma-buf */
} fc_nic_verbs_mem_t;

/* The ops table's connect with buf described by mem (NULL: host); a peer
 * that does not connect by deadline (MPI_Wtime()) is FC_ERR_TIMEOUT. */
fc_status_t fc_nic_verbs_connect_mem(const char *nic, MPI_Comm pair, int peer, void *buf,
                                     size_t len, const fc_nic_verbs_mem_t *mem, double deadline,
                                     fc_nic_ep_t **ep_p, char *why, size_t why_len);

/* One line for records and logs: "mlx5_1 port 1 (RoCE v2 GID 3,
 * 10.10.1.7, 200 Gb/sec (2X NDR), MTU 4096) to rank 1 (mlx5_1 port 1 on
 * node2), buffer host memory"; returns out. */
const char *fc_nic_verbs_describe(const fc_nic_ep_t *ep, char *out, size_t len);

#endif
