// Step 9, double buffering: step 8 with two copies of each shared tile. While
// the block multiplies tile t out of one buffer, every thread has already
// issued the global loads of tile t+1 into registers, and stores them into
// the other buffer when its math is done. Global latency now hides behind 512
// FMAs per thread, and one __syncthreads() per tile replaces two. Expect
// fewer stalls on barriers and on global loads (warp cycles per issued
// instruction drop), higher issue-slot utilisation and FP32 throughput, with
// the same instruction mix and twice the shared memory (16.5 KB per block).
// Requires n to be a multiple of 128; launch 256 threads, grid (n/128, n/128).
#define BM 128
#define BN 128
#define BK 8
#define PAD 4

extern "C" __global__ void __launch_bounds__(256, 2)
matmul_double_buffered(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[2][BK][BM + PAD];   // A tiles, transposed
    __shared__ __align__(16) float Bs[2][BK][BN];
    int tid = threadIdx.x;
    int tx = tid % 16, ty = tid / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int a_row = tid / 2, a_k = (tid % 2) * 4;
    int b_k = tid / 32, b_col = (tid % 32) * 4;
    const float *a_src = A + (row0 + a_row) * n + a_k;
    const float *b_src = B + b_k * n + col0 + b_col;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;

    // Prologue: tile 0 into buffer 0.
    float4 a4 = *reinterpret_cast<const float4 *>(a_src);
    float4 b4 = *reinterpret_cast<const float4 *>(b_src);
    As[0][a_k + 0][a_row] = a4.x;
    As[0][a_k + 1][a_row] = a4.y;
    As[0][a_k + 2][a_row] = a4.z;
    As[0][a_k + 3][a_row] = a4.w;
    *reinterpret_cast<float4 *>(&Bs[0][b_k][b_col]) = b4;
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < n; k0 += BK) {
        bool more = k0 + BK < n;
        if (more) {   // issue the loads of the next tile; used after the math
            a4 = *reinterpret_cast<const float4 *>(a_src + k0 + BK);
            b4 = *reinterpret_cast<const float4 *>(b_src + (k0 + BK) * n);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a_lo = *reinterpret_cast<const float4 *>(&As[buf][k][ty * 4]);
            float4 a_hi = *reinterpret_cast<const float4 *>(&As[buf][k][ty * 4 + 64]);
            float4 b_lo = *reinterpret_cast<const float4 *>(&Bs[buf][k][tx * 4]);
            float4 b_hi = *reinterpret_cast<const float4 *>(&Bs[buf][k][tx * 4 + 64]);
            float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        if (more) {   // the other buffer was last read before the previous barrier
            As[buf ^ 1][a_k + 0][a_row] = a4.x;
            As[buf ^ 1][a_k + 1][a_row] = a4.y;
            As[buf ^ 1][a_k + 2][a_row] = a4.z;
            As[buf ^ 1][a_k + 3][a_row] = a4.w;
            *reinterpret_cast<float4 *>(&Bs[buf ^ 1][b_k][b_col]) = b4;
        }
        __syncthreads();
        buf ^= 1;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        float *c_row = C + (row0 + ty * 4 + (i % 4) + 64 * (i / 4)) * n + col0 + tx * 4;
        *reinterpret_cast<float4 *>(c_row) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4 *>(c_row + 64) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}
