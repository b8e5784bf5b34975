// Stride 4: the x dimension of the grid walks elements 0, 4, 2*4, ... and
// blockIdx.y (0..3) adds the offset, so thread t = blockIdx.y*(n/4) + r
// copies element r*4 + blockIdx.y: still every element exactly once (the
// output equals the stride-1 copy), but neighbouring threads are 4 elements
// apart, for loads and stores alike. Here
// a warp's 32 floats span 512 bytes: 16 sectors per request instead of 4,
// each sector a quarter used.
// The rest of each sector is used only by a later pass (another blockIdx.y),
// so DRAM or L2 must deliver it again. Expect sectors per request, L2 traffic
// and DRAM bytes to grow with the stride, and the time with them.
// n must be a multiple of 4; launch 256 threads, grid (cdiv(n, 256*4), 4).
#define STRIDE 4

extern "C" __global__ void copy_stride4(const float *in, float *out, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;   // 0 .. n/STRIDE - 1
    if (r < n / STRIDE) {
        int i = r * STRIDE + blockIdx.y;
        out[i] = in[i];
    }
}
