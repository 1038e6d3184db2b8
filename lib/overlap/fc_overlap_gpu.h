/*
 * fc_overlap_gpu.h - the overlap stage's GPU form (fc_overlap_gpu.c):
 * cuBLASLt GEMMs beside NCCL's all_reduce on the stage's nccl backend.
 */
#ifndef FC_OVERLAP_GPU_H
#define FC_OVERLAP_GPU_H

#include "fc_stage.h"

/* Every size of the stage on the nccl backend over `all`: records on rank
 * 0. Collective; FC_OK, or the agreed failure that ends the stage. */
fc_status_t fc_overlap_gpu(fc_stage_ctx_t *ctx, MPI_Comm all);

#endif
