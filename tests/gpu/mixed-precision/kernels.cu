// An axpy ladder across precisions: the f32 kernel is the reference, and
// the f16, half2 and bf16 kernels compute the same y = a*x + y on
// inputs gpuprof rounds from the same random values. Each half-precision
// step is verified against the f32 outputs at its own type's tolerance.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void axpy_f32(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_f16(int n, __half a, const __half *x, __half *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

// Two elements a thread through one 4-byte access; n is even.
extern "C" __global__ void axpy_half2(int n, __half a, const __half *x, __half *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i + 1 < n) {
        __half2 a2 = __half2half2(a);
        const __half2 *x2 = reinterpret_cast<const __half2 *>(x);
        __half2 *y2 = reinterpret_cast<__half2 *>(y);
        y2[i] = __hfma2(a2, x2[i], y2[i]);
    }
}

extern "C" __global__ void axpy_bf16(int n, __nv_bfloat16 a, const __nv_bfloat16 *x,
                                     __nv_bfloat16 *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}
