// Speed-of-light reference: a plain float4 copy, one float4 per thread. It
// moves the same 2 * 4 * n bytes as every variant of the suite with the
// widest, fully coalesced accesses; no copy of these bytes can be much faster.
// n must be a multiple of 4; launch 256 threads, grid n/1024.
extern "C" __global__ void copy_reference(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        reinterpret_cast<float4 *>(out)[i] = reinterpret_cast<const float4 *>(in)[i];
    }
}
