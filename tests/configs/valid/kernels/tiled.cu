// Two kernels in one extern "C" block: the tile in dynamic shared memory,
// then with a padding column against bank conflicts.
#define TILE 32

extern "C" {

__global__ void transpose_tiled(const float *in, float *out, int width, int height)
{
    extern __shared__ float tile[];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8) {
        if (x < width && y + j < height) {
            tile[(threadIdx.y + j) * TILE + threadIdx.x] = in[(y + j) * width + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8) {
        if (x < height && y + j < width) {
            out[(y + j) * height + x] = tile[threadIdx.x * TILE + threadIdx.y + j];
        }
    }
}

__global__ void __launch_bounds__(256) transpose_padded(const float *in, float *out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8) {
        if (x < width && y + j < height) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8) {
        if (x < height && y + j < width) {
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

}
