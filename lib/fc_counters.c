/*
 * fc_counters.c - see fc_counters.h. The counter names are the kernel's
 * (Documentation/ABI/testing/sysfs-class-net-statistics and
 * sysfs-class-infiniband); carrier_changes counts link flaps on any NIC,
 * link_downed on an InfiniBand port.
 */
#include "fc_counters.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

typedef struct fc_counter_name {
    const char *name;
    int is_error;
} fc_counter_name_t;

static const fc_counter_name_t fc_net_counters[] = {
    { "rx_errors", 1 }, { "tx_errors", 1 }, { "rx_crc_errors", 1 },
    { "rx_frame_errors", 1 }, { "tx_carrier_errors", 1 }, { "carrier_changes", 1 },
    { "rx_dropped", 0 }, { "tx_dropped", 0 }, { "rx_missed_errors", 0 },
};

static const fc_counter_name_t fc_rdma_counters[] = {
    { "symbol_error", 1 }, { "link_error_recovery", 1 }, { "link_downed", 1 },
    { "port_rcv_errors", 1 }, { "port_rcv_remote_physical_errors", 1 },
    { "local_link_integrity_errors", 1 }, { "excessive_buffer_overrun_errors", 1 },
    { "port_xmit_discards", 0 },
};

#define FC_NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int fc_read_count(const char *path, long long *v)
{
    FILE *f = fopen(path, "r");
    int ok;

    if (f == NULL)
        return 0;
    ok = fscanf(f, "%lld", v) == 1;
    fclose(f);
    return ok;
}

json_t *fc_counters_net(const char *ifname)
{
    json_t *c = json_object();
    char path[512];
    long long v;

    for (size_t k = 0; k < FC_NELEM(fc_net_counters); ++k) {
        const char *name = fc_net_counters[k].name;

        if (strcmp(name, "carrier_changes") == 0)
            snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", ifname);
        else
            snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, name);
        if (fc_read_count(path, &v))
            json_object_set_new(c, name, json_integer(v));
    }
    return c;
}

json_t *fc_counters_rdma(const char *dev, const char *port)
{
    json_t *c = json_object();
    char path[512];
    long long v;

    for (size_t k = 0; k < FC_NELEM(fc_rdma_counters); ++k) {
        snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/counters/%s",
                 dev, port, fc_rdma_counters[k].name);
        if (fc_read_count(path, &v))
            json_object_set_new(c, fc_rdma_counters[k].name, json_integer(v));
    }
    return c;
}

json_t *fc_counters_snapshot(const char *nic_pattern)
{
    json_t *snap = json_object();
    char path[512], key[512];
    struct dirent *e, *pe;
    DIR *d, *pd;

    if ((d = opendir("/sys/class/net")) != NULL) {
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && strcmp(e->d_name, "lo") != 0 &&
                fnmatch(nic_pattern, e->d_name, 0) == 0)
                json_object_set_new(snap, e->d_name, fc_counters_net(e->d_name));
        closedir(d);
    }
    if ((d = opendir("/sys/class/infiniband")) != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", e->d_name);
            if ((pd = opendir(path)) == NULL)
                continue;
            while ((pe = readdir(pd)) != NULL)
                if (pe->d_name[0] != '.') {
                    snprintf(key, sizeof(key), "%s/%s", e->d_name, pe->d_name);
                    json_object_set_new(snap, key, fc_counters_rdma(e->d_name, pe->d_name));
                }
            closedir(pd);
        }
        closedir(d);
    }
    return snap;
}

json_t *fc_counters_delta(const json_t *before, const json_t *after)
{
    json_t *delta = json_object();
    const char *link, *name;
    json_t *a, *v;

    json_object_foreach((json_t *)after, link, a) {
        json_t *b = json_object_get(before, link), *d = json_object();

        json_object_foreach(a, name, v) {
            json_t *old = json_object_get(b, name);

            if (json_is_integer(old) && json_is_integer(v))
                json_object_set_new(d, name, json_integer(json_integer_value(v) -
                                                          json_integer_value(old)));
        }
        json_object_set_new(delta, link, d);
    }
    return delta;
}

int fc_counter_is_error(const char *name)
{
    for (size_t k = 0; k < FC_NELEM(fc_net_counters); ++k)
        if (strcmp(fc_net_counters[k].name, name) == 0)
            return fc_net_counters[k].is_error;
    for (size_t k = 0; k < FC_NELEM(fc_rdma_counters); ++k)
        if (strcmp(fc_rdma_counters[k].name, name) == 0)
            return fc_rdma_counters[k].is_error;
    return 0;
}
