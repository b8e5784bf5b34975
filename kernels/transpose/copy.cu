// Speed-of-light reference: the same 32x32 tiles and 32x8 threads as the
// transposes, but every access is row-major, so both the loads and the stores
// of each warp touch 4 consecutive 32-byte sectors. No transpose moves fewer
// bytes than this copy, so its bandwidth is the ceiling for the suite.
extern "C" __global__ void copy_reference(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        if (x < width && y + j < height) {
            out[(y + j) * width + x] = in[(y + j) * width + x];
        }
    }
}
