// From op times to step and epoch times: a step is the sum over its op signatures of count x
// (measured time + a per-op framework overhead) on a CPU, count x max(measured time, overhead)
// on a GPU, whose kernels run while the host dispatches the next; an epoch is its steps plus, when
// validation samples are given, the forward passes over them. The engine reads op times through
// OpTimeSource, which the profiler's store implements.
#ifndef EPOCHCOST_ENGINE_STEP_TIME_H_
#define EPOCHCOST_ENGINE_STEP_TIME_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/lowering.h"

namespace epochcost {

struct OpTime {
  Seconds median;
  Seconds p10;
  Seconds p90;
  // What a step pays on average for the op: the mean of the measured runs (the median where a
  // measurement has no mean, or the time is scaled). A step sums its ops' means, not their medians:
  // where an op's runs are bimodal (two thread pools on two cores, docs/accuracy.md "The
  // step sums means"), the median hides the slow mode the step pays.
  Seconds mean;
  std::string source;  // "measured here (DATE)", "measured here in the step (DATE)"
  // A GPU call's host seconds (its library API and launches, profiler/backend.h); 0: unknown.
  Seconds host;
};

class OpTimeSource {
 public:
  virtual ~OpTimeSource() = default;
  virtual std::optional<OpTime> Find(const OpSignature& sig, int threads) const = 0;
};

struct EpochOptions {
  int threads = 1;
  Seconds per_op_overhead;  // framework dispatch per op call
  // The dispatch of a call the framework runs on one thread (StepOp::serial) when `threads` is
  // more: where per_op_overhead is the device's measured dispatch, the 1-thread one (no OpenMP
  // region to open); else per_op_overhead. Unset: per_op_overhead.
  std::optional<Seconds> serial_per_op_overhead;
  double kernel_scale = 1;         // a calibration's multiplier on every op time (validation/)
  Seconds per_step_overhead;       // a calibration's fixed cost per training step
  Seconds per_gb_moved;            // a calibration's cost per GB of an op's memory traffic
  bool dispatch_overlaps = false;  // a GPU: the dispatch of one op overlaps the work of another
  // A GPU: the plain kernel launch per_op_overhead counts (the device's dispatch_seconds). An
  // op whose measured host time (OpTime::host) is longer adds the difference to its dispatch.
  Seconds launch;
  int64_t samples = 0;      // training samples per epoch
  int64_t val_samples = 0;  // validation samples per epoch (forward only)
  bool op_rows = true;      // false: only the totals, the backward time and the sources' summary
                            // (what ranking many machines needs; each row copies its signature)
};

struct OpTiming {
  OpSignature signature;
  int count = 0;
  Seconds each;  // measured mean (scaled or carried over: one figure), before kernel_scale
  // A GPU call's measured host time beyond a plain launch (EpochOptions::launch); 0 elsewhere.
  Seconds host_extra;
  // The per-op overhead charged to each framework call: EpochOptions::per_op_overhead, or its
  // serial_per_op_overhead for a call the framework runs on one thread.
  Seconds overhead;
  int calls = 1;  // framework calls per call of the op (StepOp::calls)
  // count x (kernel + calls x overhead), or count x max(kernel, calls x overhead + host_extra),
  // where kernel is scale x each + per_gb_moved x the op's GB moved
  Seconds total;
  std::string source;
  std::vector<std::string> layers;
};

struct EpochPrediction {
  Seconds step;
  // The step with every op at its own 10th / 90th percentile time instead of its mean: the
  // spread of the measurements behind it (equal to the step where the times are scaled, which
  // keep one figure per op). Not a confidence interval: an op's slow runs need not coincide.
  Seconds step_p10, step_p90;
  Seconds eval_step;
  int64_t steps_per_epoch = 0;
  int64_t eval_steps = 0;
  Seconds epoch;
  Seconds backward;                  // the training step's backward ops (IsBackward)
  std::string source;                // the training ops' sources: the one all share, else the most
                                     // expensive op's, "and others"
  std::vector<OpTiming> ops;         // of the training step, largest total first
  std::vector<OpTiming> eval_ops;    // of the validation step, in lowering order
  std::vector<OpSignature> missing;  // signatures with no measurement
};

// What one call of an op costs in a step: its kernel (the measured time x kernel_scale, plus
// per_gb_moved for each GB the call moves) and the framework's dispatch, one after the other on a
// CPU, overlapped on a GPU (the longer of the two, the dispatch plus what the call's library
// takes the host beyond a plain launch: `host_extra`, measured). PredictEpoch and the
// calibration's fit (validation/calibration.cpp) both price calls with it.
struct CallCost {
  double kernel_scale = 1;
  Seconds per_gb_moved;
  Seconds per_op_overhead;
  bool overlaps = false;
  // One call of an op that makes `calls` framework calls (StepOp::calls), each paying the
  // overhead.
  Seconds operator()(Seconds measured, double gb, Seconds host_extra = Seconds(),
                     int calls = 1) const {
    const Seconds kernel = measured * kernel_scale + per_gb_moved * gb;
    const Seconds overhead = per_op_overhead * calls;
    return overlaps ? std::max(kernel, overhead + host_extra) : kernel + overhead;
  }
};

// A GPU call's host time beyond the plain `launch` a dispatch counts: 0 where the host time is
// unknown (0) or not longer.
inline Seconds HostBeyondLaunch(Seconds host, Seconds launch) {
  return std::max(Seconds(), host - launch);
}

// A calibration's memory passes as a cost per GB an op moves at `bandwidth`: passes x 1 GB /
// bandwidth (0 where either is not positive).
Seconds PerGbMoved(double memory_passes, BytesPerSecond bandwidth);

// Steps per epoch are ceil(samples / batch), the last one timed as a full batch.
EpochPrediction PredictEpoch(const StepOps& train, const StepOps& eval, int64_t batch,
                             const OpTimeSource& times, const EpochOptions& options);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_STEP_TIME_H_
