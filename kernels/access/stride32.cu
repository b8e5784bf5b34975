// Stride 32: blockIdx.y (0..31) picks an offset and the x dimension of the
// grid walks every 32nd element from it, so thread r of pass blockIdx.y
// copies element r*32 + blockIdx.y: every element is still copied exactly once
// (the output equals the stride-1 copy), but neighbouring threads load and
// store elements 32 apart.
// Each thread of a warp then touches its own 128-byte line: 32 sectors per
// request as at stride 8 (the worst case for 4-byte accesses), but the
// sectors are now 128 bytes apart instead of adjacent.
// The rest of each sector is used only by a later pass, so it is fetched
// again, and a store that fills part of a sector makes L2 read the rest from
// DRAM. Expect sectors per request, L2 traffic and DRAM bytes (reads and
// writes) to grow with the stride, and the time with them.
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
