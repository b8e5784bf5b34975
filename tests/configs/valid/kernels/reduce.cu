// Row sums: one block per row. `partials` holds per-block partial sums,
// whose layout differs between the two kernels. The shuffle kernel weighs
// the columns with `c_weights`, all ones.
__constant__ int c_weights[32];

extern "C" {

__global__ void row_sums(const double *matrix, double *sums, double *partials, int cols, float scale)
{
    extern __shared__ double acc[];
    double s = 0.0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        s += matrix[blockIdx.x * cols + c];
    }
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            acc[threadIdx.x] += acc[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = acc[0] * scale;
        partials[blockIdx.x] = acc[0];
    }
}

__global__ void row_sums_shuffle(const double *matrix, double *sums, double *partials, int cols, float scale)
{
    double s = 0.0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        s += matrix[blockIdx.x * cols + c] * c_weights[c % 32];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_down_sync(0xffffffff, s, offset);
    }
    __shared__ double warp_sums[32];
    if (threadIdx.x % 32 == 0) {
        warp_sums[threadIdx.x / 32] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double total = 0.0;
        for (int w = 0; w < blockDim.x / 32; ++w) {
            total += warp_sums[w];
        }
        sums[blockIdx.x] = total * scale;
        partials[blockIdx.x] = total;
    }
}

}
