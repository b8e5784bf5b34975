// A copy where each thread moves ITEMS elements, strided by the block:
// ITEMS is a define the sweep passes (-DITEMS=...).
extern "C" __global__ void copy_defined(const float *in, float *out, int n)
{
    int base = blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int i = base + k * blockDim.x;
        if (i < n) {
            out[i] = in[i];
        }
    }
}
