/*
 * fc_gemm_standin.h - the stand-in GPU plugin's GEMM burn (ABI 4 of
 * lib/base/fc_plugin.h) on a host thread; tests/standin/fc_gemm_standin.c.
 */
#ifndef FC_GEMM_STANDIN_H
#define FC_GEMM_STANDIN_H

#include "fc_plugin.h"

fc_gpu_gemm_t *fc_gemm_standin_open(const fc_backend_t *be, const char *kind, char *why,
                                    size_t len);
fc_status_t fc_gemm_standin_start(fc_gpu_gemm_t *g, long gemms, char *why, size_t len);
fc_status_t fc_gemm_standin_wait(fc_gpu_gemm_t *g, double timeout_s, fc_gpu_gemm_result_t *r,
                                 char *why, size_t len);
void fc_gemm_standin_close(fc_gpu_gemm_t *g);

#endif
