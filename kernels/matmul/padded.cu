// Step 6, padding: step 5 with 4 unused floats at the end of each row of the
// A tile (As[32][36]). Row ty+1 now starts 36 floats after row ty, 4 banks
// further on, so the two half-warps read As[ty][k] and As[ty+1][k] from
// different banks and the conflict is gone. The pad is 4 floats rather than
// the classic 1 so that rows stay 16-byte aligned and the compiler can still
// read As four k at a time with LDS.128, exactly as in step 5 (a 33-float row
// would force 4x as many scalar loads). Expect the shared load bank-conflict
// counter to drop to about zero and shared load wavefronts to fall, with the
// same instructions; global traffic is unchanged.
// Requires n to be a multiple of 32; launch with 16x16 threads.
#define TILE 32
#define PAD 4

extern "C" __global__ void matmul_padded(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[TILE][TILE + PAD];
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
