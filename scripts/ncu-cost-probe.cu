// A stand-alone program for measuring what ncu costs per profiled launch,
// apart from gpuprof: it launches a small copy kernel a given number of
// times and marks them for ncu in one of three ways, so that the cost of
// the profiler ranges, of the memory ncu saves and restores between
// replay passes, and of the launches themselves can be told apart.
// Built and run by scripts/gpu-ncu-cost.sh:
//   nvcc -O3 -arch=sm_90 -lineinfo -o ncu-cost-probe scripts/ncu-cost-probe.cu
//   ./ncu-cost-probe MODE LAUNCHES EXTRA_MIB
// MODE: each  — every launch in its own cuProfilerStart/Stop range
//               (what gpuprof's harness does);
//       once  — one range around all launches;
//       none  — no ranges (profile from the start).
// EXTRA_MIB: device memory allocated and written before the launches and
// never touched by the kernel (what a harness holding other variants'
// buffers looks like to ncu's memory save and restore).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__global__ void copy_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "each") && strcmp(argv[1], "once") && strcmp(argv[1], "none"))) {
        fprintf(stderr, "usage: %s each|once|none LAUNCHES EXTRA_MIB\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int launches = atoi(argv[2]);
    size_t extra_bytes = (size_t)atoi(argv[3]) << 20;
    const int n = 1 << 22;
    float *in, *out;
    void *extra = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(in, 0, n * sizeof(float)));
    if (extra_bytes) {
        CHECK(cudaMalloc(&extra, extra_bytes));
        CHECK(cudaMemset(extra, 1, extra_bytes));
    }
    CHECK(cudaDeviceSynchronize());
    if (!strcmp(mode, "once")) {
        CHECK(cudaProfilerStart());
    }
    for (int launch = 0; launch < launches; ++launch) {
        if (!strcmp(mode, "each")) {
            CHECK(cudaProfilerStart());
        }
        copy_kernel<<<(n + 255) / 256, 256>>>(in, out, n);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (!strcmp(mode, "each")) {
            CHECK(cudaProfilerStop());
        }
    }
    if (!strcmp(mode, "once")) {
        CHECK(cudaProfilerStop());
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    if (extra) {
        CHECK(cudaFree(extra));
    }
    printf("%s: %d launches, %zu MiB extra\n", mode, launches, extra_bytes >> 20);
    return 0;
}
