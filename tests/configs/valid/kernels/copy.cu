// The ceiling: a plain copy moves the same bytes with perfect coalescing.
extern "C" __global__ void copy(const float *in, float *out, unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}
