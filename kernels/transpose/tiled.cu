// Step 2, shared-memory tile: a block reads a 32x32 tile row by row
// (coalesced), then writes the transposed tile row by row (coalesced too),
// so both global accesses touch 4 sectors per request. The transpose now
// happens in shared memory: the read `tile[threadIdx.x][...]` walks a column,
// and with 32 floats per row every element of that column sits in the same
// bank, so each warp's shared load is a 32-way bank conflict.
extern "C" __global__ void transpose_tiled(const float *in, float *out, int width, int height)
{
    __shared__ float tile[32][32];
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
