// Device microbenchmarks stored with a profile: the peak fp32 GEMM rate (a 2048^3 inner
// product), memory bandwidth (STREAM triad, counting 3 x 4 bytes per element), the dispatch
// cost of a primitive too small to do work (an element-wise op over 16 values) and the cost of
// faulting in fresh memory (first touch of a new anonymous mapping, per 4 KiB, its unmapping
// included): what a framework pays again each step for the memory its allocator returned to the
// operating system (11 us on the Zen 5 VM of data/profiles, docs/profiles.md).
#ifndef EPOCHCOST_PROFILER_MICROBENCH_H_
#define EPOCHCOST_PROFILER_MICROBENCH_H_

#include <string>
#include <vector>

#include "profiler/backend.h"
#include "profiler/profile_store.h"

namespace epochcost::profiler {

// The names RunMicrobenchmarks stores, at each thread count.
inline constexpr const char* kCpuMicrobenchmarks[] = {"peak_gemm_flops", "triad_bytes_per_second",
                                                      "dispatch_seconds", "page_fault_seconds"};

Result<std::vector<Microbenchmark>> RunMicrobenchmarks(Backend& cpu, int threads,
                                                       const std::string& date);

// Seconds to fault in 4 KiB of fresh anonymous memory with `threads` threads touching it: a
// 64 MiB mapping written once per page, then unmapped, timed as a whole, per 4 KiB.
Result<double> MeasurePageFault(int threads);

// PyTorch's own cost per op call on this CPU at `threads` (ATen's dispatcher, autograd's recording
// and its engine: a 1,000-call autograd chain through the ATen module, timed whole, per call),
// stored as kFrameworkCall where the module is there; Unsupported where it is not
// (torch_kernels.h). `predict` charges it per op call of a step lowered as PyTorch runs it,
// instead of dispatch_seconds, which is oneDNN's cost of a primitive call alone.
inline constexpr const char* kFrameworkCall = "framework_call_seconds";
Result<double> MeasureFrameworkCall(int threads);

// What one parallel pass costs beyond its work at `threads` (at least 2): an OpenMP loop adding
// 65,536 floats, as ATen splits an element-wise op of two 32,768-value grains, timed at `threads`
// and at 1 thread, the first less the second's share of one thread (at least 0). Stored as
// kParallelPass beside each multi-threaded profile: it tells which state its rows were timed in
// on a VM whose hypervisor moves its vCPUs between near and far cores (about 1 us and 3 us a pass
// on the tenth Zen 4 VM, where a far state made a 2-thread step up to 2.2x as long;
// docs/accuracy.md, "Near and far vCPUs"). The reference harness logs PyTorch's own figure for
// each run. No prediction uses it yet.
inline constexpr const char* kParallelPass = "parallel_pass_seconds";
Result<double> MeasureParallelPass(int threads);

// Whether `have` holds every CPU microbenchmark at `threads` (a profile measured before one
// existed lacks it, and `profile` then measures them again).
bool HasCpuMicrobenchmarks(const std::vector<Microbenchmark>& have, int threads);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_MICROBENCH_H_
