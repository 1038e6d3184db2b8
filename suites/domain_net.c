/*
 * domain_net.c - the NVLink domain's racks with multi-node NVLink off
 * (NCCL_MNNVL_ENABLE=0, set by the stage itself): the same sweep as the
 * domain stage, on the same racks, over the NICs. Beside the domain
 * stage's figures it says which fabric a slow or wrong domain owes it to:
 * bad on NVLink and good here is the NVLink domain (switch trays, cables,
 * a GPU's links); bad here too is the nodes or the network.
 *
 *   mpirun --hostfile H build/suites/domain_net --racks FILE --profile FILE --out DIR
 */
#include "fc_stage.h"
#include "fc_domain.h"

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status = fc_stage_init(&argc, &argv, FC_STAGE_DOMAIN_NET, &ctx);

    if (status != FC_OK)
        return fc_stage_exit(status);
    return fc_stage_finish(&ctx, fc_domain_run(&ctx, 0));
}
