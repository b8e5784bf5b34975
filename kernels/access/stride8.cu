// Stride 8: blockIdx.y (0..7) picks an offset and the x dimension of the
// grid walks every 8th element from it, so thread r of pass blockIdx.y
// copies element r*8 + blockIdx.y: every element is still copied exactly once
// (the output equals the stride-1 copy), but neighbouring threads load and
// store elements 8 apart.
// A warp's 32 floats then span 1 KB: 32 sectors per request (one per
// thread), 4 useful bytes in each 32-byte sector.
// The rest of each sector is used only by a later pass, so it is fetched
// again, and a store that fills part of a sector makes L2 read the rest from
// DRAM. Expect sectors per request, L2 traffic and DRAM bytes (reads and
// writes) to grow with the stride, and the time with them.
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
