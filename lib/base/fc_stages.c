/*
 * fc_stages.c - the stage table (see fc_stages.h), one designated
 * initialiser per stage. The pairs stage measures the network between
 * hosts and always uses MPI (not gpu_capable: its profile refuses
 * backend:); the contention stage measures its foreground on the stage's
 * backend (nccl: a GPU per foreground rank) while its background stays
 * MPI and file I/O; the preflight stage may open the GPU plugin
 * to count the GPUs (backend: nccl there skips it without one), and
 * sweeps nothing. Each stage's sections say which profile keys its
 * program reads: the profile refuses the others (fc_profile_stage.c).
 */
#include "fc_stages.h"

#include <string.h>

#include "fc_alloc.h"

#define FC_WHOLE_JOB "the stage judges one group, the whole job, which has no peers to be " \
                     "compared with (relative rules belong to the node, pairs and rack stages)"
#define FC_SWEEPS (FC_SECT_SWEEP | FC_SECT_KINDS | FC_SECT_BACKEND)
#define FC_MPI_ONLY "stage measures the network between hosts and always runs on mpi"
#define FC_NO_COUNTERS(what) "the " what " stage reads no link counters over its " \
                             "measurements (the contention stage reads them over each " \
                             "phase, the rack and cluster stages over each test point; " \
                             "the soak reads those of soak.nic_pattern in each window)"

static const fc_stage_desc_t fc_stages[FC_STAGE_COUNT] = {
    [FC_STAGE_PREFLIGHT] = {
        .id = FC_STAGE_PREFLIGHT,
        .proves = "every node's inventory against the profile: GPUs, NICs and ports, their GPU-NIC affinity, versions; a node that does not match fails before anything is measured", .name = "preflight", .ranks = FC_RANKS_ONE,
        .min_hosts = 1, .gpu_capable = 1, .sections = FC_SECT_EXPECT | FC_SECT_BACKEND,
        .view = FC_VIEW_TABLE, .no_counters = FC_NO_COUNTERS("preflight"),
        .no_limits = "the preflight stage measures no collective (its rules are under "
                     "'expect')",
        .no_sweep = "the preflight stage measures no collective: it reads each node's "
                    "inventory against 'expect'",
        .no_kinds = "the preflight stage measures no collective: it reads each node's "
                    "inventory against 'expect'",
        .no_relative = "nothing in that stage compares groups with their peers (relative "
                       "rules belong to the node, pairs and rack stages)" },
    [FC_STAGE_NODE] = {
        .id = FC_STAGE_NODE,
        .proves = "collectives inside each node (NVLink/NVSwitch on nccl, shared memory on mpi), every node at once, checked bitwise", .name = "node", .ranks = FC_RANKS_PPN, .min_hosts = 1,
        .baseline = FC_BASELINE_POINTS,
        .group = "node", .sweep_check = FC_SWEEP_CHECK_POINTS,
        .gpu_capable = 1, .plan_known = 1, .batched = 1,
        .sections = FC_SECT_LIMITS | FC_SECT_RELATIVE | FC_SWEEPS,
        .no_counters = "the node stage's collectives stay inside each node (shared memory, "
                       "NVLink), off its links" },
    [FC_STAGE_PAIRS] = {
        .id = FC_STAGE_PAIRS,
        .proves = "point-to-point bandwidth and latency of every pair of nodes (a round-robin tournament), both directions: localises a bad link or node", .name = "pairs", .ranks = FC_RANKS_ONE, .min_hosts = 2,
        .baseline = FC_BASELINE_PAIRS,
        .group = "node", .sweep_check = FC_SWEEP_CHECK_PAIRS,
        .sections = FC_SECT_LIMITS | FC_SECT_RELATIVE | FC_SECT_SWEEP | FC_SECT_PAIRS,
        .view = FC_VIEW_PAIRS,
        .no_kinds = "the pairs stage measures sendrecv of int32 between two nodes, whatever "
                    "the profile lists",
        .no_backend = "the pairs " FC_MPI_ONLY, .judges_only = "sendrecv int32",
        .no_counters = FC_NO_COUNTERS("pairs") },
    [FC_STAGE_RACK] = {
        .id = FC_STAGE_RACK,
        .proves = "collectives inside each rack (one leaf switch), every rack at once", .name = "rack", .ranks = FC_RANKS_PPN, .min_hosts = 1,
        .baseline = FC_BASELINE_POINTS,
        .group = "rack", .sweep_check = FC_SWEEP_CHECK_POINTS,
        .gpu_capable = 1, .plan_known = 1, .batched = 1,
        .sections = FC_SECT_LIMITS | FC_SECT_RELATIVE | FC_SWEEPS | FC_SECT_COUNTERS },
    [FC_STAGE_CLUSTER] = {
        .id = FC_STAGE_CLUSTER,
        .proves = "the collectives over the whole job, across the spine", .name = "cluster", .ranks = FC_RANKS_PPN, .min_hosts = 1,
        .baseline = FC_BASELINE_POINTS, .sweep_check = FC_SWEEP_CHECK_POINTS,
        .gpu_capable = 1, .plan_known = 1, .batched = 1,
        .sections = FC_SECT_LIMITS | FC_SWEEPS | FC_SECT_COUNTERS,
        .no_relative = FC_WHOLE_JOB },
    [FC_STAGE_DOMAIN] = {
        .id = FC_STAGE_DOMAIN,
        .proves = "each rack's NVLink domain: its GPUs in one NVML fabric clique, and its "
                  "collectives over multi-node NVLink (NCCL_MNNVL_ENABLE=1)",
        .name = "domain", .ranks = FC_RANKS_PPN, .min_hosts = 2,
        .baseline = FC_BASELINE_POINTS, .group = "rack", .sweep_check = FC_SWEEP_CHECK_POINTS,
        .gpu_capable = 1, .gpu_only = 1, .needs_mnnvl = 1, .batched = 1,
        .env = "NCCL_MNNVL_ENABLE=1",
        .sections = FC_SECT_LIMITS | FC_SECT_RELATIVE | FC_SWEEPS,
        .no_counters = FC_NO_COUNTERS("domain") },
    [FC_STAGE_DOMAIN_NET] = {
        .id = FC_STAGE_DOMAIN_NET,
        .proves = "the same racks' collectives with multi-node NVLink off "
                  "(NCCL_MNNVL_ENABLE=0): over the NICs, so a domain slow on NVLink and "
                  "not here is an NVLink fault, slow here and not there a network one",
        .name = "domain_net", .ranks = FC_RANKS_PPN, .min_hosts = 2,
        .baseline = FC_BASELINE_POINTS, .group = "rack", .sweep_check = FC_SWEEP_CHECK_POINTS,
        .gpu_capable = 1, .gpu_only = 1, .needs_mnnvl = 1, .plan_known = 1, .batched = 1,
        .env = "NCCL_MNNVL_ENABLE=0",
        .sections = FC_SECT_LIMITS | FC_SECT_RELATIVE | FC_SWEEPS,
        .no_counters = FC_NO_COUNTERS("domain_net") },
    [FC_STAGE_OVERLAP] = {
        .id = FC_STAGE_OVERLAP,
        .proves = "whether a collective hides under compute (GEMMs on the GPU, a host kernel on mpi)", .name = "overlap", .ranks = FC_RANKS_PPN, .min_hosts = 1,
        .gpu_capable = 1,
        .sections = FC_SECT_OVERLAP | FC_SECT_SWEEP | FC_SECT_BACKEND, .view = FC_VIEW_TABLE,
        .sweep_check = FC_SWEEP_CHECK_SIZES, .sweep_record = "overlap",
        .no_limits = "the overlap stage judges how much of the collective hid under the "
                     "compute (overlap: min_overlap_pct), not busbw or latency",
        .no_relative = FC_WHOLE_JOB,
        .no_kinds = "the overlap stage measures all_reduce of float32 sum (a gradient "
                    "reduction) beside the compute, whatever the profile lists",
        .no_counters = FC_NO_COUNTERS("overlap") },
    [FC_STAGE_SCALING] = {
        .id = FC_STAGE_SCALING,
        .proves = "whether busbw holds as the job grows from one node to all of them, rack by rack", .name = "scaling", .ranks = FC_RANKS_PPN, .min_hosts = 2,
        .gpu_capable = 1,
        .sections = FC_SECT_SCALING | FC_SECT_LIMITS | FC_SECT_SWEEP | FC_SECT_KINDS |
                    FC_SECT_BACKEND,
        .view = FC_VIEW_SCALING,
        .sweep_check = FC_SWEEP_CHECK_SERIES, .sweep_record = "scaling",
        .no_relative = "the scaling stage compares each node count of its series with the "
                       "one before (scaling: max_drop_pct), not groups with their peers",
        .no_counters = FC_NO_COUNTERS("scaling") },
    [FC_STAGE_CONTENTION] = {
        .id = FC_STAGE_CONTENTION,
        .proves = "the collectives under storage-like and cross-tenant background traffic: the slowdown (congestion impact factor)", .name = "contention", .ranks = FC_RANKS_ROLES,
        .min_hosts = 1, .gpu_capable = 1, .gpu_foreground_only = 1,
        .sweep_check = FC_SWEEP_CHECK_KINDS,
        .sections = FC_SECT_CONTENTION | FC_SECT_SWEEP | FC_SECT_KINDS | FC_SECT_BACKEND |
                    FC_SECT_COUNTERS,
        .view = FC_VIEW_TABLE,
        .no_limits = "the contention stage judges the slowdown under load (contention: "
                     "max_slowdown), not busbw or latency",
        .no_relative = "nothing in that stage compares groups with their peers (relative "
                       "rules belong to the node, pairs and rack stages)" },
    [FC_STAGE_SOAK] = {
        .id = FC_STAGE_SOAK,
        .proves = "the burn-in proper: the collectives in a loop for the set duration (with the GEMM burn and NVML GPU health on nccl), drift between windows, link error counters over the whole soak", .name = "soak", .ranks = FC_RANKS_PPN, .min_hosts = 1,
        .gpu_capable = 1, .sections = FC_SECT_LIMITS | FC_SECT_SOAK | FC_SWEEPS,
        .sweep_check = FC_SWEEP_CHECK_POINTS,
        .no_relative = FC_WHOLE_JOB, .view = FC_VIEW_SOAK,
        .no_counters = "the soak reads the links of soak.nic_pattern in every window (and "
                       "judges their error counters over the whole soak)" },
    [FC_STAGE_RAILS] = {
        .id = FC_STAGE_RAILS,
        .proves = "every NIC against the same NIC of every other node (one rank per rail): names the NIC, cable or rail leaf that one rank per node cannot see", .name = "rails", .ranks = FC_RANKS_PPN, .min_hosts = 2,
        .group = "node", .sweep_check = FC_SWEEP_CHECK_RAILS, .sweep_record = "rail_pair",
        .sections = FC_SECT_LIMITS | FC_SECT_RELATIVE | FC_SECT_SWEEP | FC_SECT_RAILS,
        .view = FC_VIEW_TABLE,
        .no_kinds = "the rails stage moves buffers from one NIC to another (both directions "
                    "and a ping-pong), whatever the profile lists",
        .no_backend = "the rails stage drives each NIC through its rails: transport (tcp, "
                      "verbs), not a collective backend",
        .no_counters = FC_NO_COUNTERS("rails") },
};

const fc_stage_desc_t *fc_stage_desc(fc_stage_id_t stage)
{
    FC_ASSERT((unsigned)stage < FC_STAGE_COUNT);
    return &fc_stages[stage];
}

const char *fc_stage_name(fc_stage_id_t stage)
{
    return fc_stage_desc(stage)->name;
}

const char *fc_stage_group_noun(fc_stage_id_t stage)
{
    const char *g = fc_stage_desc(stage)->group;

    return g != NULL ? g : "job";
}

int fc_stage_from_name(const char *name)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (strcmp(name, fc_stages[s].name) == 0)
            return s;
    return -1;
}
