/*
 * fc_gpu_fabric.h - the GPU plugin's answer to "which NVLink fabric
 * clique is this rank's GPU in" (fc_plugin.h, fabric_func): the GPU the
 * nccl backend would give local_rank, read through NVML
 * (fc_gpu_fabric_read, lib/gpu/fc_nvml.c). The stand-in plugin answers
 * for its own stand-in GPUs (tests/standin/fc_gpu_standin.c).
 */
#ifndef FC_GPU_FABRIC_H
#define FC_GPU_FABRIC_H

#include <stddef.h>

#include "fc_gpu_health.h"

fc_status_t fc_gpu_fabric_of_rank(int local_rank, fc_gpu_fabric_t *f, char *why, size_t len);

#endif
