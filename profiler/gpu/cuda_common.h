// What the CUDA backend's files share (not a public interface): errors from CUDA, cuDNN and
// cuBLAS calls as exceptions, the precision mappings, a prepared call, an event timer and the
// timing loop, the convolution workspace limit, and whether there is a device at all.
#ifndef EPOCHCOST_PROFILER_GPU_CUDA_COMMON_H_
#define EPOCHCOST_PROFILER_GPU_CUDA_COMMON_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "profiler/backend.h"
#include "profiler/gpu/cublas_api.h"
#include "profiler/gpu/kernels.h"

namespace epochcost::profiler::cuda {

using gpu::Elem;

// Errors inside a build or run; Measure turns them into a Status.
struct GpuError : std::runtime_error {
  GpuError(const std::string& what, bool unsupported = false)
      : std::runtime_error(what), unsupported(unsupported) {}
  bool unsupported;
};

inline void Check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw GpuError(std::string(call) + ": " + cudaGetErrorString(e));
}
inline void Check(cudnnStatus_t e, const char* call) {
  if (e != CUDNN_STATUS_SUCCESS)
    throw GpuError(std::string(call) + ": " + cudnnGetErrorString(e),
                   e == CUDNN_STATUS_NOT_SUPPORTED || e == CUDNN_STATUS_BAD_PARAM);
}
inline void Check(cublasStatus_t e, const char* call) {
  if (e != CUBLAS_STATUS_SUCCESS)
    throw GpuError(std::string(call) + ": " + Blas().cublasGetStatusString(e),
                   e == CUBLAS_STATUS_NOT_SUPPORTED);
}
// The call's name, not its arguments: "cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM".
#define CK(call) ::epochcost::profiler::cuda::Check((call), #call)

struct Handles {
  cudaStream_t stream = nullptr;
  cudnnHandle_t dnn = nullptr;
  cublasHandle_t blas = nullptr;
};

inline Elem ElemOf(DType t) {
  return t == DType::kBFloat16 ? Elem::kBF16 : t == DType::kFloat16 ? Elem::kF16 : Elem::kF32;
}

inline cudnnDataType_t CudnnType(DType t) {
  return t == DType::kBFloat16  ? CUDNN_DATA_BFLOAT16
         : t == DType::kFloat16 ? CUDNN_DATA_HALF
                                : CUDNN_DATA_FLOAT;
}

inline cudaDataType_t CudaType(DType t) {
  return t == DType::kBFloat16 ? CUDA_R_16BF : t == DType::kFloat16 ? CUDA_R_16F : CUDA_R_32F;
}

// fp32 runs on FMA units (PyTorch with allow_tf32 off); tf32, bf16 and fp16 on tensor cores.
inline cudnnMathType_t CudnnMath(DType t) {
  return t == DType::kFloat32    ? CUDNN_FMA_MATH
         : t == DType::kTFloat32 ? CUDNN_DEFAULT_MATH
                                 : CUDNN_TENSOR_OP_MATH;
}

inline cublasComputeType_t BlasCompute(DType t) {
  return t == DType::kTFloat32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// A prepared call: `run` enqueues it on the stream; `keep` owns its buffers and descriptors.
struct Prepared {
  std::function<void()> run;
  std::vector<std::shared_ptr<void>> keep;
  std::string note;  // e.g. the convolution algorithm chosen
};

// CUDA events on a stream: Seconds per run of `run` over `inner` back-to-back runs.
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream);
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  // After a hold of `hold` seconds on the stream (gpu::Hold) where it is positive.
  double SecondsPerRun(const std::function<void()>& run, int inner, double hold);

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// The largest workspace a convolution algorithm may use (PyTorch's benchmark mode takes what it
// can allocate; this bound keeps a profile reproducible across memory sizes). Recorded in the
// fingerprint's library string.
constexpr size_t kConvWorkspaceLimit = size_t{1} << 30;

// Times `run`: warm-up; the host's seconds a call takes, on a drained stream (Measurement::host);
// then, with CUDA events, samples of `inner` back-to-back runs (enough for about 0.2 ms of device
// work, so that event resolution does not matter) queued behind a hold on the GPU, so that the GPU
// runs them without waiting for the host; each sample's time divided by `inner`.
Measurement TimeOnDevice(const std::function<void()>& run, const MeasureOptions& o,
                         cudaStream_t stream);

// Ok where CUDA sees at least one device, else why not.
Status NoDevice();

}  // namespace epochcost::profiler::cuda

#endif  // EPOCHCOST_PROFILER_GPU_CUDA_COMMON_H_
