// Step 8, padding: step 7 with 4 unused floats at the end of each row of the
// transposed A tile (As[8][132]). A warp stores one float4 of A per thread as
// 4 scalars As[k][m]: 16 rows m for each of 2 k-groups. With 128-float rows
// both k-groups fall in the same 16 banks (2-way conflict); with 132-float
// rows each k row starts 4 banks later, the two groups land 16 banks apart,
// and the store is conflict-free. The pad is 4 floats, not the classic 1, so
// every row stays 16-byte aligned for the LDS.128 reads. Expect the shared
// store bank-conflict counter to drop several-fold and shared store
// wavefronts by about a third; stores are a small part of the shared traffic
// (4 STS + 1 STS.128 per tile against 32 LDS.128), so the time changes little.
// Requires n to be a multiple of 128; launch 256 threads, grid (n/128, n/128).
#define BM 128
#define BN 128
#define BK 8
#define PAD 4

extern "C" __global__ void __launch_bounds__(256, 2)
matmul_padded(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[BK][BM + PAD];   // A tile, transposed
    __shared__ __align__(16) float Bs[BK][BN];
    int tid = threadIdx.x;
    int tx = tid % 16, ty = tid / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // Loaders: A tile = 128 rows x 2 float4, B tile = 8 rows x 32 float4.
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

    for (int k0 = 0; k0 < n; k0 += BK) {
        float4 a4 = *reinterpret_cast<const float4 *>(a_src + k0);
        float4 b4 = *reinterpret_cast<const float4 *>(b_src + k0 * n);
        As[a_k + 0][a_row] = a4.x;
        As[a_k + 1][a_row] = a4.y;
        As[a_k + 2][a_row] = a4.z;
        As[a_k + 3][a_row] = a4.w;
        *reinterpret_cast<float4 *>(&Bs[b_k][b_col]) = b4;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a_lo = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            float4 a_hi = *reinterpret_cast<const float4 *>(&As[k][ty * 4 + 64]);
            float4 b_lo = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            float4 b_hi = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4 + 64]);
            float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    // Row i of the thread's 8x8 block is C row row0 + ty*4 + (i%4) + 64*(i/4).
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        float *c_row = C + (row0 + ty * 4 + (i % 4) + 64 * (i / 4)) * n + col0 + tx * 4;
        *reinterpret_cast<float4 *>(c_row) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4 *>(c_row + 64) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}
