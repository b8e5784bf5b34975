// Sorting N floats (N a power of two), as a course's sorting homework
// writes it: a rank sort in one launch (each thread counts the elements
// that go before its own and writes it there), then a bitonic sort with
// one launch per stage (the host loops over k and j), then the same with
// the stages that stay inside 1024 elements done in shared memory.

// Rank sort: O(N^2) comparisons, one launch. Ties keep their input order.
__global__ void rank_sort(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    float x = in[i];
    int rank = 0;
    for (int j = 0; j < n; ++j) {
        float y = in[j];
        rank += (y < x) || (y == x && j < i);
    }
    out[rank] = x;
}

// The bitonic sort sorts in place: its first launch copies the input.
__global__ void copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

// One stage (k, j) of the bitonic network over the whole array: element i
// is compared with element i ^ j, ascending where (i & k) == 0.
__global__ void bitonic_step(float *data, int j, int k)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int partner = i ^ j;
    if (partner > i) {
        float a = data[i];
        float b = data[partner];
        bool ascending = (i & k) == 0;
        if ((ascending && a > b) || (!ascending && a < b)) {
            data[i] = b;
            data[partner] = a;
        }
    }
}

#define CHUNK 1024

// The stages with j < CHUNK of merge size k, in shared memory: each block
// holds CHUNK elements, one per thread.
__device__ void merge_in_chunk(float *chunk, unsigned int global, int k, int first_j)
{
    unsigned int t = threadIdx.x;
    for (int j = first_j; j > 0; j >>= 1) {
        unsigned int partner = t ^ j;
        if (partner > t) {
            float a = chunk[t];
            float b = chunk[partner];
            bool ascending = (global & k) == 0;
            if ((ascending && a > b) || (!ascending && a < b)) {
                chunk[t] = b;
                chunk[partner] = a;
            }
        }
        __syncthreads();
    }
}

// Every stage with k <= CHUNK, in one launch: each block sorts its chunk
// in the directions the whole network would.
__global__ void bitonic_sort_chunks(float *data)
{
    __shared__ float chunk[CHUNK];
    unsigned int global = blockIdx.x * CHUNK + threadIdx.x;
    chunk[threadIdx.x] = data[global];
    __syncthreads();
    for (int k = 2; k <= CHUNK; k <<= 1) {
        merge_in_chunk(chunk, global, k, k >> 1);
    }
    data[global] = chunk[threadIdx.x];
}

// The stages j = CHUNK/2 … 1 of merge size k > CHUNK, in one launch.
__global__ void bitonic_merge_chunks(float *data, int k)
{
    __shared__ float chunk[CHUNK];
    unsigned int global = blockIdx.x * CHUNK + threadIdx.x;
    chunk[threadIdx.x] = data[global];
    __syncthreads();
    merge_in_chunk(chunk, global, k, CHUNK >> 1);
    data[global] = chunk[threadIdx.x];
}
