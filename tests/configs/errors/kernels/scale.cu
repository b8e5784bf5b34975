// The kernels of the error cases: out[i] = in[i] * factor.
extern "C" __global__ void scale(const float *in, float *out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * factor;
    }
}

// C++ linkage: NVRTC cannot find this one by its plain name.
__global__ void scale_mangled(const float *in, float *out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * factor;
    }
}
