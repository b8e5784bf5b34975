// Does not compile on purpose: `j` is not declared.
extern "C" __global__ void copy_broken(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[j];
}
