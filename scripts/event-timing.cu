// Independent event timing of the bundled transpose kernels, for checking
// gpuprof's speedups: plain CUDA runtime, the kernels included from
// kernels/transpose, each launch timed by its own pair of events after
// warm-ups, median printed. Built and run by scripts/gpu-check.sh:
//   nvcc -O3 -arch=sm_90 -o event-timing scripts/event-timing.cu
//   ./event-timing 2048 8192
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "../kernels/transpose/copy.cu"
#include "../kernels/transpose/naive.cu"
#include "../kernels/transpose/tiled.cu"
#include "../kernels/transpose/padded.cu"

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

typedef void (*Kernel)(const float *, float *, int, int);

int main(int argc, char **argv)
{
    const int warmup = 5, repetitions = 30;
    struct { const char *name; Kernel kernel; } kernels[] = {
        {"copy", copy_reference}, {"naive", transpose_naive}, {"tiled", transpose_tiled}, {"padded", transpose_padded},
    };
    printf("size,variant,median_ms\n");
    for (int a = 1; a < argc; ++a) {
        int n = atoi(argv[a]);
        size_t count = (size_t)n * n;
        std::vector<float> host(count);
        for (size_t i = 0; i < count; ++i) host[i] = (float)((i * 2654435761u) % 10007) / 10007.0f;
        float *in, *out;
        CHECK(cudaMalloc(&in, count * 4));
        CHECK(cudaMalloc(&out, count * 4));
        CHECK(cudaMemcpy(in, host.data(), count * 4, cudaMemcpyHostToDevice));
        dim3 block(32, 8), grid((n + 31) / 32, (n + 31) / 32);
        std::vector<cudaEvent_t> start(repetitions), stop(repetitions);
        for (int r = 0; r < repetitions; ++r) {
            CHECK(cudaEventCreate(&start[r]));
            CHECK(cudaEventCreate(&stop[r]));
        }
        for (auto &k : kernels) {
            for (int i = 0; i < warmup; ++i) k.kernel<<<grid, block>>>(in, out, n, n);
            CHECK(cudaGetLastError());
            for (int r = 0; r < repetitions; ++r) {
                CHECK(cudaEventRecord(start[r]));
                k.kernel<<<grid, block>>>(in, out, n, n);
                CHECK(cudaEventRecord(stop[r]));
            }
            CHECK(cudaDeviceSynchronize());
            std::vector<float> ms(repetitions);
            for (int r = 0; r < repetitions; ++r) CHECK(cudaEventElapsedTime(&ms[r], start[r], stop[r]));
            std::sort(ms.begin(), ms.end());
            float median = (ms[repetitions / 2 - 1] + ms[repetitions / 2]) / 2;
            printf("N=%d,%s,%.6f\n", n, k.name, median);
        }
        CHECK(cudaFree(in));
        CHECK(cudaFree(out));
    }
    return 0;
}
