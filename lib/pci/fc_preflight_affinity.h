/*
 * fc_preflight_affinity.h - the preflight stage's GPU-NIC affinity check
 * (lib/pci/fc_preflight_affinity.c; the topology and the judging are
 * lib/pci/fc_pci_topo.h). Both calls do nothing unless the profile states
 * expect.gpu_nic_affinity.
 */
#ifndef FC_PREFLIGHT_AFFINITY_H
#define FC_PREFLIGHT_AFFINITY_H

#include <jansson.h>

#include "fc_stage.h"

/* On each node: its PCI topology into its inventory (pci_topology). */
void fc_preflight_affinity_read(const fc_stage_ctx_t *ctx, json_t *inv);

/* On rank 0, for one node's inventory: the per-GPU result into it
 * (gpu_nic_affinity), each failure onto reasons naming host and devices
 * (*part_p: the part implicated), one TAP comment; 1 if nothing failed
 * (or the check did not apply: the result says why). */
int fc_preflight_affinity_judge(fc_stage_ctx_t *ctx, json_t *inv, const char *host,
                                json_t *reasons, const char **part_p);

#endif
