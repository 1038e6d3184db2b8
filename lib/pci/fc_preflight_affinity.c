/*
 * fc_preflight_affinity.c - the preflight stage's GPU-NIC affinity check,
 * kept apart from suites/preflight.c so that the stage calls
 * it in two lines: each node reads its PCI tree into its inventory
 * (pci_topology) when the profile states expect.gpu_nic_affinity; rank 0
 * judges it (lib/pci/fc_pci_affinity.c), puts the per-GPU result into the
 * inventory (gpu_nic_affinity: each GPU, its nearest NIC, the distance,
 * both NUMA nodes; it reaches the record and the certificate with the
 * rest of the inventory), adds each failure to the node's reasons and
 * says in one TAP comment per node what the check saw, or why it did
 * not apply (a node without GPUs: not a pass of something it never saw).
 */
#include <stdio.h>
#include <string.h>

#include "fc_counters.h"
#include "fc_judge.h"
#include "fc_pci_topo.h"
#include "fc_preflight_affinity.h"

void fc_preflight_affinity_read(const fc_stage_ctx_t *ctx, json_t *inv)
{
    if (ctx->sp.expect.affinity.enabled)
        json_object_set_new(inv, "pci_topology", fc_pci_topo_read(fc_sysfs_root()));
}

int fc_preflight_affinity_judge(fc_stage_ctx_t *ctx, json_t *inv, const char *host,
                                json_t *reasons, const char **part_p)
{
    const fc_affinity_profile_t *a = &ctx->sp.expect.affinity;
    json_t *topo = json_object_get(inv, "pci_topology"), *res, *g;
    size_t before = json_array_size(reasons), i;
    int worst = -1;

    if (!a->enabled)
        return 1;
    if (!json_is_object(topo)) {
        char why[FC_REASON_MAX];

        snprintf(why, sizeof(why), "%s sent no PCI topology for the GPU-NIC affinity check",
                 host);
        json_array_append_new(reasons, json_string(why));
        *part_p = "node";
        return 0;
    }
    res = fc_pci_affinity_judge(a, topo, host, reasons, part_p);
    json_object_set_new(inv, "gpu_nic_affinity", res);
    if (!json_is_true(json_object_get(res, "applied"))) {
        fc_tap_diag(&ctx->tap, "%s: GPU-NIC affinity did not apply: %s%s", host,
                    json_string_value(json_object_get(res, "why")),
                    json_array_size(reasons) > before ? ": FAIL" : "");
        return json_array_size(reasons) == before;
    }
    json_array_foreach(json_object_get(res, "gpus"), i, g) {
        const char *d = json_string_value(json_object_get(g, "distance"));

        for (int k = 0; d && d[0] && k < FC_PCI_DIST_COUNT; ++k)
            if (strcmp(d, fc_pci_dist_name(k)) == 0 && k > worst)
                worst = k;
    }
    fc_tap_diag(&ctx->tap, "%s: GPU-NIC affinity: %zu GPU(s), each GPU's nearest NIC at most %s "
                "away (the profile allows %s)%s", host,
                json_array_size(json_object_get(res, "gpus")),
                worst >= 0 ? fc_pci_dist_name(worst) : "none",
                json_string_value(json_object_get(res, "max_distance")),
                json_array_size(reasons) > before ? ": FAIL" : "");
    return json_array_size(reasons) == before;
}
