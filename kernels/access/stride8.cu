// Stride 8: the x dimension of the grid walks elements 0, 8, 2*8, ... and
// blockIdx.y (0..7) adds the offset, so thread t = blockIdx.y*(n/8) + r
// copies element r*8 + blockIdx.y: still every element exactly once (the
// output equals the stride-1 copy), but neighbouring threads are 8 elements
// apart, for loads and stores alike. Here
// a warp's 32 floats span 1 KB: 32 sectors per request (one per thread),
// 4 useful bytes in each 32-byte sector.
// The rest of each sector is used only by a later pass (another blockIdx.y),
// so DRAM or L2 must deliver it again. Expect sectors per request, L2 traffic
// and DRAM bytes to grow with the stride, and the time with them.
// n must be a multiple of 8; launch 256 threads, grid (cdiv(n, 256*8), 8).
#define STRIDE 8

extern "C" __global__ void copy_stride8(const float *in, float *out, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;   // 0 .. n/STRIDE - 1
    if (r < n / STRIDE) {
        int i = r * STRIDE + blockIdx.y;
        out[i] = in[i];
    }
}
