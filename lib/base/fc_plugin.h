/*
 * fc_plugin.h - the boundary between fabcert and the GPU. The CUDA kernels
 * and the nccl backend live in a shared object (build/libfabcert_gpu.so,
 * built only where the CUDA toolkit and NCCL are found) that the stage
 * programs open at run time, so one build runs on CPU-only hosts (the GPU
 * backend is then "not available", with the reason) and on GPU hosts.
 *
 * The object exports one symbol, FC_GPU_PLUGIN_SYMBOL, a table of the
 * functions below; its abi field must equal FC_GPU_PLUGIN_ABI. ABI 2 added
 * everything after describe_func (batched timing, GPU health from NVML,
 * the cuBLAS burn) and renamed the symbol, so a program meets an ABI 1
 * plugin with "rebuild it", never with a table it would read past. ABI 3
 * changed the backend table the plugin's backend fills (fc_backend_ops_t
 * gained run_batch_func and verify_untouched_func) and renamed the symbol
 * again. ABI 4 added the persistent GEMM burn (gemm_open_func and the
 * three after it: the overlap stage's compute on the GPU) and renamed the
 * symbol again. ABI 5 added fabric_func (the NVLink fabric clique of a
 * rank's GPU, for the NVLink domain stages) and renamed it again. ABI 6
 * changed the backend table's run_batch_func (n calls of their own,
 * calls[i], each with an output no other call of the batch writes, so that
 * every output is checked after it; was calls[i % 2]) and renamed the
 * symbol again. Every
 * member after describe_func may be NULL in a plugin that cannot provide it
 * (tests/standin): the caller then says that it is not available.
 */
#ifndef FC_PLUGIN_H
#define FC_PLUGIN_H

#include <jansson.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "fc_backend.h"
#include "gpu/fc_gpu_health.h"

#define FC_GPU_PLUGIN_ABI 6
#define FC_GPU_PLUGIN_TABLE fc_gpu_plugin_v6
#define FC_GPU_PLUGIN_STR_(x) #x
#define FC_GPU_PLUGIN_STR(x) FC_GPU_PLUGIN_STR_(x)
#define FC_GPU_PLUGIN_SYMBOL FC_GPU_PLUGIN_STR(FC_GPU_PLUGIN_TABLE)
#define FC_GPU_PLUGIN_FILE "libfabcert_gpu.so"

/* A GEMM burn kept open for a stage (ABI 4): the plugin's, opaque. */
typedef struct fc_gpu_gemm fc_gpu_gemm_t;

/* What one batch of GEMMs (gemm_start_func .. gemm_wait_func) did. */
typedef struct fc_gpu_gemm_result {
    long gemms;             /* GEMMs in the batch */
    double gpu_s;           /* GPU time of the batch (events on the burn's
                             * stream around it; each C's digest included) */
    long mismatched;        /* GEMMs whose C differs from the burn's first */
    long first_bad;         /* the first of them in the batch, -1 if none */
    uint64_t digest;        /* the burn's first C (its reference) */
    uint64_t bad_digest;    /* first_bad's */
    int n;                  /* C (n x n) = A x B */
    char kind[8];           /* "bf16", "fp16", "fp64" */
    char algo[192];         /* the algorithm kept (the stand-in names itself) */
} fc_gpu_gemm_result_t;

typedef struct fc_gpu_plugin {
    int abi;
    /* GPUs this process can use; 0 with the reason in why when none (a
     * driver too old for the plugin's CUDA runtime names the fix) */
    int (*device_count_func)(char *why, size_t len);
    /* the nccl backend on comm (collective over comm): device local_rank
     * modulo the visible devices (a rank beyond them shares a GPU: logged,
     * and a "warning" in describe); a call that makes no progress for
     * timeout_s fails with FC_ERR_TIMEOUT and every rank aborts the
     * communicator (ncclCommAbort) together */
    fc_status_t (*backend_init_func)(MPI_Comm comm, int local_rank,
                                     double timeout_s, fc_backend_t *be);
    /* this rank's device and versions as a JSON object (text): nccl,
     * cuda_driver, cuda_runtime, gpu model, uuid, pci_bus_id, sm_count,
     * visible_gpus, and "warning" when the GPU is shared */
    fc_status_t (*describe_func)(const fc_backend_t *be, char *json, size_t len);

    /* ---- ABI 2 ---- */
    /* n calls back to back between one start and one stop event, all
     * ranks together (like run_func); *seconds_p = this rank's time / n,
     * the figure nccl-tests reports. The output is that of the last call. */
    fc_status_t (*run_batch_func)(fc_backend_t *be, const fc_coll_call_t *call, int n,
                                  double *seconds_p);
    /* GPU health from NVML (lib/gpu/fc_gpu_health.h): a snapshot of the GPU
     * at pci_bus_id, or of every GPU when NULL; NULL with the reason when
     * NVML cannot be loaded. The judge compares two snapshots. */
    json_t *(*health_snapshot_func)(const char *pci_bus_id, char *why, size_t len);
    json_t *(*health_judge_func)(const json_t *before, const json_t *after,
                                 const fc_gpu_health_limits_t *limits, const char *host);
    void (*health_limits_default_func)(fc_gpu_health_limits_t *limits);
    /* The GEMM burn on be's GPU (lib/gpu/fc_burn.h): each kind of kinds
     * ("bf16,fp16,fp64"; NULL: all) for seconds; a JSON object per kind
     * (tflops, iterations, digest, mismatched iterations, algorithm), or
     * NULL with the reason in why. On a stream of its own: another thread
     * may call it while the backend's calls run (the soak does). */
    json_t *(*burn_func)(const fc_backend_t *be, double seconds, const char *kinds,
                         char *why, size_t len);

    /* ---- ABI 4 ---- */
    /* A GEMM burn of kind ("bf16", "fp16", "fp64") on be's GPU, opened once
     * (its cuBLASLt handle, A, B, C, digest slots and a stream of its own,
     * the same seed as burn_func's), so that a batch allocates nothing;
     * NULL with the reason in why. */
    fc_gpu_gemm_t *(*gemm_open_func)(const fc_backend_t *be, const char *kind, char *why,
                                     size_t len);
    /* Enqueue gemms GEMMs (at most 4096), each C digested, on the burn's
     * stream and return without waiting: the backend's calls may run
     * beside them. One batch at a time. */
    fc_status_t (*gemm_start_func)(fc_gpu_gemm_t *g, long gemms, char *why, size_t len);
    /* Wait for the batch, polling, for at most timeout_s (then
     * FC_ERR_TIMEOUT and the burn is unusable); every C's digest is
     * compared bit for bit with the burn's first C (the first GEMM of its
     * first batch). */
    fc_status_t (*gemm_wait_func)(fc_gpu_gemm_t *g, double timeout_s, fc_gpu_gemm_result_t *r,
                                  char *why, size_t len);
    void (*gemm_close_func)(fc_gpu_gemm_t *g);

    /* ---- ABI 5 ---- */
    /* The NVLink fabric of the GPU the backend would give local_rank (its
     * PCI bus id, then NVML's nvmlDeviceGetGpuFabricInfoV): its cluster
     * UUID, clique id, registration state and health. FC_ERR_SKIP with why
     * when it cannot be read (no NVML, too old a driver); state 0 for a
     * GPU in no multi-node NVLink fabric. No backend needed. */
    fc_status_t (*fabric_func)(int local_rank, fc_gpu_fabric_t *f, char *why, size_t len);
} fc_gpu_plugin_t;

/* Open the plugin: $FABCERT_GPU_PLUGIN, or FC_GPU_PLUGIN_FILE in the
 * build directory. NULL with the reason in why when it cannot be used. */
const fc_gpu_plugin_t *fc_plugin_load(char *why, size_t len);
/* Where the plugin built with this program is (beside it: the build tree
 * or the installed libexec), whether or not it is there. */
void fc_plugin_built_path(char *path, size_t len);
/* The loaded plugin's path ("" before a load), and whether it is the one
 * built beside the program (not named by $FABCERT_GPU_PLUGIN). */
const char *fc_plugin_path(int *bundled_p);

#endif
