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
 *
 * Results travel through a workspace (fc_cuda_ws_t: a device word and its
 * pinned host copy, and the GPU's SM count for grid sizes) made once per
 * GPU with fc_cuda_ws_create on the current device; nothing allocates per
 * call. Verify and digest come in two halves for callers that wait on
 * their own terms (the nccl backend's bounded wait): _enqueue puts the
 * kernels and the copy of the result on the stream, and after the stream
 * has reached that point _take reads it. The one-call forms wait with
 * cudaStreamSynchronize. One workspace serves one stream at a time.
 *
 * The gate (fc_cuda_gate_t) holds streams at a point until the host
 * releases them: a one-thread kernel spins on a host-mapped word (bounded
 * by max_s of the GPU's global timer, after which it lets the stream go
 * and says so in fc_cuda_gate_expired). The nccl backend and the node
 * check gate each stream before its start event, enqueue the collective,
 * record the stop event and release the gate, so the time measured is the
 * collective's, not the host's enqueue.
 */
#ifndef FC_KERNELS_CUDA_H
#define FC_KERNELS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "fc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fc_cuda_ws fc_cuda_ws_t;
typedef struct fc_cuda_gate fc_cuda_gate_t;

/* GPUs this process can use (honours CUDA_VISIBLE_DEVICES); 0 with the
 * reason in why: no device, or a driver older than the runtime (CUDA 13
 * needs R580+), which names the fix (build with the node's CUDA_HOME). */
int fc_cuda_device_count(char *why, size_t len);

int fc_cuda_ws_create(fc_cuda_ws_t **ws_p);
void fc_cuda_ws_destroy(fc_cuda_ws_t *ws);

int fc_cuda_fill(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t rank, uint64_t index_base,
                 void *dbuf, size_t count, void *stream);

/* Reset the result, run the verification, fetch the first wrong element's
 * bits and copy the result to the host side (no wait). */
int fc_cuda_verify_enqueue(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t src,
                           uint64_t index_base, const void *dbuf, size_t count, void *stream);
/* The verification kernel alone, adding to the result (for timing it). */
int fc_cuda_verify_launch(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t src,
                          uint64_t index_base, const void *dbuf, size_t count, void *stream);
/* After the stream passed the enqueue: add to *m like fc_cpu_verify (first
 * mismatch kept if m->wrong was 0). */
void fc_cuda_verify_take(const fc_cuda_ws_t *ws, uint64_t pos_base, fc_mismatch_t *m);
/* enqueue, cudaStreamSynchronize, take */
int fc_cuda_verify(fc_cuda_ws_t *ws, const fc_pattern_t *p, int32_t src, uint64_t index_base,
                   const void *dbuf, size_t count, uint64_t pos_base, fc_mismatch_t *m,
                   void *stream);

/* fc_cpu_verify_untouched's twin: count elements of esize bytes must each
 * be `byte` repeated; reset, check, fetch the first changed element and
 * copy the result to the host side (no wait); read it with
 * fc_cuda_verify_take. */
int fc_cuda_verify_untouched_enqueue(fc_cuda_ws_t *ws, const void *dbuf, size_t count,
                                     int esize, int byte, void *stream);

int fc_cuda_digest_enqueue(fc_cuda_ws_t *ws, const void *dbuf, size_t bytes, void *stream);
uint64_t fc_cuda_digest_take(const fc_cuda_ws_t *ws);
int fc_cuda_digest(fc_cuda_ws_t *ws, const void *dbuf, size_t bytes, uint64_t *digest_p,
                   void *stream);

int fc_cuda_poison(void *dbuf, size_t bytes, int byte, void *stream);
int fc_cuda_flip_bit(void *dbuf, size_t byte, int bit, void *stream);

/* The gate: create (mapped host words, usable from every GPU of the
 * process); arm the next round (returns its ticket); hold a stream at this
 * point until the round is released (one call per stream); release; and
 * whether any gate gave up waiting since the last question (1: the timing
 * of that round includes the host's enqueue). */
int fc_cuda_gate_create(double max_s, fc_cuda_gate_t **gate_p);
void fc_cuda_gate_destroy(fc_cuda_gate_t *g);
uint32_t fc_cuda_gate_arm(fc_cuda_gate_t *g);
int fc_cuda_gate_hold(fc_cuda_gate_t *g, void *stream);
void fc_cuda_gate_release(fc_cuda_gate_t *g);
int fc_cuda_gate_expired(fc_cuda_gate_t *g);

const char *fc_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

#endif
