/*
 * fc_plugin.h - the boundary between fabcert and the GPU. The CUDA kernels
 * and the nccl backend live in a shared object (build/libfabcert_gpu.so,
 * built only where the CUDA toolkit and NCCL are found) that the stage
 * programs open at run time, so one build runs on CPU-only hosts (the GPU
 * backend is then "not available", with the reason) and on GPU hosts.
 *
 * The object exports one symbol, FC_GPU_PLUGIN_SYMBOL, a table of the
 * functions below; its abi field must equal FC_GPU_PLUGIN_ABI.
 */
#ifndef FC_PLUGIN_H
#define FC_PLUGIN_H

#include <mpi.h>
#include <stddef.h>

#include "fc_backend.h"

#define FC_GPU_PLUGIN_ABI 1
#define FC_GPU_PLUGIN_SYMBOL "fc_gpu_plugin_v1"
#define FC_GPU_PLUGIN_FILE "libfabcert_gpu.so"

typedef struct fc_gpu_plugin {
    int abi;
    /* GPUs this process can use; 0 with the reason in why when none */
    int (*device_count_func)(char *why, size_t len);
    /* the nccl backend on comm (collective over comm): device local_rank
     * modulo the visible devices; a call that makes no progress for
     * timeout_s is aborted (ncclCommAbort) and fails with FC_ERR_TIMEOUT */
    fc_status_t (*backend_init_func)(MPI_Comm comm, int local_rank,
                                     double timeout_s, fc_backend_t *be);
    /* this rank's device and versions as a JSON object (text): nccl,
     * cuda_driver, cuda_runtime, gpu model, uuid, pci_bus_id */
    fc_status_t (*describe_func)(const fc_backend_t *be, char *json, size_t len);
} fc_gpu_plugin_t;

/* Open the plugin: $FABCERT_GPU_PLUGIN, or FC_GPU_PLUGIN_FILE in the
 * build directory. NULL with the reason in why when it cannot be used. */
const fc_gpu_plugin_t *fc_plugin_load(char *why, size_t len);
/* The loaded plugin's path ("" before a load), and whether it is the one
 * built beside the program (not named by $FABCERT_GPU_PLUGIN). */
const char *fc_plugin_path(int *bundled_p);

#endif
