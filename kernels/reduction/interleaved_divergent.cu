// Step 1, interleaved addressing with divergent branches (Harris's reduce0):
// each block of 256 threads loads 256 floats into shared memory and halves
// them in a tree, thread tid adding its neighbour s away when tid is a
// multiple of 2*s. Half the threads of every warp idle at the first level,
// and the `%` branch splits warps at every level, so most issued warp
// instructions do no useful work. Expect the most warp instructions per
// element of the suite, with high issue activity but low bandwidth.
// Writes one partial sum per block; launch 256 threads, grid n/256.
#define BLOCK 256

extern "C" __global__ void reduce_divergent(const float *in, float *partial, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
