// A stand-alone program for measuring which part of ncu's start-up comes
// before the profiled program first touches CUDA (and so could be spent
// while something else uses the GPU) and which part comes with CUDA's
// initialisation under ncu. It writes wall-clock stamps to a file: when
// main starts, when a gate file appears (it waits for it), when CUDA is
// initialised, and when its launches are done. Built and run by
// scripts/gpu-ncu-startup.sh:
//   nvcc -O3 -arch=sm_90 -o ncu-startup-probe scripts/ncu-startup-probe.cu
//   ./ncu-startup-probe STAMPS GATE LAUNCHES
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <sys/stat.h>

static double now_s()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

__global__ void copy_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s STAMPS GATE LAUNCHES\n", argv[0]);
        return 2;
    }
    FILE *stamps = fopen(argv[1], "w");
    fprintf(stamps, "main %.6f\n", now_s());
    struct stat gate;
    while (stat(argv[2], &gate) != 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    fprintf(stamps, "gate %.6f\n", now_s());
    cudaFree(0);
    fprintf(stamps, "cuda %.6f\n", now_s());
    const int n = 1 << 22;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    cudaDeviceSynchronize();
    int launches = atoi(argv[3]);
    for (int i = 0; i < launches; i++) {
        cudaProfilerStart();
        copy_kernel<<<(n + 255) / 256, 256>>>(in, out, n);
        cudaDeviceSynchronize();
        cudaProfilerStop();
    }
    fprintf(stamps, "launched %.6f\n", now_s());
    fclose(stamps);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
