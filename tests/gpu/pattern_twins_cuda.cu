/*
 * pattern_twins_cuda.cu - the CUDA half of tests/gpu/pattern_twins.c:
 * kernels/fc_pattern.h compiled by nvcc (FC_HD = __host__ __device__), its
 * functions exported to C through host wrappers, and a kernel that calls
 * the same functions on the GPU (launched where a GPU exists) so the
 * device compilation is compared too.
 */
#include <cuda_runtime.h>
#include <stdio.h>

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

/* The kernel over n indices from base; 0, or -1 with the reason in why
 * (no GPU, or a CUDA error). out is host memory of n words. */
extern "C" int fc_twins_device_run(const fc_pattern_t *p, int32_t r, uint64_t *out, size_t n,
                                   char *why, size_t len)
{
    uint64_t *dev = NULL;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);

    if (e != cudaSuccess || count == 0) {
        int driver = 0;

        cudaDriverGetVersion(&driver);      /* 0: no driver installed */
        snprintf(why, len, "no GPU to run the device compilation on (%s)",
                 driver == 0 ? "no NVIDIA driver is installed" :
                 e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
        return -1;
    }
    if ((e = cudaMalloc((void **)&dev, n * sizeof(*dev))) == cudaSuccess) {
        fc_twins_kernel<<<(unsigned)((n + 255) / 256), 256>>>(*p, r, dev, n);
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaMemcpy(out, dev, n * sizeof(*dev), cudaMemcpyDeviceToHost);
        cudaFree(dev);
    }
    if (e != cudaSuccess) {
        snprintf(why, len, "the twins kernel: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
