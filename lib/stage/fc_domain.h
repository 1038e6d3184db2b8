/*
 * fc_domain.h - the NVLink domain stages (suites/domain.c, domain_net.c):
 * a rack-scale NVLink system (GB200 NVL72: the profile's nvlink_domain:
 * rack) joins the GPUs of a rack's nodes into one NVLink domain. The
 * domain stage first holds each rack to NVML's word on it: every GPU of
 * the rack registered in the fabric (state completed, status success, no
 * degraded bandwidth or unhealthy route in its health mask) and all of
 * them in one clique of one cluster (nvmlDeviceGetGpuFabricInfoV, through
 * the GPU plugin's fabric_func); then both stages run the profile's sweep
 * on each rack, the domain stage with multi-node NVLink on
 * (NCCL_MNNVL_ENABLE=1), the domain_net stage with it off (=0: the same
 * collectives over the NICs). Side by side they tell an NVLink fault (slow
 * or wrong on NVLink, right over the network) from a network one.
 *
 * The judgement of a rack's members is pure (fc_domain_judge, MPI-free:
 * tests/unit/domain_judge.c); fc_domain_run is the stage's body.
 */
#ifndef FC_DOMAIN_H
#define FC_DOMAIN_H

#include <jansson.h>

#include "fc_status.h"
#include "gpu/fc_gpu_health.h"

/* What one rank's GPU said of its fabric. */
typedef struct fc_domain_member {
    char host[64];
    int local_rank;
    int read;                   /* FC_OK: fabric below is NVML's answer;
                                 * FC_ERR_SKIP: it could not be asked (why);
                                 * FC_ERR_FAIL: the query failed (why) */
    char why[256];
    fc_gpu_fabric_t fabric;
} fc_domain_member_t;

/* Judge the n members of rack `rack`: a record body with "rack", "gpus",
 * "hosts", "cliques" ([{cluster_uuid, clique_id, gpus, hosts: [...]}],
 * the largest first), "members" (each GPU's reading), "verdict" (PASS,
 * FAIL: a GPU not registered, failed, degraded or unhealthy, or the rack
 * split over several cliques, naming the hosts outside the largest;
 * INCOMPLETE: a GPU whose fabric could not be read), "reasons" and
 * "implicates" (part "nvlink", the rack, and the first host named). */
json_t *fc_domain_judge(const fc_domain_member_t *m, int n, const char *rack);

struct fc_stage_ctx;
/* The stage: check the racks' cliques (check_cliques: the domain stage),
 * then the sweep on each rack. */
fc_status_t fc_domain_run(struct fc_stage_ctx *ctx, int check_cliques);

#endif
