// Step 5, register blocking 2x2: 256 threads (16x16) compute the same 32x32
// tile of C, each thread 2x2 outputs (rows ty and ty+16, columns tx and
// tx+16) held in registers. Every value read from shared memory now feeds 2
// multiply-adds instead of 1, so expect shared load instructions per FMA to
// halve, and a quarter as many threads to do the same work with fewer
// instructions in total. As is 16-byte aligned so that the compiler can read
// As[ty][k..k+3] with one LDS.128 (check the SASS).
// Requires n to be a multiple of 32; launch with 16x16 threads.
#define TILE 32

extern "C" __global__ void matmul_regblock2x2(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * 16 + tx;
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    float acc00 = 0.0f, acc01 = 0.0f, acc10 = 0.0f, acc11 = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        // 1024 floats per tile, 4 per thread; each warp loads one whole row.
        for (int p = 0; p < 4; ++p) {
            int r = tid / TILE + 8 * p, c = tid % TILE;
            As[r][c] = A[(row0 + r) * n + k0 + c];
            Bs[r][c] = B[(k0 + r) * n + col0 + c];
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float a0 = As[ty][k], a1 = As[ty + 16][k];
            float b0 = Bs[k][tx], b1 = Bs[k][tx + 16];
            acc00 += a0 * b0;
            acc01 += a0 * b1;
            acc10 += a1 * b0;
            acc11 += a1 * b1;
        }
        __syncthreads();
    }
    C[(row0 + ty) * n + col0 + tx] = acc00;
    C[(row0 + ty) * n + col0 + tx + 16] = acc01;
    C[(row0 + ty + 16) * n + col0 + tx] = acc10;
    C[(row0 + ty + 16) * n + col0 + tx + 16] = acc11;
}
