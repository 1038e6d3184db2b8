/*
 * node.c - the node stage: every collective of the profile's sweep inside
 * each node, all nodes at once (the world split by host name), over shared
 * memory here and NVLink/NVSwitch with the nccl backend. Each node is
 * judged on its own and against its peers (relative rule).
 *
 *   mpirun -np N build/suites/node --profile FILE --out DIR
 */
#include "fc_stage.h"

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    MPI_Comm node_comm;

    status = fc_stage_init(&argc, &argv, FC_STAGE_NODE, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    status = fc_stage_split_by_host(&ctx, &node_comm);
    if (status == FC_OK) {
        status = fc_stage_run_sweep(&ctx, node_comm);
        MPI_Comm_free(&node_comm);
    }
    return fc_stage_finish(&ctx, status);
}
