// GPU 0's fingerprint and microbenchmarks (gpu_backend.h: LocalGpu, RunGpuMicrobenchmarks).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "profiler/gpu/cuda_common.h"
#include "profiler/gpu/gpu_backend.h"
#include "profiler/gpu/kernels.h"
#include "profiler/timer.h"

namespace epochcost::profiler {
namespace {

using namespace cuda;  // NOLINT: the backend's own helpers

std::string Version3(int v, int major_div, int minor_div) {
  return std::to_string(v / major_div) + "." + std::to_string(v % major_div / minor_div);
}

}  // namespace

Result<Fingerprint> LocalGpu() {
  EPOCHCOST_RETURN_IF_ERROR(NoDevice());
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
    return Status::Unsupported("cannot read the properties of GPU 0");
  int clock_khz = 0, mem_clock_khz = 0, runtime = 0, driver = 0, blas = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  cublasHandle_t h;
  if (LoadCublas().ok() && Blas().cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
    Blas().cublasGetVersion(h, &blas);
    Blas().cublasDestroy(h);
  }
  const size_t dnn = cudnnGetVersion();
  Fingerprint f;
  f.kind = "gpu";
  f.model = p.name;
  f.isa = "sm_" + std::to_string(p.major) + std::to_string(p.minor) + " " +
          std::to_string(p.multiProcessorCount) + " SMs " + std::to_string(clock_khz / 1000) +
          " MHz, " + std::to_string(p.totalGlobalMem >> 20) + " MiB at " +
          std::to_string(mem_clock_khz / 1000) + " MHz";
  f.cores = p.multiProcessorCount;
  f.logical_cpus = 0;
  f.library = "CUDA " + Version3(runtime, 1000, 10) + " (driver " + Version3(driver, 1000, 10) +
              "), cuDNN " + std::to_string(dnn / 10000) + "." + std::to_string(dnn % 10000 / 100) +
              "." + std::to_string(dnn % 100) + ", cuBLAS " + std::to_string(blas / 10000) + "." +
              std::to_string(blas % 10000 / 100) +
              "; convolutions: cuDNN graph API, fastest timed plan (cudnnFind where none), "
              "workspace <= " +
              std::to_string(kConvWorkspaceLimit >> 20) + " MiB";
  return f;
}

Result<std::vector<Microbenchmark>> RunGpuMicrobenchmarks(const std::string& date) {
  Result<std::unique_ptr<Backend>> backend = MakeGpuBackend();
  if (!backend.ok()) return backend.status();
  std::vector<Microbenchmark> out;
  const MeasureOptions options{
      .warmup = 3, .min_repeats = 10, .min_time = Seconds::FromMilliseconds(100)};
  const int64_t n = 8192;
  for (const char* dt : {"f32", "tf32", "bf16", "f16"}) {
    Result<Measurement> m = (*backend)->Measure(
        *OpSignature::Parse(std::string("matmul dt=") + dt + " b=1 k=8192 m=8192 n=8192"), options);
    if (!m.ok()) return m.status();
    const std::string name =
        std::string("peak_gemm_flops") + (dt == std::string("f32") ? "" : std::string("_") + dt);
    out.push_back({name, 1, 2.0 * n * n * n / m->median.seconds(), date});
  }
  const int64_t elements = int64_t{1} << 28;  // 1 GiB of f32, far beyond the L2 cache
  Result<Measurement> copy = (*backend)->Measure(
      *OpSignature::Parse("reorder dt=f32 n=" + std::to_string(elements)), options);
  if (!copy.ok()) return copy.status();
  out.push_back({"copy_bytes_per_second", 1, 2.0 * 4.0 * elements / copy->median.seconds(), date});

  try {
    const size_t bytes = size_t{256} << 20;
    void* host = nullptr;
    void* dev = nullptr;
    CK(cudaMallocHost(&host, bytes));
    std::shared_ptr<void> free_host(host, [](void* p) { cudaFreeHost(p); });
    CK(cudaMalloc(&dev, bytes));
    std::shared_ptr<void> free_dev(dev, [](void* p) { cudaFree(p); });
    Measurement h2d = TimeOnDevice(
        [&] { CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, nullptr)); }, options,
        nullptr);
    out.push_back({"h2d_bytes_per_second", 1, bytes / h2d.median.seconds(), date});
    // Launch cost as the host sees it: back-to-back launches of an empty kernel.
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<double> samples;
    for (int rep = 0; rep < 20; ++rep) {
      const int launches = 2000;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < launches; ++i) CK(gpu::Empty(stream));
      const auto t1 = std::chrono::steady_clock::now();
      CK(cudaStreamSynchronize(stream));
      samples.push_back(std::chrono::duration<double>(t1 - t0).count() / launches);
    }
    cudaStreamDestroy(stream);
    out.push_back({"dispatch_seconds", 1, Summarize(samples).median.seconds(), date});
  } catch (const GpuError& e) {
    return Status::Internal(std::string("GPU microbenchmark: ") + e.what());
  }
  return out;
}

}  // namespace epochcost::profiler
