// The kernels of the error cases: out[i] = in[i] * factor.
extern "C" __global__ void scale(const float *in, float *out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * factor;
    }
}

// C++ linkage: found through NVRTC's name expressions like any other.
__global__ void scale_mangled(const float *in, float *out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * factor;
    }
}

// A template: an entry names one of its instances, e.g. scale_by<2>.
template <int Factor>
__global__ void scale_by(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * Factor;
    }
}
