// Independent event timing of the bundled transpose kernels, for checking
// gpuprof's speedups: plain CUDA runtime, the kernels included from
// kernels/transpose, each launch timed by its own pair of events after
// warm-ups, the median printed for two kinds of samples: hot (the launch
// right after the previous one) and cold (after reading a zeroed buffer the
// size of the L2, so that the L2 holds clean lines none of which are the
// kernel's: the flush gpuprof's harness makes).
// Built and run by scripts/gpu-check.sh, scripts/gpu-repeat.sh and
// scripts/gpu-flush.sh:
//   nvcc -O3 -arch=sm_90 -o event-timing scripts/event-timing.cu
//   ./event-timing [--flush read|memset] [--flush-times K] [--zero-flush]
//                  [--own-buffers] [--shift-mib M] [--launch-only] 2048 8192
// --flush memset writes over the flush buffer instead of reading it (as
// nvbench does; it leaves the L2 full of dirty lines, which the kernel
// then writes back), each time another byte value unless --zero-flush;
// --flush-times K sizes the flush buffer at K times the L2 (default 1);
// --own-buffers gives every kernel its own input and output, all allocated
// together (as gpuprof keeps the buffers of all variants of a size),
// instead of one pair for all; --shift-mib M allocates M MiB before each
// size's buffers, so that they land elsewhere in device memory;
// --launch-only times nothing and launches each kernel five times per
// size, for ncu to time (it prints no table).
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

// Reads `words` 16-byte words of `buffer`, so that they take the L2's
// place; the sum is stored only when it is a value a zeroed buffer never
// gives, which keeps the loads from being left out.
__global__ void read_flush(const uint4 *buffer, size_t words, unsigned *sink)
{
    unsigned sum = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
        uint4 word = buffer[i];
        sum += word.x ^ word.y ^ word.z ^ word.w;
    }
    if (sum == 0x9E3779B9u) *sink = sum;
}

enum FlushKind { FLUSH_MEMSET, FLUSH_READ };

struct Flush {
    FlushKind kind;
    void *buffer;
    size_t bytes;
    bool zero;
    unsigned *sink;
    int blocks;
};

static void flush_l2(const Flush &flush, int r)
{
    if (flush.kind == FLUSH_MEMSET) {
        CHECK(cudaMemsetAsync(flush.buffer, flush.zero ? 0 : r & 0xFF, flush.bytes));
    } else {
        read_flush<<<flush.blocks, 256>>>((const uint4 *)flush.buffer, flush.bytes / 16, flush.sink);
    }
}

// The median of `repetitions` launches of `kernel`, each between its own
// events; with `flush`, the L2 is flushed before each.
static float median_ms(Kernel kernel, dim3 grid, dim3 block, const float *in, float *out, int n, const Flush *flush,
                       int repetitions)
{
    std::vector<cudaEvent_t> start(repetitions), stop(repetitions);
    for (int r = 0; r < repetitions; ++r) {
        CHECK(cudaEventCreate(&start[r]));
        CHECK(cudaEventCreate(&stop[r]));
    }
    for (int r = 0; r < repetitions; ++r) {
        if (flush) flush_l2(*flush, r);
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
    int device = 0, l2_bytes = 0, sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    Flush flush = {FLUSH_READ, nullptr, 0, false, nullptr, 8 * sms};
    bool own_buffers = false, launch_only = false;
    int flush_times = 1;
    size_t shift_bytes = 0;
    std::vector<int> sizes;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--zero-flush")) flush.zero = true;
        else if (!strcmp(argv[a], "--own-buffers")) own_buffers = true;
        else if (!strcmp(argv[a], "--launch-only")) launch_only = true;
        else if (!strcmp(argv[a], "--flush") && a + 1 < argc) flush.kind = !strcmp(argv[++a], "read") ? FLUSH_READ : FLUSH_MEMSET;
        else if (!strcmp(argv[a], "--flush-times") && a + 1 < argc) flush_times = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--shift-mib") && a + 1 < argc) shift_bytes = (size_t)atoi(argv[++a]) << 20;
        else if (argv[a][0] != '-') sizes.push_back(atoi(argv[a]));
    }
    flush.bytes = (size_t)flush_times * l2_bytes;
    CHECK(cudaMalloc(&flush.buffer, flush.bytes));
    CHECK(cudaMemset(flush.buffer, 0, flush.bytes));
    CHECK(cudaMalloc(&flush.sink, sizeof(unsigned)));
    CHECK(cudaDeviceSynchronize());
    if (!launch_only) printf("size,variant,temperature,median_ms\n");
    for (int n : sizes) {
        size_t count = (size_t)n * n;
        std::vector<float> host(count);
        for (size_t i = 0; i < count; ++i) host[i] = (float)((i * 2654435761u) % 10007) / 10007.0f;
        void *shift = nullptr;
        if (shift_bytes) CHECK(cudaMalloc(&shift, shift_bytes));
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
            if (launch_only) continue;
            float cold = median_ms(kernel, grid, block, kin, kout, n, &flush, repetitions);
            float hot = median_ms(kernel, grid, block, kin, kout, n, nullptr, repetitions);
            printf("N=%d,%s,cold,%.6f\nN=%d,%s,hot,%.6f\n", n, kernels[k].name, cold, n, kernels[k].name, hot);
        }
        for (int p = 0; p < pairs; ++p) {
            CHECK(cudaFree(in[p]));
            CHECK(cudaFree(out[p]));
        }
        if (shift) CHECK(cudaFree(shift));
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(flush.buffer));
    CHECK(cudaFree(flush.sink));
    return 0;
}
