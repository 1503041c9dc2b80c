// Device microbenchmarks stored with a profile: the peak fp32 GEMM rate (a 2048^3 inner
// product), memory bandwidth (STREAM triad, counting 3 x 4 bytes per element) and the dispatch
// cost of a primitive too small to do work (an element-wise op over 16 values).
#ifndef EPOCHCOST_PROFILER_MICROBENCH_H_
#define EPOCHCOST_PROFILER_MICROBENCH_H_

#include <vector>

#include "profiler/backend.h"
#include "profiler/profile_store.h"

namespace epochcost::profiler {

Result<std::vector<Microbenchmark>> RunMicrobenchmarks(Backend& cpu, int threads,
                                                       const std::string& date);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_MICROBENCH_H_
