// A 1-D three-point smoothing iterated over time, as a heat-equation
// homework writes it: each launch reads one buffer and writes the other,
// and the host swaps them between launches.

// Global memory only: each thread reads its element and both neighbours
// (the ends are held fixed).
__global__ void smooth_global(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    if (i == 0 || i == n - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = (in[i - 1] + in[i] + in[i + 1]) * (1.0f / 3.0f);
}

#define BLOCK 256

// The block's elements and one halo element either side staged in shared
// memory, so each input element is read from global memory about once.
__global__ void smooth_shared(const float *in, float *out, int n)
{
    __shared__ float tile[BLOCK + 2];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int t = threadIdx.x + 1;
    if (i < n) {
        tile[t] = in[i];
    }
    if (threadIdx.x == 0 && i > 0) {
        tile[0] = in[i - 1];
    }
    if (threadIdx.x == BLOCK - 1 && i + 1 < n) {
        tile[BLOCK + 1] = in[i + 1];
    }
    __syncthreads();
    if (i >= n) {
        return;
    }
    if (i == 0 || i == n - 1) {
        out[i] = tile[t];
        return;
    }
    out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) * (1.0f / 3.0f);
}
