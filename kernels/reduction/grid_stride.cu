// Step 7, more work per thread: instead of one block per 512 floats, a fixed
// grid of 8 blocks per SM (132 SMs x 8 = 1056 blocks: every thread slot of the
// H200 filled once) walks the whole array with a grid-stride loop. Each
// thread sums ~60 (n = 2^24) to ~250 (n = 2^26) floats in a register, with
// four independent loads in flight per iteration, and only then runs the
// shuffle reduction of step 6. The per-block overhead (shuffles, barrier,
// partial-sum store, block launch) is paid by 1056 blocks instead of n/512.
// Expect warp instructions per element to drop several times and DRAM
// throughput to approach the copy reference.
// Writes one partial sum per block; launch 256 threads, any grid.
#define BLOCK 256

extern "C" __global__ void reduce_grid_stride(const float *in, float *partial, int n)
{
    __shared__ float warp_sums[BLOCK / 32];
    unsigned int tid = threadIdx.x;
    unsigned int lane = tid % 32, warp = tid / 32;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    float sum = 0.0f;
    // Four independent loads per iteration, so four are in flight at once.
    for (; i + 3 * stride < (unsigned int)n; i += 4 * stride) {
        float a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        sum += (a + b) + (c + d);
    }
    for (; i < (unsigned int)n; i += stride) {
        sum += in[i];
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
