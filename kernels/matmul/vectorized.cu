// Step 7, vectorized access: step 6's 128x128x8 tiles, now moved in float4s.
// Each thread loads one float4 of A and one of B per tile (2 LDG.128 instead
// of 8 scalar LDGs), and stores the A tile TRANSPOSED (As[k][m]) so that the
// 8 A values a thread needs at one k are contiguous. To make its B values and
// C outputs contiguous too, each thread now owns rows ty*4 + {0..3, 64..67}
// and columns tx*4 + {0..3, 64..67}: per tile it issues 32 LDS.128 where
// step 6 issued 64 LDS + 16 LDS.128, and it stores C with 16 STG.128 instead
// of 64 STGs. Expect global load requests to drop 4x and shared load
// instructions 2.5x, with the same global sectors.
// The transposed store has a price: a warp writes As[k][m] for 16 rows m and
// 2 groups of k, and with 128-float rows both groups hit the same 16 banks,
// a 2-way bank conflict on every store of A (step 8 removes it).
// Requires n to be a multiple of 128; launch 256 threads, grid (n/128, n/128).
#define BM 128
#define BN 128
#define BK 8

extern "C" __global__ void __launch_bounds__(256, 2)
matmul_vectorized(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[BK][BM];   // A tile, transposed
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
