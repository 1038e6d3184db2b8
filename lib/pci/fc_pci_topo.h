/*
 * fc_pci_topo.h - where a node's GPUs and NICs sit on its PCI tree, read
 * from sysfs, and how far each GPU is from each NIC (lib/pci/fc_pci_dist.h:
 * PIX, PXB, PHB, NODE, SYS, in nvidia-smi topo's sense). The preflight
 * stage reads the tree on each node (fc_pci_topo_read, into the node's
 * inventory) and judges it on rank 0 against the profile's
 * expect.gpu_nic_affinity (fc_pci_affinity_judge, lib/pci/fc_pci_affinity.c):
 * a GPU whose nearest NIC is farther than the profile allows, whose
 * mapped NIC is missing or not its nearest, or a NIC whose PCIe link runs
 * below what it and its slot can do, fails the node naming the devices.
 *
 * GPUs: NVIDIA (vendor 0x10de) functions of class 0x0300xx or 0x0302xx
 * under ROOT/bus/pci/devices. NICs: ROOT/class/net/IF and
 * ROOT/class/infiniband/DEV whose `device` link resolves to a PCI
 * function, one NIC per function with all its names. A device's path is
 * the resolved link below ROOT/devices/: its host bridge (pci0000:XX),
 * root port, switch ports, and itself.
 */
#ifndef FC_PCI_TOPO_H
#define FC_PCI_TOPO_H

#include <jansson.h>

#include "fc_pci_dist.h"
#include "fc_profile.h"

/* "PIX" ... "UNKNOWN"; and what it means ("across the CPU interconnect"). */
const char *fc_pci_dist_name(int dist);
const char *fc_pci_dist_meaning(int dist);

/* The distance between two devices from their paths below devices/
 * ("pci0000:15/0000:15:01.0/.../0000:19:00.0") and NUMA nodes (-1:
 * unknown). Different host bridges: NODE on one NUMA node, SYS on two or
 * where either node is unknown (the worst it could be). One host bridge:
 * PHB through it (different root ports), PIX where each device reaches
 * their deepest common bridge, below the root port, through at most its
 * own downstream port (one switch), else PXB. UNKNOWN for an empty path. */
fc_pci_dist_t fc_pci_distance(const char *path_a, int numa_a, const char *path_b,
                              int numa_b);

/* The node's GPUs and NICs under a sysfs root ("/sys"), sorted by PCI
 * address: {"root", "gpus": [{bdf, path, numa, link_gts, link_width,
 * max_link_gts, max_link_width}], "nics": [{bdf, name, names, path, numa,
 * link_gts, link_width, max_link_gts, max_link_width, slot_gts,
 * slot_width, net_speed_mbps}], "errors": [text]}. Speeds are GT/s, 0
 * where not reported; widths lanes, 0 likewise. */
json_t *fc_pci_topo_read(const char *root);

/* Judge one node's topology (from fc_pci_topo_read) against the profile:
 * returns {"applied", "why" (when not applied), "max_distance", "gpus":
 * [{gpu, index, numa, nearest, nearest_bdf, nearest_numa, distance, ties,
 * expected, expected_distance, ok}], "nics": [{nic, bdf, link_ok}]};
 * each failure is appended to reasons as text naming host and devices,
 * and *part_p is set to the part it implicates (GPU, NIC, node). */
json_t *fc_pci_affinity_judge(const fc_affinity_profile_t *a, json_t *topo, const char *host,
                              json_t *reasons, const char **part_p);

#endif
