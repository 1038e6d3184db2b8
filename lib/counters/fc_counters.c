/*
 * fc_counters.c - see fc_counters.h. The counter names are the kernel's
 * (Documentation/ABI/testing/sysfs-class-net-statistics and
 * sysfs-class-infiniband); carrier_changes counts link flaps on any NIC,
 * link_downed on an InfiniBand port. The widths of the RDMA counters are
 * the InfiniBand Architecture Specification's PortCounters attribute
 * (vol. 1, 16.1.3.5).
 */
#include "fc_counters.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

typedef struct fc_counter_name {
    const char *name;
    int is_error;
    int bits;                   /* width of the narrow RDMA file; 64: none */
} fc_counter_name_t;

static const fc_counter_name_t fc_net_counters[] = {
    { "rx_errors", 1, 64 }, { "tx_errors", 1, 64 }, { "rx_crc_errors", 1, 64 },
    { "rx_frame_errors", 1, 64 }, { "tx_carrier_errors", 1, 64 },
    { "carrier_changes", 1, 64 }, { "rx_dropped", 0, 64 }, { "tx_dropped", 0, 64 },
    { "rx_missed_errors", 0, 64 },
};

static const fc_counter_name_t fc_rdma_counters[] = {
    { "symbol_error", 1, 16 }, { "link_error_recovery", 1, 8 }, { "link_downed", 1, 8 },
    { "port_rcv_errors", 1, 16 }, { "port_rcv_remote_physical_errors", 1, 16 },
    { "local_link_integrity_errors", 1, 4 }, { "excessive_buffer_overrun_errors", 1, 4 },
    { "port_xmit_discards", 0, 16 },
};

int fc_sysfs_read_count(const char *path, long long *v)
{
    FILE *f = fopen(path, "r");
    int ok;

    if (f == NULL)
        return 0;
    ok = fscanf(f, "%lld", v) == 1;
    fclose(f);
    return ok;
}

const char *fc_sysfs_root(void)
{
    const char *root = getenv("FC_SYSFS_ROOT");

    return root && root[0] ? root : "/sys";
}

json_t *fc_counters_net(const char *ifname)
{
    json_t *c = json_object();
    char path[1024];
    long long v;

    for (size_t k = 0; k < FC_NELEM(fc_net_counters); ++k) {
        const char *name = fc_net_counters[k].name;

        if (strcmp(name, "carrier_changes") == 0)
            snprintf(path, sizeof(path), "%s/class/net/%s/carrier_changes",
                     fc_sysfs_root(), ifname);
        else
            snprintf(path, sizeof(path), "%s/class/net/%s/statistics/%s",
                     fc_sysfs_root(), ifname, name);
        if (fc_sysfs_read_count(path, &v))
            json_object_set_new(c, name, json_integer(v));
    }
    return c;
}

int fc_counters_read_rdma(const char *portdir, const char *name, int narrow_bits,
                          long long *v, int *bits_p)
{
    static const char *const wide[] = { "hw_counters/%s", "counters_ext/%s_64",
                                        "counters_ext/%s" };
    char rel[256], path[1024];

    for (size_t w = 0; w < FC_NELEM(wide); ++w) {
        snprintf(rel, sizeof(rel), wide[w], name);
        snprintf(path, sizeof(path), "%s/%s", portdir, rel);
        if (fc_sysfs_read_count(path, v)) {
            *bits_p = 64;
            return 1;
        }
    }
    if (narrow_bits <= 0)
        return 0;
    snprintf(path, sizeof(path), "%s/counters/%s", portdir, name);
    *bits_p = narrow_bits;
    return fc_sysfs_read_count(path, v);
}

json_t *fc_counters_rdma(const char *dev, const char *port, json_t *bits_p)
{
    json_t *c = json_object();
    char portdir[768];
    long long v;
    int bits;

    snprintf(portdir, sizeof(portdir), "%s/class/infiniband/%s/ports/%s",
             fc_sysfs_root(), dev, port);
    for (size_t k = 0; k < FC_NELEM(fc_rdma_counters); ++k) {
        if (!fc_counters_read_rdma(portdir, fc_rdma_counters[k].name, fc_rdma_counters[k].bits,
                                   &v, &bits))
            continue;
        json_object_set_new(c, fc_rdma_counters[k].name, json_integer(v));
        if (bits < 64 && bits_p != NULL)
            json_object_set_new(bits_p, fc_rdma_counters[k].name, json_integer(bits));
    }
    return c;
}

static void fc_snapshot_net(json_t *links, const char *nic_pattern)
{
    char path[1024];
    struct dirent *e;
    DIR *d;

    snprintf(path, sizeof(path), "%s/class/net", fc_sysfs_root());
    if ((d = opendir(path)) == NULL)
        return;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "lo") != 0 &&
            fnmatch(nic_pattern, e->d_name, 0) == 0)
            json_object_set_new(links, e->d_name, fc_counters_net(e->d_name));
    closedir(d);
}

static void fc_snapshot_rdma(json_t *links, json_t *bits)
{
    char path[1024], key[600];
    struct dirent *e, *pe;
    DIR *d, *pd;

    snprintf(path, sizeof(path), "%s/class/infiniband", fc_sysfs_root());
    if ((d = opendir(path)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", fc_sysfs_root(),
                 e->d_name);
        if ((pd = opendir(path)) == NULL)
            continue;
        while ((pe = readdir(pd)) != NULL)
            if (pe->d_name[0] != '.') {
                json_t *b = json_object();

                snprintf(key, sizeof(key), "%s/%s", e->d_name, pe->d_name);
                json_object_set_new(links, key, fc_counters_rdma(e->d_name, pe->d_name, b));
                if (json_object_size(b) > 0)
                    json_object_set(bits, key, b);
                json_decref(b);
            }
        closedir(pd);
    }
    closedir(d);
}

json_t *fc_counters_snapshot(const char *nic_pattern)
{
    json_t *links = json_object(), *bits = json_object();

    fc_snapshot_net(links, nic_pattern);
    fc_snapshot_rdma(links, bits);
    return json_pack("{s:o, s:o}", "links", links, "bits", bits);
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
