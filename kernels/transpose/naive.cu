// Step 1, naive: each thread moves 4 elements straight from `in` to `out`.
// The loads are coalesced (threads of a warp read 32 consecutive floats of a
// row), but the store writes a column: consecutive threads write addresses
// `height` floats apart, so one warp's store touches 32 separate sectors
// where 4 would do. Expect about 32 sectors per store request.
extern "C" __global__ void transpose_naive(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        if (x < width && y + j < height) {
            out[x * height + (y + j)] = in[(y + j) * width + x];
        }
    }
}
