/*
 * fc_kernels_cuda.h - the GPU twins of fc_kernels.h, callable from C. The
 * CUDA side (fc_kernels_cuda.cu) computes inputs and expectations with the
 * same kernels/fc_pattern.h functions the CPU kernels use, so the two
 * cannot drift. Verification runs on the GPU and returns only the
 * mismatch count and the first wrong element (position, expected and
 * actual bits): the buffer never comes back to the host. The digest is
 * the GPU's own 64-bit hash (not XXH3): digests are only ever compared
 * between ranks of the same backend. Streams are passed as void * so this
 * header needs no CUDA headers; NULL is the default stream. Every function
 * returns 0 or a cudaError_t.
 */
#ifndef FC_KERNELS_CUDA_H
#define FC_KERNELS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "fc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

int fc_cuda_fill(const fc_pattern_t *p, int32_t rank, uint64_t index_base,
                 void *dbuf, size_t count, void *stream);
/* Adds to *m like fc_cpu_verify (first mismatch kept if m->wrong was 0);
 * synchronises the stream. */
int fc_cuda_verify(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                   const void *dbuf, size_t count, uint64_t pos_base,
                   fc_mismatch_t *m, void *stream);
int fc_cuda_digest(const void *dbuf, size_t bytes, uint64_t *digest_p, void *stream);
int fc_cuda_poison(void *dbuf, size_t bytes, int byte, void *stream);
int fc_cuda_flip_bit(void *dbuf, size_t byte, int bit, void *stream);

/* Compute burn: `blocks` x 256 threads each run `iters` fused multiply-
 * adds on a float chain seeded from its thread id; the results are
 * compared on the GPU with the host's answer for the same chain (fmaf is
 * exact IEEE, so the bits must be equal). *wrong_p counts threads whose
 * result differs. */
int fc_cuda_burn(int blocks, int iters, uint64_t *wrong_p, void *stream);
/* The burn chain's answer for one thread, computed on the host. */
uint32_t fc_burn_expected_bits(uint32_t thread, int iters);

const char *fc_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

#endif
