/*
 * fc_soak_gpu.h - the soak's GPU side on the nccl backend (suites/soak.c):
 * the burn-in proper is compute and fabric at once. Each rank runs the
 * plugin's GEMM burn (lib/gpu/fc_burn.h: BF16, FP16, FP64 by default,
 * soak.gpu_burn) in a thread of its own, on a stream of its own, beside
 * the collectives for the whole soak, in chunks of a few seconds to tens
 * of seconds; every GEMM's C is digested and compared with its chunk's
 * first, each chunk's digest with the first chunk's (same algorithm), and
 * at the end every GPU's with the other GPUs' of the same model, SM count
 * and algorithm. Each rank reads its GPU's health through the plugin
 * (NVML, lib/gpu/fc_gpu_health.h) at the start, at every soak window and
 * at the end, and judges each window between its two readings (and the
 * whole soak between the first and the last), as the link counters are
 * judged: a rise in uncorrectable ECC or NVLink errors, a retired or
 * remapped page, a thermal or hardware throttle during the soak fails that
 * GPU, with the counter and both values as evidence.
 *
 * Records: each soak_window record says what the GPUs' health was in that
 * window ("gpu"); at the end one soak_gpu record per GPU (rank) with its
 * verdict, reasons, evidence, the burn's figures and the health readings'
 * judgement; a FAIL implicates {part "gpu", host, rack, gpu (its index),
 * uuid}. On the mpi backend neither applies: there is no soak_gpu record,
 * and every soak_window record says so ("gpu": {"applies": false, "why"}).
 */
#ifndef FC_SOAK_GPU_H
#define FC_SOAK_GPU_H

#include <jansson.h>

#include "fc_stage.h"

typedef struct fc_soak_gpu fc_soak_gpu_t;

/* This rank's GPU side, started: the first health reading and the burn
 * thread (local). NULL on the mpi backend. */
fc_soak_gpu_t *fc_soak_gpu_start(fc_stage_ctx_t *ctx, const fc_backend_t *be);

/* Stop and join the burn thread (local; waits for its chunk to end). */
void fc_soak_gpu_stop(fc_soak_gpu_t *sg);

/* A soak window closed (collective over the world when sg is not NULL,
 * which every rank's is or none's): each GPU's health read and judged
 * since the last reading. Rank 0 gets the soak_window record's "gpu"
 * member ({"applies": false, "why"} on mpi), others NULL. */
json_t *fc_soak_gpu_window(fc_stage_ctx_t *ctx, fc_soak_gpu_t *sg, int window);

/* The end (collective over the world when sg is not NULL): rank 0 writes
 * every GPU's soak_gpu record and its TAP point; frees sg. */
void fc_soak_gpu_finish(fc_stage_ctx_t *ctx, fc_soak_gpu_t *sg);

#endif
