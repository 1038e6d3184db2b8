/*
 * fc_gpu_gemm.h - the overlap stage's persistent GEMM burn, behind the
 * plugin's gemm_*_func (lib/base/fc_plugin.h, ABI 4); fc_gpu_gemm.c.
 */
#ifndef FC_GPU_GEMM_H
#define FC_GPU_GEMM_H

#include <stdint.h>

#include "fc_plugin.h"

/* On device (devname names it in messages), inputs from seed. */
fc_gpu_gemm_t *fc_gpu_gemm_open_on(int device, const char *devname, const char *kind,
                                   uint32_t seed, char *why, size_t len);
fc_status_t fc_gpu_gemm_start(fc_gpu_gemm_t *g, long gemms, char *why, size_t len);
fc_status_t fc_gpu_gemm_wait(fc_gpu_gemm_t *g, double timeout_s, fc_gpu_gemm_result_t *r,
                             char *why, size_t len);
void fc_gpu_gemm_close(fc_gpu_gemm_t *g);

#endif
