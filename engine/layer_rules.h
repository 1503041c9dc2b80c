// What each layer kind means: how its output shape follows from its inputs, and its per-sample
// counts (parameters, FLOPs forward and backward, what it keeps for the backward pass). The rules
// are one table indexed by LayerKind (layer_rules.cpp); the families live in rules_*.cpp.
//
// Counting conventions (docs/model-format.md repeats them): a multiply-add is 2 FLOPs; a bias add
// is 1 FLOP per output; element-wise functions cost the FLOPs per element of ActivationFlops();
// backward-data and backward-weights are counted separately, the optimizer update is not a layer.
#ifndef EPOCHCOST_ENGINE_LAYER_RULES_H_
#define EPOCHCOST_ENGINE_LAYER_RULES_H_

#include <cstdint>
#include <vector>

#include "engine/layer.h"

namespace epochcost {

// Per-sample counts of one layer: independent of batch size and precision.
struct LayerCounts {
  int64_t trainable_params = 0;
  int64_t non_trainable_params = 0;
  double fwd_flops = 0;
  double bwd_data_flops = 0;
  double bwd_weight_flops = 0;
  bool saves_inputs = false;    // the backward pass reads this layer's inputs
  bool saves_output = false;    // the backward pass reads this layer's output
  bool is_view = false;         // output aliases the input (flatten, reshape): no bytes move
  double saved_elements = 0;    // further values kept for backward (gates, statistics)
  double saved_mask_bytes = 0;  // dropout masks, pooling indices
};

using InferFn = Result<Shape> (*)(const LayerSpec&, const std::vector<Shape>&);
using CountFn = LayerCounts (*)(const LayerSpec&, const std::vector<Shape>&, const Shape&);

struct LayerRule {
  LayerKind kind;
  int min_inputs;
  int max_inputs;  // -1: any number
  InferFn infer;
  CountFn count;
};

const LayerRule& RuleFor(LayerKind kind);

// Infers the output shape, checking input count and the kind's own constraints. Errors name the
// layer, its kind and the offending shapes.
Result<Shape> InferShape(const LayerSpec& layer, const std::vector<Shape>& inputs);
LayerCounts CountLayer(const LayerSpec& layer, const std::vector<Shape>& inputs, const Shape& out);

// FLOPs per element of an activation function, forward and backward.
double ActivationFlops(Activation a);
double ActivationBackwardFlops(Activation a);
// Whether the backward pass of `a` reads the activation's output (relu, sigmoid, tanh, softmax).
bool ActivationNeedsOutput(Activation a);

// Rule families, registered in layer_rules.cpp.
namespace rules {
Result<Shape> InferInput(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountInput(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferDense(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountDense(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferMatMul(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountMatMul(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferEmbedding(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountEmbedding(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferHighway(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountHighway(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferAttention(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountAttention(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferClassToken(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountClassToken(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferPositionEmbedding(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountPositionEmbedding(const LayerSpec&, const std::vector<Shape>&, const Shape&);

Result<Shape> InferConv(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountConv(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferPool(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountPool(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferGlobalPool(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountGlobalPool(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferPadCrop(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountCopy(const LayerSpec&, const std::vector<Shape>&, const Shape&);

Result<Shape> InferRnn(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountRnn(const LayerSpec&, const std::vector<Shape>&, const Shape&);

Result<Shape> InferSame(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountNorm(const LayerSpec&, const std::vector<Shape>&, const Shape&);
LayerCounts CountDropout(const LayerSpec&, const std::vector<Shape>&, const Shape&);
LayerCounts CountActivation(const LayerSpec&, const std::vector<Shape>&, const Shape&);
LayerCounts CountElementwise(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferBroadcast(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountBinary(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferConcat(const LayerSpec&, const std::vector<Shape>&);
Result<Shape> InferFlatten(const LayerSpec&, const std::vector<Shape>&);
Result<Shape> InferReshape(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountView(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferTranspose(const LayerSpec&, const std::vector<Shape>&);
Result<Shape> InferSlice(const LayerSpec&, const std::vector<Shape>&);
Result<Shape> InferReduceMean(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountReduceMean(const LayerSpec&, const std::vector<Shape>&, const Shape&);
Result<Shape> InferLoss(const LayerSpec&, const std::vector<Shape>&);
LayerCounts CountLoss(const LayerSpec&, const std::vector<Shape>&, const Shape&);

// Normalises a possibly negative axis against `rank`; -1 when out of range.
int NormalizeAxis(int axis, int rank);
// "layer 'name' (kind)", the prefix of every rule error.
std::string Describe(const LayerSpec& layer);
}  // namespace rules

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_LAYER_RULES_H_
