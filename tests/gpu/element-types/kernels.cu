// Kernels over the narrow element types, each written two ways so that one
// verifies the other: a byte histogram (u8 in, u32 bins), a half-precision
// scale (f16), a bfloat16 axpy (bf16), widening copies of i8 and i16 into
// i32, and an unsigned-short scale (u16). Every scalar is of the narrow
// type too (u8, f16, bf16, i16, i8, u16), so that a launch must pass it in
// 1 or 2 bytes. Device code only: compiled by NVRTC, which finds the
// toolkit's cuda_fp16.h and cuda_bf16.h.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// bins[(byte + bias) mod 256] counts the bytes, one global atomic each.
extern "C" __global__ void histogram_global(const unsigned char *in, unsigned int *bins,
                                            unsigned char bias, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&bins[(unsigned char)(in[i] + bias)], 1u);
    }
}

// The same histogram privatised: each block counts in shared memory, then
// adds its 256 counts to the global bins.
extern "C" __global__ void histogram_shared(const unsigned char *in, unsigned int *bins,
                                            unsigned char bias, int n)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[(unsigned char)(in[i] + bias)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        if (local[b] != 0) {
            atomicAdd(&bins[b], local[b]);
        }
    }
}

// out[i] = in[i] * factor with the half-precision multiply.
extern "C" __global__ void scale_f16(const __half *in, __half *out, __half factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __hmul(in[i], factor);
    }
}

// The same through float: the product of two halves is exact in float, so
// rounding it to half once gives __hmul's result bit for bit.
extern "C" __global__ void scale_f16_via_float(const __half *in, __half *out, __half factor,
                                               int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __float2half_rn(__half2float(in[i]) * __half2float(factor));
    }
}

// The same two elements at a time (half2); n2 is the number of pairs.
extern "C" __global__ void scale_f16_pairs(const __half2 *in, __half2 *out, __half factor,
                                           int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        out[i] = __hmul2(in[i], __half2half2(factor));
    }
}

// y[i] = a * x[i] + y[i] with one bfloat16 fused multiply-add (one rounding).
extern "C" __global__ void axpy_bf16(__nv_bfloat16 a, const __nv_bfloat16 *x,
                                     __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = __hfma(a, x[i], y[i]);
    }
}

// The same in float, rounded to bfloat16 at the end: it may differ from the
// fused one by one step of bfloat16 (a rounding to float first).
extern "C" __global__ void axpy_bf16_via_float(__nv_bfloat16 a, const __nv_bfloat16 *x,
                                               __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = __bfloat162float(a) * __bfloat162float(x[i]) + __bfloat162float(y[i]);
        y[i] = __float2bfloat16_rn(sum);
    }
}

// out[i] = in[i] * scale + offset, the bytes widened to int.
extern "C" __global__ void widen_i8(const signed char *in, int *out, short scale,
                                    signed char offset, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (int)in[i] * scale + offset;
    }
}

// The same four bytes at a time (char4 in, int4 out); n4 counts the groups.
extern "C" __global__ void widen_i8_by_four(const char4 *in, int4 *out, short scale,
                                            signed char offset, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        char4 v = in[i];
        out[i] = make_int4((int)v.x * scale + offset, (int)v.y * scale + offset,
                           (int)v.z * scale + offset, (int)v.w * scale + offset);
    }
}

// out[i] = in[i] * scale + offset, the shorts widened to int.
extern "C" __global__ void widen_i16(const short *in, int *out, short scale,
                                     signed char offset, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (int)in[i] * scale + offset;
    }
}

// The same two shorts at a time (short2 in, int2 out); n2 counts the pairs.
extern "C" __global__ void widen_i16_by_two(const short2 *in, int2 *out, short scale,
                                            signed char offset, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        short2 v = in[i];
        out[i] = make_int2((int)v.x * scale + offset, (int)v.y * scale + offset);
    }
}

// out[i] = in[i] * factor in unsigned short (the inputs keep it below 65536).
extern "C" __global__ void scale_u16(const unsigned short *in, unsigned short *out,
                                     unsigned short factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (unsigned short)(in[i] * factor);
    }
}

// The same two at a time (ushort2); n2 counts the pairs.
extern "C" __global__ void scale_u16_by_two(const ushort2 *in, ushort2 *out,
                                            unsigned short factor, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        ushort2 v = in[i];
        out[i] = make_ushort2((unsigned short)(v.x * factor), (unsigned short)(v.y * factor));
    }
}
