/*
 * fc_gpu_standin.c - a stand-in GPU plugin for tests on machines without a
 * GPU: it claims one device on every rank, so a stage chooses the nccl
 * backend, and then fails the backend's initialisation the way a dead
 * NVLink or HCA makes ncclCommInitRank fail on a real node. Loaded through
 * FABCERT_GPU_PLUGIN=build/tests/libfc_gpu_standin.so (fabcert run --env).
 * It never succeeds: a stand-in must never produce a measurement.
 */
#include <stdio.h>

#include "fc_plugin.h"

static int fc_standin_device_count(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

static fc_status_t fc_standin_init(MPI_Comm comm, int local_rank, double timeout_s,
                                   fc_backend_t *be)
{
    int rank = -1;

    (void)timeout_s;
    (void)be;
    MPI_Comm_rank(comm, &rank);
    fprintf(stderr, "fabcert: stand-in GPU plugin: ncclCommInitRank failed on rank %d "
            "(local rank %d): unhandled system error (a planted fault)\n", rank, local_rank);
    return FC_ERR_INTERNAL;
}

static fc_status_t fc_standin_describe(const fc_backend_t *be, char *json, size_t len)
{
    (void)be;
    snprintf(json, len, "{\"gpu\": \"stand-in\"}");
    return FC_OK;
}

const fc_gpu_plugin_t FC_GPU_PLUGIN_TABLE = {
    .abi = FC_GPU_PLUGIN_ABI,
    .device_count_func = fc_standin_device_count,
    .backend_init_func = fc_standin_init,
    .describe_func = fc_standin_describe,
};
