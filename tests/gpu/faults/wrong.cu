// Wrong on purpose: adds 0.5 to every element from index 1000 on.
extern "C" __global__ void copy_wrong(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i < 1000 ? in[i] : in[i] + 0.5f;
}
