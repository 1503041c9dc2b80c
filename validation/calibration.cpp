#include "validation/calibration.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "validation/statistics.h"

namespace epochcost::validation {
namespace {

Seconds StepTime(const std::vector<OpCost>& ops, bool overlaps, const Correction& c) {
  Seconds s;
  for (const OpCost& op : ops) {
    const Seconds k = op.kernel * c.kernel_scale;
    s += (overlaps ? std::max(k, c.per_op_overhead) : k + c.per_op_overhead) * op.count;
  }
  return s;
}

double SquaredRelativeError(const std::vector<const CalibrationSample*>& samples,
                            const Correction& c) {
  double sum = 0;
  for (const CalibrationSample* s : samples) {
    const double r = EpochTime(s->terms, c).seconds() / s->measured_seconds - 1;
    sum += r * r;
  }
  return sum;
}

// Without overlap: epoch = scale * A + overhead * B + C per sample, linear in both parameters.
Correction FitLinear(const std::vector<const CalibrationSample*>& samples) {
  const Eigen::Index n = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const CalibrationSample& s = *samples[i];
    const PredictionTerms& t = s.terms;
    double a = 0, b = 0;
    for (const OpCost& op : t.train) {
      a += t.steps * op.count * op.kernel.seconds();
      b += t.steps * op.count;
    }
    for (const OpCost& op : t.eval) {
      a += t.eval_steps * op.count * op.kernel.seconds();
      b += t.eval_steps * op.count;
    }
    const double c = t.steps * t.extra_per_step.seconds();
    x(i, 0) = a / s.measured_seconds;
    x(i, 1) = b / s.measured_seconds;
    y(i) = (s.measured_seconds - c) / s.measured_seconds;
  }
  std::vector<Correction> candidates;
  const Eigen::Vector2d free = x.colPivHouseholderQr().solve(y);
  if (free(0) > 0 && free(1) >= 0)
    candidates.push_back({free(0), Seconds::FromSeconds(free(1))});
  // The scale alone (overhead 0), and the overhead alone (scale 1).
  const double xx = x.col(0).squaredNorm(), ov = x.col(1).squaredNorm();
  if (xx > 0 && x.col(0).dot(y) > 0) candidates.push_back({x.col(0).dot(y) / xx, Seconds()});
  if (ov > 0)
    candidates.push_back(
        {1.0, Seconds::FromSeconds(std::max(0.0, x.col(1).dot(y - x.col(0)) / ov))});
  if (candidates.empty()) candidates.push_back({});
  Correction best = candidates.front();
  double best_err = std::numeric_limits<double>::infinity();
  for (const Correction& c : candidates)
    if (double e = SquaredRelativeError(samples, c); e < best_err) {
      best_err = e;
      best = c;
    }
  return best;
}

// With overlap: a grid over log10(scale) and log10(overhead seconds) (and overhead 0), refined
// twice around the best point.
Correction FitGrid(const std::vector<const CalibrationSample*>& samples) {
  double best_err = std::numeric_limits<double>::infinity();
  double best_ls = 0, best_lo = -9;  // log10 scale, log10 overhead (-9: zero)
  auto consider = [&](double ls, double lo) {
    const Correction c{std::pow(10.0, ls), lo <= -9 ? Seconds()
                                                     : Seconds::FromSeconds(std::pow(10.0, lo))};
    if (double e = SquaredRelativeError(samples, c); e < best_err) {
      best_err = e;
      best_ls = ls;
      best_lo = lo;
    }
  };
  double step_s = 0.02, step_o = 0.05;
  for (double ls = -1.5; ls <= 1.5 + 1e-9; ls += step_s) {
    consider(ls, -9);
    for (double lo = -8; lo <= -2 + 1e-9; lo += step_o) consider(ls, lo);
  }
  for (int round = 0; round < 2; ++round) {
    const double cs = best_ls, co = best_lo;
    const double ss = step_s, so = step_o;
    step_s /= 10;
    step_o /= 10;
    for (double ls = cs - 2 * ss; ls <= cs + 2 * ss + 1e-12; ls += step_s) {
      if (co <= -9) {
        consider(ls, -9);
        continue;
      }
      for (double lo = co - 2 * so; lo <= co + 2 * so + 1e-12; lo += step_o) consider(ls, lo);
    }
  }
  return {std::pow(10.0, best_ls),
          best_lo <= -9 ? Seconds() : Seconds::FromSeconds(std::pow(10.0, best_lo))};
}

}  // namespace

Seconds EpochTime(const PredictionTerms& t, const Correction& c) {
  return (StepTime(t.train, t.overlaps, c) + t.extra_per_step) * t.steps +
         StepTime(t.eval, t.overlaps, c) * t.eval_steps;
}

Seconds Uncalibrated(const PredictionTerms& t) {
  return EpochTime(t, {.kernel_scale = 1, .per_op_overhead = t.overhead});
}

Result<Correction> FitCorrection(const std::vector<const CalibrationSample*>& samples) {
  if (samples.size() < 3)
    return Status::InvalidArgument("a calibration needs at least 3 runs, got " +
                                   std::to_string(samples.size()));
  const bool overlaps = samples.front()->terms.overlaps;
  for (const CalibrationSample* s : samples)
    if (s->terms.overlaps != overlaps)
      return Status::InvalidArgument("CPU and GPU runs cannot share one calibration");
  return overlaps ? FitGrid(samples) : FitLinear(samples);
}

Result<CrossValidation> CrossValidate(const std::vector<const CalibrationSample*>& samples,
                                      int folds) {
  if (folds < 2) return Status::InvalidArgument("--folds must be at least 2");
  CrossValidation cv;
  cv.folds = std::min<int>(folds, static_cast<int>(samples.size()));
  cv.before.resize(samples.size());
  cv.after.resize(samples.size());
  for (int f = 0; f < cv.folds; ++f) {
    std::vector<const CalibrationSample*> train;
    for (size_t i = 0; i < samples.size(); ++i)
      if (static_cast<int>(i % cv.folds) != f) train.push_back(samples[i]);
    Result<Correction> c = FitCorrection(train);
    if (!c.ok()) return c.status().WithContext("fold " + std::to_string(f + 1));
    for (size_t i = f; i < samples.size(); i += cv.folds)
      cv.after[i] = EpochTime(samples[i]->terms, *c).seconds();
  }
  std::vector<double> measured;
  for (size_t i = 0; i < samples.size(); ++i) {
    cv.before[i] = Uncalibrated(samples[i]->terms).seconds();
    measured.push_back(samples[i]->measured_seconds);
    cv.worst_before = std::max(cv.worst_before,
                               std::abs(PercentError(cv.before[i], measured.back())));
    cv.worst_after =
        std::max(cv.worst_after, std::abs(PercentError(cv.after[i], measured.back())));
  }
  cv.mape_before = Mape(cv.before, measured);
  cv.mape_after = Mape(cv.after, measured);
  return cv;
}

}  // namespace epochcost::validation
