// Repeats a callable until a minimum count and time are reached and its mean has settled, after
// warm-up, and reports the median, 10th and 90th percentile and the mean of the per-run wall
// times (steady clock).
#ifndef EPOCHCOST_PROFILER_TIMER_H_
#define EPOCHCOST_PROFILER_TIMER_H_

#include <functional>
#include <vector>

#include "profiler/backend.h"

namespace epochcost::profiler {

// Order statistics and mean of `samples` (seconds), which must not be empty. Percentiles
// interpolate linearly between order statistics (numpy's default).
Measurement Summarize(std::vector<double> samples);

// Whether the mean of `count` runs whose times sum to `sum` and whose squares sum to
// `sum_squares` is known to within `within` of itself: its standard error (the samples' standard
// deviation over the square root of the count) at most `within` times the mean. False for fewer
// than two runs.
bool MeanSettled(int count, double sum, double sum_squares, double within);

// Which of `samples` are the half nearest their median (Summarize's): the ceil(n / 2) samples
// least far from it, and any as far as the last of those: the runs a median speaks for. A bimodal
// series (a 2-thread step on a VM whose vCPUs all run it, GNU OpenMP's spinning team and
// OpenBLAS's workers taking turns) keeps the mode its median lies in, where the runs between the
// quartiles would take in the other mode's nearest runs as soon as it holds a quarter of them.
// Empty for no samples.
std::vector<bool> NearestTheMedian(const std::vector<double>& samples);

// Times `run`; `before`, when set, runs ahead of every run (warm-up ones too) and is not timed:
// the work a framework's step always does just before this op, where that changes the op's time.
Measurement TimeRuns(const std::function<void()>& run, const MeasureOptions& options,
                     const std::function<void()>& before = nullptr);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_TIMER_H_
