// A copy where each thread moves several elements, strided by the block:
// the sweep suites tune the items per thread and the block size.

// The items per thread as a template argument: entry = "copy_items<{ITEMS}>".
template <int Items>
__global__ void copy_items(const float *in, float *out, int n)
{
    static_assert(Items <= 8, "at most 8 items per thread");
    int base = blockIdx.x * blockDim.x * Items + threadIdx.x;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
        int i = base + k * blockDim.x;
        if (i < n) {
            out[i] = in[i];
        }
    }
}
