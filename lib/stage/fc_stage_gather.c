/*
 * fc_stage_gather.c - see fc_stage.h: every rank's point summary
 * gathered on rank 0, each checked for ranks, counts and names that can
 * be. A leaf: the sweep and its confirmation both gather through it.
 */
#include "fc_stage.h"

#include "fc_ctl.h"
#include "fc_ctl_check.h"
#include "fc_quiet.h"
#include "fc_stage_int.h"

void fc_stage_gather_summaries(const char *what, const fc_point_summary_t *mine,
                               fc_point_summary_t *all)
{
    int rank, size;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fc_quiet_barrier(MPI_COMM_WORLD);
    fc_ctl_gather(MPI_COMM_WORLD, 0, what, mine, sizeof(*mine), rank == 0 ? all : NULL);
    for (int r = 0; rank == 0 && r < size; ++r)
        fc_ctl_check(fc_ctl_summary_ok(&all[r], size), what, r, "a summary whose ranks, "
                     "counts or names cannot be (valid %d, first rank %d, %d ranks)",
                     (int)all[r].valid, (int)all[r].first_world_rank, (int)all[r].nranks);
}
