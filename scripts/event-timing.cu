// Independent event timing of the bundled transpose kernels, for checking
// gpuprof's speedups: plain CUDA runtime, the kernels included from
// kernels/transpose, each launch timed by its own pair of events after
// warm-ups, the median printed for two kinds of samples: hot (the launch
// right after the previous one) and cold (after a cudaMemset over a buffer
// twice the size of the L2, so none of the kernel's data is left in it).
// Built and run by scripts/gpu-check.sh and scripts/gpu-repeat.sh:
//   nvcc -O3 -arch=sm_90 -o event-timing scripts/event-timing.cu
//   ./event-timing [--zero-flush] [--own-buffers] 2048 8192
// --zero-flush writes zeros over the flush buffer every time (by default
// each flush writes another byte value); --own-buffers gives every kernel
// its own input and output, all allocated together (as gpuprof keeps the
// buffers of all variants of a size), instead of one pair for all.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// The median of `repetitions` launches of `kernel`, each between its own
// events; with `flush`, a memset over `flush_bytes` runs before each.
static float median_ms(Kernel kernel, dim3 grid, dim3 block, const float *in, float *out, int n, void *flush,
                       size_t flush_bytes, bool zero_flush, int repetitions)
{
    std::vector<cudaEvent_t> start(repetitions), stop(repetitions);
    for (int r = 0; r < repetitions; ++r) {
        CHECK(cudaEventCreate(&start[r]));
        CHECK(cudaEventCreate(&stop[r]));
    }
    for (int r = 0; r < repetitions; ++r) {
        if (flush) CHECK(cudaMemsetAsync(flush, zero_flush ? 0 : r & 0xFF, flush_bytes));
        CHECK(cudaEventRecord(start[r]));
        kernel<<<grid, block>>>(in, out, n, n);
        CHECK(cudaEventRecord(stop[r]));
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(repetitions);
    for (int r = 0; r < repetitions; ++r) {
        CHECK(cudaEventElapsedTime(&ms[r], start[r], stop[r]));
        CHECK(cudaEventDestroy(start[r]));
        CHECK(cudaEventDestroy(stop[r]));
    }
    std::sort(ms.begin(), ms.end());
    return (ms[repetitions / 2 - 1] + ms[repetitions / 2]) / 2;
}

int main(int argc, char **argv)
{
    const int warmup = 5, repetitions = 100;
    struct { const char *name; Kernel kernel; } kernels[] = {
        {"copy", copy_reference}, {"naive", transpose_naive}, {"tiled", transpose_tiled}, {"padded", transpose_padded},
    };
    int device = 0, l2_bytes = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    size_t flush_bytes = 2 * (size_t)l2_bytes;
    void *flush;
    CHECK(cudaMalloc(&flush, flush_bytes));
    bool zero_flush = false, own_buffers = false;
    printf("size,variant,temperature,median_ms\n");
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--zero-flush")) { zero_flush = true; continue; }
        if (!strcmp(argv[a], "--own-buffers")) { own_buffers = true; continue; }
        int n = atoi(argv[a]);
        size_t count = (size_t)n * n;
        std::vector<float> host(count);
        for (size_t i = 0; i < count; ++i) host[i] = (float)((i * 2654435761u) % 10007) / 10007.0f;
        const int pairs = own_buffers ? 4 : 1;
        std::vector<float *> in(pairs), out(pairs);
        for (int p = 0; p < pairs; ++p) {
            CHECK(cudaMalloc(&in[p], count * 4));
            CHECK(cudaMalloc(&out[p], count * 4));
            CHECK(cudaMemcpy(in[p], host.data(), count * 4, cudaMemcpyHostToDevice));
        }
        dim3 block(32, 8), grid((n + 31) / 32, (n + 31) / 32);
        for (int k = 0; k < 4; ++k) {
            Kernel kernel = kernels[k].kernel;
            float *kin = in[k % pairs], *kout = out[k % pairs];
            for (int i = 0; i < warmup; ++i) kernel<<<grid, block>>>(kin, kout, n, n);
            CHECK(cudaGetLastError());
            float cold = median_ms(kernel, grid, block, kin, kout, n, flush, flush_bytes, zero_flush, repetitions);
            float hot = median_ms(kernel, grid, block, kin, kout, n, nullptr, 0, false, repetitions);
            printf("N=%d,%s,cold,%.6f\nN=%d,%s,hot,%.6f\n", n, kernels[k].name, cold, n, kernels[k].name, hot);
        }
        for (int p = 0; p < pairs; ++p) {
            CHECK(cudaFree(in[p]));
            CHECK(cudaFree(out[p]));
        }
    }
    CHECK(cudaFree(flush));
    return 0;
}
