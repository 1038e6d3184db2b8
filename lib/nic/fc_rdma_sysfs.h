/*
 * fc_rdma_sysfs.h - which RDMA device and port carry a NIC, read from sysfs
 * alone (no libibverbs), so the verbs transport's choice is unit-tested on
 * fixture trees (tests/fixtures/sysfs/rdma*) on machines without RDMA.
 *
 * A NIC is named as the rails stage knows it: an RDMA device ("mlx5_3"),
 * a device and port ("mlx5_3:1"), or the network interface of one
 * ("ens1f0np0", "ib0": found through ROOT/class/infiniband/DEV/device/net/
 * NAME or ROOT/class/net/NAME/device/infiniband/DEV). The layout read is
 * the kernel's (Documentation/ABI/stable/sysfs-class-infiniband):
 *   ports/P/state       "4: ACTIVE"      (anything else: skip, with it)
 *   ports/P/phys_state  "5: LinkUp"      (quoted in that skip)
 *   ports/P/rate        "400 Gb/sec (4X NDR)"
 *   ports/P/link_layer  "InfiniBand" or "Ethernet" (RoCE)
 *   ports/P/gids/N      "0000:0000:0000:0000:0000:ffff:0a00:0001"
 *   ports/P/gid_attrs/types/N  "RoCE v2" or "IB/RoCE v1"
 *   ports/P/gid_attrs/ndevs/N  the netdev the GID belongs to
 * On RoCE the GID used is the lowest index whose type is "RoCE v2" and
 * whose GID is IPv4-mapped (routable, what NCCL and perftest pick), of the
 * named netdev where one was named; on InfiniBand it is index 0 (the
 * port's LID addresses it). Nothing vendor-specific is read.
 */
#ifndef FC_RDMA_SYSFS_H
#define FC_RDMA_SYSFS_H

#include <stddef.h>

#include "fc_status.h"

enum { FC_RDMA_LL_INFINIBAND = 1, FC_RDMA_LL_ETHERNET = 2 };
#define FC_RDMA_PORT_ACTIVE 4   /* IB_PORT_ACTIVE, the number in ports/P/state */

typedef struct fc_rdma_port {
    char dev[64];           /* the RDMA device: "mlx5_3" */
    int port;               /* its port number: 1 */
    char netdev[64];        /* the interface named, or "" when a device was */
    int state;              /* 4 (ACTIVE) once chosen */
    char rate_text[64];     /* "400 Gb/sec (4X NDR)", as sysfs has it */
    double rate_gbps;       /* 400; 0 when rate cannot be read or parsed */
    int link_layer;         /* FC_RDMA_LL_INFINIBAND or _ETHERNET */
    int gid_index;          /* the GID to address the port by (see above) */
    char gid[48];           /* that GID as sysfs prints it */
    char ipv4[16];          /* RoCE: the GID's IPv4 address; "" on IB */
} fc_rdma_port_t;

/* Resolve nic under the sysfs root (normally "/sys") to an ACTIVE port with
 * its GID index. FC_ERR_SKIP with the reason in why when the NIC has no
 * RDMA device (none at all, or none of that name or netdev), the port is
 * not ACTIVE (its state and physical state quoted), the link layer is
 * unknown, or a RoCE port has no RoCE v2 IPv4 GID; FC_ERR_INVALID for a
 * malformed name ("mlx5_0:x"). *port_p is set only on FC_OK. */
fc_status_t fc_rdma_port_find(const char *root, const char *nic, fc_rdma_port_t *port_p,
                              char *why, size_t why_len);

/* "400 Gb/sec (4X NDR)" -> 400, "2.5 Gb/sec (1X SDR)" -> 2.5; 0 on
 * success, -1 for anything else (*gbps_p untouched). */
int fc_rdma_parse_rate(const char *text, double *gbps_p);
/* "4: ACTIVE" -> 4, with "ACTIVE" into name; -1 if malformed. */
int fc_rdma_parse_state(const char *text, char *name, size_t name_len);

#endif
