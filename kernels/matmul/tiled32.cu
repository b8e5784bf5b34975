// Step 4, shared-memory tiling (32x32): the same kernel with 32x32 tiles and
// 1024 threads per block. Each global element now feeds 32 threads, and each
// pair of __syncthreads() covers 32 multiply-adds instead of 16, so expect
// global load requests to halve again and barrier stalls to shrink. A warp is
// now one full row of the tile: Bs[k][tx] is 32 consecutive floats (32 banks)
// and As[ty][k] one broadcast address, so there are still no bank conflicts.
// Requires n to be a multiple of 32; launch with 32x32 threads.
#define TILE 32

extern "C" __global__ void matmul_tiled32(const float *A, const float *B, float *C, int n)
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
