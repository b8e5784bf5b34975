// Step 3, padded tile: the same kernel as the shared-memory tile, with one
// unused float at the end of each tile row ([32][33]). Element (r, c) now
// lives in bank (r * 33 + c) % 32 = (r + c) % 32, so the 32 elements of a
// column fall in 32 different banks and the transposed read is conflict-free:
// about 1 shared wavefront per instruction instead of 32.
extern "C" __global__ void transpose_padded(const float *in, float *out, int width, int height)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        if (x < width && y + j < height) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        if (x < height && y + j < width) {
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}
