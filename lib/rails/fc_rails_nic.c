/*
 * fc_rails_nic.c - a NIC's place on its node and its rail, for preflight
 * and the rails stage (see fc_rails.h): its PCI address and NUMA node
 * from sysfs (the PCI function the interface's device is, or sits under:
 * a virtio NIC's PCI parent; none for a veth, which has no device: absent,
 * not invented), and a node's NICs held to the profile's rails
 * declaration: how many, which is which (the map, or name order), their
 * state and rate. Each failure names the NIC, its rail and PCI address.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_counters.h"
#include "fc_rails.h"

static int fc_is_bdf(const char *s, size_t n)
{
    /* dddd:bb:dd.f */
    static const char shape[] = "xxxx:xx:xx.x";

    if (n != sizeof(shape) - 1)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
            return 0;
    return 1;
}

int fc_nic_pci_numa(const char *nic, char *pci, size_t len, int *numa)
{
    char path[PATH_MAX], real[PATH_MAX];
    const char *c, *last = NULL;
    size_t last_n = 0;
    FILE *f;

    pci[0] = '\0';
    *numa = -1;
    snprintf(path, sizeof(path), "%s/class/net/%s/device", fc_sysfs_root(), nic);
    if (realpath(path, real) == NULL)
        return 0;
    for (c = real; *c != '\0';) {
        const char *e;
        size_t n;

        if (*c == '/')
            ++c;
        e = strchr(c, '/');
        n = e ? (size_t)(e - c) : strlen(c);
        if (fc_is_bdf(c, n)) {
            last = c;
            last_n = n;
        }
        c += n;
    }
    if (last == NULL)
        return 0;
    snprintf(pci, len, "%.*s", (int)last_n, last);
    snprintf(path, sizeof(path), "%.*s/numa_node", (int)(last - real + (ptrdiff_t)last_n), real);
    if ((f = fopen(path, "r")) != NULL) {
        if (fscanf(f, "%d", numa) != 1)
            *numa = -1;
        fclose(f);
    }
    return 1;
}

/* Append "NIC eth1 (rail 1, PCI 0000:3b:00.0) on HOST ..." to reasons. */
static void fc_rails_fault(json_t *reasons, const char *host, const char *nic, int rail,
                           json_t *entry, const char *what)
{
    const char *pci = json_string_value(json_object_get(entry, "pci"));
    char why[512];

    snprintf(why, sizeof(why), "NIC %s (rail %d%s%s) on %s %s", nic, rail, pci ? ", PCI " : "",
             pci ? pci : "", host, what);
    json_array_append_new(reasons, json_string(why));
}

int fc_rails_check_inventory(const fc_rails_profile_t *rp, json_t *inv, json_t *reasons)
{
    const char *host = json_string_value(json_object_get(inv, "host"));
    json_t *nics = json_object_get(inv, "nics"), *e;
    char names[FC_RAILS_MAX * 4][FC_RAIL_NIC_MAX], rails[FC_RAILS_MAX][FC_RAIL_NIC_MAX];
    char why[512], list[FC_RAILS_MAX * (FC_RAIL_NIC_MAX + 2)] = "";
    int n = 0, k, faults = 0;
    size_t i;

    json_array_foreach(nics, i, e)
        if (n < FC_RAILS_MAX * 4)
            snprintf(names[n++], FC_RAIL_NIC_MAX, "%s",
                     json_string_value(json_object_get(e, "name")));
    if (rp->nmap > 0)
        k = fc_rails_map_parse(rp->map, rails, FC_RAILS_MAX, why, sizeof(why));
    else
        k = fc_rails_by_pattern(names, n, rp->nic_pattern, rails, FC_RAILS_MAX);
    for (int r = 0; r < k; ++r) {
        json_t *entry = NULL;
        char what[256];

        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", r ? ", " : "",
                 rails[r]);
        json_array_foreach(nics, i, e)
            if (strcmp(json_string_value(json_object_get(e, "name")), rails[r]) == 0)
                entry = e;
        if (entry == NULL) {        /* only with a map: the pattern finds what is there */
            snprintf(why, sizeof(why), "NIC %s (rail %d of rails.map) is not on %s", rails[r], r,
                     host);
            json_array_append_new(reasons, json_string(why));
            ++faults;
            continue;
        }
        json_object_set_new(entry, "rail", json_integer(r));
        if (strcmp(json_string_value(json_object_get(entry, "state")), "up") != 0) {
            snprintf(what, sizeof(what), "is %s, not up",
                     json_string_value(json_object_get(entry, "state")));
            fc_rails_fault(reasons, host, rails[r], r, entry, what);
            ++faults;
        }
        if (rp->rate_gbps > 0) {
            json_int_t speed = json_integer_value(json_object_get(entry, "speed_mbps"));

            if (speed <= 0)
                snprintf(what, sizeof(what), "has no readable rate; the rails declare %g Gb/s",
                         rp->rate_gbps);
            else if ((double)speed != rp->rate_gbps * 1000)
                snprintf(what, sizeof(what), "runs at %lld Mb/s; the rails declare %g Gb/s",
                         (long long)speed, rp->rate_gbps);
            if (speed <= 0 || (double)speed != rp->rate_gbps * 1000) {
                fc_rails_fault(reasons, host, rails[r], r, entry, what);
                ++faults;
            }
        }
    }
    if (rp->count > 0 && k != rp->count) {
        snprintf(why, sizeof(why), "%s has %d NIC(s) as rails (%s%s), the rails declare %d "
                 "(count)", host, k, k ? list : "none matching ",
                 k ? "" : rp->nic_pattern, rp->count);
        json_array_append_new(reasons, json_string(why));
        ++faults;
    }
    return faults;
}
