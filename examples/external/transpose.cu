// A stand-alone CUDA program, as a student would write it, profiled by
// gpuprof as "command" variants (examples/external/variants.toml): gpuprof
// runs it under ncu as it is and picks the launches by kernel name.
//   nvcc -O3 -arch=sm_90 -lineinfo -o transpose transpose.cu
//   ./transpose naive|padded N
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

__global__ void transpose_naive(const float *in, float *out, int n)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < n && y + j < n) out[x * n + (y + j)] = in[(y + j) * n + x];
}

__global__ void transpose_padded(const float *in, float *out, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "naive") && strcmp(argv[1], "padded"))) {
        fprintf(stderr, "usage: %s naive|padded N\n", argv[0]);
        return 2;
    }
    bool padded = strcmp(argv[1], "padded") == 0;
    int n = atoi(argv[2]);
    size_t count = (size_t)n * n;
    std::vector<float> host(count), back(count);
    for (size_t i = 0; i < count; ++i) host[i] = (float)(i % 1000) * 0.5f;
    float *in, *out;
    if (cudaMalloc(&in, count * 4) != cudaSuccess || cudaMalloc(&out, count * 4) != cudaSuccess) return 1;
    cudaMemcpy(in, host.data(), count * 4, cudaMemcpyHostToDevice);
    dim3 block(32, 8), grid((n + 31) / 32, (n + 31) / 32);
    for (int launch = 0; launch < 10; ++launch) {
        if (padded) transpose_padded<<<grid, block>>>(in, out, n);
        else transpose_naive<<<grid, block>>>(in, out, n);
    }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "%s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(back.data(), out, count * 4, cudaMemcpyDeviceToHost);
    for (size_t r = 0; r < (size_t)n; ++r)
        for (size_t c = 0; c < (size_t)n; ++c)
            if (back[r * n + c] != host[c * n + r]) {
                fprintf(stderr, "wrong at (%zu, %zu)\n", r, c);
                return 1;
            }
    printf("%s transpose of %d x %d: correct\n", argv[1], n, n);
    return 0;
}
