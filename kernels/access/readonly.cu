// Read-only path: the float4 copy with `const __restrict__` pointers and an
// explicit __ldg(), which compiles the load to LDG.E.128.CONSTANT (PTX
// ld.global.nc): the compiler may assume nothing writes `in` while the kernel
// runs, so the load can use the non-coherent read-only cache path. A copy
// reads every byte once, so there is nothing for a cache to reuse: expect
// the same sectors, DRAM bytes and time as the float4 copy. The read-only
// path pays off only when many threads re-read the same data.
// n must be a multiple of 4; launch 256 threads, grid cdiv(n, 1024).
extern "C" __global__ void copy_readonly(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        reinterpret_cast<float4 *>(out)[i] = __ldg(reinterpret_cast<const float4 *>(in) + i);
    }
}
