// Calibration: up to four documented correction parameters per framework and device kind, fitted
// to real runs by least squares on relative errors (docs/calibration.md):
//   kernel_scale     multiplies every op's predicted kernel time (the framework's kernels are
//                    that much slower or faster than the ones epochcost measured or scaled); on
//                    GPUs fitted only where the inner cross-validation says it predicts better;
//   per_op_overhead  replaces the per-op dispatch cost (the framework's own work per op call:
//                    Python, autograd, graph executor), added to each op on a CPU and overlapping
//                    the kernels on a GPU (an op costs max(kernel, overhead)); on a CPU one for
//                    runs on one thread and one for runs on more, where the runs have both
//                    (the host thread shares its cores with the runtime's workers);
//   per_step_overhead the framework's fixed cost per training step (optimizer and training loop
//                    in Python, callbacks, fresh buffers), added to each training step; fitted
//                    only where the runs' inner cross-validation says it predicts better;
//   memory_passes    extra passes over each op's memory traffic (OpSignature::bytes) at the
//                    step's memory bandwidth, added to the op's kernel time: memory the
//                    profiler's repeated calls find warm and a framework's step does not (fresh
//                    outputs faulted in, data gone from the caches between ops); CPUs only,
//                    fitted where the inner cross-validation says it predicts better.
// A run's prediction is kept as the terms these act on (PredictionTerms), so a fit evaluates
// thousands of candidate corrections without predicting again. Judged by K-fold cross-validation:
// each fold's runs are predicted with the correction fitted on the other folds.
#ifndef EPOCHCOST_VALIDATION_CALIBRATION_H_
#define EPOCHCOST_VALIDATION_CALIBRATION_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/machine.h"

namespace epochcost::validation {

struct OpCost {
  double count = 0;    // calls per step
  Seconds kernel;      // one call, without overhead
  Bytes bytes;         // one call's memory traffic
  Seconds host_extra;  // a GPU call's measured host time beyond a plain launch (OpTiming)
  int calls = 1;       // framework calls per call, each paying the per-op overhead (OpTiming)
  // The call's uncalibrated dispatch where it is not PredictionTerms::overhead (a call run on one
  // thread in a step of more: the 1-thread dispatch). A calibration's per-op overhead replaces
  // both.
  std::optional<Seconds> dispatch;
};

struct PredictionTerms {
  std::vector<OpCost> train, eval;
  double steps = 0, eval_steps = 0;
  Seconds extra_per_step;    // what is not per-op: host input, exposed all-reduce
  bool overlaps = false;     // GPU: an op costs max(kernel, overhead), else kernel + overhead
  bool threaded = false;     // CPU: the step runs on more than one thread
  Seconds overhead;          // the uncalibrated per-op overhead
  BytesPerSecond bandwidth;  // CPU: the memory bandwidth of the cores used (0: unknown, or
                             // the run's allocator keeps its memory: no memory passes)
};

using Correction = KernelCorrection;

// Epoch seconds of the terms under a correction; Uncalibrated() uses the terms' own overhead.
Seconds EpochTime(const PredictionTerms& terms, const Correction& c);
Seconds Uncalibrated(const PredictionTerms& terms);

struct CalibrationSample {
  PredictionTerms terms;
  double measured_seconds = 0;  // per epoch
};

// The correction minimising the sum of squared relative errors. Without overlap the model is
// linear in its parameters and solved exactly (Eigen; parameters held at 1 or 0 when the free
// solution leaves the valid range); with overlap it is piecewise linear in (scale, per-op
// overhead), found on a log grid refined twice, with the per-step overhead solved exactly at
// each point. The per-step overhead, and without overlap the memory passes, are fitted when
// an inner 5-fold cross-validation over the samples predicts them better with them than without
// (needs 4 samples); else they stay 0. With overlap the kernel scale is chosen the same way (else
// it stays 1): a scale below 1 with a larger overhead fits short runs as well as the overhead
// alone. Needs at least 3 samples.
Result<Correction> FitCorrection(const std::vector<const CalibrationSample*>& samples);

struct CrossValidation {
  int folds = 0;
  std::vector<double> before, after;  // per sample: uncalibrated and held-out calibrated seconds
  double mape_before = 0, mape_after = 0, worst_before = 0, worst_after = 0;  // percent
};
// Sample i is in fold i % folds; folds is capped at the number of samples (leave-one-out).
Result<CrossValidation> CrossValidate(const std::vector<const CalibrationSample*>& samples,
                                      int folds);
// Sample i is in fold `fold[i]` (0 to K-1, each used): one fold per model or per machine asks
// whether a correction carries to a model or a machine it has not seen.
Result<CrossValidation> CrossValidateFolds(const std::vector<const CalibrationSample*>& samples,
                                           const std::vector<int>& fold);

}  // namespace epochcost::validation

#endif  // EPOCHCOST_VALIDATION_CALIBRATION_H_
