// Written for the gpuprof suite tests/gpu/cs-matrixmul; NOT part of
// NVIDIA/cuda-samples and NOT the CUDA toolkit's own cuda_profiler_api.h.
//
// upstream/Samples/0_Introduction/matrixMul/matrixMul.cu includes
// <cuda_profiler_api.h> for the cudaProfilerStart()/cudaProfilerStop() calls
// in its main(). The CUDA 13 toolkit from PyPI used to build gpuprof suites
// (nvidia-cuda-nvcc, nvidia-cuda-runtime) ships no cuda_profiler_api.h, so
// this stand-in declares the two functions exactly as the toolkit's header
// does, letting the file compile unchanged. gpuprof compiles only the
// file's device code into a CUBIN; the host functions are never called.
// variants.toml puts this folder on the include path; where a full toolkit
// is installed this shadows its header with the same declarations.
#pragma once
#include <cuda_runtime_api.h>

#if defined(__cplusplus)
extern "C" {
#endif
extern __host__ cudaError_t CUDARTAPI cudaProfilerStart(void);
extern __host__ cudaError_t CUDARTAPI cudaProfilerStop(void);
#if defined(__cplusplus)
}
#endif
