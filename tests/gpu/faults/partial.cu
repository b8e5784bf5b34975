// Wrong on purpose: never writes the last element, which stays poisoned.
extern "C" __global__ void copy_partial(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) out[i] = in[i];
}
