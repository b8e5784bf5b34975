// Step 1, naive: one thread per element of C, reading A and B straight from
// global memory. threadIdx.x picks the ROW of C, so the 32 threads of a warp
// work on 32 different rows: their loads A[row][k] and their stores
// C[row][col] are n floats apart, one 32-byte sector per thread. Expect about
// 32 sectors per request for those loads and stores (B[k][col] is a single
// address for the whole warp: 1 sector). Launch with 32x8 threads.
extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k) {
            acc += A[row * n + k] * B[k * n + col];
        }
        C[row * n + col] = acc;
    }
}
