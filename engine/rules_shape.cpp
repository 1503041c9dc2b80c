// Rules of the layers that keep or rearrange their input: normalisation, dropout, activations,
// element-wise and broadcasting binary ops, concatenation, flatten, reshape, transpose, slice,
// reduce-mean and the loss.
#include <algorithm>

#include "engine/layer_rules.h"

namespace epochcost::rules {

Result<Shape> InferSame(const LayerSpec& l, const std::vector<Shape>& in) {
  if (l.kind == LayerKind::kDropout && (l.rate < 0 || l.rate >= 1))
    return Status::InvalidArgument(Describe(l) + ": rate " + std::to_string(l.rate) +
                                   " is outside [0, 1)");
  if ((l.kind == LayerKind::kBatchNorm || l.kind == LayerKind::kLayerNorm) && in[0].rank() == 0)
    return Status::ShapeMismatch(Describe(l) + ": cannot normalise a scalar");
  return in[0];
}

// Batch norm: per-channel gamma and beta (trainable) and moving mean and variance (not), as Keras
// counts them. Layer norm: gamma and beta over the normalised features.
LayerCounts CountNorm(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const Shape& s = in[0];
  const double elements = static_cast<double>(s.elements());
  LayerCounts c;
  int64_t features = 1;
  if (l.kind == LayerKind::kBatchNorm) {
    const int axis = NormalizeAxis(l.axis, s.rank());
    features = s.dims[axis < 0 ? s.rank() - 1 : axis];
    c.non_trainable_params = 2 * features;
  } else {
    std::vector<int> axes = l.axes.empty() ? std::vector<int>{-1} : l.axes;
    for (int a : axes) {
      const int n = NormalizeAxis(a, s.rank());
      features *= s.dims[n < 0 ? s.rank() - 1 : n];
    }
  }
  c.trainable_params = (l.scale ? features : 0) + (l.center ? features : 0);
  c.fwd_flops = 4 * elements;  // mean, variance, normalise, scale and shift
  c.bwd_data_flops = 6 * elements;
  c.bwd_weight_flops = 2 * elements;
  c.saves_inputs = true;
  c.saved_elements = 2 * elements / static_cast<double>(features);  // mean and 1/std per row
  if (l.kind == LayerKind::kBatchNorm) c.saved_elements = 2 * static_cast<double>(features);
  return c;
}

// Dropout keeps one byte of mask per element (PyTorch's bool mask).
LayerCounts CountDropout(const LayerSpec&, const std::vector<Shape>& in, const Shape&) {
  const double elements = static_cast<double>(in[0].elements());
  LayerCounts c;
  c.fwd_flops = elements;
  c.bwd_data_flops = elements;
  c.saved_mask_bytes = elements;
  return c;
}

LayerCounts CountActivation(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const double elements = static_cast<double>(in[0].elements());
  LayerCounts c;
  c.fwd_flops = ActivationFlops(l.activation) * elements;
  c.bwd_data_flops = ActivationBackwardFlops(l.activation) * elements;
  if (ActivationNeedsOutput(l.activation))
    c.saves_output = true;
  else if (l.activation != Activation::kLinear)
    c.saves_inputs = true;
  return c;
}

LayerCounts CountElementwise(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const double elements = static_cast<double>(in[0].elements());
  LayerCounts c;
  c.trainable_params = l.learned_elements;
  c.fwd_flops = l.flops_per_element * elements;
  c.bwd_data_flops = l.flops_per_element * elements;
  if (l.learned_elements > 0) c.bwd_weight_flops = elements;  // reduce over the batch
  c.saves_inputs = l.flops_per_element > 1 || l.learned_elements > 0;
  return c;
}

// Numpy broadcasting over the per-sample axes, aligned at the right.
Result<Shape> InferBroadcast(const LayerSpec& l, const std::vector<Shape>& in) {
  Shape out = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    const Shape& b = in[i];
    const int rank = std::max(out.rank(), b.rank());
    Shape merged;
    merged.dims.resize(rank);
    for (int k = 0; k < rank; ++k) {
      const int ia = out.rank() - rank + k;
      const int ib = b.rank() - rank + k;
      const int64_t da = ia >= 0 ? out.dims[ia] : 1;
      const int64_t db = ib >= 0 ? b.dims[ib] : 1;
      if (da != db && da != 1 && db != 1)
        return Status::ShapeMismatch(Describe(l) + ": input shapes " + in[0].ToString() + " and " +
                                     b.ToString() + " do not match");
      merged.dims[k] = std::max(da, db);
    }
    out = merged;
  }
  return out;
}

LayerCounts CountBinary(const LayerSpec& l, const std::vector<Shape>& in, const Shape& out) {
  const double elements = static_cast<double>(out.elements());
  const double ops = static_cast<double>(in.size() - 1);
  LayerCounts c;
  c.fwd_flops = ops * elements;
  const bool product = l.kind == LayerKind::kMultiply || l.kind == LayerKind::kDivide;
  c.bwd_data_flops = product ? 2 * ops * elements : 0;
  c.saves_inputs = product;
  return c;
}

Result<Shape> InferConcat(const LayerSpec& l, const std::vector<Shape>& in) {
  const int rank = in[0].rank();
  const int axis = NormalizeAxis(l.axis, rank);
  if (axis < 0)
    return Status::InvalidArgument(Describe(l) + ": axis " + std::to_string(l.axis) +
                                   " is out of range for " + in[0].ToString());
  Shape out = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    const Shape& s = in[i];
    bool fits = s.rank() == rank;
    for (int k = 0; fits && k < rank; ++k) fits = k == axis || s.dims[k] == out.dims[k];
    if (!fits)
      return Status::ShapeMismatch(Describe(l) + ": cannot join " + in[0].ToString() + " and " +
                                   s.ToString() + " on axis " + std::to_string(l.axis));
    out.dims[axis] += s.dims[axis];
  }
  return out;
}

Result<Shape> InferFlatten(const LayerSpec&, const std::vector<Shape>& in) {
  return Shape{{in[0].elements()}};
}

Result<Shape> InferReshape(const LayerSpec& l, const std::vector<Shape>& in) {
  Shape out{l.target_shape};
  int64_t known = 1;
  int unknown = -1;
  for (int i = 0; i < out.rank(); ++i) {
    if (out.dims[i] == -1 && unknown < 0) {
      unknown = i;
    } else if (out.dims[i] <= 0) {
      return Status::InvalidArgument(Describe(l) + ": bad target dimension " +
                                     std::to_string(out.dims[i]));
    } else {
      known *= out.dims[i];
    }
  }
  const int64_t total = in[0].elements();
  if (unknown >= 0 && known > 0 && total % known == 0) out.dims[unknown] = total / known;
  if (out.elements() != total)
    return Status::ShapeMismatch(Describe(l) + ": cannot reshape " + in[0].ToString() + " to " +
                                 Shape{l.target_shape}.ToString());
  return out;
}

LayerCounts CountView(const LayerSpec&, const std::vector<Shape>&, const Shape&) {
  LayerCounts c;
  c.is_view = true;
  return c;
}

Result<Shape> InferTranspose(const LayerSpec& l, const std::vector<Shape>& in) {
  const int rank = in[0].rank();
  std::vector<int> sorted = l.perm;
  std::sort(sorted.begin(), sorted.end());
  bool valid = static_cast<int>(sorted.size()) == rank;
  for (int i = 0; valid && i < rank; ++i) valid = sorted[i] == i;
  if (!valid)
    return Status::InvalidArgument(Describe(l) + ": perm is not a permutation of the " +
                                   std::to_string(rank) + " axes of " + in[0].ToString());
  Shape out;
  for (int p : l.perm) out.dims.push_back(in[0].dims[p]);
  return out;
}

Result<Shape> InferSlice(const LayerSpec& l, const std::vector<Shape>& in) {
  const int axis = NormalizeAxis(l.axis, in[0].rank());
  if (axis < 0)
    return Status::InvalidArgument(Describe(l) + ": axis " + std::to_string(l.axis) +
                                   " is out of range for " + in[0].ToString());
  const int64_t extent = in[0].dims[axis];
  const int64_t start = std::clamp<int64_t>(l.start < 0 ? l.start + extent : l.start, 0, extent);
  const int64_t end = std::clamp<int64_t>(l.end < 0 ? l.end + extent : l.end, 0, extent);
  if (end <= start)
    return Status::ShapeMismatch(Describe(l) + ": slice [" + std::to_string(l.start) + ", " +
                                 std::to_string(l.end) + ") of " + in[0].ToString() + " is empty");
  Shape out = in[0];
  out.dims[axis] = end - start;
  return out;
}

Result<Shape> InferReduceMean(const LayerSpec& l, const std::vector<Shape>& in) {
  Shape out = in[0];
  for (int a : l.axes) {
    const int n = NormalizeAxis(a, in[0].rank());
    if (n < 0)
      return Status::InvalidArgument(Describe(l) + ": axis " + std::to_string(a) +
                                     " is out of range for " + in[0].ToString());
    out.dims[n] = 1;
  }
  return out;
}

LayerCounts CountReduceMean(const LayerSpec&, const std::vector<Shape>& in, const Shape&) {
  LayerCounts c;
  c.fwd_flops = static_cast<double>(in[0].elements());
  c.bwd_data_flops = static_cast<double>(in[0].elements());
  return c;
}

Result<Shape> InferLoss(const LayerSpec& l, const std::vector<Shape>& in) {
  if (in[0].rank() == 0)
    return Status::ShapeMismatch(Describe(l) + ": needs predictions of rank 1 or more");
  if (l.loss_weight < 0) return Status::InvalidArgument(Describe(l) + ": weight is negative");
  return Shape{{1}};
}

// Cross-entropy over logits includes the softmax (5 FLOPs per element) and the log and product
// with the label (2 more); its gradient is softmax minus label. Over probabilities, the log and
// product only.
LayerCounts CountLoss(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const double elements = static_cast<double>(in[0].elements());
  LayerCounts c;
  switch (l.loss) {
    case LossFunction::kSoftmaxCrossEntropy:
    case LossFunction::kSparseSoftmaxCrossEntropy:
      c.fwd_flops = 7 * elements;
      c.bwd_data_flops = 2 * elements;
      c.saved_elements = elements;  // the probabilities
      break;
    case LossFunction::kCategoricalCrossEntropy:
    case LossFunction::kBinaryCrossEntropy:
      c.fwd_flops = 3 * elements;
      c.bwd_data_flops = 2 * elements;
      c.saves_inputs = true;
      break;
    case LossFunction::kMeanSquaredError:
      c.fwd_flops = 3 * elements;
      c.bwd_data_flops = 2 * elements;
      c.saves_inputs = true;
      break;
  }
  return c;
}

}  // namespace epochcost::rules
