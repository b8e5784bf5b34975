// Written for the gpuprof suite tests/gpu/sgemm-siboehm; NOT part of
// siboehm/SGEMM_CUDA and NOT NVIDIA's cuBLAS header.
//
// The upstream kernel headers (upstream/src/kernels/*.cuh) include
// <cublas_v2.h> but use nothing from it: cuBLAS is called only by upstream's
// host-side runner (src/runner.cu), which this suite does not compile. The
// CUDA 13 toolkit from PyPI used to build gpuprof suites ships nvcc and
// NVRTC but no cuBLAS headers, so this empty stand-in lets the kernels
// compile unchanged. variants.toml puts this folder on the include path.
#pragma once
