// Step 2, interleaved addressing with a strided index (reduce1): thread tid
// now works on element 2*s*tid, so the active threads are the first ones of
// the block and whole warps either work or skip the level: no divergence
// inside a warp until fewer than 32 threads remain. The price is a strided
// shared-memory pattern: at level s the warp touches every (2*s)-th float,
// so 2, 4, 8 ... threads hit the same bank. Expect warp instructions to drop
// and the shared bank-conflict counters to rise.
// Writes one partial sum per block; launch 256 threads, grid n/256.
#define BLOCK 256

extern "C" __global__ void reduce_strided(const float *in, float *partial, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x) {
            sdata[index] += sdata[index + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
