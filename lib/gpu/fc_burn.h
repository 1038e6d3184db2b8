/*
 * fc_burn.h - the compute burn: dense GEMMs through cuBLASLt (BF16 and
 * FP16 on the tensor cores with FP32 accumulation, and FP64) for a set
 * time on one GPU, each result checked bit for bit. A and B are filled on
 * the GPU from a hash of (seed, index) (values in [-0.5, 0.5) with 24
 * random bits, rounded once to the type), so every run of the same GPU
 * model computes the same C; C = A x B is recomputed every iteration and
 * its digest (the GPU digest of kernels/fc_kernels_dev.h) must equal the
 * first iteration's. The figure is TFLOPS = 2 n^3 x iterations / GEMM
 * time (CUDA events around each GEMM; the digests are not timed).
 *
 * Determinism (cuBLAS documentation, "Results Reproducibility"): cuBLAS
 * routines give bit-identical results from run to run for a given toolkit
 * version on GPUs of the same architecture and the same number of SMs,
 * with one stream active or, as here, cublasLtMatmul with a workspace the
 * caller owns. Not across toolkit versions, architectures or SM counts,
 * and only for the same algorithm: the algorithm is chosen once by
 * cuBLASLt's heuristic and kept for every iteration (its id, tile,
 * stages, split-K and reduction scheme are reported as "algo"), so two
 * GPUs' digests are comparable only when model, SM count, toolkit and
 * algo are the same (fabcert-node-gpu compares them that way). No atomics
 * or emulation are requested; every split-K reduction scheme cuBLASLt
 * offers is ordered (cublasLt.h, cublasLtReductionScheme_t).
 */
#ifndef FC_BURN_H
#define FC_BURN_H

#include <jansson.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fc_burn_kind {
    FC_BURN_BF16 = 0,
    FC_BURN_FP16,
    FC_BURN_FP64,
    FC_BURN_KINDS
} fc_burn_kind_t;

typedef struct fc_burn_result {
    int kind;
    int n;                  /* C (n x n) = A (n x n) x B (n x n) */
    long iters;
    double gemm_s;          /* GPU time in the GEMMs */
    double tflops;
    uint64_t digest;        /* of C, first iteration */
    long mismatched;        /* iterations whose C differs from the first */
    long first_bad;         /* the first of them, -1 if none */
    uint64_t bad_digest;    /* its digest */
    char algo[192];         /* the cuBLASLt algorithm kept */
    char why[256];          /* the error when fc_burn_gemm did not return 0 */
} fc_burn_result_t;

const char *fc_burn_kind_name(int kind);         /* "bf16", "fp16", "fp64" */
int fc_burn_kind_from_name(const char *name);    /* -1 if none */

/* One kind's buffers, matmul and algorithm on one GPU and stream. */
typedef struct fc_burn fc_burn_t;

/* Open a burn of kind on the current device, on stream (NULL: the default
 * stream): A, B, C of n x n (n is the size to try first, halved while the
 * GPU lacks the memory; 0: 8192), filled from seed, and the algorithm
 * (r->algo, r->n). 0, or a CUDA or cuBLAS status with the cause in r->why.
 * Allocates everything a step needs. */
int fc_burn_open(int kind, int n, uint32_t seed, void *stream, fc_burn_t **burn_p,
                 fc_burn_result_t *r);
/* GEMMs for about seconds (at least two iterations), each C's digest
 * against the step's first: r's figures. Allocates and frees nothing. A
 * failed step leaves the burn unusable (close it). */
int fc_burn_step(fc_burn_t *burn, double seconds, fc_burn_result_t *r);
/* The overlap stage's batches (the burn's GEMMs beside a collective):
 * enqueue gemms GEMMs (1 to FC_BURN_BATCH_MAX), each C digested into its
 * slot, between two events, and the digests' copy to pinned host memory,
 * and return without waiting. One batch at a time; not mixed with
 * fc_burn_step on the same burn while one is pending. */
#define FC_BURN_BATCH_MAX 4096
int fc_burn_start(fc_burn_t *burn, long gemms, fc_burn_result_t *r);
/* Wait for the batch (a bounded poll: timeout_s, then
 * cudaErrorLaunchTimeout and the burn is broken): r->iters, r->gemm_s (the
 * batch's GPU time, its digests included), every C's digest against the
 * burn's reference, the first C of its first batch (r->digest). */
int fc_burn_finish(fc_burn_t *burn, double timeout_s, fc_burn_result_t *r);
/* Free it (after a failure only once its stream is idle, a bounded wait). */
void fc_burn_close(fc_burn_t *burn);

/* open, one step, close: GEMMs of kind for about seconds. */
int fc_burn_gemm(int kind, int n, double seconds, uint32_t seed, void *stream,
                 fc_burn_result_t *r);

/* {"kind", "n", "iterations", "seconds", "tflops", "digest" (hex),
 * "mismatched_iterations", "first_bad_iteration", "algo", "verdict":
 * "PASS"|"FAIL"} */
json_t *fc_burn_json(const fc_burn_result_t *r);

#ifdef __cplusplus
}
#endif

#endif
