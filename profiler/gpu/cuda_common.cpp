#include "profiler/gpu/cuda_common.h"

namespace epochcost::profiler::cuda {

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
  CK(cudaEventCreate(&start_));
  CK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

double EventTimer::SecondsPerRun(const std::function<void()>& run, int inner) {
  CK(cudaEventRecord(start_, stream_));
  for (int i = 0; i < inner; ++i) run();
  CK(cudaEventRecord(stop_, stream_));
  CK(cudaEventSynchronize(stop_));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms * 1e-3 / inner;
}

}  // namespace epochcost::profiler::cuda
