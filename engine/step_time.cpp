#include "engine/step_time.h"

#include <algorithm>
#include <set>

namespace epochcost {
namespace {

// What summing a step's ops gives besides the rows.
struct StepSum {
  Seconds total, backward;
  Seconds total_p10, total_p90;  // every op at its 10th / 90th percentile
  std::string source;            // the most expensive op's (the first of equals)
  Seconds largest;
  bool mixed = false;  // sources differ
};

StepSum Sum(const StepOps& ops, const OpTimeSource& times, const EpochOptions& o,
            std::vector<OpTiming>* rows, std::vector<OpSignature>* missing,
            std::set<std::string>* seen_missing) {
  const CallCost parallel{o.kernel_scale, o.per_gb_moved, o.per_op_overhead, o.dispatch_overlaps};
  const CallCost alone{o.kernel_scale, o.per_gb_moved,
                       o.serial_per_op_overhead.value_or(o.per_op_overhead), o.dispatch_overlaps};
  StepSum sum;
  bool first = true;
  for (const StepOp& op : ops.ops) {
    // A call the framework runs on one thread takes its 1-thread time at any thread count.
    const int row_threads = RowThreads(op, o.threads);
    const bool serial = row_threads != o.threads;
    std::optional<OpTime> t = times.Find(op.signature, row_threads);
    const CallCost& call = serial ? alone : parallel;
    if (!t) {
      if (seen_missing->insert(op.signature.ToString()).second) missing->push_back(op.signature);
      continue;
    }
    const double gb = o.per_gb_moved.seconds() > 0 ? op.signature.bytes().value() * 1e-9 : 0;
    const Seconds extra = o.dispatch_overlaps ? HostBeyondLaunch(t->host, o.launch) : Seconds();
    const Seconds cost = call(t->mean, gb, extra, op.calls) * op.count;
    sum.total += cost;
    sum.total_p10 += call(t->p10, gb, extra, op.calls) * op.count;
    sum.total_p90 += call(t->p90, gb, extra, op.calls) * op.count;
    if (IsBackward(op.signature.kind)) sum.backward += cost;
    if (!first && t->source != sum.source) sum.mixed = true;
    if (first || cost > sum.largest) {
      sum.largest = cost;
      sum.source = t->source;
    }
    first = false;
    if (rows)
      rows->push_back({op.signature, op.count, t->mean, extra, call.per_op_overhead, op.calls, cost,
                       serial ? t->source + ", its 1-thread time (run serially)" : t->source,
                       op.layers});
  }
  return sum;
}

}  // namespace

Seconds PerGbMoved(double memory_passes, BytesPerSecond bandwidth) {
  if (memory_passes <= 0 || bandwidth.value() <= 0) return Seconds();
  return Seconds::FromSeconds(memory_passes * 1e9 / bandwidth.value());
}

EpochPrediction PredictEpoch(const StepOps& train, const StepOps& eval, int64_t batch,
                             const OpTimeSource& times, const EpochOptions& options) {
  EpochPrediction p;
  std::set<std::string> seen;
  const StepSum train_sum =
      Sum(train, times, options, options.op_rows ? &p.ops : nullptr, &p.missing, &seen);
  p.step = train_sum.total + options.per_step_overhead;
  p.step_p10 = train_sum.total_p10 + options.per_step_overhead;
  p.step_p90 = train_sum.total_p90 + options.per_step_overhead;
  p.backward = train_sum.backward;
  p.source = train_sum.mixed ? train_sum.source + " and others" : train_sum.source;
  std::stable_sort(p.ops.begin(), p.ops.end(),
                   [](const OpTiming& a, const OpTiming& b) { return a.total > b.total; });
  p.steps_per_epoch = (options.samples + batch - 1) / batch;
  if (options.val_samples > 0) {
    p.eval_step =
        Sum(eval, times, options, options.op_rows ? &p.eval_ops : nullptr, &p.missing, &seen).total;
    p.eval_steps = (options.val_samples + batch - 1) / batch;
  }
  p.epoch = p.step * static_cast<double>(p.steps_per_epoch) +
            p.eval_step * static_cast<double>(p.eval_steps);
  return p;
}

}  // namespace epochcost
