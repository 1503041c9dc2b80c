#include "validation/statistics.h"

#include <algorithm>
#include <cmath>

namespace epochcost::validation {

double PercentError(double predicted, double measured) {
  return 100.0 * (predicted - measured) / measured;
}

double Mape(const std::vector<double>& predicted, const std::vector<double>& measured) {
  if (predicted.empty()) return 0;
  double sum = 0;
  for (size_t i = 0; i < predicted.size(); ++i)
    sum += std::abs(PercentError(predicted[i], measured[i]));
  return sum / static_cast<double>(predicted.size());
}

double KendallTau(const std::vector<double>& a, const std::vector<double>& b) {
  double concordant = 0, discordant = 0, untied_a = 0, untied_b = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = i + 1; j < a.size(); ++j) {
      const double da = a[i] - a[j], db = b[i] - b[j];
      if (da != 0) ++untied_a;
      if (db != 0) ++untied_b;
      if (da * db > 0) ++concordant;
      if (da * db < 0) ++discordant;
    }
  if (untied_a == 0 || untied_b == 0) return 0;
  return (concordant - discordant) / std::sqrt(untied_a * untied_b);
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double BestSingleValue(const std::vector<double>& measured) {
  std::vector<double> x = measured;
  std::sort(x.begin(), x.end());
  double total = 0;
  for (double v : x) total += 1 / v;
  double below = 0;
  for (double v : x) {
    below += 1 / v;
    if (below >= total / 2) return v;
  }
  return 0;
}

}  // namespace epochcost::validation
