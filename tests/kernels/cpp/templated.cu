// Kernels written the way public collections write them: a template, a
// kernel in a namespace, a plain C++ kernel and an extern "C" one, with a
// toolkit header. gpuprof's tests compile them through NVRTC name
// expressions.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[blockSize];
    cg::thread_block block = cg::this_thread_block();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    float sum = 0.0f;
    while (i < n) {
        sum += g_idata[i];
        if (nIsPow2 || i + blockSize < n) {
            sum += g_idata[i + blockSize];
        }
        i += blockSize * 2 * gridDim.x;
    }
    sdata[tid] = sum;
    cg::sync(block);
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = sum = sum + sdata[tid + s];
        }
        cg::sync(block);
    }
    if (tid == 0) {
        g_odata[blockIdx.x] = sum;
    }
}

namespace gemm {
__global__ void scale(float *data, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= factor;
    }
}
}

__global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        odata[x * height + y] = idata[y * width + x];
    }
}

extern "C" __global__ void copy_reference(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * SCALE;
    }
}
