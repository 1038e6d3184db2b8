/*
 * nic_tcp.c - unit tests of the tcp NIC transport's socket layer
 * (lib/nic/fc_nic_tcp_sock.c) over loopback, the peer a forked child: the
 * interface's address (lo; an absent interface is a skip naming it), 4 MiB
 * carried whole and bitwise intact, and every wait bounded: a peer that
 * connects and then says nothing, a listener nobody dials, and a peer that
 * closes mid-transfer each end by their deadline with the reason, never a
 * hang. And the transport table: tcp found by name, verbs absent until
 * lib/nic/fc_nic_verbs.c is built in, an unknown name NULL. The MPI half
 * (connect over a pair communicator) runs in tests/e2e/rails.t.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fc_nic_tcp.h"
#include "fc_nic_transport.h"
#include "fc_tap.h"

#define BIG (4u << 20)

static fc_tap_t tap;

/* A child that dials addr from lo, sends `send` bytes of the pattern (0:
 * none), then sleeps `hold` seconds before closing. */
static pid_t child(const struct sockaddr_in *addr, size_t send, double hold)
{
    pid_t pid = fork();

    if (pid != 0)
        return pid;
    struct sockaddr_in from = *addr;
    fc_status_t st;
    char why[256];
    unsigned char *buf = malloc(BIG);
    int fd;

    from.sin_port = 0;
    fd = fc_nic_tcp_dial("lo", &from, addr, fc_nic_tcp_now() + 5, &st, why, sizeof(why));
    if (fd < 0)
        _exit(3);
    for (size_t i = 0; i < send; ++i)
        buf[i] = (unsigned char)(i * 131u + (i >> 12));
    if (send > 0 && fc_nic_tcp_send_all(fd, buf, send, fc_nic_tcp_now() + 10, why,
                                        sizeof(why)) != FC_OK)
        _exit(4);
    usleep((useconds_t)(hold * 1e6));
    close(fd);
    _exit(0);
}

int main(void)
{
    struct sockaddr_in sa;
    char why[256] = "";
    fc_status_t st;
    unsigned char *buf = malloc(BIG);
    int lfd, fd, status;
    pid_t pid;
    double t0;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 19);
    st = fc_nic_tcp_addr("lo", &sa, why, sizeof(why));
    fc_tap_is_int(&tap, st, FC_OK, "lo's IPv4 address is 127.0.0.1 (%s)", why);
    fc_tap_is_int(&tap, sa.sin_addr.s_addr, htonl(INADDR_LOOPBACK),
                  "lo's IPv4 address is 127.0.0.1 (%s)"
                  " [sa.sin_addr.s_addr]", why);
    st = fc_nic_tcp_addr("fcnosuch9", &sa, why, sizeof(why));
    fc_tap_is_int(&tap, st, FC_ERR_SKIP, "an absent interface is a skip naming it (%s)", why);
    fc_tap_ok(&tap, strstr(why, "fcnosuch9: no such interface") != NULL,
              "an absent interface is a skip naming it (%s)"
              " [strstr(why, \"fcnosuch9: no such interface\") != NULL]", why);

    /* 4 MiB carried whole and intact */
    why[0] = '\0';
    fc_nic_tcp_addr("lo", &sa, why, sizeof(why));
    lfd = fc_nic_tcp_listen("lo", &sa, why, sizeof(why));
    pid = child(&sa, BIG, 0);
    fd = fc_nic_tcp_accept(lfd, fc_nic_tcp_now() + 5, &st, why, sizeof(why));
    memset(buf, 0xA5, BIG);
    st = fd >= 0 ? fc_nic_tcp_recv_all(fd, buf, BIG, fc_nic_tcp_now() + 10, why, sizeof(why))
                 : st;
    size_t wrong = 0;
    for (size_t i = 0; i < BIG; ++i)
        wrong += buf[i] != (unsigned char)(i * 131u + (i >> 12));
    waitpid(pid, &status, 0);
    fc_tap_is_int(&tap, st, FC_OK,
                  "4 MiB over loopback arrive whole, every byte right (%zu wrong; %s)", wrong, why);
    fc_tap_is_int(&tap, wrong, 0,
                  "4 MiB over loopback arrive whole, every byte right (%zu wrong; %s)"
                  " [wrong]", wrong, why);
    fc_tap_ok(&tap, WIFEXITED(status),
              "4 MiB over loopback arrive whole, every byte right (%zu wrong; %s)"
              " [WIFEXITED(status)]", wrong, why);
    fc_tap_is_int(&tap, WEXITSTATUS(status), 0,
                  "4 MiB over loopback arrive whole, every byte right (%zu wrong; %s)"
                  " [WEXITSTATUS(status)]", wrong, why);
    if (fd >= 0)
        close(fd);

    /* a peer that connects and then says nothing: the receive ends by its deadline */
    pid = child(&sa, 0, 3);
    fd = fc_nic_tcp_accept(lfd, fc_nic_tcp_now() + 5, &st, why, sizeof(why));
    t0 = fc_nic_tcp_now();
    st = fc_nic_tcp_recv_all(fd, buf, 1024, t0 + 0.3, why, sizeof(why));
    t0 = fc_nic_tcp_now() - t0;
    fc_tap_is_int(&tap, st, FC_ERR_TIMEOUT,
                  "a silent peer: the receive times out at its deadline (%.2f s: %s)", t0, why);
    fc_tap_ok(&tap, t0 >= 0.29 && t0 < 2.0 &&
                  strstr(why, "0 of 1024 bytes before the deadline") != NULL,
              "a silent peer: the receive times out at its deadline (%.2f s: %s)"
              " [t0 >= 0.29 && t0 < 2.0 && strstr(why, \"0 of 1024 bytes be...]", t0, why);
    /* and a send into a peer that never reads ends as well */
    t0 = fc_nic_tcp_now();
    st = fc_nic_tcp_send_all(fd, buf, BIG, t0 + 0.3, why, sizeof(why));
    t0 = fc_nic_tcp_now() - t0;
    fc_tap_is_int(&tap, st, FC_ERR_TIMEOUT,
                  "a peer that never reads: 4 MiB sent times out at its deadline (%.2f s: %s)", t0,
                  why);
    fc_tap_ok(&tap, t0 < 2.0,
              "a peer that never reads: 4 MiB sent times out at its deadline (%.2f s: %s)"
              " [t0 < 2.0]", t0, why);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    /* the peer died: what is left is a failure, not a wait */
    st = fc_nic_tcp_recv_all(fd, buf, 1024, fc_nic_tcp_now() + 5, why, sizeof(why));
    fc_tap_is_int(&tap, st, FC_ERR_FAIL, "a peer killed: the receive fails at once, saying so (%s)",
                  why);
    fc_tap_ok(&tap, (strstr(why, "closed") != NULL ||
                                          strstr(why, "reset") != NULL),
              "a peer killed: the receive fails at once, saying so (%s)"
              " [strstr(why, \"closed\") != NULL || strstr(why, \"reset\") !=...]", why);
    close(fd);

    /* nobody dials */
    t0 = fc_nic_tcp_now();
    fd = fc_nic_tcp_accept(lfd, t0 + 0.3, &st, why, sizeof(why));
    t0 = fc_nic_tcp_now() - t0;
    fc_tap_ok(&tap, fd < 0, "a listener nobody dials times out at its deadline (%.2f s: %s)", t0,
              why);
    fc_tap_is_int(&tap, st, FC_ERR_TIMEOUT,
                  "a listener nobody dials times out at its deadline (%.2f s: %s)"
                  " [st]", t0, why);
    fc_tap_ok(&tap, t0 < 2.0, "a listener nobody dials times out at its deadline (%.2f s: %s)"
              " [t0 < 2.0]", t0, why);
    close(lfd);

    fc_tap_ok(&tap, fc_nic_transport_find("tcp") == &fc_nic_transport_tcp,
              "transports by name: tcp found, an unknown name NULL, verbs %s",
              fc_nic_transport_find("verbs") ? "built in" : "not built in (NULL)");
    fc_tap_ok(&tap, fc_nic_transport_find("nosuch") == NULL &&
                  (fc_nic_transport_find("verbs") == NULL ||
                   strcmp(fc_nic_transport_find("verbs")->name, "verbs") == 0),
              "transports by name: tcp found, an unknown name NULL, verbs %s"
              " [fc_nic_transport_find(\"nosuch\") == NULL && fc_nic_transpo...]",
              fc_nic_transport_find("verbs") ? "built in" : "not built in (NULL)");
    free(buf);
    return fc_tap_done(&tap);
}
