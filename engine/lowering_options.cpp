// The names of the lowering's options, as the command line and run logs spell them, and what
// the options decide for one op or one layer.
#include "engine/lowering_options.h"

#include <algorithm>
#include <array>

#include "engine/eager_optimizer.h"

namespace epochcost {
namespace {

constexpr std::array<std::pair<Optimizer, std::string_view>, 6> kOptimizers = {{
    {Optimizer::kSgd, "sgd"},
    {Optimizer::kMomentum, "momentum"},
    {Optimizer::kRmsprop, "rmsprop"},
    {Optimizer::kAdam, "adam"},
    {Optimizer::kAdamw, "adamw"},
    {Optimizer::kAdadelta, "adadelta"},
}};

}  // namespace

std::string_view RnnLoweringName(RnnLowering r) {
  switch (r) {
    case RnnLowering::kUnrolled:
      return "unrolled";
    case RnnLowering::kFused:
      return "fused";
    case RnnLowering::kAten:
      return "aten";
  }
  return "?";
}

Result<RnnLowering> ParseRnnLowering(std::string_view name) {
  if (name == "unrolled") return RnnLowering::kUnrolled;
  if (name == "fused") return RnnLowering::kFused;
  if (name == "aten") return RnnLowering::kAten;
  return Status::InvalidArgument("unknown RNN lowering '" + std::string(name) +
                                 "' (expected unrolled, fused or aten)");
}

std::optional<DType> AutocastType(std::string_view precision) {
  if (precision == "amp") return DType::kFloat16;
  if (precision == "amp-bf16") return DType::kBFloat16;
  return std::nullopt;
}

std::string PrecisionName(const LoweringOptions& o) {
  if (o.amp) return o.precision == DType::kBFloat16 ? "amp-bf16" : "amp";
  return std::string(DTypeName(o.precision));
}

std::string_view OptimizerName(Optimizer o) {
  for (const auto& [opt, name] : kOptimizers)
    if (opt == o) return name;
  return "?";
}

Result<Optimizer> ParseOptimizer(std::string_view name) {
  for (const auto& [opt, n] : kOptimizers)
    if (n == name) return opt;
  return Status::InvalidArgument("unknown optimizer '" + std::string(name) +
                                 "' (expected sgd, momentum, rmsprop, adam, adamw or adadelta)");
}

bool AlwaysAten(OpKind kind, DType dtype) {
  switch (kind) {
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
      return dtype == DType::kFloat32;
    case OpKind::kDropoutFwd:
    case OpKind::kDropoutBwd:
    case OpKind::kOptimizer:
      return true;
    default:
      return false;
  }
}

int FrameworkCalls(const OpSignature& sig) {
  if (sig.kind != OpKind::kOptimizer || sig.dim("aten") == 0) return 1;
  return std::max(EagerOptimizerCalls(sig.alg), 1);
}

bool SerialInAten(const OpSignature& sig) {
  switch (sig.kind) {
    case OpKind::kEltwiseFwd:
    case OpKind::kEltwiseBwd:
    case OpKind::kBinary:
    case OpKind::kConcat:
    case OpKind::kReorder: {
      const int64_t n = sig.dim("n");
      return n > 0 && n < kAtenGrainSize;
    }
    default:
      return false;
  }
}

bool Float32UnderAutocast(OpKind kind) {
  switch (kind) {
    case OpKind::kOptimizer:
    case OpKind::kLayerNormFwd:
    case OpKind::kLayerNormBwd:
    case OpKind::kSoftmaxFwd:
    case OpKind::kSoftmaxBwd:
    case OpKind::kLoss:
      return true;
    default:
      return false;
  }
}

bool CastsWeightsUnderAutocast(LayerKind kind, const LoweringOptions& o) {
  switch (kind) {
    case LayerKind::kDense:
    case LayerKind::kConv1D:
    case LayerKind::kConv2D:
    case LayerKind::kDepthwiseConv2D:
    case LayerKind::kSeparableConv1D:
    case LayerKind::kSeparableConv2D:
    case LayerKind::kAttention:
    case LayerKind::kHighway:
      return true;
    case LayerKind::kLstm:
    case LayerKind::kGru:
      return o.amp_rnn16 && !CastsInsideUnderAutocast(kind, o);
    default:
      return false;
  }
}

bool CastsInsideUnderAutocast(LayerKind kind, const LoweringOptions& o) {
  return o.amp && o.rnn == RnnLowering::kAten &&
         (kind == LayerKind::kLstm || kind == LayerKind::kGru);
}

std::vector<bool> AutocastComputes16(const Model& model, const LoweringOptions& o) {
  std::vector<bool> computes16(model.size(), true);
  if (!o.amp) return computes16;
  for (int i = 0; i < model.size(); ++i) {
    const LayerKind kind = model.layer(i).kind;
    if (kind == LayerKind::kInput) {
      // A float input is cast at the input layer, unless only layers that cast inside read it.
      const std::vector<int>& readers = model.consumers(i);
      computes16[i] = readers.empty() || std::any_of(readers.begin(), readers.end(), [&](int j) {
                        return !CastsInsideUnderAutocast(model.layer(j).kind, o);
                      });
    } else if (CastsWeightsUnderAutocast(kind, o))
      computes16[i] = true;
    else if (kind == LayerKind::kEmbedding || kind == LayerKind::kPositionEmbedding ||
             kind == LayerKind::kLstm || kind == LayerKind::kGru)
      computes16[i] = false;  // fp32 weights on no autocast list
    else
      computes16[i] = InputsIn16(model, computes16, i);
  }
  return computes16;
}

bool InputsIn16(const Model& model, const std::vector<bool>& computes16, int i) {
  for (int q : model.inputs(i))
    if (!computes16[q]) return false;
  return true;
}

}  // namespace epochcost
