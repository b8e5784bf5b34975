// Misaligned: thread t copies element t + 1 (the last thread wraps around to
// element 0), so every warp's 128 bytes start 4 bytes past a 128-byte
// boundary and straddle two lines: 5 sectors per request instead of 4, for
// loads and stores alike. The extra sector is shared with the neighbouring
// warp, so L1/L2 traffic grows by about 25% while DRAM bytes do not change.
// Compare with the stride-1 baseline: expect sectors per request 4 -> 5 and
// little change in time.
// Launch 256 threads, grid cdiv(n, 256).
#define OFFSET 1

extern "C" __global__ void copy_misaligned(const float *in, float *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        int i = t + OFFSET;
        if (i >= n) {
            i -= n;
        }
        out[i] = in[i];
    }
}
