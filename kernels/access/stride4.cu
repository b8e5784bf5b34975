// Stride 4: blockIdx.y (0..3) picks an offset and the x dimension of the
// grid walks every 4th element from it, so thread r of pass blockIdx.y
// copies element r*4 + blockIdx.y: every element is still copied exactly once
// (the output equals the stride-1 copy), but neighbouring threads load and
// store elements 4 apart.
// A warp's 32 floats then span 512 bytes: 16 sectors per request instead
// of 4, each sector a quarter used.
// The rest of each sector is used only by a later pass, so it is fetched
// again, and a store that fills part of a sector makes L2 read the rest from
// DRAM. Expect sectors per request, L2 traffic and DRAM bytes (reads and
// writes) to grow with the stride, and the time with them.
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
