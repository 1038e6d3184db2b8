/*
 * fc_soak_gpu_int.h - what the two halves of the soak's GPU side share
 * (fc_soak_gpu.c on every rank, fc_soak_gpu_record.c on rank 0): a
 * string member with a default, the health limits as JSON, and the
 * records from every rank's summary.
 */
#ifndef FC_SOAK_GPU_INT_H
#define FC_SOAK_GPU_INT_H

#include <jansson.h>

#include "fc_stage.h"
#include "gpu/fc_gpu_health.h"

static inline const char *fc_json_str_or(const json_t *obj, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(obj, key));

    return s ? s : dflt;
}

/* {"max_ecc_uncorrected_delta": ..., ...}: the limits a GPU was judged by. */
json_t *fc_soak_gpu_limits_json(const fc_gpu_health_limits_t *l);

/* Rank 0: every rank's summary (an array in world-rank order, from
 * fc_soak_gpu.c) compared across GPUs of one model and written as one
 * soak_gpu record and one TAP point per GPU. */
void fc_soak_gpu_records(fc_stage_ctx_t *ctx, json_t *all);

#endif
