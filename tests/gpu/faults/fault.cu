// Faults on purpose: every thread stores 4 TiB past the end of `out`, an
// address no allocation covers (CUDA_ERROR_ILLEGAL_ADDRESS), which leaves
// the CUDA context unusable.
extern "C" __global__ void copy_fault(const float *in, float *out, int n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + ((size_t)1 << 40)] = in[i];
}
