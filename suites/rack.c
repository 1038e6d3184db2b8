/*
 * rack.c - the rack stage: the profile's collective sweep inside each rack
 * (one leaf/ToR switch), all racks at once: the world split by the rack
 * map. Each rack is judged on its own and against the other racks.
 *
 *   mpirun --hostfile H build/suites/rack --racks FILE --profile FILE --out DIR
 */
#include "fc_stage.h"

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    MPI_Comm rack_comm;

    status = fc_stage_init(&argc, &argv, FC_STAGE_RACK, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    status = fc_stage_split_by_rack(&ctx, &rack_comm);
    if (status == FC_OK) {
        status = fc_stage_run_sweep(&ctx, rack_comm);
        MPI_Comm_free(&rack_comm);
    }
    return fc_stage_finish(&ctx, status);
}
