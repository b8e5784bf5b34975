// Step 2, coalesced: the same kernel with threadIdx.x picking the COLUMN of C.
// A warp now reads one A[row][k] (a broadcast: 1 sector) and 32 consecutive
// floats B[k][col..col+31], and stores 32 consecutive floats of C, so the
// strided accesses become 4 sectors per request instead of 32. Expect global
// load sectors per request to drop from about 16 (32 for A + 1 for B, over 2
// requests) to about 2.5, and global store sectors per request from 32 to 4.
extern "C" __global__ void matmul_coalesced(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k) {
            acc += A[row * n + k] * B[k * n + col];
        }
        C[row * n + col] = acc;
    }
}
