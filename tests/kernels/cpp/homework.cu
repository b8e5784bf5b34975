// A homework file as students hand it in: host code, a host header, a
// launch and a template instance that main never launches.
#include <cstdio>
#include <cuda_runtime.h>

template <int TILE>
__global__ void tiledCopy(float *out, const float *in, int n)
{
    __shared__ float tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n) {
        tile[threadIdx.x] = in[i];
    }
    __syncthreads();
    if (i < n) {
        out[i] = tile[threadIdx.x];
    }
}

__global__ void naiveCopy(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

int main()
{
    const int n = 1 << 20;
    float *in = nullptr;
    float *out = nullptr;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    naiveCopy<<<n / 256, 256>>>(out, in, n);
    tiledCopy<32><<<n / 32, 32>>>(out, in, n);
    cudaDeviceSynchronize();
    printf("done\n");
    cudaFree(in);
    cudaFree(out);
    return 0;
}
