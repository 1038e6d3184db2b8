/*
 * fc_pci_dist.h - how far apart two PCI devices are, in nvidia-smi topo's
 * words, nearest first: PIX (one PCIe switch between them), PXB (several
 * switches, below one root port), PHB (through a host bridge: different
 * root ports of one root complex), NODE (different host bridges of one
 * NUMA node), SYS (across the CPU interconnect: different NUMA nodes), and
 * UNKNOWN (a path that could not be read). The profile loader names them
 * (gpu_nic_affinity.max_distance) and lib/pci/fc_pci_topo.c computes them;
 * this header is the list both share, and has no code.
 */
#ifndef FC_PCI_DIST_H
#define FC_PCI_DIST_H

#define FC_PCI_DIST_LIST(X) X(PIX) X(PXB) X(PHB) X(NODE) X(SYS) X(UNKNOWN)

typedef enum fc_pci_dist {
#define FC_PCI_DIST_ENUM(name) FC_PCI_##name,
    FC_PCI_DIST_LIST(FC_PCI_DIST_ENUM)
#undef FC_PCI_DIST_ENUM
    FC_PCI_DIST_COUNT
} fc_pci_dist_t;

#endif
