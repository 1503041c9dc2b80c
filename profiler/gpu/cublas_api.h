// cuBLAS, opened when the GPU backend first needs it instead of linked: linking libcublas makes
// every epochcost run, GPU or not, pay about 215 MB of resident memory for relocating it and
// libcublasLt (docs/cross-device.md). Only the calls the backend makes are bound, each under its
// exported name (cublasCreate is cublas_v2.h's macro for cublasCreate_v2, so
// `Blas().cublasCreate(...)` reads as the call it is).
#ifndef EPOCHCOST_PROFILER_GPU_CUBLAS_API_H_
#define EPOCHCOST_PROFILER_GPU_CUBLAS_API_H_

#include <cublas_v2.h>

#include "engine/status.h"

namespace epochcost::profiler::cuda {

// The exported (C) forms of the two products; cuBLAS's C++ header also declares inline overloads
// taking a cudaDataType compute type.
using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                        int, int, const void*, const void*, cudaDataType, int,
                                        const void*, cudaDataType, int, const void*, void*,
                                        cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
    cudaDataType, int, long long, const void*, cudaDataType, int, long long, const void*, void*,
    cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasApi {
  decltype(&::cublasCreate_v2) cublasCreate_v2 = nullptr;
  decltype(&::cublasDestroy_v2) cublasDestroy_v2 = nullptr;
  decltype(&::cublasSetStream_v2) cublasSetStream_v2 = nullptr;
  decltype(&::cublasGetVersion_v2) cublasGetVersion_v2 = nullptr;
  CublasGemmEx cublasGemmEx = nullptr;
  CublasGemmStridedBatchedEx cublasGemmStridedBatchedEx = nullptr;
  decltype(&::cublasGetStatusString) cublasGetStatusString = nullptr;
};

// Opens cuBLAS (the soname of the toolkit built against, found on the library path or where the
// toolkit was at build time) and binds the calls, once; an error names the library and why.
Result<const CublasApi*> LoadCublas();

// The bound calls; only after LoadCublas succeeded.
const CublasApi& Blas();

}  // namespace epochcost::profiler::cuda

#endif  // EPOCHCOST_PROFILER_GPU_CUBLAS_API_H_
