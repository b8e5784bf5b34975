// Faults on purpose: every thread stores through a null pointer
// (CUDA_ERROR_ILLEGAL_ADDRESS), which leaves the CUDA context unusable.
extern "C" __global__ void copy_fault(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *nowhere = (float *)0;
    if (i < n) nowhere[i] = in[i] + out[0];
}
