// Baseline, stride 1: thread t copies element t. The 32 threads of a warp
// read 32 consecutive floats (128 bytes, 4 sectors) and write 32 consecutive
// floats: 4 sectors per request for loads and stores, every byte fetched is
// used, and DRAM moves exactly 2 * 4 * n bytes.
// Launch 256 threads, grid cdiv(n, 256).
extern "C" __global__ void copy_stride1(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}
