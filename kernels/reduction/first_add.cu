// Step 4, first add during load (reduce3): each thread loads TWO floats, one
// block-width apart, and adds them before the tree starts, so a block covers
// 512 elements and half as many blocks run. The tree itself is unchanged,
// but its shared-memory work and its 9 barriers are now spread over twice the
// data. Expect warp instructions and shared-memory instructions per element
// to halve and the DRAM throughput to rise.
// Writes one partial sum per block; launch 256 threads, grid n/512.
#define BLOCK 256

extern "C" __global__ void reduce_first_add(const float *in, float *partial, int n)
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
