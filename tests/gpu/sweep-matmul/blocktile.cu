// A register-blocked SGEMM (C = A * B, float32, row-major, n x n), templated
// on its tiling so that a sweep can tune it: each block computes a BM x BN
// tile of C from BK-wide slices of A and B staged in shared memory (A
// transposed, so that a thread's TM values of A are consecutive), and each
// of its (BM/TM) * (BN/TN) threads accumulates a TM x TN sub-tile in
// registers. n must be a multiple of BM, BN and BK.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void sgemm_blocktile(const float *A, const float *B, float *C, int n)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int thread_row = tid / (BN / TN);
    const int thread_col = tid % (BN / TN);
    const float *a = A + blockIdx.y * BM * n;
    const float *b = B + blockIdx.x * BN;
    float acc[TM][TN] = {};
    float a_reg[TM];
    float b_reg[TN];
    for (int k0 = 0; k0 < n; k0 += BK) {
        for (int i = tid; i < BM * BK; i += THREADS) {
            const int row = i / BK, col = i % BK;
            As[col][row] = a[row * n + k0 + col];
        }
        for (int i = tid; i < BK * BN; i += THREADS) {
            const int row = i / BN, col = i % BN;
            Bs[row][col] = b[(k0 + row) * n + col];
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            for (int m = 0; m < TM; ++m) a_reg[m] = As[k][thread_row * TM + m];
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[k][thread_col * TN + j];
            for (int m = 0; m < TM; ++m)
                for (int j = 0; j < TN; ++j) acc[m][j] += a_reg[m] * b_reg[j];
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; ++m)
        for (int j = 0; j < TN; ++j)
            C[(blockIdx.y * BM + thread_row * TM + m) * n + blockIdx.x * BN + thread_col * TN + j] =
                acc[m][j];
}
