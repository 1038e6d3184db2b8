/*
 * fc_rails.h - how a node's NICs are its rails: the profile's
 * declaration (`rails:` under the rails stage: count, map or nic_pattern,
 * rate_gbps, transport), the map's parsing, and which NIC is rail r of a
 * node: map[r] when the profile gives an explicit map, else the r-th of
 * the node's interfaces matching nic_pattern in name order (eth2 before
 * eth10). Pure functions (no MPI): tests/unit/rails_map.c.
 */
#ifndef FC_RAILS_H
#define FC_RAILS_H

#include <stddef.h>

#define FC_RAILS_MAX 16
#define FC_RAIL_NIC_MAX 32

/* Parse "eth0, eth1, ib3" into names[] (at most max): returns the count,
 * or -1 with why (an empty name, a name too long or not an interface
 * name, the same NIC twice, too many). */
int fc_rails_map_parse(const char *text, char names[][FC_RAIL_NIC_MAX], int max, char *why,
                       size_t why_len);
/* Order interface names as rails: by name, digit runs as numbers. */
int fc_rails_name_cmp(const char *a, const char *b);
/* The NICs of `names` (n) matching glob `pattern`, in rail order, into
 * out[] (at most max); returns how many. */
int fc_rails_by_pattern(char names[][FC_RAIL_NIC_MAX], int n, const char *pattern,
                        char out[][FC_RAIL_NIC_MAX], int max);

/* NIC nic's PCI address (the PCI function its device is or sits under)
 * and that function's NUMA node (-1 unknown) from sysfs
 * (fc_sysfs_root()); 0 with pci "" when it has none (veth). */
int fc_nic_pci_numa(const char *nic, char *pci, size_t len, int *numa);

#include <jansson.h>

#include "fc_profile.h"
/* Hold a node's preflight inventory (inv: host, nics[] of name, state,
 * speed_mbps, pci) to the rails declaration rp: which NIC is rail r (map
 * or name order; each such NIC's entry gets "rail": r), each up, at
 * rate_gbps where declared, and count of them. Appends a sentence per
 * fault naming the NIC, its rail and PCI address to reasons; returns the
 * faults. */
int fc_rails_check_inventory(const fc_rails_profile_t *rp, json_t *inv, json_t *reasons);

#endif
