#include "engine/memory.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/analysis.h"

namespace epochcost {

int OptimizerStateArrays(Optimizer o) {
  switch (o) {
    case Optimizer::kSgd:
      return 0;
    case Optimizer::kMomentum:
    case Optimizer::kRmsprop:
      return 1;
    case Optimizer::kAdam:
    case Optimizer::kAdamw:
    case Optimizer::kAdadelta:
      return 2;
  }
  return 0;
}

namespace {

// Weights are stored in the step's precision, as the model is converted whole; tf32 is fp32 in
// memory.
DType Storage(DType precision) {
  return precision == DType::kTFloat32 ? DType::kFloat32 : precision;
}

}  // namespace

TrainingMemory StoredForTraining(const ModelReport& report, const LoweringOptions& options) {
  // Autocast keeps fp32 weights and gradients, and a 16-bit copy of the weights it casts
  // (counted for all of them).
  const DType storage = options.amp ? DType::kFloat32 : Storage(options.precision);
  TrainingMemory m;
  m.weights = BytesOf(static_cast<double>(report.total.params()), storage);
  if (options.amp)
    m.weights += BytesOf(static_cast<double>(report.total.params()), options.precision);
  m.gradients = BytesOf(static_cast<double>(report.total.trainable_params), storage);
  m.optimizer_state = m.gradients * OptimizerStateArrays(options.optimizer);
  m.activations = report.total.saved_bytes;
  return m;
}

Result<TrainingMemory> MemoryForTraining(const Model& model, const LoweringOptions& options,
                                         const StepOps* lowered) {
  Result<ModelReport> r = Analyze(model, {.batch = options.batch, .precision = options.precision});
  if (!r.ok()) return r.status();
  TrainingMemory m = StoredForTraining(*r, options);
  std::optional<StepOps> own;
  if (!lowered) {
    Result<StepOps> ops = Lower(model, options);
    if (!ops.ok()) return ops.status();
    own = std::move(*ops);
    lowered = &*own;
  }
  for (const StepOp& op : lowered->ops) {
    // The operands' footprint: an aten=1 signature's bytes count every pass's traffic.
    OpSignature operands = op.signature;
    operands.dims.erase("aten");
    m.workspace = std::max(m.workspace, operands.bytes());
  }
  return m;
}

Result<Bytes> MemoryForInference(const Model& model, const LoweringOptions& options) {
  Result<ModelReport> r = Analyze(model, {.batch = options.batch, .precision = options.precision});
  if (!r.ok()) return r.status();
  Bytes live;
  for (const LayerReport& l : r->layers) live = std::max(live, l.input_bytes + l.output_bytes);
  const Bytes weights =
      options.amp ? BytesOf(static_cast<double>(r->total.params()), DType::kFloat32) +
                        BytesOf(static_cast<double>(r->total.params()), options.precision)
                  : BytesOf(static_cast<double>(r->total.params()), Storage(options.precision));
  return weights + live;
}

Result<int64_t> LargestBatch(const Model& model, LoweringOptions options, Bytes capacity) {
  options.batch = 1;
  Result<TrainingMemory> one = MemoryForTraining(model, options);
  if (!one.ok()) return one.status();
  options.batch = 2;
  Result<TrainingMemory> two = MemoryForTraining(model, options);
  if (!two.ok()) return two.status();
  const double per_sample = (two->total() - one->total()).value();
  const double fixed = one->total().value() - per_sample;
  if (one->total() > capacity) return int64_t{0};
  if (per_sample <= 0) return int64_t{1} << 30;
  return static_cast<int64_t>(std::floor((capacity.value() - fixed) / per_sample));
}

}  // namespace epochcost
