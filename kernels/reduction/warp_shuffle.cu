// Step 6, warp shuffle: the tree inside each warp now runs in registers with
// __shfl_down_sync (5 shuffles, no shared memory, no barriers); only the 8
// warp totals go through shared memory, and the first warp adds them with 5
// more shuffles. Expect shared-memory instructions per block to drop from
// about 38 warp-level loads and stores to 9, and 1 block-wide barrier per
// block instead of 3.
// Writes one partial sum per block; launch 256 threads, grid n/512.
#define BLOCK 256

extern "C" __global__ void reduce_warp_shuffle(const float *in, float *partial, int n)
{
    __shared__ float warp_sums[BLOCK / 32];
    unsigned int tid = threadIdx.x;
    unsigned int lane = tid % 32, warp = tid / 32;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
    float sum = (i < (unsigned int)n) ? in[i] : 0.0f;
    if (i + blockDim.x < (unsigned int)n) {
        sum += in[i + blockDim.x];
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = sum;
    }
    __syncthreads();
    if (warp == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
        if (lane == 0) {
            partial[blockIdx.x] = sum;
        }
    }
}
