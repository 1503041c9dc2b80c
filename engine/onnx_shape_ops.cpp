// The ONNX converter's layout and sequence ops: flatten, reshape, transpose, squeeze/unsqueeze,
// concat (and ViT's class token), gather, slice, split, LSTM/GRU and pad. Each follows the batch
// axis through the op and emits the per-sample layer, or aliases when nothing moves per sample.
#include <cmath>

#include "engine/onnx_converter.h"

namespace epochcost::onnx_import {
namespace {

// a *= b for dimensions read from a file: false (a unchanged) where it would overflow.
bool MulDims(int64_t* a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(*a, b, &r)) return false;
  *a = r;
  return true;
}

}  // namespace

Status Converter::Flatten(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  if (IntAttr(n, "axis", 1) != 1 || x->batch_axis != 0)
    return Unsupported(n, "only Flatten(axis=1) of a batch-first tensor is supported");
  LayerSpec l;
  l.name = LayerName(n);
  l.kind = LayerKind::kFlatten;
  l.inputs = {x->layer};
  return Emit(std::move(l), n.output(0), 0);
}

Status Converter::Transpose(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0, true);
  if (!x.ok()) return x.status();
  std::vector<int64_t> perm = IntsAttr(n, "perm");
  const int rank = SampleShape(*x).rank() + (x->merged() ? 0 : 1);
  if (perm.empty())
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int>(perm.size()) != rank) return Unsupported(n, "perm does not match rank");
  int out_batch = -1;
  LayerSpec l;
  l.name = LayerName(n);
  l.kind = LayerKind::kTranspose;
  l.inputs = {x->layer};
  if (x->merged()) {  // the merged axis is one of the sample's: every axis moves per sample
    bool identity = true;
    for (int j = 0; j < rank; ++j) {
      if (perm[j] == x->batch_axis) out_batch = j;
      identity = identity && perm[j] == j;
      l.perm.push_back(static_cast<int>(perm[j]));
    }
    if (identity) {
      acts_[n.output(0)] = *x;
      return Status::Ok();
    }
    if (out_batch < 0) return Unsupported(n, "perm does not move the batch axis anywhere");
    return Emit(std::move(l), n.output(0), out_batch, x->outer, x->inner);
  }
  bool identity = true;
  for (int j = 0; j < rank; ++j) {
    if (perm[j] == x->batch_axis) {
      out_batch = j;
      continue;
    }
    const int p = static_cast<int>(perm[j] > x->batch_axis ? perm[j] - 1 : perm[j]);
    identity = identity && p == static_cast<int>(l.perm.size());
    l.perm.push_back(p);
  }
  if (identity) {  // only the batch axis moves: per sample, nothing changes
    acts_[n.output(0)] = Tensor{x->layer, out_batch};
    return Status::Ok();
  }
  return Emit(std::move(l), n.output(0), out_batch);
}
Status Converter::Squeeze(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> axes = IntsAttr(n, "axes");
  if (const Constant* a = n.input_size() > 1 ? Const(n.input(1)) : nullptr; a && a->has_data())
    for (double v : a->data) axes.push_back(static_cast<int64_t>(v));
  std::vector<int64_t> dims = FullShape(*x);
  int batch = x->batch_axis;
  if (n.op_type() == "Unsqueeze") {
    const int64_t rank = static_cast<int64_t>(dims.size() + axes.size());
    for (int64_t& a : axes) a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    for (int64_t a : axes) {
      dims.insert(dims.begin() + a, 1);
      if (a <= batch) ++batch;
    }
  } else {
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> kept;
    int new_batch = -1;
    for (int64_t i = 0; i < rank; ++i) {
      bool drop = false;
      for (int64_t a : axes) drop = drop || (a < 0 ? a + rank : a) == i;
      if (axes.empty()) drop = dims[i] == 1;
      if (drop && i == batch) return Unsupported(n, "squeezes the batch axis");
      if (i == batch) new_batch = static_cast<int>(kept.size());
      if (!drop) kept.push_back(dims[i]);
    }
    dims = kept;
    batch = new_batch;
  }
  return EmitView(LayerName(n), *x, dims, batch, n.output(0));
}
Status Converter::Concat(const onnx::NodeProto& n) {
  // A learned token expanded over the batch and put in front of a sequence: ViT's class token.
  if (n.input_size() == 2) {
    const Constant* token = Const(n.input(0));
    // Expanded over the batch: marked where the batch size is symbolic; in a static export, the
    // token's first dimension is the export's batch size.
    const bool over_batch =
        token && (token->batched || (static_batch_ > 0 && !token->dims.empty() &&
                                     token->dims[0] == static_batch_ && token->dims.size() == 3));
    if (over_batch && token->learned && IsAct(n.input(1))) {
      Result<Tensor> x = Act(n, 1);
      if (!x.ok()) return x.status();
      LayerSpec l;
      l.name = LayerName(n);
      l.kind = LayerKind::kClassToken;
      l.inputs = {x->layer};
      return Emit(std::move(l), n.output(0), x->batch_axis);
    }
  }
  LayerSpec l;
  l.name = LayerName(n);
  l.kind = LayerKind::kConcatenate;
  int batch = -1;
  for (int i = 0; i < n.input_size(); ++i) {
    Result<Tensor> x = Act(n, i);
    if (!x.ok()) return x.status();
    if (batch >= 0 && x->batch_axis != batch)
      return Unsupported(n, "inputs batch on different axes");
    batch = x->batch_axis;
    l.inputs.push_back(x->layer);
    if (i == 0) {
      Result<int> axis = SampleAxis(n, *x, IntAttr(n, "axis", 0));
      if (!axis.ok()) return axis.status();
      l.axis = *axis;
    }
  }
  return Emit(std::move(l), n.output(0), batch);
}
Status Converter::Gather(const onnx::NodeProto& n) {
  const Constant* table = Const(n.input(0));
  if (table && table->learned && table->dims.size() == 2 && IsAct(n.input(1))) {
    Result<Tensor> ids = Act(n, 1);
    if (!ids.ok()) return ids.status();
    LayerSpec l;
    l.name = LayerName(n);
    l.kind = LayerKind::kEmbedding;
    l.inputs = {ids->layer};
    l.vocab = table->dims[0];
    l.units = table->dims[1];
    return Emit(std::move(l), n.output(0), ids->batch_axis);
  }
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  const Constant* index = Const(n.input(1));
  if (!index || !index->has_data() || !index->dims.empty())
    return Unsupported(n, "only a constant scalar index into an activation is supported");
  Result<int> axis = SampleAxis(n, *x, IntAttr(n, "axis", 0));
  if (!axis.ok()) return axis.status();
  LayerSpec l;
  l.name = LayerName(n);
  l.kind = LayerKind::kSlice;
  l.inputs = {x->layer};
  l.axis = *axis;
  const int64_t extent = SampleShape(*x).dims[*axis];
  l.start = static_cast<int64_t>(index->data[0]);
  if (l.start < 0) l.start += extent;
  l.end = l.start + 1;
  const std::string sliced = n.output(0) + "#slice";
  EPOCHCOST_RETURN_IF_ERROR(Emit(l, sliced, x->batch_axis));
  std::vector<int64_t> dims = FullShape(acts_.at(sliced));
  const int full_axis = *axis >= x->batch_axis ? *axis + 1 : *axis;
  dims.erase(dims.begin() + full_axis);
  const int batch = full_axis < x->batch_axis ? x->batch_axis - 1 : x->batch_axis;
  return EmitView(LayerName(n, "_squeeze"), acts_.at(sliced), dims, batch, n.output(0));
}
Status Converter::Slice(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  auto ints = [&](int slot) -> std::vector<int64_t> {
    const Constant* c =
        n.input_size() > slot && !n.input(slot).empty() ? Const(n.input(slot)) : nullptr;
    std::vector<int64_t> v;
    if (c && c->has_data())
      for (double d : c->data) v.push_back(static_cast<int64_t>(std::clamp(d, -1e15, 1e15)));
    return v;
  };
  std::vector<int64_t> starts = ints(1), ends = ints(2), axes = ints(3), steps = ints(4);
  if (starts.empty() || starts.size() != ends.size())
    return Unsupported(n, "starts/ends not constant");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  Tensor current = *x;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (!steps.empty() && steps[i] != 1) return Unsupported(n, "steps other than 1");
    Result<int> axis = SampleAxis(n, current, axes[i]);
    if (!axis.ok()) return axis.status();
    LayerSpec l;
    l.name = LayerName(n);
    l.kind = LayerKind::kSlice;
    l.inputs = {current.layer};
    l.axis = *axis;
    const int64_t extent = SampleShape(current).dims[*axis];
    l.start = starts[i];
    l.end = std::min(ends[i], extent);
    const std::string out =
        i + 1 == starts.size() ? n.output(0) : n.output(0) + "#" + std::to_string(i);
    EPOCHCOST_RETURN_IF_ERROR(Emit(std::move(l), out, current.batch_axis));
    current = acts_.at(out);
  }
  return Status::Ok();
}
Status Converter::Split(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  Result<int> axis = SampleAxis(n, *x, IntAttr(n, "axis", 0));
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> sizes = IntsAttr(n, "split");
  if (const Constant* s = n.input_size() > 1 ? Const(n.input(1)) : nullptr; s && s->has_data())
    for (double v : s->data) sizes.push_back(static_cast<int64_t>(v));
  const int64_t extent = SampleShape(*x).dims[*axis];
  if (sizes.empty()) sizes.assign(n.output_size(), extent / std::max(1, n.output_size()));
  int64_t start = 0;
  for (int i = 0; i < n.output_size(); ++i) {
    LayerSpec l;
    l.name = LayerName(n, "_" + std::to_string(i));
    l.kind = LayerKind::kSlice;
    l.inputs = {x->layer};
    l.axis = *axis;
    l.start = start;
    l.end = start + sizes.at(i);
    start = l.end;
    EPOCHCOST_RETURN_IF_ERROR(Emit(std::move(l), n.output(i), x->batch_axis));
  }
  return Status::Ok();
}

Status Converter::Pad(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> pads = IntsAttr(n, "pads");
  if (const Constant* p = n.input_size() > 1 ? Const(n.input(1)) : nullptr; p && p->has_data())
    for (double v : p->data) pads.push_back(static_cast<int64_t>(v));
  const int rank = SampleShape(*x).rank() + 1;
  if (static_cast<int>(pads.size()) != 2 * rank || x->batch_axis != 0 || rank < 3 || rank > 4 ||
      pads[0] != 0 || pads[1] != 0 || pads[rank] != 0 || pads[rank + 1] != 0)
    return Unsupported(n, "only spatial zero padding of (N, C, ...) tensors is supported");
  if (StringAttr(n, "mode", "constant") != "constant") return Unsupported(n, "non-constant mode");
  LayerSpec l;
  l.name = LayerName(n);
  l.kind = rank == 3 ? LayerKind::kZeroPadding1D : LayerKind::kZeroPadding2D;
  l.inputs = {x->layer};
  l.channels_first = true;
  for (int i = 2; i < rank; ++i) {
    l.pads.push_back(pads[i]);
    l.pads.push_back(pads[i + rank]);
  }
  return Emit(std::move(l), n.output(0), 0);
}

// Where a reshape of `x` to `target` puts the batch. A row-major reshape keeps the batch's place
// in the order of the elements: O values outside it and I inside it (one sample holds O x I).
// The target's axis i holds it where the target's dimensions before i divide O and those after
// divide I; the axis then holds (O / before) x batch x (I / after) values. `marked` is the axis
// a folded shape marks as `factor` times the batch (-1: none); else the axis whose entry is -1
// or the batch size of a static export times that product. {axis -1} where none fits.
Converter::Kept Converter::KeptBatchAxis(const Tensor& x, const std::vector<int64_t>& target,
                                         int marked, int64_t factor) const {
  const std::vector<int64_t> in = FullShape(x);
  const int64_t sample = SampleShape(x).elements();
  int64_t outside = x.outer;  // O
  for (int i = 0; i < x.batch_axis; ++i)
    if (!MulDims(&outside, in[i])) return {};
  if (outside <= 0 || sample % outside != 0) return {};
  const int64_t inside = sample / outside;  // I
  // The target with the batch's entry as its factor and one other unknown (-1) entry as what
  // the sample's elements leave for it; empty where that does not divide.
  auto resolved = [&](size_t batch_axis, int64_t batch_factor) {
    std::vector<int64_t> t = target;
    t[batch_axis] = batch_factor;
    int64_t known = 1;
    int unknown = -1;
    for (size_t j = 0; j < t.size(); ++j) {
      if (t[j] == -1 && unknown < 0)
        unknown = static_cast<int>(j);
      else if (t[j] <= 0 || !MulDims(&known, t[j]))
        return std::vector<int64_t>();
    }
    if (unknown >= 0) {
      if (sample % known != 0) return std::vector<int64_t>();
      t[unknown] = sample / known;
    }
    return t;
  };
  auto fits = [&](const std::vector<int64_t>& t, size_t i) -> Kept {
    if (t.empty()) return {};
    int64_t before = 1, after = 1;
    for (size_t j = 0; j < i; ++j)
      if (!MulDims(&before, t[j])) return {};
    for (size_t j = i + 1; j < t.size(); ++j)
      if (!MulDims(&after, t[j])) return {};
    if (outside % before != 0 || inside % after != 0) return {};
    const Kept k{static_cast<int>(i), outside / before, inside / after, t};
    return k.outer * k.inner == t[i] ? k : Kept{};
  };
  if (marked >= 0) return fits(resolved(marked, factor), marked);
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {  // the batch's axis holds what the other entries leave of a sample
      int64_t rest = 1;
      for (size_t j = 0; j < target.size(); ++j)
        if (j != i && (target[j] <= 0 || !MulDims(&rest, target[j]))) rest = 0;
      if (rest <= 0 || sample % rest != 0) continue;
      const Kept k = fits(resolved(i, sample / rest), i);
      if (k.axis >= 0) return k;
      continue;
    }
    if (static_batch_ <= 0 || target[i] <= 0 || target[i] % static_batch_ != 0) continue;
    const Kept k = fits(resolved(i, target[i] / static_batch_), i);
    if (k.axis >= 0) return k;
  }
  return {};
}

// The target comes from folded constants, where the batch size is marked, or else from ONNX
// shape inference, where it is the graph's symbolic batch dimension. Without either (a static
// export folds the batch size into the target; `view(-1, C)` leaves it to -1) the batch goes
// where the reshape keeps it (KeptBatchAxis), as it does where PyTorch's attention merges it
// with the heads or the sequence (Tensor).
Status Converter::Reshape(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0, true);
  if (!x.ok()) return x.status();
  std::vector<int64_t> target;
  int marked = -1;
  int64_t factor = 1;
  const Constant* shape = Const(n.input(1));
  if (shape && shape->has_data()) {
    const std::vector<int64_t> in = FullShape(*x);
    for (size_t i = 0; i < shape->data.size(); ++i) {
      if (shape->is_batch[i] && !(shape->data[i] >= 1 && shape->data[i] <= 0x1p40))
        return Unsupported(n, "the target's batch entry is not a multiple of it");
      // A value from the file: beyond 2^53 it is no integer, and the cast would be undefined
      // (onnx_fuzzer: 9.2e18, fuzz/regressions).
      if (!(std::abs(shape->data[i]) <= 0x1p53))
        return Unsupported(
            n, "target shape entry " + std::to_string(shape->data[i]) + " is not a size");
      int64_t d = static_cast<int64_t>(shape->data[i]);
      if (shape->is_batch[i] || (d == 0 && static_cast<int>(i) == x->batch_axis)) {
        if (marked >= 0) return Unsupported(n, "the target has two batch-sized entries");
        marked = static_cast<int>(i);
        factor = shape->is_batch[i] ? d : x->outer * x->inner;
        d = -1;
      } else if (d == 0 && i < in.size()) {
        d = in[i];
      }
      target.push_back(d);
    }
  } else if (auto it = inferred_.find(n.output(0)); it != inferred_.end()) {
    target = it->second;
    for (size_t i = 0; i < target.size(); ++i)
      if (target[i] == -1 && marked < 0) marked = static_cast<int>(i);
    if (marked >= 0 && x->merged())
      return Unsupported(n, "cannot tell how the target shape holds the merged batch");
  }
  if (marked >= 0 && factor == 1 && !x->merged()) {  // the batch alone
    for (size_t i = 0; i < target.size(); ++i)
      if (static_cast<int>(i) != marked && target[i] == -1 && shape == nullptr)
        return Unsupported(n, "target shape is not fully known");
    return EmitView(LayerName(n), *x, target, marked, n.output(0));
  }
  if (!shape || !shape->has_data())
    return Unsupported(n, "cannot tell which axis of the target shape is the batch");
  const Kept kept = KeptBatchAxis(*x, target, marked, factor);
  if (kept.axis < 0)
    return Unsupported(n, marked >= 0 ? "the batch does not keep its place in the target shape"
                                      : "cannot tell which axis of the target shape is the batch");
  return EmitView(LayerName(n), *x, kept.dims, kept.axis, n.output(0), kept.outer, kept.inner);
}

// ONNX LSTM/GRU: X is (T, N, I) (layout 0) or (N, T, I) (layout 1); Y is (T, D, N, H) or
// (N, T, D, H); Y_h and Y_c are (D, N, H) or (N, D, H).
Status Converter::Rnn(const onnx::NodeProto& n) {
  Result<Tensor> x = Act(n, 0);
  if (!x.ok()) return x.status();
  const int64_t layout = IntAttr(n, "layout", 0);
  if (x->batch_axis != (layout == 0 ? 1 : 0))
    return Unsupported(n, "input's batch axis does not match layout " + std::to_string(layout));
  LayerSpec l;
  l.name = LayerName(n);
  l.kind = n.op_type() == "LSTM" ? LayerKind::kLstm : LayerKind::kGru;
  l.inputs = {x->layer};
  l.units = IntAttr(n, "hidden_size", 0);
  l.bidirectional = StringAttr(n, "direction", "forward") == "bidirectional";
  l.bias_sets = n.input_size() > 3 && !n.input(3).empty() ? 2 : 0;
  if (n.op_type() == "GRU" && IntAttr(n, "linear_before_reset", 0) == 0 && l.bias_sets == 2)
    l.bias_sets = 2;  // ONNX always stores Wb and Rb
  const bool want_y = n.output_size() > 0 && Consumed(n.output(0));
  const bool want_state = (n.output_size() > 1 && Consumed(n.output(1))) ||
                          (n.output_size() > 2 && Consumed(n.output(2)));
  const int y_batch = layout == 0 ? 2 : 0;
  const int h_batch = layout == 0 ? 1 : 0;
  if (!want_y && n.output_size() > 1) {  // with Y alone, Y is emitted, read or not
    l.rnn_output = RnnOutput::kOnnxYh;
    EPOCHCOST_RETURN_IF_ERROR(Emit(std::move(l), n.output(1), h_batch));
    if (n.output_size() > 2) acts_[n.output(2)] = acts_.at(n.output(1));
    return Status::Ok();
  }
  l.rnn_output = RnnOutput::kOnnxY;
  EPOCHCOST_RETURN_IF_ERROR(Emit(std::move(l), n.output(0), y_batch));
  if (!want_state) return Status::Ok();
  // The final state, read off the last step of Y (its cost is a copy of D x H values).
  const Tensor y = acts_.at(n.output(0));
  LayerSpec last;
  last.name = LayerName(n, "_state");
  last.kind = LayerKind::kSlice;
  last.inputs = {y.layer};
  last.axis = 0;
  last.start = -1;
  last.end = SampleShape(y).dims[0];
  const std::string sliced = n.output(1) + "#last";
  EPOCHCOST_RETURN_IF_ERROR(Emit(std::move(last), sliced, y_batch));
  std::vector<int64_t> dims = SampleShape(acts_.at(sliced)).dims;
  dims.erase(dims.begin());
  dims.insert(dims.begin() + h_batch, -1);
  EPOCHCOST_RETURN_IF_ERROR(
      EmitView(LayerName(n, "_h"), acts_.at(sliced), dims, h_batch, n.output(1)));
  if (n.output_size() > 2) acts_[n.output(2)] = acts_.at(n.output(1));
  return Status::Ok();
}

}  // namespace epochcost::onnx_import
