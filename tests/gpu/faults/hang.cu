// Never finishes on purpose: spins until the input holds a value it never
// holds (inputs are in [-1, 1)), so gpuprof's timeout has to stop it.
extern "C" __global__ void copy_hang(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile const float *watched = in;
    while (watched[0] < 10.0f) {
    }
    if (i < n) out[i] = in[i];
}
