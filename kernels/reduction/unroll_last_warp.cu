// Step 5, unrolled last warp (reduce4): once 64 partial sums remain, only the
// first warp works, and a warp needs no __syncthreads(). The loop stops at
// s = 64 and the last six levels are written out by hand inside one warp,
// with __syncwarp() between a lane's read and its write (the modern,
// race-free form of Harris's `volatile` trick). Expect 3 block-wide barriers
// per block instead of 9, no idle warps spinning through the last levels, and
// fewer warp instructions and barrier stall cycles.
// Writes one partial sum per block; launch 256 threads, grid n/512.
#define BLOCK 256

extern "C" __global__ void reduce_unroll_last_warp(const float *in, float *partial, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
    float x = (i < (unsigned int)n) ? in[i] : 0.0f;
    if (i + blockDim.x < (unsigned int)n) {
        x += in[i + blockDim.x];
    }
    sdata[tid] = x;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid < 32) {
        float sum = sdata[tid];
        sum += sdata[tid + 32]; __syncwarp(); sdata[tid] = sum; __syncwarp();
        sum += sdata[tid + 16]; __syncwarp(); sdata[tid] = sum; __syncwarp();
        sum += sdata[tid + 8];  __syncwarp(); sdata[tid] = sum; __syncwarp();
        sum += sdata[tid + 4];  __syncwarp(); sdata[tid] = sum; __syncwarp();
        sum += sdata[tid + 2];  __syncwarp(); sdata[tid] = sum; __syncwarp();
        sum += sdata[tid + 1];
        if (tid == 0) {
            partial[blockIdx.x] = sum;
        }
    }
}
