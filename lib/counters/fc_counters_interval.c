/*
 * fc_counters_interval.c - see fc_counters_interval.h. One table names
 * every counter read over an interval, where it is (an interface's
 * statistics, an RDMA port's counters, its hw_counters alone), its class
 * (what it is summed into) and its scale (InfiniBand's data counters count
 * 4-byte words). The names are the kernel's
 * (Documentation/ABI/testing/sysfs-class-net-statistics,
 * sysfs-class-infiniband) and mlx5's hw_counters
 * (drivers/infiniband/hw/mlx5/counters.c).
 */
#include "fc_counters_interval.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fc_alloc.h"
#include "fc_counters.h"
#include "fc_counters_ethtool.h"

typedef enum fc_ival_class {
    FC_IVAL_TX_BYTES = 0,
    FC_IVAL_RX_BYTES,
    FC_IVAL_ERRORS,
    FC_IVAL_DROPS,
    FC_IVAL_CONGESTION,         /* summed per counter: they mean different things */
    FC_IVAL_TRANSPORT,          /* ditto */
    FC_IVAL_SHOWN,              /* per link only (already inside another) */
} fc_ival_class_t;

static const char *const fc_ival_class_key[] = {
    "tx_bytes", "rx_bytes", "errors", "drops", "congestion", "transport", NULL,
};

typedef enum fc_ival_where {
    FC_IVAL_NET = 0,            /* class/net/IF/statistics/NAME */
    FC_IVAL_NET_TOP,            /* class/net/IF/NAME */
    FC_IVAL_RDMA,               /* the 64-bit file, else counters/NAME */
    FC_IVAL_RDMA_HW,            /* hw_counters/NAME (or a 64-bit twin) only */
    FC_IVAL_ETHTOOL,            /* the driver's statistics, by canonical name
                                 * (fc_counters_ethtool.h) */
} fc_ival_where_t;

typedef struct fc_ival_counter {
    const char *name;
    fc_ival_where_t where;
    fc_ival_class_t cls;
    int bits;                   /* width of the narrow counters/ file */
    int scale;                  /* bytes per unit (data counters) */
} fc_ival_counter_t;

static const fc_ival_counter_t fc_ival_counters[] = {
    { "tx_bytes", FC_IVAL_NET, FC_IVAL_TX_BYTES, 64, 1 },
    { "rx_bytes", FC_IVAL_NET, FC_IVAL_RX_BYTES, 64, 1 },
    { "rx_errors", FC_IVAL_NET, FC_IVAL_ERRORS, 64, 1 },
    { "tx_errors", FC_IVAL_NET, FC_IVAL_ERRORS, 64, 1 },
    { "carrier_changes", FC_IVAL_NET_TOP, FC_IVAL_ERRORS, 64, 1 },
    { "rx_crc_errors", FC_IVAL_NET, FC_IVAL_SHOWN, 64, 1 },
    { "rx_frame_errors", FC_IVAL_NET, FC_IVAL_SHOWN, 64, 1 },
    { "rx_dropped", FC_IVAL_NET, FC_IVAL_DROPS, 64, 1 },
    { "tx_dropped", FC_IVAL_NET, FC_IVAL_DROPS, 64, 1 },
    { "rx_missed_errors", FC_IVAL_NET, FC_IVAL_DROPS, 64, 1 },
    { "port_xmit_data", FC_IVAL_RDMA, FC_IVAL_TX_BYTES, 32, 4 },
    { "port_rcv_data", FC_IVAL_RDMA, FC_IVAL_RX_BYTES, 32, 4 },
    { "symbol_error", FC_IVAL_RDMA, FC_IVAL_ERRORS, 16, 1 },
    { "link_error_recovery", FC_IVAL_RDMA, FC_IVAL_ERRORS, 8, 1 },
    { "link_downed", FC_IVAL_RDMA, FC_IVAL_ERRORS, 8, 1 },
    { "port_rcv_errors", FC_IVAL_RDMA, FC_IVAL_ERRORS, 16, 1 },
    { "port_rcv_remote_physical_errors", FC_IVAL_RDMA, FC_IVAL_ERRORS, 16, 1 },
    { "local_link_integrity_errors", FC_IVAL_RDMA, FC_IVAL_ERRORS, 4, 1 },
    { "excessive_buffer_overrun_errors", FC_IVAL_RDMA, FC_IVAL_ERRORS, 4, 1 },
    { "port_xmit_discards", FC_IVAL_RDMA, FC_IVAL_DROPS, 16, 1 },
    { "port_xmit_wait", FC_IVAL_RDMA, FC_IVAL_CONGESTION, 32, 1 },
    { "np_cnp_sent", FC_IVAL_RDMA_HW, FC_IVAL_CONGESTION, 0, 1 },
    { "rp_cnp_handled", FC_IVAL_RDMA_HW, FC_IVAL_CONGESTION, 0, 1 },
    { "rp_cnp_ignored", FC_IVAL_RDMA_HW, FC_IVAL_CONGESTION, 0, 1 },
    { "np_ecn_marked_roce_packets", FC_IVAL_RDMA_HW, FC_IVAL_CONGESTION, 0, 1 },
    { "out_of_buffer", FC_IVAL_RDMA_HW, FC_IVAL_DROPS, 0, 1 },
    { "out_of_sequence", FC_IVAL_RDMA_HW, FC_IVAL_TRANSPORT, 0, 1 },
    { "packet_seq_err", FC_IVAL_RDMA_HW, FC_IVAL_TRANSPORT, 0, 1 },
    { "local_ack_timeout_err", FC_IVAL_RDMA_HW, FC_IVAL_TRANSPORT, 0, 1 },
    { "implied_nak_seq_err", FC_IVAL_RDMA_HW, FC_IVAL_TRANSPORT, 0, 1 },
    { "rnr_nak_retry_err", FC_IVAL_RDMA_HW, FC_IVAL_TRANSPORT, 0, 1 },
    { "duplicate_request", FC_IVAL_RDMA_HW, FC_IVAL_TRANSPORT, 0, 1 },
    { "pause_rx_frames", FC_IVAL_ETHTOOL, FC_IVAL_CONGESTION, 0, 1 },
    { "pause_tx_frames", FC_IVAL_ETHTOOL, FC_IVAL_CONGESTION, 0, 1 },
    { "pfc_rx_frames", FC_IVAL_ETHTOOL, FC_IVAL_CONGESTION, 0, 1 },
    { "pfc_tx_frames", FC_IVAL_ETHTOOL, FC_IVAL_CONGESTION, 0, 1 },
    { "ecn_marked_rx", FC_IVAL_ETHTOOL, FC_IVAL_CONGESTION, 0, 1 },
};

static const fc_ival_counter_t *fc_ival_find(const char *name)
{
    for (size_t k = 0; k < FC_NELEM(fc_ival_counters); ++k)
        if (strcmp(fc_ival_counters[k].name, name) == 0)
            return &fc_ival_counters[k];
    return NULL;
}

const char *fc_interval_class(const char *name)
{
    const fc_ival_counter_t *ic = fc_ival_find(name);

    return ic ? fc_ival_class_key[ic->cls] : NULL;
}

static void fc_ival_net(json_t *links, const char *ifname)
{
    json_t *c = json_object();
    char path[1024];
    long long v;

    for (size_t k = 0; k < FC_NELEM(fc_ival_counters); ++k) {
        const fc_ival_counter_t *ic = &fc_ival_counters[k];

        if (ic->where != FC_IVAL_NET && ic->where != FC_IVAL_NET_TOP)
            continue;
        snprintf(path, sizeof(path), ic->where == FC_IVAL_NET ? "%s/class/net/%s/statistics/%s"
                 : "%s/class/net/%s/%s", fc_sysfs_root(), ifname, ic->name);
        if (fc_sysfs_read_count(path, &v))
            json_object_set_new(c, ic->name, json_integer(v));
    }
    fc_ethtool_read(ifname, c);     /* pause, PFC, ECN: absent if none */
    json_object_set_new(links, ifname, c);
}

static void fc_ival_rdma(json_t *links, json_t *bits, const char *dev, const char *port)
{
    json_t *c = json_object(), *b = json_object();
    char portdir[768], key[600];
    long long v;
    int width;

    snprintf(portdir, sizeof(portdir), "%s/class/infiniband/%s/ports/%s", fc_sysfs_root(),
             dev, port);
    for (size_t k = 0; k < FC_NELEM(fc_ival_counters); ++k) {
        const fc_ival_counter_t *ic = &fc_ival_counters[k];

        if (ic->where != FC_IVAL_RDMA && ic->where != FC_IVAL_RDMA_HW)
            continue;
        if (!fc_counters_read_rdma(portdir, ic->name, ic->bits, &v, &width))
            continue;
        json_object_set_new(c, ic->name, json_integer(v));
        if (width < 64)
            json_object_set_new(b, ic->name, json_integer(width));
    }
    snprintf(key, sizeof(key), "%s/%s", dev, port);
    json_object_set_new(links, key, c);
    if (json_object_size(b) > 0)
        json_object_set(bits, key, b);
    json_decref(b);
}

/* Is net device name a NIC: does sysfs give it a bus device (PCI, virtio,
 * USB), as veths, bridges, bonds, tunnels and containers' links have not? */
static int fc_ival_is_nic(const char *name)
{
    char path[1024];
    struct stat st;

    snprintf(path, sizeof(path), "%s/class/net/%s/device", fc_sysfs_root(), name);
    return stat(path, &st) == 0;
}

/* The default pattern "*" means the node's NICs: the links with a bus
 * device, when it has any. A GPU node running containers has veths and
 * bridges that come and go (a container started mid-point is a carrier
 * change, not a fabric fault) and carry no fabric traffic; where no link
 * has a device (a network namespace of veths only, as the virtual
 * cluster's nodes), every link but lo. An explicit pattern is taken as
 * written. */
static int fc_ival_default_nics_only(const char *nic_pattern, const char *dir)
{
    struct dirent *e;
    DIR *d;
    int any = 0;

    if (strcmp(nic_pattern, "*") != 0 || (d = opendir(dir)) == NULL)
        return 0;
    while (!any && (e = readdir(d)) != NULL)
        any = e->d_name[0] != '.' && strcmp(e->d_name, "lo") != 0 && fc_ival_is_nic(e->d_name);
    closedir(d);
    return any;
}

json_t *fc_interval_snapshot(const char *nic_pattern)
{
    json_t *links = json_object(), *bits = json_object();
    char path[1024];
    struct dirent *e, *pe;
    struct timespec ts;
    DIR *d, *pd;
    int nics_only;

    snprintf(path, sizeof(path), "%s/class/net", fc_sysfs_root());
    nics_only = fc_ival_default_nics_only(nic_pattern, path);
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && strcmp(e->d_name, "lo") != 0 &&
                fnmatch(nic_pattern, e->d_name, 0) == 0 &&
                (!nics_only || fc_ival_is_nic(e->d_name)))
                fc_ival_net(links, e->d_name);
        closedir(d);
    }
    snprintf(path, sizeof(path), "%s/class/infiniband", fc_sysfs_root());
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", fc_sysfs_root(),
                     e->d_name);
            if ((pd = opendir(path)) == NULL)
                continue;
            while ((pe = readdir(pd)) != NULL)
                if (pe->d_name[0] != '.')
                    fc_ival_rdma(links, bits, e->d_name, pe->d_name);
            closedir(pd);
        }
        closedir(d);
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return json_pack("{s:f, s:o, s:o}", "t", (double)ts.tv_sec + ts.tv_nsec * 1e-9,
                     "links", links, "bits", bits);
}

/* Add n to sum's class member (a number, or a member of an object). */
static void fc_ival_add(json_t *sum, const fc_ival_counter_t *ic, json_int_t n)
{
    const char *key = fc_ival_class_key[ic->cls];
    json_t *obj;

    if (key == NULL)
        return;
    if (ic->cls == FC_IVAL_CONGESTION || ic->cls == FC_IVAL_TRANSPORT) {
        if ((obj = json_object_get(sum, key)) == NULL)
            json_object_set_new(sum, key, obj = json_object());
        json_object_set_new(obj, ic->name, json_integer(
            json_integer_value(json_object_get(obj, ic->name)) + n));
        return;
    }
    json_object_set_new(sum, key, json_integer(json_integer_value(json_object_get(sum, key)) +
                                               n * ic->scale));
}

/* One link's deltas into out (counters that moved, and the bytes). */
static void fc_ival_link(const char *link, json_t *b, json_t *a, json_t *bits, json_t *sum,
                         json_t *out, json_t *not_counted)
{
    json_t *deltas = json_object(), *av;
    const char *name;
    char why[320];

    json_object_foreach(a, name, av) {
        const fc_ival_counter_t *ic = fc_ival_find(name);
        json_t *bv = json_object_get(b, name);
        long long before, after;
        int width = (int)json_integer_value(json_object_get(json_object_get(bits, link), name));

        if (ic == NULL || !json_is_integer(bv))
            continue;               /* not read at the start: absent */
        before = json_integer_value(bv);
        after = json_integer_value(av);
        why[0] = '\0';
        if (after < before)
            snprintf(why, sizeof(why), "%s %s: went down from %lld to %lld (the port was "
                     "reset)", link, name, before, after);
        else if (width > 0 && width < 64 && after >= (1LL << width) - 1)
            snprintf(why, sizeof(why), "%s %s: at the maximum of its %d-bit counter, so it "
                     "could not show what moved", link, name, width);
        if (why[0]) {
            json_array_append_new(not_counted, json_string(why));
            continue;
        }
        fc_ival_add(sum, ic, after - before);
        if (after != before || ic->cls == FC_IVAL_TX_BYTES || ic->cls == FC_IVAL_RX_BYTES)
            json_object_set_new(deltas, name, json_integer(after - before));
    }
    json_object_set_new(out, link, deltas);
}

json_t *fc_interval_delta(const json_t *before, const json_t *after)
{
    json_t *bl = json_object_get(before, "links"), *al = json_object_get(after, "links");
    json_t *bits = json_object_get(after, "bits");
    json_t *sum = json_object(), *links = json_object(), *not_counted = json_array(), *v, *out;
    const char *link;
    char why[320];

    json_object_foreach(al, link, v) {
        if (json_object_get(bl, link) == NULL) {
            snprintf(why, sizeof(why), "%s: appeared during the interval", link);
            json_array_append_new(not_counted, json_string(why));
            continue;
        }
        fc_ival_link(link, json_object_get(bl, link), v, bits, sum, links, not_counted);
    }
    json_object_foreach(bl, link, v)
        if (json_object_get(al, link) == NULL) {
            snprintf(why, sizeof(why), "%s: vanished during the interval", link);
            json_array_append_new(not_counted, json_string(why));
        }
    out = json_pack("{s:f, s:o, s:o}", "interval_s",
                    json_number_value(json_object_get(after, "t")) -
                    json_number_value(json_object_get(before, "t")), "sum", sum,
                    "links", links);
    if (json_array_size(not_counted) > 0)
        json_object_set_new(out, "not_counted", not_counted);
    else
        json_decref(not_counted);
    return out;
}

/* Add one sum into another, member by member. */
static void fc_ival_sum_into(json_t *total, const json_t *sum)
{
    const char *key, *name;
    json_t *v, *w;

    json_object_foreach((json_t *)sum, key, v) {
        if (json_is_object(v)) {
            json_t *obj = json_object_get(total, key);

            if (obj == NULL)
                json_object_set_new(total, key, obj = json_object());
            json_object_foreach(v, name, w)
                json_object_set_new(obj, name, json_integer(
                    json_integer_value(json_object_get(obj, name)) + json_integer_value(w)));
        } else {
            json_object_set_new(total, key, json_integer(
                json_integer_value(json_object_get(total, key)) + json_integer_value(v)));
        }
    }
}

json_t *fc_interval_group(const json_t *by_host, const json_t *hosts, const char *nic_pattern)
{
    json_t *per = json_object(), *sum = json_object(), *not_read = json_array(), *h;
    double longest = 0;
    size_t i;

    json_array_foreach((json_t *)hosts, i, h) {
        const char *host = json_string_value(h);
        json_t *iv = host ? json_object_get(by_host, host) : NULL;

        if (!json_is_object(iv)) {
            if (host)
                json_array_append_new(not_read, json_string(host));
            continue;
        }
        json_object_set(per, host, iv);
        fc_ival_sum_into(sum, json_object_get(iv, "sum"));
        if (json_number_value(json_object_get(iv, "interval_s")) > longest)
            longest = json_number_value(json_object_get(iv, "interval_s"));
    }
    return json_pack("{s:s, s:f, s:o, s:o, s:o}", "nic_pattern", nic_pattern, "interval_s",
                     longest, "hosts", per, "sum", sum, "not_read", not_read);
}

double fc_interval_tx_bytes(const json_t *counters, const char *link_glob)
{
    json_t *iv, *deltas, *v;
    const char *host, *link;
    double total = -1;

    json_object_foreach(json_object_get(counters, "hosts"), host, iv)
        json_object_foreach(json_object_get(iv, "links"), link, deltas) {
            int rdma = strchr(link, '/') != NULL;       /* DEV/PORT */
            const char *name = rdma ? "port_xmit_data" : "tx_bytes";

            if (link_glob && fnmatch(link_glob, link, 0) != 0)
                continue;
            if ((v = json_object_get(deltas, name)) == NULL)
                continue;
            total = (total < 0 ? 0 : total) +
                    (double)json_integer_value(v) * (rdma ? 4 : 1);
        }
    return total;
}

void fc_interval_text(const json_t *counters, char *buf, size_t len)
{
    json_t *sum = json_object_get(counters, "sum"), *iv, *deltas, *v;
    const char *host, *link, *name, *bhost = NULL, *blink = NULL;
    double busiest = -1;
    size_t at;

    buf[0] = '\0';
    if (!json_is_object(sum) || len == 0)
        return;
#define FC_IVAL_PUT(...) \
    do { if (at < len) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
    at = 0;
    FC_IVAL_PUT("links %s:", json_string_value(json_object_get(counters, "nic_pattern")));
    if (json_object_get(sum, "tx_bytes"))
        FC_IVAL_PUT(" %.3f MB out,", json_integer_value(json_object_get(sum, "tx_bytes")) / 1e6);
    if (json_object_get(sum, "rx_bytes"))
        FC_IVAL_PUT(" %.3f MB in,", json_integer_value(json_object_get(sum, "rx_bytes")) / 1e6);
    FC_IVAL_PUT(json_object_get(sum, "errors") ? " %lld errors," : " errors not read,",
                (long long)json_integer_value(json_object_get(sum, "errors")));
    FC_IVAL_PUT(json_object_get(sum, "drops") ? " %lld drops" : " drops not read",
                (long long)json_integer_value(json_object_get(sum, "drops")));
    if (json_object_get(sum, "congestion")) {
        int n = 0;

        json_object_foreach(json_object_get(sum, "congestion"), name, v)
            FC_IVAL_PUT("%s %s %lld", n++ ? "," : ", congestion:", name,
                        (long long)json_integer_value(v));
    } else {
        FC_IVAL_PUT(", no congestion counter exposed");
    }
    json_object_foreach(json_object_get(sum, "transport"), name, v)
        if (json_integer_value(v) != 0)
            FC_IVAL_PUT(", %s %lld", name, (long long)json_integer_value(v));
    json_object_foreach(json_object_get(counters, "hosts"), host, iv)
        json_object_foreach(json_object_get(iv, "links"), link, deltas) {
            double out = json_object_get(deltas, "tx_bytes")
                ? (double)json_integer_value(json_object_get(deltas, "tx_bytes"))
                : 4.0 * (double)json_integer_value(json_object_get(deltas, "port_xmit_data"));

            if (out > busiest) {
                busiest = out;
                bhost = host;
                blink = link;
            }
        }
    if (bhost && busiest > 0)
        FC_IVAL_PUT("; busiest %s:%s %.3f MB out", bhost, blink, busiest / 1e6);
    if (json_array_size(json_object_get(counters, "not_read")) > 0)
        FC_IVAL_PUT("; %zu host(s) not read",
                    json_array_size(json_object_get(counters, "not_read")));
#undef FC_IVAL_PUT
    if (at >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}
