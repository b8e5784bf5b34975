// Kernels that attack the harness rather than compute: they print floods
// of text (some of it not UTF-8, some without a newline) and need more
// dynamic shared memory than the 48 KiB a launch gets without opting in.
// Each still copies `in` to `out`, so each can be verified.
#include <cstdio>

extern "C" __global__ void copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

extern "C" __global__ void copy_printf_flood(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
        printf("thread %d copied %f\n", i, in[i]);
    }
}

extern "C" __global__ void copy_printf_bytes(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
        if (i % 1024 == 0) {
            // A byte that is not UTF-8, then text without a newline.
            printf("\xff\xfe block %d \x1b]0;title\x07", blockIdx.x);
        }
    }
}

extern "C" __global__ void copy_big_shared(const float *in, float *out, int n)
{
    extern __shared__ float staged[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x * 100] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) {
        out[i] = staged[threadIdx.x * 100];
    }
}
