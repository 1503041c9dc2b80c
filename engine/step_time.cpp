#include "engine/step_time.h"

#include <algorithm>
#include <set>

namespace epochcost {
namespace {

Seconds Sum(const StepOps& ops, const OpTimeSource& times, const EpochOptions& o,
            std::vector<OpTiming>* rows, std::vector<OpSignature>* missing,
            std::set<std::string>* seen_missing) {
  Seconds total;
  for (const StepOp& op : ops.ops) {
    std::optional<OpTime> t = times.Find(op.signature, o.threads);
    if (!t) {
      if (seen_missing->insert(op.signature.ToString()).second) missing->push_back(op.signature);
      continue;
    }
    // A GPU runs its kernels while the host queues the next ones: an op costs the longer of
    // the two. A CPU does the dispatch and the work one after the other.
    const Seconds kernel = t->median * o.kernel_scale;
    const Seconds each = o.dispatch_overlaps ? std::max(kernel, o.per_op_overhead)
                                             : kernel + o.per_op_overhead;
    const Seconds cost = each * op.count;
    total += cost;
    if (rows) rows->push_back({op.signature, op.count, t->median, cost, t->source, op.layers});
  }
  return total;
}

}  // namespace

EpochPrediction PredictEpoch(const StepOps& train, const StepOps& eval, int64_t batch,
                             const OpTimeSource& times, const EpochOptions& options) {
  EpochPrediction p;
  std::set<std::string> seen;
  p.step = Sum(train, times, options, &p.ops, &p.missing, &seen);
  std::sort(p.ops.begin(), p.ops.end(),
            [](const OpTiming& a, const OpTiming& b) { return a.total > b.total; });
  p.steps_per_epoch = (options.samples + batch - 1) / batch;
  if (options.val_samples > 0) {
    p.eval_step = Sum(eval, times, options, &p.eval_ops, &p.missing, &seen);
    p.eval_steps = (options.val_samples + batch - 1) / batch;
  }
  p.epoch = p.step * static_cast<double>(p.steps_per_epoch) +
            p.eval_step * static_cast<double>(p.eval_steps);
  return p;
}

}  // namespace epochcost
