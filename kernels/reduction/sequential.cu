// Step 3, sequential addressing (reduce2): the tree is folded the other way:
// thread tid adds element tid + s to element tid, with s going 128, 64, ...,
// 1. The active threads are still contiguous (no divergence), and now a warp
// reads and writes 32 consecutive floats, one per bank. Expect the shared
// bank-conflict counters to drop to about zero. Half the threads still idle
// from the first level on; step 4 deals with that.
// Writes one partial sum per block; launch 256 threads, grid n/256.
#define BLOCK 256

extern "C" __global__ void reduce_sequential(const float *in, float *partial, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
