// Step 3, shared-memory tiling (16x16): each block stages a 16x16 tile of A
// and of B in shared memory, then every thread reads its 16 products from
// there. Each element fetched from global memory is now used by 16 threads
// instead of 1, so expect global load requests to drop about 16x and shared
// load instructions to appear in their place.
// Requires n to be a multiple of 16; launch with 16x16 threads.
#define TILE 16

extern "C" __global__ void matmul_tiled16(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * n + col] = acc;
}
