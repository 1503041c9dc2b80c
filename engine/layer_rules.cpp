#include "engine/layer_rules.h"

#include <array>

namespace epochcost {
namespace {

using K = LayerKind;
namespace r = rules;

// One row per kind, in LayerKind order: {kind, min inputs, max inputs, infer, count}.
constexpr std::array<LayerRule, 43> kRules = {{
    {K::kInput, 0, 0, r::InferInput, r::CountInput},
    {K::kDense, 1, 1, r::InferDense, r::CountDense},
    {K::kMatMul, 2, 2, r::InferMatMul, r::CountMatMul},
    {K::kConv1D, 1, 1, r::InferConv, r::CountConv},
    {K::kConv2D, 1, 1, r::InferConv, r::CountConv},
    {K::kDepthwiseConv2D, 1, 1, r::InferConv, r::CountConv},
    {K::kSeparableConv1D, 1, 1, r::InferConv, r::CountConv},
    {K::kSeparableConv2D, 1, 1, r::InferConv, r::CountConv},
    {K::kMaxPool1D, 1, 1, r::InferPool, r::CountPool},
    {K::kMaxPool2D, 1, 1, r::InferPool, r::CountPool},
    {K::kAvgPool1D, 1, 1, r::InferPool, r::CountPool},
    {K::kAvgPool2D, 1, 1, r::InferPool, r::CountPool},
    {K::kGlobalAvgPool1D, 1, 1, r::InferGlobalPool, r::CountGlobalPool},
    {K::kGlobalAvgPool2D, 1, 1, r::InferGlobalPool, r::CountGlobalPool},
    {K::kGlobalMaxPool1D, 1, 1, r::InferGlobalPool, r::CountGlobalPool},
    {K::kGlobalMaxPool2D, 1, 1, r::InferGlobalPool, r::CountGlobalPool},
    {K::kBatchNorm, 1, 1, r::InferSame, r::CountNorm},
    {K::kLayerNorm, 1, 1, r::InferSame, r::CountNorm},
    {K::kDropout, 1, 1, r::InferSame, r::CountDropout},
    {K::kActivation, 1, 1, r::InferSame, r::CountActivation},
    {K::kElementwise, 1, 1, r::InferSame, r::CountElementwise},
    {K::kAdd, 2, -1, r::InferBroadcast, r::CountBinary},
    {K::kSubtract, 2, 2, r::InferBroadcast, r::CountBinary},
    {K::kMultiply, 2, -1, r::InferBroadcast, r::CountBinary},
    {K::kDivide, 2, 2, r::InferBroadcast, r::CountBinary},
    {K::kConcatenate, 1, -1, r::InferConcat, r::CountCopy},
    {K::kFlatten, 1, 1, r::InferFlatten, r::CountView},
    {K::kReshape, 1, 1, r::InferReshape, r::CountView},
    {K::kTranspose, 1, 1, r::InferTranspose, r::CountCopy},
    {K::kSlice, 1, 1, r::InferSlice, r::CountCopy},
    {K::kReduceMean, 1, 1, r::InferReduceMean, r::CountReduceMean},
    {K::kReduceSum, 1, 1, r::InferReduceMean, r::CountReduceMean},  // the same shapes and work
    {K::kEmbedding, 1, 1, r::InferEmbedding, r::CountEmbedding},
    {K::kLstm, 1, 1, r::InferRnn, r::CountRnn},
    {K::kGru, 1, 1, r::InferRnn, r::CountRnn},
    {K::kAttention, 1, 1, r::InferAttention, r::CountAttention},
    {K::kZeroPadding1D, 1, 1, r::InferPadCrop, r::CountCopy},
    {K::kZeroPadding2D, 1, 1, r::InferPadCrop, r::CountCopy},
    {K::kCropping2D, 1, 1, r::InferPadCrop, r::CountCopy},
    {K::kHighway, 1, 1, r::InferHighway, r::CountHighway},
    {K::kClassToken, 1, 1, r::InferClassToken, r::CountClassToken},
    {K::kPositionEmbedding, 1, 1, r::InferPositionEmbedding, r::CountPositionEmbedding},
    {K::kLoss, 1, 1, r::InferLoss, r::CountLoss},
}};

}  // namespace

const LayerRule& RuleFor(LayerKind kind) { return kRules[static_cast<size_t>(kind)]; }

Result<Shape> InferShape(const LayerSpec& layer, const std::vector<Shape>& inputs) {
  const LayerRule& rule = RuleFor(layer.kind);
  const int n = static_cast<int>(inputs.size());
  if (n < rule.min_inputs || (rule.max_inputs >= 0 && n > rule.max_inputs)) {
    std::string want = std::to_string(rule.min_inputs);
    if (rule.max_inputs != rule.min_inputs)
      want += rule.max_inputs < 0 ? " or more" : " to " + std::to_string(rule.max_inputs);
    return Status::InvalidArgument(rules::Describe(layer) + ": takes " + want + " input(s), got " +
                                   std::to_string(n));
  }
  return rule.infer(layer, inputs);
}

LayerCounts CountLayer(const LayerSpec& layer, const std::vector<Shape>& inputs, const Shape& out) {
  return RuleFor(layer.kind).count(layer, inputs, out);
}

namespace {

// FLOPs per element of each activation, forward and backward, and whether its backward pass reads
// its output (otherwise, for gelu and swish, it reads its input).
struct ActivationCost {
  Activation activation;
  double fwd;
  double bwd;
  bool needs_output;
};

constexpr std::array<ActivationCost, 9> kActivationCosts = {{
    {Activation::kLinear, 0, 0, false},
    {Activation::kRelu, 1, 1, true},
    {Activation::kRelu6, 2, 2, true},
    {Activation::kHardSigmoid, 3, 2, true},
    {Activation::kTanh, 4, 3, true},     // dy * (1 - y^2)
    {Activation::kSigmoid, 4, 3, true},  // dy * y * (1 - y)
    {Activation::kSoftmax, 5, 4, true},  // max, subtract, exp, sum, divide; y * (dy - sum(dy y))
    {Activation::kSwish, 5, 6, false},
    {Activation::kGelu, 8, 10, false},
}};

const ActivationCost& CostOf(Activation a) {
  for (const ActivationCost& c : kActivationCosts)
    if (c.activation == a) return c;
  return kActivationCosts[0];
}

}  // namespace

double ActivationFlops(Activation a) { return CostOf(a).fwd; }
double ActivationBackwardFlops(Activation a) { return CostOf(a).bwd; }
bool ActivationNeedsOutput(Activation a) { return CostOf(a).needs_output; }

namespace rules {

int NormalizeAxis(int axis, int rank) {
  int a = axis < 0 ? axis + rank : axis;
  return (a < 0 || a >= rank) ? -1 : a;
}

std::string Describe(const LayerSpec& layer) {
  return "layer '" + layer.name + "' (" + std::string(LayerKindName(layer.kind)) + ")";
}

}  // namespace rules
}  // namespace epochcost
