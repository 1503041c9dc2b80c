// Rules of the layers that multiply by learned matrices or look up learned tables: input, dense,
// matmul, embedding, highway, self-attention, class token, position embedding.
#include "engine/layer_rules.h"

namespace epochcost::rules {
namespace {

Status NeedRank(const LayerSpec& l, const Shape& in, int min_rank, const char* what) {
  if (in.rank() < min_rank)
    return Status::ShapeMismatch(Describe(l) + ": expects " + what + ", got " + in.ToString());
  return Status::Ok();
}

// Adds the cost of an activation fused into a layer with `out_elements` outputs.
void AddFusedActivation(Activation a, double out_elements, LayerCounts* c) {
  c->fwd_flops += ActivationFlops(a) * out_elements;
  c->bwd_data_flops += ActivationBackwardFlops(a) * out_elements;
  if (ActivationNeedsOutput(a)) {
    c->saves_output = true;
  } else if (a != Activation::kLinear) {
    c->saved_elements += out_elements;  // gelu, swish keep the pre-activation
  }
}

}  // namespace

Result<Shape> InferInput(const LayerSpec& l, const std::vector<Shape>&) {
  for (int64_t d : l.shape)
    if (d <= 0)
      return Status::InvalidArgument(Describe(l) + ": dimension " + std::to_string(d) +
                                     " must be positive");
  return Shape{l.shape};
}

LayerCounts CountInput(const LayerSpec&, const std::vector<Shape>&, const Shape&) { return {}; }

Result<Shape> InferDense(const LayerSpec& l, const std::vector<Shape>& in) {
  EPOCHCOST_RETURN_IF_ERROR(NeedRank(l, in[0], 1, "an input of rank 1 or more"));
  if (l.units <= 0) return Status::InvalidArgument(Describe(l) + ": units must be positive");
  Shape out = in[0];
  out.dims.back() = l.units;
  return out;
}

LayerCounts CountDense(const LayerSpec& l, const std::vector<Shape>& in, const Shape& out) {
  const double k = static_cast<double>(in[0].dims.back());
  const double n = static_cast<double>(l.units);
  const double rows = static_cast<double>(in[0].elements()) / k;
  LayerCounts c;
  if (l.shared_weights.empty())
    c.trainable_params = static_cast<int64_t>(k * n) + (l.use_bias ? l.units : 0);
  else
    c.trainable_params = l.use_bias ? l.units : 0;  // the matrix belongs to the tied embedding
  const double bias = l.use_bias ? rows * n : 0;
  c.fwd_flops = 2 * rows * k * n + bias;
  c.bwd_data_flops = 2 * rows * k * n;
  c.bwd_weight_flops = 2 * rows * k * n + bias;
  c.saves_inputs = true;
  AddFusedActivation(l.activation, static_cast<double>(out.elements()), &c);
  return c;
}

Result<Shape> InferMatMul(const LayerSpec& l, const std::vector<Shape>& in) {
  const Shape& a = in[0];
  const Shape& b = in[1];
  if (a.rank() < 2 || b.rank() < 2 || a.dims.back() != b.dims[b.rank() - 2])
    return Status::ShapeMismatch(Describe(l) + ": cannot multiply " + a.ToString() + " by " +
                                 b.ToString());
  if (a.rank() != b.rank() || !std::equal(a.dims.begin(), a.dims.end() - 2, b.dims.begin()))
    return Status::ShapeMismatch(Describe(l) + ": leading dimensions of " + a.ToString() + " and " +
                                 b.ToString() + " differ");
  Shape out = a;
  out.dims.back() = b.dims.back();
  return out;
}

LayerCounts CountMatMul(const LayerSpec&, const std::vector<Shape>& in, const Shape& out) {
  const double k = static_cast<double>(in[0].dims.back());
  const double macs = static_cast<double>(out.elements()) * k;
  LayerCounts c;
  c.fwd_flops = 2 * macs;
  c.bwd_data_flops = 4 * macs;  // gradients of both operands
  c.saves_inputs = true;
  return c;
}

Result<Shape> InferEmbedding(const LayerSpec& l, const std::vector<Shape>& in) {
  if (l.vocab <= 0 || l.units <= 0)
    return Status::InvalidArgument(Describe(l) + ": vocab and units must be positive");
  Shape out = in[0];
  out.dims.push_back(l.units);
  return out;
}

LayerCounts CountEmbedding(const LayerSpec& l, const std::vector<Shape>&, const Shape& out) {
  LayerCounts c;
  c.trainable_params = l.vocab * l.units;
  c.bwd_weight_flops = static_cast<double>(out.elements());  // scatter-add of the output gradient
  c.saves_inputs = true;                                     // the ids
  return c;
}

Result<Shape> InferHighway(const LayerSpec& l, const std::vector<Shape>& in) {
  EPOCHCOST_RETURN_IF_ERROR(NeedRank(l, in[0], 1, "an input of rank 1 or more"));
  if (l.highway_layers <= 0)
    return Status::InvalidArgument(Describe(l) + ": layers must be positive");
  return in[0];
}

// Each highway layer: t = sigmoid(W_t y + b_t), g = relu(W_g y + b_g), out = t*g + (1-t)*y.
LayerCounts CountHighway(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const double d = static_cast<double>(in[0].dims.back());
  const double rows = static_cast<double>(in[0].elements()) / d;
  const double layers = l.highway_layers;
  LayerCounts c;
  c.trainable_params = static_cast<int64_t>(layers * 2 * (d * d + d));
  const double per_layer_gemm = 2 * 2 * rows * d * d;  // two d x d products
  const double gates =
      rows * d *
      (2 + ActivationFlops(Activation::kSigmoid) + ActivationFlops(Activation::kRelu) + 4);
  c.fwd_flops = layers * (per_layer_gemm + gates);
  c.bwd_data_flops = layers * (per_layer_gemm + rows * d * 8);
  c.bwd_weight_flops = layers * (per_layer_gemm + 2 * rows * d);
  c.saves_inputs = true;
  c.saved_elements = layers * 3 * rows * d;  // t, g and each inner layer's output
  return c;
}

Result<Shape> InferAttention(const LayerSpec& l, const std::vector<Shape>& in) {
  const Shape& x = in[0];
  if (x.rank() != 2)
    return Status::ShapeMismatch(Describe(l) + ": expects (sequence, features), got " +
                                 x.ToString());
  if (l.heads <= 0 || x.dims[1] % l.heads != 0)
    return Status::InvalidArgument(Describe(l) + ": " + std::to_string(l.heads) +
                                   " heads do not divide " + std::to_string(x.dims[1]) +
                                   " features");
  return x;
}

// Self-attention over (S, d) with h heads: Q, K, V and output projections (4 d x d), scores
// Q K^T (S x S x d), softmax over h S^2 values, and P V (S x S x d).
LayerCounts CountAttention(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const double s = static_cast<double>(in[0].dims[0]);
  const double d = static_cast<double>(in[0].dims[1]);
  const double h = static_cast<double>(l.heads);
  const double bias = l.use_bias ? 4 * s * d : 0;
  LayerCounts c;
  c.trainable_params = static_cast<int64_t>(4 * d * d + (l.use_bias ? 4 * d : 0));
  c.fwd_flops =
      8 * s * d * d + 4 * s * s * d + ActivationFlops(Activation::kSoftmax) * h * s * s + bias;
  c.bwd_data_flops =
      8 * s * d * d + 8 * s * s * d + ActivationBackwardFlops(Activation::kSoftmax) * h * s * s;
  c.bwd_weight_flops = 8 * s * d * d + bias;
  c.saves_inputs = true;
  c.saved_elements = 4 * s * d + h * s * s;  // Q, K, V, context and the probabilities
  return c;
}

Result<Shape> InferClassToken(const LayerSpec& l, const std::vector<Shape>& in) {
  if (in[0].rank() != 2)
    return Status::ShapeMismatch(Describe(l) + ": expects (sequence, features), got " +
                                 in[0].ToString());
  Shape out = in[0];
  out.dims[0] += 1;
  return out;
}

LayerCounts CountClassToken(const LayerSpec&, const std::vector<Shape>& in, const Shape&) {
  LayerCounts c;
  c.trainable_params = in[0].dims[1];
  return c;
}

Result<Shape> InferPositionEmbedding(const LayerSpec& l, const std::vector<Shape>& in) {
  if (in[0].rank() != 2)
    return Status::ShapeMismatch(Describe(l) + ": expects (sequence, features), got " +
                                 in[0].ToString());
  return in[0];
}

LayerCounts CountPositionEmbedding(const LayerSpec&, const std::vector<Shape>& in, const Shape&) {
  LayerCounts c;
  c.trainable_params = in[0].elements();
  c.fwd_flops = static_cast<double>(in[0].elements());
  c.bwd_weight_flops = static_cast<double>(in[0].elements());
  return c;
}

}  // namespace epochcost::rules
