/*
 * fc_nic_tcp_sock.c - the socket layer of the tcp NIC transport (see
 * fc_nic_tcp.h): non-blocking sockets bound to one interface's address,
 * every wait a poll() bounded by the caller's deadline, so a dead peer or
 * a cut cable ends in FC_ERR_TIMEOUT naming the interface, never a hang.
 */
#define _GNU_SOURCE 1
#include "fc_nic_tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

double fc_nic_tcp_now(void)
{
    int up = 0, down = 0;
    struct timespec ts;

    MPI_Initialized(&up);
    if (up)
        MPI_Finalized(&down);
    if (up && !down)
        return MPI_Wtime();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

fc_status_t fc_nic_tcp_addr(const char *nic, struct sockaddr_in *sa, char *why, size_t len)
{
    struct ifaddrs *ifa = NULL;
    int seen = 0, up = 0, carrier = 0, found = 0;

    if (getifaddrs(&ifa) != 0) {
        snprintf(why, len, "%s: getifaddrs: %s", nic, strerror(errno));
        return FC_ERR_INTERNAL;
    }
    for (struct ifaddrs *i = ifa; i != NULL && !found; i = i->ifa_next) {
        if (i->ifa_name == NULL || strcmp(i->ifa_name, nic) != 0)
            continue;
        seen = 1;
        up |= (i->ifa_flags & IFF_UP) != 0;
        carrier |= (i->ifa_flags & IFF_RUNNING) != 0;
        if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            (i->ifa_flags & IFF_RUNNING)) {
            memcpy(sa, i->ifa_addr, sizeof(*sa));
            sa->sin_port = 0;
            found = 1;
        }
    }
    freeifaddrs(ifa);
    if (found)
        return FC_OK;
    snprintf(why, len, "%s: %s", nic, !seen ? "no such interface on this host"
             : !up ? "the interface is down"
             : !carrier ? "no carrier (its cable, transceiver or switch port)"
             : "the interface has no IPv4 address");
    return FC_ERR_SKIP;
}

static int fc_nic_tcp_socket(const char *nic, const struct sockaddr_in *bind_to, char *why,
                             size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    char ip[INET_ADDRSTRLEN];

    if (fd < 0) {
        snprintf(why, len, "%s: socket: %s", nic, strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    /* the interface's own device where allowed (CAP_NET_RAW); the bound
     * address alone routes through it when each rail has its own subnet */
    (void)setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, nic, (socklen_t)strlen(nic));
    if (bind(fd, (const struct sockaddr *)bind_to, sizeof(*bind_to)) != 0) {
        inet_ntop(AF_INET, &bind_to->sin_addr, ip, sizeof(ip));
        snprintf(why, len, "%s: bind to %s: %s", nic, ip, strerror(errno));
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

int fc_nic_tcp_listen(const char *nic, struct sockaddr_in *addr, char *why, size_t len)
{
    socklen_t sl = sizeof(*addr);
    int fd = fc_nic_tcp_socket(nic, addr, why, len);

    if (fd < 0)
        return -1;
    if (listen(fd, 4) != 0 || getsockname(fd, (struct sockaddr *)addr, &sl) != 0) {
        snprintf(why, len, "%s: listen: %s", nic, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Wait for events on fd until deadline: 1 ready, 0 out of time, -1 error. */
static int fc_nic_tcp_wait(int fd, short events, double deadline)
{
    for (;;) {
        struct pollfd p = { .fd = fd, .events = events };
        double left = deadline - fc_nic_tcp_now();
        int rc;

        if (left <= 0)
            return 0;
        rc = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (rc > 0)
            return 1;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

int fc_nic_tcp_accept(int lfd, double deadline, fc_status_t *st, char *why, size_t len)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1, w;

        if (fd >= 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            *st = FC_OK;
            return fd;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(why, len, "accept: %s", strerror(errno));
            *st = FC_ERR_FAIL;
            return -1;
        }
        if ((w = fc_nic_tcp_wait(lfd, POLLIN, deadline)) <= 0) {
            snprintf(why, len, w == 0 ? "no connection from the peer before the deadline"
                                      : "poll: %s", strerror(errno));
            *st = w == 0 ? FC_ERR_TIMEOUT : FC_ERR_FAIL;
            return -1;
        }
    }
}

int fc_nic_tcp_dial(const char *nic, const struct sockaddr_in *from,
                    const struct sockaddr_in *to, double deadline, fc_status_t *st,
                    char *why, size_t len)
{
    char ip[INET_ADDRSTRLEN];
    int fd = fc_nic_tcp_socket(nic, from, why, len), err = 0, w;
    socklen_t el = sizeof(err);

    *st = FC_ERR_FAIL;
    if (fd < 0)
        return -1;
    inet_ntop(AF_INET, &to->sin_addr, ip, sizeof(ip));
    if (connect(fd, (const struct sockaddr *)to, sizeof(*to)) == 0) {
        *st = FC_OK;
        return fd;
    }
    if (errno != EINPROGRESS) {
        snprintf(why, len, "%s: connect to %s:%d: %s", nic, ip, ntohs(to->sin_port),
                 strerror(errno));
        close(fd);
        return -1;
    }
    w = fc_nic_tcp_wait(fd, POLLOUT, deadline);
    if (w > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0) {
        *st = FC_OK;
        return fd;
    }
    if (w == 0)
        *st = FC_ERR_TIMEOUT;
    snprintf(why, len, "%s: connect to %s:%d: %s", nic, ip, ntohs(to->sin_port),
             w == 0 ? "no answer before the deadline" : strerror(err != 0 ? err : errno));
    close(fd);
    return -1;
}

static fc_status_t fc_nic_tcp_io(int fd, void *buf, size_t n, int sending, double deadline,
                                 char *why, size_t len)
{
    size_t done = 0;

    while (done < n) {
        ssize_t k = sending ? send(fd, (char *)buf + done, n - done, MSG_NOSIGNAL)
                            : recv(fd, (char *)buf + done, n - done, 0);
        int w;

        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k == 0) {
            snprintf(why, len, "the peer closed the connection after %zu of %zu bytes", done, n);
            return FC_ERR_FAIL;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(why, len, "%s after %zu of %zu bytes: %s", sending ? "send" : "recv",
                     done, n, strerror(errno));
            return FC_ERR_FAIL;
        }
        if ((w = fc_nic_tcp_wait(fd, sending ? POLLOUT : POLLIN, deadline)) <= 0) {
            snprintf(why, len, w == 0 ? "%s: %zu of %zu bytes before the deadline"
                                      : "%s: poll failed after %zu of %zu bytes",
                     sending ? "sent" : "received", done, n);
            return w == 0 ? FC_ERR_TIMEOUT : FC_ERR_FAIL;
        }
    }
    return FC_OK;
}

fc_status_t fc_nic_tcp_send_all(int fd, const void *buf, size_t n, double deadline,
                                char *why, size_t len)
{
    return fc_nic_tcp_io(fd, (void *)buf, n, 1, deadline, why, len);
}

fc_status_t fc_nic_tcp_recv_all(int fd, void *buf, size_t n, double deadline,
                                char *why, size_t len)
{
    return fc_nic_tcp_io(fd, buf, n, 0, deadline, why, len);
}
