#include "engine/parallel.h"

#include <Eigen/Dense>
#include <algorithm>
#include <set>

namespace epochcost {

double Usl::Speedup(double n) const {
  if (max_n > 0) n = std::min(n, max_n);
  if (n <= 1) return n;
  return n / (1 + alpha * (n - 1) + beta * n * (n - 1));
}

Usl FitUsl(const std::vector<SpeedupPoint>& points, const Usl& prior) {
  std::vector<SpeedupPoint> use;
  std::set<double> counts;
  for (const SpeedupPoint& p : points)
    if (p.threads > 1 && p.speedup > 0) {
      use.push_back(p);
      counts.insert(p.threads);
    }
  if (use.empty()) return prior;
  std::string list = "1";
  for (double n : counts) list += "," + std::to_string(static_cast<int>(n));
  const int rows = static_cast<int>(use.size());
  Eigen::VectorXd y(rows);
  for (int i = 0; i < rows; ++i) y(i) = use[i].threads / use[i].speedup - 1;
  Usl out = prior;
  if (counts.size() >= 2) {
    Eigen::MatrixXd a(rows, 2);
    for (int i = 0; i < rows; ++i) {
      const double n = use[i].threads;
      a(i, 0) = n - 1;
      a(i, 1) = n * (n - 1);
    }
    const Eigen::Vector2d x = a.colPivHouseholderQr().solve(y);
    out.alpha = std::max(0.0, x(0));
    out.beta = std::max(0.0, x(1));
    out.how = "fitted from threads " + list;
    out.max_n = *counts.rbegin();
    return out;
  }
  // One thread count: α from y = α(n−1) + β n(n−1) with β at its prior.
  Eigen::VectorXd a(rows), r(rows);
  for (int i = 0; i < rows; ++i) {
    const double n = use[i].threads;
    a(i) = n - 1;
    r(i) = y(i) - prior.beta * n * (n - 1);
  }
  out.alpha = std::max(0.0, a.dot(r) / a.dot(a));
  out.how = "alpha fitted from threads " + list + ", beta prior";
  return out;
}

Seconds RingAllReduce(Bytes bytes, int n, BytesPerSecond link, Seconds latency) {
  if (n <= 1) return Seconds();
  return bytes / link * (2.0 * (n - 1) / n) + latency * (2.0 * (n - 1));
}

}  // namespace epochcost
