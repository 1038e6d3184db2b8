/*
 * domain.c - the NVLink domain stage (lib/stage/fc_domain.h): each rack of a
 * rack-scale NVLink system (the profile's nvlink_domain: rack, GB200
 * NVL72) held to NVML's word that its GPUs are one fabric clique, then the
 * profile's sweep inside each rack with multi-node NVLink on
 * (NCCL_MNNVL_ENABLE=1, set by the stage itself): the domain's NVLink.
 * The domain_net stage runs the same racks with it off.
 *
 *   mpirun --hostfile H build/suites/domain --racks FILE --profile FILE --out DIR
 */
#include "fc_stage.h"
#include "fc_domain.h"

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status = fc_stage_init(&argc, &argv, FC_STAGE_DOMAIN, &ctx);

    if (status != FC_OK)
        return fc_stage_exit(status);
    return fc_stage_finish(&ctx, fc_domain_run(&ctx, 1));
}
