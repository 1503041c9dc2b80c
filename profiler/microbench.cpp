#include "profiler/microbench.h"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "profiler/cpu/torch_kernels.h"
#include "profiler/timer.h"

namespace epochcost::profiler {

Result<double> MeasurePageFault(int threads) {
  if (threads < 1) return Status::InvalidArgument("threads must be at least 1");
  constexpr int64_t kBytes = int64_t{64} << 20, kChunk = 4096;
  // The operating system's page may be larger than 4 KiB (or a transparent huge page): the
  // figure is per 4 KiB touched either way, the unit a framework's fresh tensors come in.
  std::string failed;
  omp_set_num_threads(threads);
  Measurement m = TimeRuns(
      [&] {
        void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
          failed = std::strerror(errno);
          return;
        }
        volatile char* bytes = static_cast<char*>(p);
#pragma omp parallel for
        for (int64_t i = 0; i < kBytes; i += kChunk) bytes[i] = 1;
        munmap(p, kBytes);
      },
      {.threads = threads});
  if (!failed.empty()) return Status::Internal("page-fault microbenchmark: mmap: " + failed);
  return m.median.seconds() / static_cast<double>(kBytes / kChunk);
}

Result<double> MeasureFrameworkCall(int threads) {
  if (threads < 1) return Status::InvalidArgument("threads must be at least 1");
  constexpr int64_t kCalls = 1000;
  Result<std::function<void()>> chain = TorchAutogradChain(kCalls);
  if (!chain.ok()) return chain.status();
  omp_set_num_threads(threads);
  const Measurement m = TimeRuns(*chain, {.threads = threads});
  return m.median.seconds() / static_cast<double>(kCalls);
}

Result<double> MeasureParallelPass(int threads) {
  if (threads < 2)
    return Status::InvalidArgument("a parallel pass needs at least 2 threads, got " +
                                   std::to_string(threads));
  constexpr int64_t kValues = 65536;
  std::vector<float> a(kValues, 0.f), b(kValues, 1.f), c(kValues, 2.f);
  const auto pass = [&] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < kValues; ++i) a[i] = b[i] + c[i];
  };
  omp_set_num_threads(threads);
  const Measurement many = TimeRuns(pass, {.threads = threads});
  omp_set_num_threads(1);
  const Measurement one = TimeRuns(pass, {.threads = 1});
  omp_set_num_threads(threads);
  return std::max(0.0, many.median.seconds() - one.median.seconds() / threads);
}

bool HasCpuMicrobenchmarks(const std::vector<Microbenchmark>& have, int threads) {
  for (const char* name : kCpuMicrobenchmarks) {
    bool found = false;
    for (const Microbenchmark& b : have) found = found || (b.threads == threads && b.name == name);
    if (!found) return false;
  }
  return true;
}

Result<std::vector<Microbenchmark>> RunMicrobenchmarks(Backend& cpu, int threads,
                                                       const std::string& date) {
  std::vector<Microbenchmark> out;
  const MeasureOptions options{.threads = threads};
  const int64_t n = 2048;
  Result<Measurement> gemm =
      cpu.Measure(*OpSignature::Parse("ip_fwd dt=f32 bias=0 ic=2048 mb=2048 oc=2048"), options);
  if (!gemm.ok()) return gemm.status();
  out.push_back({"peak_gemm_flops", threads, 2.0 * n * n * n / gemm->median.seconds(), date});

  const int64_t len = int64_t{1} << 24;  // 64 MiB per array, well beyond the caches
  std::vector<float> a(len, 0.f), b(len, 1.f), c(len, 2.f);
  omp_set_num_threads(threads);
  Measurement triad = TimeRuns(
      [&] {
#pragma omp parallel for
        for (int64_t i = 0; i < len; ++i) a[i] = b[i] + 3.f * c[i];
      },
      options);
  out.push_back({"triad_bytes_per_second", threads,
                 3.0 * 4.0 * static_cast<double>(len) / triad.median.seconds(), date});

  Result<Measurement> tiny =
      cpu.Measure(*OpSignature::Parse("eltwise_fwd dt=f32 alg=relu n=16"), options);
  if (!tiny.ok()) return tiny.status();
  out.push_back({"dispatch_seconds", threads, tiny->median.seconds(), date});

  Result<double> fault = MeasurePageFault(threads);
  if (!fault.ok()) return fault.status();
  out.push_back({"page_fault_seconds", threads, *fault, date});
  return out;
}

}  // namespace epochcost::profiler
