/*
 * fc_gpu_fabric.c - the plugin's fabric_func (ABI 5, fc_plugin.h): which
 * NVLink fabric clique this rank's GPU is in. The GPU is the one the nccl
 * backend would take (local rank modulo the visible devices), found by
 * its PCI bus id, and NVML answers for it (lib/gpu/fc_nvml.c,
 * fc_gpu_fabric_read). The NVLink domain stage groups its ranks' GPUs by
 * the answer before any communicator exists, so it needs no backend.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "fc_gpu_fabric.h"
#include "fc_kernels_cuda.h"

fc_status_t fc_gpu_fabric_of_rank(int local_rank, fc_gpu_fabric_t *f, char *why, size_t len)
{
    char pci[32];
    cudaError_t e;
    int n = fc_cuda_device_count(why, len), dev;

    if (n == 0)
        return FC_ERR_SKIP;
    dev = local_rank % n;
    if ((e = cudaDeviceGetPCIBusId(pci, sizeof(pci), dev)) != cudaSuccess) {
        snprintf(why, len, "cudaDeviceGetPCIBusId(GPU %d, local rank %d): %s", dev, local_rank,
                 cudaGetErrorString(e));
        return FC_ERR_FAIL;
    }
    return fc_gpu_fabric_read(pci, f, why, len);
}
