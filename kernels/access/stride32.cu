// Stride 32: the x dimension of the grid walks elements 0, 32, 2*32, ... and
// blockIdx.y (0..31) adds the offset, so thread t = blockIdx.y*(n/32) + r
// copies element r*32 + blockIdx.y: still every element exactly once (the
// output equals the stride-1 copy), but neighbouring threads are 32 elements
// apart, for loads and stores alike. Here
// each thread of a warp touches its own 128-byte line: 32 sectors per
// request as at stride 8 (the worst case for 4-byte accesses), but the
// sectors are now 128 bytes apart instead of adjacent.
// The rest of each sector is used only by a later pass (another blockIdx.y),
// so DRAM or L2 must deliver it again. Expect sectors per request, L2 traffic
// and DRAM bytes to grow with the stride, and the time with them.
// n must be a multiple of 32; launch 256 threads, grid (cdiv(n, 256*32), 32).
#define STRIDE 32

extern "C" __global__ void copy_stride32(const float *in, float *out, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;   // 0 .. n/STRIDE - 1
    if (r < n / STRIDE) {
        int i = r * STRIDE + blockIdx.y;
        out[i] = in[i];
    }
}
