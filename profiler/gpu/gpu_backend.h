// The NVIDIA GPU backend, calling what PyTorch calls: cuDNN for convolutions, pooling, batch norm
// and RNNs; cuBLAS for dense layers and matrix products; kernels of our own (kernels.cu) for what
// PyTorch runs as its own kernels (element-wise ops, softmax, dropout, layer norm, embedding,
// loss, optimizer updates). Times are CUDA event times of the device work (docs/gpu-profiler.md).
//
// It is compiled only where CMake found the CUDA toolkit and cuDNN (EPOCHCOST_HAVE_CUDA, decided
// in the top-level CMakeLists.txt); otherwise no_cuda.cpp answers every call with an error.
#ifndef EPOCHCOST_PROFILER_GPU_GPU_BACKEND_H_
#define EPOCHCOST_PROFILER_GPU_GPU_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "profiler/backend.h"
#include "profiler/fingerprint.h"
#include "profiler/profile_store.h"

namespace epochcost::profiler {

// Whether this build has the GPU backend.
bool GpuBackendBuilt();

// The backend for GPU 0; an error says why there is none (not built, no device, driver).
Result<std::unique_ptr<Backend>> MakeGpuBackend();

// GPU 0's name, compute capability, SMs, clocks and memory, and the CUDA, cuDNN and cuBLAS
// versions.
Result<Fingerprint> LocalGpu();

// Peak GEMM rate per precision (cuBLAS, 8192^3), device memory bandwidth (a device-to-device
// copy, bytes read plus written), host-to-device copy bandwidth (pinned), kernel launch cost
// (stored as dispatch_seconds) and, with two or more GPUs, NCCL all-reduce bus bandwidth (not
// built yet: the backend reports that it was skipped).
Result<std::vector<Microbenchmark>> RunGpuMicrobenchmarks(const std::string& date);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_GPU_GPU_BACKEND_H_
