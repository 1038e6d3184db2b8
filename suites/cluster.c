/*
 * cluster.c - the cluster stage: the profile's collective sweep, over its
 * message sizes, across every rank of the job (the runner launches it on
 * the nodes that earlier stages left healthy), so traffic crosses the
 * spine. Judged against the profile's absolute limits.
 *
 *   mpirun --hostfile H build/suites/cluster --racks FILE --profile FILE --out DIR
 */
#include "fc_stage.h"

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    MPI_Comm all;

    status = fc_stage_init(&argc, &argv, FC_STAGE_CLUSTER, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    status = fc_stage_whole(&ctx, &all);
    if (status == FC_OK) {
        status = fc_stage_run_sweep(&ctx, all);
        MPI_Comm_free(&all);
    }
    return fc_stage_finish(&ctx, status);
}
