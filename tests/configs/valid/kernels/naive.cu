// One thread per element of a 32x32 tile, 8 rows at a time.
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
