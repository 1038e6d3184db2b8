/*
 * pattern_twins_cuda.cu - the CUDA half of tests/gpu/pattern_twins.c:
 * kernels/fc_pattern.h compiled by nvcc (FC_HD = __host__ __device__), its
 * functions exported to C through host wrappers, and a kernel that calls
 * the same functions so the device compilation is proven too.
 */
#include "fc_pattern.h"

__global__ void fc_twins_kernel(fc_pattern_t p, int32_t r, uint64_t *out, size_t n)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

    if (k < n)
        out[k] = fc_pattern_input_bits(&p, r, k) ^ fc_pattern_expected_bits(&p, r, k);
}

extern "C" uint64_t fc_twins_input_cuda(const fc_pattern_t *p, int32_t r, uint64_t i)
{
    return fc_pattern_input_bits(p, r, i);
}

extern "C" uint64_t fc_twins_expected_cuda(const fc_pattern_t *p, int32_t src, uint64_t i)
{
    return fc_pattern_expected_bits(p, src, i);
}

extern "C" int fc_twins_dtype_size_cuda(int32_t t)
{
    return fc_dtype_size(t);
}
