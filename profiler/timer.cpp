#include "profiler/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace epochcost::profiler {
namespace {

double Percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

Measurement Summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  Measurement m;
  m.median = Seconds::FromSeconds(Percentile(samples, 0.5));
  m.p10 = Seconds::FromSeconds(Percentile(samples, 0.1));
  m.p90 = Seconds::FromSeconds(Percentile(samples, 0.9));
  double sum = 0;
  for (double x : samples) sum += x;
  m.mean = Seconds::FromSeconds(sum / static_cast<double>(samples.size()));
  m.count = static_cast<int>(samples.size());
  return m;
}

bool MeanSettled(int count, double sum, double sum_squares, double within) {
  if (count < 2) return false;
  const double n = static_cast<double>(count);
  const double mean = sum / n;
  const double variance = std::max(0.0, (sum_squares - sum * mean) / (n - 1));
  return std::sqrt(variance / n) <= within * mean;
}

std::vector<bool> NearestTheMedian(const std::vector<double>& samples) {
  if (samples.empty()) return {};
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double median = Percentile(sorted, 0.5);
  std::vector<double> distance;
  for (double x : samples) distance.push_back(std::abs(x - median));
  std::sort(distance.begin(), distance.end());
  const double within = distance[(samples.size() + 1) / 2 - 1];  // the ceil(n / 2)-th nearest
  std::vector<bool> in(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) in[i] = std::abs(samples[i] - median) <= within;
  return in;
}

Measurement TimeRuns(const std::function<void()>& run, const MeasureOptions& options,
                     const std::function<void()>& before) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < options.warmup; ++i) {
    if (before) before();
    run();
  }
  std::vector<double> samples;
  double total = 0, squares = 0;
  const double min_time = options.min_time.seconds(), max_time = 10 * min_time;
  auto more = [&] {
    const int count = static_cast<int>(samples.size());
    if (count < options.min_repeats || total < min_time) return true;
    return total < max_time && !MeanSettled(count, total, squares, options.mean_within);
  };
  while (more()) {
    if (before) before();
    const auto start = Clock::now();
    run();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    samples.push_back(s);
    total += s;
    squares += s * s;
    if (samples.size() >= kMaxRuns) break;
  }
  return Summarize(std::move(samples));
}

}  // namespace epochcost::profiler
