#include "profiler/gpu/cuda_common.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "profiler/gpu/kernels.h"
#include "profiler/timer.h"

namespace epochcost::profiler::cuda {

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
  CK(cudaEventCreate(&start_));
  CK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

double EventTimer::SecondsPerRun(const std::function<void()>& run, int inner, double hold) {
  if (hold > 0) CK(gpu::Hold(hold, stream_));
  CK(cudaEventRecord(start_, stream_));
  for (int i = 0; i < inner; ++i) run();
  CK(cudaEventRecord(stop_, stream_));
  CK(cudaEventSynchronize(stop_));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms * 1e-3 / inner;
}

Measurement TimeOnDevice(const std::function<void()>& run, const MeasureOptions& o,
                         cudaStream_t stream) {
  EventTimer timer(stream);
  for (int i = 0; i < std::max(o.warmup, 1); ++i) run();
  CK(cudaStreamSynchronize(stream));
  const double once = timer.SecondsPerRun(run, 1, 0);
  const double runs_in_02ms = 2e-4 / std::max(once, 1e-7);  // runs in 0.2 ms of device work
  // The host's part: single calls on a drained stream, timed on the host clock from the call to
  // its return (the kernels run after it). As many calls as 0.2 ms of device work allows, at
  // least 5 and at most 21, so that a long kernel is not run for seconds more.
  const int calls = static_cast<int>(std::clamp(runs_in_02ms, 5.0, 21.0));
  std::vector<double> host;
  for (int i = 0; i < calls; ++i) {
    CK(cudaStreamSynchronize(stream));
    const auto t0 = std::chrono::steady_clock::now();
    run();
    host.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  CK(cudaStreamSynchronize(stream));
  std::sort(host.begin(), host.end());
  const double slowest_host = host.back();
  // The device's part: samples of `inner` back-to-back runs (about 0.2 ms of device work, so that
  // event resolution does not matter), queued behind a hold long enough for the host to queue
  // them all, so that a call shorter than its host time is timed on the GPU, not at the rate the
  // host issues it. The hold is bounded (20 ms), and with it the runs of a sample.
  constexpr double kMaxHold = 20e-3;
  auto hold_for = [&](int n) { return n * slowest_host * 1.5 + 20e-6; };
  int inner = static_cast<int>(std::clamp(runs_in_02ms, 1.0, 200.0));
  while (inner > 1 && hold_for(inner) > kMaxHold) inner /= 2;
  const double hold = std::min(hold_for(inner), kMaxHold);
  std::vector<double> samples;
  double spent = 0;  // device seconds, holds included
  while (static_cast<int>(samples.size()) < o.min_repeats || spent < o.min_time.seconds()) {
    samples.push_back(timer.SecondsPerRun(run, inner, hold));
    spent += samples.back() * inner + hold;
  }
  Measurement m = Summarize(std::move(samples));
  m.host = Seconds::FromSeconds(host[host.size() / 2]);
  return m;
}

Status NoDevice() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return Status::Unsupported(std::string("no usable NVIDIA GPU on this machine (") +
                               cudaGetErrorString(e) + ")");
  if (count == 0) return Status::Unsupported("no NVIDIA GPU on this machine");
  return Status::Ok();
}

}  // namespace epochcost::profiler::cuda
