// Kernels of the narrow element types (never compiled: the config's
// argument checks read their parameter lists).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void histogram(const unsigned char *in, unsigned int *bins,
                                     unsigned char bias, int n)
{
}

extern "C" __global__ void scale_half(const __half *in, __half *out, __half factor, int n)
{
}

extern "C" __global__ void axpy_bf16(__nv_bfloat16 a, const __nv_bfloat16 *x,
                                     __nv_bfloat16 *y, int n)
{
}

extern "C" __global__ void widen(const int8_t *in, int *out, short scale, signed char offset,
                                 int n)
{
}

extern "C" __global__ void scale_u16(const unsigned short *in, unsigned short *out,
                                     unsigned short factor, int n)
{
}

// Types named through aliases, as real code often does.
typedef double real;
using index_t = unsigned int;
#ifdef USE_HALF
#define ELEM __half
#else
#define ELEM float
#endif

extern "C" __global__ void scale_real(const real *in, real *out, real factor, index_t n,
                                      ELEM *either)
{
}

// Output first, as many kernels declare it.
extern "C" __global__ void copy_out_in(float *odata, const float *idata, int n)
{
}

// A trailing parameter with a C++ default, which a launch must still pass.
extern "C" __global__ void scan_step(int *data, int width, int *partial_sums = nullptr)
{
}
