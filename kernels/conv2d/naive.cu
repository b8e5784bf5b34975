// Step 1, naive: one thread per output pixel; each thread reads its 3x3
// neighbourhood of the image and the 9 filter weights straight from global
// memory (zero outside the image). A warp covers 32 pixels of one row, so its
// loads are coalesced, but every input pixel is loaded by 9 different
// threads and every weight by every thread: expect about 18 global load
// instructions per output (9 image + 9 filter), high L1 hit rates, and an
// issue-bound kernel. The loops are kept rolled (#pragma unroll 1), as a
// loop over a filter of any size would be; step 4 unrolls them.
// Launch with 32x8 threads, grid (cdiv(n, 32), cdiv(n, 8)).
extern "C" __global__ void conv2d_naive(const float *in, const float *filter, float *out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) {
        return;
    }
    float acc = 0.0f;
#pragma unroll 1
    for (int dy = 0; dy < 3; ++dy) {
#pragma unroll 1
        for (int dx = 0; dx < 3; ++dx) {
            int yy = y + dy - 1, xx = x + dx - 1;
            if (yy >= 0 && yy < n && xx >= 0 && xx < n) {
                acc += in[yy * n + xx] * filter[dy * 3 + dx];
            }
        }
    }
    out[y * n + x] = acc;
}
