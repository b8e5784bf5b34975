// A fixed grid whose threads each sum ITEMS consecutive elements, ITEMS a
// template argument that grows with the problem (entry
// "sum_items<{N / 65536}>"): every size compiles its own instance.
template <int ITEMS>
__global__ void sum_items(const float *in, float *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int i = t * ITEMS + k;
        if (i < n) sum += in[i];
    }
    out[t] = sum;
}
