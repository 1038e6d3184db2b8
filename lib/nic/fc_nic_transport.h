/*
 * fc_nic_transport.h - one NIC talking to one NIC, behind a small ops
 * table, so that the rails stage measures every NIC of a node the same way
 * whatever carries the bytes: "tcp" (a socket bound to that interface's
 * address: Ethernet clusters and the virtual cluster) or "verbs" (libibverbs
 * RC queue pairs set up over MPI: InfiniBand and RoCE, GPU memory as the
 * buffer where the GPU plugin allows).
 *
 * The calling pattern, for one pair of ranks on one rail:
 *
 *     ops->available(nic, why)            each side, before anything: a NIC
 *                                         this transport cannot drive is a
 *                                         skip with the reason, never a pass
 *     ops->connect(nic, pair, peer, buf, len, deadline, &ep, why)
 *                                         both sides together; set-up data
 *                                         (addresses, QP numbers, rkeys)
 *                                         travels over the MPI communicator
 *                                         (fc_nic_exchange); buf is
 *                                         registered once, here; a peer
 *                                         that never connects is a
 *                                         TIMEOUT by the deadline
 *     ops->transfer(ep, sending, bytes, deadline, why)
 *                                         both sides: the sender moves the
 *                                         first `bytes` of its buf into the
 *                                         peer's buf; the receiver returns
 *                                         only when all of them have
 *                                         arrived, so the caller may check
 *                                         them bitwise at once
 *     ops->pingpong(ep, first, bytes, deadline, why)
 *                                         one round trip of `bytes`
 *     ops->close(ep)                      both sides
 *
 * Every call that waits takes an absolute deadline (MPI_Wtime() seconds) and
 * returns FC_ERR_TIMEOUT past it with the NIC and peer in `why`: a dead
 * link never hangs the stage. Filling, checking and timing are the
 * caller's: the transport only moves bytes.
 */
#ifndef FC_NIC_TRANSPORT_H
#define FC_NIC_TRANSPORT_H

#include <stddef.h>

#include <mpi.h>

#include "fc_status.h"

#define FC_NIC_WHY_MAX 256

/* One end of a connection between this rank's NIC and a peer's NIC. */
typedef struct fc_nic_ep fc_nic_ep_t;

typedef struct fc_nic_transport {
    const char *name;   /* "tcp", "verbs": the profile's `transport:` */
    fc_status_t (*available)(const char *nic, char *why, size_t why_len);
    fc_status_t (*connect)(const char *nic, MPI_Comm pair, int peer, void *buf,
                           size_t len, double deadline, fc_nic_ep_t **ep, char *why,
                           size_t why_len);
    fc_status_t (*transfer)(fc_nic_ep_t *ep, int sending, size_t bytes,
                            double deadline, char *why, size_t why_len);
    fc_status_t (*pingpong)(fc_nic_ep_t *ep, int first, size_t bytes,
                            double deadline, char *why, size_t why_len);
    void (*close)(fc_nic_ep_t *ep);
} fc_nic_transport_t;

/* The transports built into this binary, by name; NULL if unknown. */
const fc_nic_transport_t *fc_nic_transport_find(const char *name);

/* Send len bytes of out to peer and receive as many into in, on comm with
 * tag, both non-blocking and polled until deadline (MPI_Wtime()); phase 0
 * is a connect's first exchange, 1, 2.. its next ones: FC_OK,
 * FC_ERR_TIMEOUT (the peer sent nothing in time; what this side sent stays
 * posted, so a peer that comes later takes it and fails by its own
 * deadline), FC_ERR_FAIL (set-up data out of step) or FC_ERR_INTERNAL, the
 * reason in err. Both sides call it the same number of times per connect;
 * a message left over from a connect one side abandoned is dropped. */
fc_status_t fc_nic_exchange(MPI_Comm comm, int peer, int tag, int phase, const void *out,
                            void *in, size_t len, double deadline, char *err, size_t err_len);

extern const fc_nic_transport_t fc_nic_transport_tcp;
extern const fc_nic_transport_t fc_nic_transport_verbs;

#endif
