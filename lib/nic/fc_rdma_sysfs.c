/*
 * fc_rdma_sysfs.c - a NIC name to an RDMA device, port and GID index, from
 * sysfs alone (fc_rdma_sysfs.h). The verbs transport calls it with the real
 * root before it opens anything, so a node without RDMA, a port that is
 * down or a RoCE interface without an IPv4 address is a skip that says
 * which, and tests/unit/rdma_sysfs.c calls it on fixture trees. Every
 * reason names the NIC, the device and port, and the sysfs file read.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fc_rdma_sysfs.h"

#define FC_RDMA_MAX_PORTS 32
#define FC_RDMA_MAX_GIDS 256

/* The first line of a sysfs file, newline stripped; -1 if unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL)
        return -1;
    if (fgets(buf, (int)len, f) == NULL) {
        fclose(f);
        return -1;
    }
    fclose(f);
    n = strlen(buf);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fc_rdma_parse_rate(const char *text, double *gbps_p)
{
    char *end;
    double v;

    if (text == NULL)
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno != 0 || v <= 0 || strncmp(end, " Gb/sec", 7) != 0)
        return -1;
    *gbps_p = v;
    return 0;
}

int fc_rdma_parse_state(const char *text, char *name, size_t name_len)
{
    char *end;
    long v;

    if (text == NULL)
        return -1;
    v = strtol(text, &end, 10);
    if (end == text || v < 0 || v > 15 || end[0] != ':' || end[1] != ' ' || end[2] == '\0')
        return -1;
    snprintf(name, name_len, "%s", end + 2);
    return (int)v;
}

/* The devices under ROOT/class/infiniband, space-separated and sorted by
 * readdir's order, for a reason; "" when none. */
static void list_devices(const char *root, char *out, size_t len)
{
    char path[512];
    DIR *d;
    struct dirent *e;
    size_t used = 0;

    out[0] = '\0';
    snprintf(path, sizeof(path), "%s/class/infiniband", root);
    if ((d = opendir(path)) == NULL)
        return;
    while ((e = readdir(d)) != NULL && used + 2 < len) {
        if (e->d_name[0] == '.')
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", e->d_name);
    }
    closedir(d);
    if (used >= len)
        out[len - 1] = '\0';
}

/* The RDMA device whose network interface netdev is, into dev: 0; -1 if
 * none; -2 if more than one (their names, space-separated, into dev:
 * which one the caller means is not for readdir's order to decide). A
 * device counts when its device/net has netdev (the device's parent is
 * the function the netdev is on), else when the netdev's device has it in
 * infiniband/. */
static int device_of_netdev(const char *root, const char *netdev, char *dev, size_t len)
{
    char path[768];
    DIR *d;
    struct dirent *e;
    int found = 0;
    size_t used = 0;

    dev[0] = '\0';
    for (int pass = 0; pass < 2 && found == 0; ++pass) {
        if (pass == 0)
            snprintf(path, sizeof(path), "%s/class/infiniband", root);
        else
            snprintf(path, sizeof(path), "%s/class/net/%s/device/infiniband", root, netdev);
        if ((d = opendir(path)) == NULL)
            continue;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net/%s", root,
                     e->d_name, netdev);
            if (pass == 0 && !is_dir(path))
                continue;
            ++found;
            if (used < len)
                used += (size_t)snprintf(dev + used, len - used, "%s%s", used ? " " : "",
                                         e->d_name);
        }
        closedir(d);
    }
    return found == 1 ? 0 : found == 0 ? -1 : -2;
}

/* The device's port numbers, ascending; their count. */
static int port_numbers(const char *root, const char *dev, int *ports)
{
    char path[512];
    DIR *d;
    struct dirent *e;
    int n = 0;

    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, dev);
    if ((d = opendir(path)) == NULL)
        return 0;
    while ((e = readdir(d)) != NULL && n < FC_RDMA_MAX_PORTS) {
        char *end;
        long p = strtol(e->d_name, &end, 10);

        if (end != e->d_name && *end == '\0' && p > 0 && p < 256)
            ports[n++] = (int)p;
    }
    closedir(d);
    for (int i = 1; i < n; ++i)         /* a handful: insertion sort */
        for (int j = i; j > 0 && ports[j - 1] > ports[j]; --j) {
            int t = ports[j];

            ports[j] = ports[j - 1];
            ports[j - 1] = t;
        }
    return n;
}

/* ports/P/state's number, its text "4: ACTIVE" into text; -1 if unreadable. */
static int port_state(const char *root, const char *dev, int port, char *text, size_t len)
{
    char path[512], name[32];
    int s;

    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/state", root, dev, port);
    if (read_line(path, text, len) != 0) {
        snprintf(text, len, "unreadable");
        return -1;
    }
    s = fc_rdma_parse_state(text, name, sizeof(name));
    /* the kernel writes the number and its name: a file where they
     * disagree ("4: DOWN") is not a port known to be ACTIVE */
    return s == FC_RDMA_PORT_ACTIVE && strcmp(name, "ACTIVE") != 0 ? -1 : s;
}

/* On RoCE: the lowest RoCE v2 IPv4-mapped GID (of netdev when named). */
static fc_status_t choose_roce_gid(const char *root, const char *nic, fc_rdma_port_t *p,
                                   char *why, size_t why_len)
{
    char dir[512], path[600], gid[64], type[32], ndev[64];
    int seen = 0, v2 = 0;

    snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d", root, p->dev, p->port);
    for (int i = 0; i < FC_RDMA_MAX_GIDS; ++i) {
        struct in6_addr a;

        snprintf(path, sizeof(path), "%s/gids/%d", dir, i);
        if (read_line(path, gid, sizeof(gid)) != 0)
            break;
        /* an unused entry reads all zeros and has no type (EINVAL) */
        if (inet_pton(AF_INET6, gid, &a) != 1 || IN6_IS_ADDR_UNSPECIFIED(&a))
            continue;
        ++seen;
        snprintf(path, sizeof(path), "%s/gid_attrs/types/%d", dir, i);
        if (read_line(path, type, sizeof(type)) != 0 || strcmp(type, "RoCE v2") != 0)
            continue;
        ++v2;
        snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%d", dir, i);
        if (p->netdev[0] && read_line(path, ndev, sizeof(ndev)) == 0 &&
            strcmp(ndev, p->netdev) != 0)
            continue;
        if (!IN6_IS_ADDR_V4MAPPED(&a))
            continue;
        p->gid_index = i;
        snprintf(p->gid, sizeof(p->gid), "%s", gid);
        inet_ntop(AF_INET, &a.s6_addr[12], p->ipv4, sizeof(p->ipv4));
        return FC_OK;
    }
    snprintf(why, why_len,
             "no usable GID for NIC %s: %s port %d is RoCE (Ethernet) and has no RoCE v2 GID "
             "with an IPv4 address%s%s (%d GID(s), %d RoCE v2, in %s/gids and gid_attrs/types): "
             "give the interface an IPv4 address",
             nic, p->dev, p->port, p->netdev[0] ? " on " : "", p->netdev, seen, v2, dir);
    return FC_ERR_SKIP;
}

/* Choose the port (want: that one, or 0: the lowest ACTIVE one). */
static fc_status_t choose_port(const char *root, const char *nic, int want, fc_rdma_port_t *p,
                               char *why, size_t why_len)
{
    int ports[FC_RDMA_MAX_PORTS], n = port_numbers(root, p->dev, ports);
    char text[64], seen[512] = "", path[512], phys[64];
    size_t used = 0;

    if (n == 0) {
        snprintf(why, why_len, "no RDMA port for NIC %s: %s/class/infiniband/%s/ports is empty "
                 "or unreadable", nic, root, p->dev);
        return FC_ERR_SKIP;
    }
    for (int i = 0; i < n; ++i) {
        int s;

        if (want && ports[i] != want)
            continue;
        s = port_state(root, p->dev, ports[i], text, sizeof(text));
        if (s == FC_RDMA_PORT_ACTIVE) {
            p->port = ports[i];
            p->state = s;
            return FC_OK;
        }
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/phys_state", root, p->dev,
                 ports[i]);
        if (read_line(path, phys, sizeof(phys)) != 0)
            snprintf(phys, sizeof(phys), "unreadable");
        if (used < sizeof(seen))
            used += (size_t)snprintf(seen + used, sizeof(seen) - used,
                                     "%sport %d state \"%s\", phys_state \"%s\"", used ? "; " : "",
                                     ports[i], text, phys);
    }
    if (want && seen[0] == '\0') {
        snprintf(why, why_len, "no RDMA port for NIC %s: %s has no port %d (%s/class/infiniband/"
                 "%s/ports)", nic, p->dev, want, root, p->dev);
        return FC_ERR_SKIP;
    }
    snprintf(why, why_len, "RDMA port not ACTIVE for NIC %s: %s %s", nic, p->dev, seen);
    return FC_ERR_SKIP;
}

fc_status_t fc_rdma_port_find(const char *root, const char *nic, fc_rdma_port_t *port_p,
                              char *why, size_t why_len)
{
    fc_rdma_port_t p;
    char path[512], ll[32], devs[256], *colon;
    int want = 0;
    fc_status_t st;

    memset(&p, 0, sizeof(p));
    if (nic == NULL || nic[0] == '\0' || strlen(nic) >= sizeof(p.dev)) {
        snprintf(why, why_len, "bad NIC name \"%s\" for the verbs transport", nic ? nic : "");
        return FC_ERR_INVALID;
    }
    snprintf(path, sizeof(path), "%s/class/infiniband", root);
    if (!is_dir(path)) {
        snprintf(why, why_len, "no RDMA device for NIC %s (no %s: no RDMA driver loaded)", nic,
                 path);
        return FC_ERR_SKIP;
    }
    snprintf(p.dev, sizeof(p.dev), "%s", nic);
    if ((colon = strchr(p.dev, ':')) != NULL) {          /* "mlx5_3:1" */
        char *end;
        long v = strtol(colon + 1, &end, 10);

        if (end == colon + 1 || *end != '\0' || v <= 0 || v > 255) {
            snprintf(why, why_len, "bad NIC name \"%s\": DEVICE:PORT wants a port number 1-255",
                     nic);
            return FC_ERR_INVALID;
        }
        *colon = '\0';
        want = (int)v;
    }
    snprintf(path, sizeof(path), "%s/class/infiniband/%s", root, p.dev);
    if (!is_dir(path)) {
        int which = colon == NULL ? device_of_netdev(root, nic, devs, sizeof(devs)) : -1;

        if (which == -2) {
            snprintf(why, why_len, "NIC %s is the network interface of more than one RDMA "
                     "device (%s, in %s/class/infiniband/*/device/net): name the device (or "
                     "DEVICE:PORT) to test", nic, devs, root);
            return FC_ERR_SKIP;
        }
        if (which == 0 && strlen(devs) < sizeof(p.dev)) {
            char dp[32], *end;
            long v;

            snprintf(p.dev, sizeof(p.dev), "%s", devs);
            snprintf(p.netdev, sizeof(p.netdev), "%s", nic);
            /* a multi-port device's interfaces: dev_port counts from 0 */
            snprintf(path, sizeof(path), "%s/class/net/%s/dev_port", root, nic);
            if (read_line(path, dp, sizeof(dp)) == 0 && (v = strtol(dp, &end, 10)) >= 0 &&
                end != dp && *end == '\0' && v < 255) {
                int ports[FC_RDMA_MAX_PORTS], n = port_numbers(root, p.dev, ports);

                for (int i = 0; i < n; ++i)
                    if (ports[i] == v + 1)
                        want = (int)v + 1;
            }
        } else {
            list_devices(root, devs, sizeof(devs));
            snprintf(why, why_len, "no RDMA device for NIC %s (not a device in %s/class/"
                     "infiniband, nor the network interface of one: %s)", nic, root,
                     devs[0] ? devs : "none there");
            return FC_ERR_SKIP;
        }
    }
    if ((st = choose_port(root, nic, want, &p, why, why_len)) != FC_OK)
        return st;

    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/rate", root, p.dev, p.port);
    if (read_line(path, p.rate_text, sizeof(p.rate_text)) != 0 ||
        fc_rdma_parse_rate(p.rate_text, &p.rate_gbps) != 0)
        p.rate_gbps = 0;
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/link_layer", root, p.dev,
             p.port);
    if (read_line(path, ll, sizeof(ll)) != 0)
        snprintf(ll, sizeof(ll), "unreadable");
    if (strcmp(ll, "InfiniBand") == 0) {
        p.link_layer = FC_RDMA_LL_INFINIBAND;
        p.gid_index = 0;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/gids/0", root, p.dev,
                 p.port);
        if (read_line(path, p.gid, sizeof(p.gid)) != 0)
            p.gid[0] = '\0';
    } else if (strcmp(ll, "Ethernet") == 0) {
        p.link_layer = FC_RDMA_LL_ETHERNET;
        if ((st = choose_roce_gid(root, nic, &p, why, why_len)) != FC_OK)
            return st;
    } else {
        snprintf(why, why_len, "RDMA port of NIC %s: %s port %d has link layer \"%s\" (%s), "
                 "neither InfiniBand nor Ethernet", nic, p.dev, p.port, ll, path);
        return FC_ERR_SKIP;
    }
    *port_p = p;
    return FC_OK;
}
