// Repeats a callable until a minimum count and time are reached, after warm-up, and reports the
// median, 10th and 90th percentile and the mean of the per-run wall times (steady clock).
#ifndef EPOCHCOST_PROFILER_TIMER_H_
#define EPOCHCOST_PROFILER_TIMER_H_

#include <functional>
#include <vector>

#include "profiler/backend.h"

namespace epochcost::profiler {

// Order statistics and mean of `samples` (seconds), which must not be empty. Percentiles
// interpolate linearly between order statistics (numpy's default).
Measurement Summarize(std::vector<double> samples);

// Times `run`; `before`, when set, runs ahead of every run (warm-up ones too) and is not timed:
// the work a framework's step always does just before this op, where that changes the op's time.
Measurement TimeRuns(const std::function<void()>& run, const MeasureOptions& options,
                     const std::function<void()>& before = nullptr);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_TIMER_H_
