// Step 6, register blocking 8x8: a block of 256 threads computes a 128x128
// tile of C, each thread an 8x8 grid of outputs (rows ty + 16*i, columns
// tx + 16*j) in 64 registers, walking k in slices of 8 (BK). Per k a thread
// now reads 16 values from shared memory for 64 multiply-adds (step 5: 4 for
// 4), and each float loaded from global memory feeds 128 outputs instead of
// 32. Expect shared load instructions and global load requests per FMA to
// drop about 4x and FP32 throughput (SM throughput) to rise sharply.
// __launch_bounds__(256, 2) caps registers at 128 so two blocks fit per SM.
// Requires n to be a multiple of 128; launch 256 threads, grid (n/128, n/128).
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void __launch_bounds__(256, 2)
matmul_regblock8x8(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tid = threadIdx.x;
    int tx = tid % 16, ty = tid / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < n; k0 += BK) {
        // A tile 128x8 and B tile 8x128: 1024 floats each, 4 per thread.
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            int r = tid / BK + 32 * p, c = tid % BK;
            As[r][c] = A[(row0 + r) * n + k0 + c];
            int kr = tid / BN + 2 * p, kc = tid % BN;
            Bs[kr][kc] = B[(k0 + kr) * n + col0 + kc];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a[i] = As[ty + 16 * i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            C[(row0 + ty + 16 * i) * n + col0 + tx + 16 * j] = acc[i][j];
}
