/*
 * fc_nic_tcp.h - the socket layer under the tcp NIC transport
 * (lib/nic/fc_nic_tcp.c, the ops table in lib/nic/fc_nic_transport.h), kept free
 * of MPI so that tests/unit/nic_tcp.c drives it over loopback: the
 * interface's IPv4 address, a listening socket bound to it, a connection
 * dialled from it, and whole-buffer sends and receives, every wait
 * bounded by an absolute deadline on fc_nic_tcp_now()'s clock (MPI_Wtime
 * once MPI is up, else the monotonic clock).
 */
#ifndef FC_NIC_TCP_H
#define FC_NIC_TCP_H

#include <netinet/in.h>
#include <stddef.h>

#include "fc_status.h"

/* Seconds on the deadlines' clock. */
double fc_nic_tcp_now(void);
/* nic's IPv4 address (port 0) into *sa; FC_ERR_SKIP with the reason when
 * the interface is absent, down, without carrier or has no IPv4 address. */
fc_status_t fc_nic_tcp_addr(const char *nic, struct sockaddr_in *sa, char *why, size_t len);
/* A listening socket on addr, any port (set in addr->sin_port); -1 and why. */
int fc_nic_tcp_listen(const char *nic, struct sockaddr_in *addr, char *why, size_t len);
/* The first connection to lfd by deadline; -1 and why (FC_ERR_TIMEOUT in
 * *st when it ran out). */
int fc_nic_tcp_accept(int lfd, double deadline, fc_status_t *st, char *why, size_t len);
/* A connection from `from` (bound to it, and to nic's device where the
 * system allows) to `to` by deadline; -1, *st and why otherwise. */
int fc_nic_tcp_dial(const char *nic, const struct sockaddr_in *from,
                    const struct sockaddr_in *to, double deadline, fc_status_t *st,
                    char *why, size_t len);
/* Send or receive exactly n bytes on fd by deadline: FC_OK, FC_ERR_TIMEOUT,
 * or FC_ERR_FAIL (the peer closed, an error), with why. */
fc_status_t fc_nic_tcp_send_all(int fd, const void *buf, size_t n, double deadline,
                                char *why, size_t len);
fc_status_t fc_nic_tcp_recv_all(int fd, void *buf, size_t n, double deadline,
                                char *why, size_t len);

#endif
