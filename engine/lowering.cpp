#include "engine/lowering.h"

#include <algorithm>
#include <map>

#include "engine/layer_rules.h"
#include "engine/lowerer.h"
#include "engine/lowering_options.h"

namespace epochcost {
namespace {

// The softmax axis is the last; a per-sample scalar (found by fuzzing: an Activation layer on a
// rank-0 output) is one row of width 1.
int64_t SoftmaxWidth(const Shape& out) {
  return out.dims.empty() ? 1 : std::max<int64_t>(out.dims.back(), 1);
}

// Spatial extent and channels of a feature map, whatever its layout.
struct Map {
  int64_t c = 0, h = 1, w = 1;
};

Map MapOf(const Shape& s, bool channels_first) {
  Map m;
  const int r = s.rank();
  m.c = channels_first ? s.dims[0] : s.dims[r - 1];
  const int first = channels_first ? 1 : 0;
  const int spatial = r - 1;
  if (spatial == 1) {
    m.w = s.dims[first];
  } else if (spatial >= 2) {
    m.h = s.dims[first];
    m.w = s.dims[first + 1];
  }
  return m;
}

int64_t At(const std::vector<int64_t>& v, size_t i, int64_t fallback) {
  if (v.empty()) return fallback;
  return i < v.size() ? v[i] : v.back();
}

// The top (or left) padding of a window along one axis: explicit pads at `pad_index` of the
// layer's pads, TensorFlow's "same" (odd pixel at the end), or none. pad_index < 0: no such axis.
int64_t SamePad(const LayerSpec& l, int64_t in, int64_t out, int64_t k, int64_t s, int64_t dil,
                int pad_index) {
  if (pad_index < 0) return 0;
  if (l.padding == Padding::kExplicit) return l.pads[pad_index];
  if (l.padding == Padding::kValid) return 0;
  return std::max<int64_t>((out - 1) * s + (k - 1) * dil + 1 - in, 0) / 2;
}

}  // namespace

namespace lowering {

void Lowerer::Emit(OpKind kind, Dims dims, const std::string& layer, std::string alg, int count) {
  if (o_.aten_kernels && AlwaysAten(kind, o_.precision)) dims["aten"] = 1;
  if (o_.aten_batch_norm && (kind == OpKind::kBatchNormFwd || kind == OpKind::kBatchNormBwd))
    dims["aten"] = 1;
  DType dtype = o_.precision;
  if (o_.amp && current_ >= 0 && !compute16_[current_]) dtype = DType::kFloat32;
  if (IsRecurrent(kind) && current_ >= 0 &&
      CastsInsideUnderAutocast(model_.layer(current_).kind, o_)) {
    dtype = o_.precision;  // the layer's products, cast call by call (amp=1)
    dims["amp"] = 1;
  }
  if (o_.amp && Float32UnderAutocast(kind)) {
    dtype = DType::kFloat32;
    // Autocast casts the 16-bit input up and the next 16-bit op casts the output down; the
    // backward pass casts the gradients the same two ways (the loss's op holds both passes).
    // An fp32 input needs no cast up.
    if (kind != OpKind::kOptimizer) {
      const int64_t n = dims.count("rows") ? dims.at("rows") * dims.at("c") : 0;
      if (current_ < 0 || Input16(current_)) Cast(n, o_.precision, DType::kFloat32, layer, count);
      Cast(n, DType::kFloat32, o_.precision, layer, count);
    }
  }
  Add({.kind = kind, .dtype = dtype, .alg = std::move(alg), .dims = std::move(dims)}, layer, count);
}

void Lowerer::Cast(int64_t n, DType from, DType to, const std::string& layer, int count) {
  if (n <= 0 || from == to) return;
  Add({.kind = OpKind::kReorder,
       .dtype = to,
       .alg = "from_" + std::string(DTypeName(from)),
       .dims = {{"n", n}}},
      layer, count);
}

void Lowerer::Add(OpSignature sig, const std::string& layer, int count) {
  const std::string key = sig.ToString();
  auto it = index_.find(key);
  if (it == index_.end()) {
    it = index_.emplace(key, out_.ops.size()).first;
    const bool serial = o_.aten_kernels && SerialInAten(sig);
    const int calls = FrameworkCalls(sig);
    out_.ops.push_back({std::move(sig), 0, {layer}, serial, calls});
  }
  StepOp& op = out_.ops[it->second];
  op.count += count;
  if (op.layers.back() != layer) op.layers.push_back(layer);
  out_.sequence.insert(out_.sequence.end(), count, static_cast<int>(it->second));
}

void Lowerer::Eltwise(Activation a, int64_t n, const std::string& layer, bool backward) {
  if (a == Activation::kLinear) return;
  const std::string alg(ActivationName(a));
  if (a == Activation::kSoftmax) return;  // handled by the caller, which knows the rows
  Emit(backward ? OpKind::kEltwiseBwd : OpKind::kEltwiseFwd, {{"n", n}}, layer, alg);
}

void Lowerer::Conv(int i, bool forward) {
  const LayerSpec& l = model_.layer(i);
  const Shape& in = InShape(i);
  const Shape& out = model_.output_shape(i);
  const Map mi = MapOf(in, l.channels_first), mo = MapOf(out, l.channels_first);
  const bool one_d = in.rank() == 2;
  auto dims = [&](int64_t g, int64_t ic, int64_t oc, int64_t kh, int64_t kw) {
    Dims d{{"mb", B()},
           {"g", g},
           {"ic", ic},
           {"oc", oc},
           {"iw", mi.w},
           {"ow", mo.w},
           {"kw", kw},
           {"sw", At(l.strides, one_d ? 0 : 1, 1)},
           {"dw", At(l.dilation, one_d ? 0 : 1, 1)}};
    if (!one_d) {
      d["ih"] = mi.h;
      d["oh"] = mo.h;
      d["kh"] = kh;
      d["sh"] = At(l.strides, 0, 1);
      d["dh"] = At(l.dilation, 0, 1);
    }
    // Top and left padding; the bottom and right follow from the output size.
    if (!one_d) d["ph"] = SamePad(l, mi.h, mo.h, kh, d["sh"], d["dh"], 0);
    if (!one_d && o_.channels_last) d["nhwc"] = 1;
    d["pw"] = SamePad(l, mi.w, mo.w, kw, d["sw"], d["dw"], one_d ? 0 : 2);
    return d;
  };
  const int64_t kh = one_d ? 1 : At(l.kernel, 0, 1), kw = At(l.kernel, one_d ? 0 : 1, 1);
  std::vector<Dims> convs;
  switch (l.kind) {
    case LayerKind::kDepthwiseConv2D:
      convs.push_back(dims(mi.c, mi.c, mo.c, kh, kw));
      break;
    case LayerKind::kSeparableConv1D:
    case LayerKind::kSeparableConv2D: {
      const int64_t mid = mi.c * l.depth_multiplier;
      convs.push_back(dims(mi.c, mi.c, mid, kh, kw));
      Dims pointwise = dims(1, mid, mo.c, 1, 1);
      pointwise["iw"] = mo.w;
      pointwise["sw"] = 1;
      pointwise["pw"] = 0;
      pointwise["dw"] = 1;
      if (!one_d) {
        pointwise["ih"] = mo.h;
        pointwise["sh"] = 1;
        pointwise["ph"] = 0;
        pointwise["dh"] = 1;
      }
      convs.push_back(pointwise);
      break;
    }
    default:
      convs.push_back(dims(l.groups, mi.c, mo.c, kh, kw));
  }
  const bool data_grad = !model_.inputs(i).empty() && needs_grad_[model_.inputs(i)[0]];
  // Three reorders per call, of the real tensors: the two activations (mb x c x h x w) and the
  // weights (oc x ic/g x kh x kw), each between plain and oneDNN's channel-blocked layout.
  auto reorders = [&](const Dims& c) {
    if (!o_.framework_reorders) return;
    const int64_t ih = c.count("ih") ? c.at("ih") : 1, oh = c.count("oh") ? c.at("oh") : 1;
    const int64_t kh = c.count("kh") ? c.at("kh") : 1;
    Emit(OpKind::kReorder, {{"mb", c.at("mb")}, {"c", c.at("ic")}, {"h", ih}, {"w", c.at("iw")}},
         l.name);
    Emit(OpKind::kReorder, {{"mb", c.at("mb")}, {"c", c.at("oc")}, {"h", oh}, {"w", c.at("ow")}},
         l.name);
    Emit(OpKind::kReorder,
         {{"mb", c.at("oc")}, {"c", c.at("ic") / c.at("g")}, {"h", kh}, {"w", c.at("kw")}}, l.name);
  };
  for (size_t k = 0; k < convs.size(); ++k) {
    if (forward) {
      Emit(OpKind::kConvFwd, convs[k], l.name);
      reorders(convs[k]);
    } else {
      // The depthwise half of a separable conv always needs its data gradient (the pointwise
      // half reads it); the first layer of a network does not.
      if (data_grad || k > 0) {
        Emit(OpKind::kConvBwdData, convs[k], l.name);
        reorders(convs[k]);
      }
      Emit(OpKind::kConvBwdWeights, convs[k], l.name);
      reorders(convs[k]);
    }
  }
  // PyTorch on a GPU adds a convolution's bias after the cuDNN call, and sums its gradient over
  // the batch and positions in a reduction of its own (oneDNN folds both into the convolution).
  if (o_.separate_conv_bias && l.use_bias) {
    const int64_t n = model_.output_shape(i).elements() * B(), oc = convs.back().at("oc");
    if (forward)
      Emit(OpKind::kEltwiseFwd, {{"n", n}}, l.name, "bias_add");
    else
      Emit(OpKind::kReduce, {{"n", n}, {"out", oc}}, l.name, "sum");
  }
}

// The window of a pooling layer; global pooling is a window over the whole map.
std::pair<Dims, std::string> Lowerer::Pool(int i) const {
  const LayerSpec& l = model_.layer(i);
  const bool global = l.kind >= LayerKind::kGlobalAvgPool1D;
  const bool max = l.kind == LayerKind::kMaxPool1D || l.kind == LayerKind::kMaxPool2D ||
                   l.kind == LayerKind::kGlobalMaxPool1D || l.kind == LayerKind::kGlobalMaxPool2D;
  const Map mi = MapOf(InShape(i), l.channels_first);
  Dims d{{"mb", B()}, {"c", mi.c}, {"ih", mi.h}, {"iw", mi.w}};
  if (global) {
    d.insert({{"kh", mi.h},
              {"kw", mi.w},
              {"oh", 1},
              {"ow", 1},
              {"sh", 1},
              {"sw", 1},
              {"ph", 0},
              {"pw", 0}});
    return {d, max ? "max" : "avg"};  // global pooling is timed NCHW whatever the layout
  }
  const Map mo = MapOf(model_.output_shape(i), l.channels_first);
  const bool one_d = InShape(i).rank() == 2;
  const int64_t kh = one_d ? 1 : At(l.kernel, 0, 1), kw = At(l.kernel, one_d ? 0 : 1, 1);
  const int64_t sh = one_d ? 1 : At(l.strides, 0, kh), sw = At(l.strides, one_d ? 0 : 1, kw);
  d.insert({{"oh", mo.h},
            {"ow", mo.w},
            {"kh", kh},
            {"kw", kw},
            {"sh", sh},
            {"sw", sw},
            {"ph", SamePad(l, mi.h, mo.h, kh, sh, 1, one_d ? -1 : 0)},
            {"pw", SamePad(l, mi.w, mo.w, kw, sw, 1, one_d ? 0 : 2)}});
  if (max && o_.aten_kernels) d["aten"] = 1;  // max_pool2d_with_indices
  if (!one_d && o_.channels_last) d["nhwc"] = 1;
  return {d, max ? "max" : "avg"};
}

Dims Lowerer::DenseDims(int i) const {
  const LayerSpec& l = model_.layer(i);
  const int64_t k = InShape(i).dims.back();
  return {{"mb", B() * In(i) / k}, {"ic", k}, {"oc", l.units}, {"bias", l.use_bias ? 1 : 0}};
}

// Batch norm: mb x c channels x sp positions; layer norm: rows x c normalised features.
Dims Lowerer::NormDims(int i) const {
  const LayerSpec& l = model_.layer(i);
  const Shape& s = InShape(i);
  if (l.kind == LayerKind::kLayerNorm) {
    const int64_t c = s.dims.back();
    return {{"rows", B() * s.elements() / c}, {"c", c}};
  }
  const int axis = rules::NormalizeAxis(l.axis, s.rank());
  const int64_t c = s.dims[axis < 0 ? s.rank() - 1 : axis];
  Dims d{{"mb", B()}, {"c", c}, {"sp", s.elements() / c}};
  // Over a channels-last feature map cuDNN's NHWC batch norm runs (PyTorch's own kernels, for
  // 16-bit weights, are timed in NCHW: aten=1 leaves nhwc out).
  if (o_.channels_last && s.rank() == 3 && !o_.aten_batch_norm) d["nhwc"] = 1;
  return d;
}

Dims Lowerer::EmbeddingDims(int i) const {
  const LayerSpec& l = model_.layer(i);
  return {{"rows", B() * In(i)}, {"dim", l.units}, {"vocab", l.vocab}};
}

void Lowerer::Layer(int i) {
  const LayerSpec& l = model_.layer(i);
  const std::string& name = l.name;
  const Shape& out = model_.output_shape(i);
  const int64_t n_out = B() * out.elements();
  current_ = i;
  if (o_.amp && CastsWeights(i)) {
    for (int64_t n : ParamTensors(i)) Cast(n, DType::kFloat32, o_.precision, name);
    // An fp32 input (after an embedding) is cast down as the layer reads it.
    for (size_t k = 0; k < model_.inputs(i).size(); ++k)
      if (!compute16_[model_.inputs(i)[k]])
        Cast(B() * In(i, static_cast<int>(k)), DType::kFloat32, o_.precision, name);
  }
  switch (l.kind) {
    case LayerKind::kInput:
      // Autocast: float inputs stay fp32 until the first 16-bit op casts them.
      if (o_.amp && !l.dtype && compute16_[i]) Cast(n_out, DType::kFloat32, o_.precision, name);
      return;
    case LayerKind::kFlatten:
    case LayerKind::kReshape:
      return;
    case LayerKind::kDense: {
      Emit(OpKind::kInnerProductFwd, DenseDims(i), name);
      if (l.activation == Activation::kSoftmax)
        Emit(OpKind::kSoftmaxFwd, {{"rows", n_out / l.units}, {"c", l.units}}, name);
      Eltwise(l.activation, n_out, name, false);
      return;
    }
    case LayerKind::kConv1D:
    case LayerKind::kConv2D:
    case LayerKind::kDepthwiseConv2D:
    case LayerKind::kSeparableConv1D:
    case LayerKind::kSeparableConv2D:
      Conv(i, true);
      Eltwise(l.activation, n_out, name, false);
      return;
    case LayerKind::kMatMul: {
      const Shape& a = InShape(i);
      const int64_t m = a.dims[a.rank() - 2], k = a.dims.back(), n = out.dims.back();
      Emit(OpKind::kMatMul, {{"b", B() * a.elements() / (m * k)}, {"m", m}, {"k", k}, {"n", n}},
           name);
      return;
    }
    case LayerKind::kGlobalAvgPool1D:
    case LayerKind::kGlobalAvgPool2D:
      if (o_.mean_global_pool) {  // as a ReduceMean layer
        Emit(OpKind::kReduce, {{"n", B() * In(i)}, {"out", n_out}}, name, "mean");
        return;
      }
      [[fallthrough]];
    case LayerKind::kMaxPool1D:
    case LayerKind::kMaxPool2D:
    case LayerKind::kAvgPool1D:
    case LayerKind::kAvgPool2D:
    case LayerKind::kGlobalMaxPool1D:
    case LayerKind::kGlobalMaxPool2D: {
      auto [dims, alg] = Pool(i);
      Emit(OpKind::kPoolFwd, std::move(dims), name, alg);
      return;
    }
    case LayerKind::kBatchNorm:
      Emit(OpKind::kBatchNormFwd, NormDims(i), name);
      return;
    case LayerKind::kLayerNorm:
      Emit(OpKind::kLayerNormFwd, NormDims(i), name);
      return;
    case LayerKind::kDropout:
      if (o_.training && l.rate > 0) Emit(OpKind::kDropoutFwd, {{"n", n_out}}, name);
      return;
    case LayerKind::kActivation:
      if (l.activation == Activation::kSoftmax)
        Emit(OpKind::kSoftmaxFwd, {{"rows", n_out / SoftmaxWidth(out)}, {"c", SoftmaxWidth(out)}},
             name);
      Eltwise(l.activation, n_out, name, false);
      return;
    case LayerKind::kElementwise:
      Emit(OpKind::kEltwiseFwd, {{"n", n_out}}, name, l.op.empty() ? "op" : l.op);
      return;
    case LayerKind::kAdd:
    case LayerKind::kSubtract:
    case LayerKind::kMultiply:
    case LayerKind::kDivide: {
      const char* alg = l.kind == LayerKind::kAdd        ? "add"
                        : l.kind == LayerKind::kSubtract ? "sub"
                        : l.kind == LayerKind::kMultiply ? "mul"
                                                         : "div";
      Emit(OpKind::kBinary, {{"n", n_out}}, name, alg,
           static_cast<int>(model_.inputs(i).size()) - 1);
      return;
    }
    case LayerKind::kConcatenate:
    case LayerKind::kClassToken:
      Emit(OpKind::kConcat, {{"n", n_out}}, name);
      return;
    case LayerKind::kTranspose:
    case LayerKind::kSlice:
    case LayerKind::kZeroPadding1D:
    case LayerKind::kZeroPadding2D:
    case LayerKind::kCropping2D:
      Emit(OpKind::kReorder, {{"n", n_out}}, name);
      return;
    case LayerKind::kReduceMean:
    case LayerKind::kReduceSum:
      Emit(OpKind::kReduce, {{"n", B() * In(i)}, {"out", n_out}}, name,
           l.kind == LayerKind::kReduceSum ? "sum" : "mean");
      return;
    case LayerKind::kPositionEmbedding:
      Emit(OpKind::kBinary, {{"n", n_out}}, name, "add");
      return;
    case LayerKind::kEmbedding:
      Emit(OpKind::kEmbeddingFwd, EmbeddingDims(i), name);
      return;
    case LayerKind::kLstm:
    case LayerKind::kGru: {
      if (o_.rnn == RnnLowering::kUnrolled) return UnrolledRnn(i, false);
      Emit(OpKind::kRnnFwd, RnnDims(i), name, l.kind == LayerKind::kLstm ? "lstm" : "gru");
      return;
    }
    case LayerKind::kAttention: {
      const int64_t s = out.dims[0], d = out.dims[1], h = l.heads;
      Emit(OpKind::kInnerProductFwd, {{"mb", B() * s}, {"ic", d}, {"oc", d}, {"bias", l.use_bias}},
           name, "", 4);  // Q, K, V and output projections
      // Splitting Q, K and V into heads and merging the heads back are copies (a transposed
      // view cannot feed a batched GEMM as it is); the scores are scaled by 1/sqrt(dk) and,
      // for causal attention, masked, each a pass over them.
      Emit(OpKind::kReorder, {{"n", B() * s * d}}, name, "", 4);
      Emit(OpKind::kMatMul, {{"b", B() * h}, {"m", s}, {"k", d / h}, {"n", s}}, name);  // Q K^T
      Emit(OpKind::kEltwiseFwd, {{"n", B() * h * s * s}}, name, "scale");
      if (l.causal) Emit(OpKind::kEltwiseFwd, {{"n", B() * h * s * s}}, name, "masked_fill");
      Emit(OpKind::kSoftmaxFwd, {{"rows", B() * h * s}, {"c", s}}, name);
      Emit(OpKind::kMatMul, {{"b", B() * h}, {"m", s}, {"k", s}, {"n", d / h}}, name);  // P V
      return;
    }
    case LayerKind::kHighway: {
      const int64_t d = out.dims.back();
      for (int k = 0; k < l.highway_layers; ++k) {
        Emit(OpKind::kInnerProductFwd, {{"mb", n_out / d}, {"ic", d}, {"oc", d}, {"bias", 1}}, name,
             "", 2);
        Emit(OpKind::kEltwiseFwd, {{"n", n_out}}, name, "sigmoid");
        Emit(OpKind::kEltwiseFwd, {{"n", n_out}}, name, "relu");
        Emit(OpKind::kBinary, {{"n", n_out}}, name, "mul", 2);  // t * g and (1 - t) * y
        Emit(OpKind::kBinary, {{"n", n_out}}, name, "add");
      }
      return;
    }
    case LayerKind::kLoss: {
      const Shape& s = InShape(i);
      const int64_t c = s.dims.back();
      Emit(OpKind::kLoss, {{"rows", B() * s.elements() / c}, {"c", c}}, name,
           std::string(LossFunctionName(l.loss)));
      return;
    }
  }
}

void Lowerer::Backward(int i) {
  const LayerSpec& l = model_.layer(i);
  const std::string& name = l.name;
  const Shape& out = model_.output_shape(i);
  const int64_t n_out = B() * out.elements();
  bool data_grad = false;
  for (int q : model_.inputs(i)) data_grad = data_grad || needs_grad_[q];
  current_ = i;
  // Autocast: the 16-bit weights' gradients back to the fp32 weights, and the gradient of an
  // fp32 input back up.
  if (o_.amp && CastsWeights(i)) {
    for (int64_t n : ParamTensors(i)) Cast(n, o_.precision, DType::kFloat32, name);
    for (size_t k = 0; k < model_.inputs(i).size(); ++k) {
      const int q = model_.inputs(i)[k];
      if (!compute16_[q] && needs_grad_[q])
        Cast(B() * In(i, static_cast<int>(k)), o_.precision, DType::kFloat32, name);
    }
  }
  switch (l.kind) {
    case LayerKind::kInput:
    case LayerKind::kFlatten:
    case LayerKind::kReshape:
    case LayerKind::kLoss:  // its gradient is part of the loss op
      return;
    case LayerKind::kDense: {
      const Dims d = DenseDims(i);
      if (l.activation == Activation::kSoftmax)
        Emit(OpKind::kSoftmaxBwd, {{"rows", n_out / l.units}, {"c", l.units}}, name);
      Eltwise(l.activation, n_out, name, true);
      if (data_grad) Emit(OpKind::kInnerProductBwdData, d, name);
      Emit(OpKind::kInnerProductBwdWeights, d, name);
      return;
    }
    case LayerKind::kConv1D:
    case LayerKind::kConv2D:
    case LayerKind::kDepthwiseConv2D:
    case LayerKind::kSeparableConv1D:
    case LayerKind::kSeparableConv2D:
      Eltwise(l.activation, n_out, name, true);
      Conv(i, false);
      return;
    default:
      break;
  }
  switch (l.kind) {
    case LayerKind::kMatMul: {
      const Shape& a = InShape(i);
      const int64_t m = a.dims[a.rank() - 2], k = a.dims.back(), n = out.dims.back();
      const int64_t b = B() * a.elements() / (m * k);
      Emit(OpKind::kMatMul, {{"b", b}, {"m", m}, {"k", n}, {"n", k}}, name);  // dA = dC B^T
      Emit(OpKind::kMatMul, {{"b", b}, {"m", k}, {"k", m}, {"n", n}}, name);  // dB = A^T dC
      return;
    }
    case LayerKind::kGlobalAvgPool1D:
    case LayerKind::kGlobalAvgPool2D:
      if (o_.mean_global_pool) {  // as a ReduceMean layer: the gradient broadcast back
        Emit(OpKind::kBinary, {{"n", B() * In(i)}}, name, "add");
        return;
      }
      [[fallthrough]];
    case LayerKind::kMaxPool1D:
    case LayerKind::kMaxPool2D:
    case LayerKind::kAvgPool1D:
    case LayerKind::kAvgPool2D:
    case LayerKind::kGlobalMaxPool1D:
    case LayerKind::kGlobalMaxPool2D: {
      auto [dims, alg] = Pool(i);
      Emit(OpKind::kPoolBwd, std::move(dims), name, alg);
      return;
    }
    default:
      break;
  }
  // The remaining kinds: backward counterparts with the forward dims.
  switch (l.kind) {
    case LayerKind::kBatchNorm:
      Emit(OpKind::kBatchNormBwd, NormDims(i), name);
      return;
    case LayerKind::kLayerNorm:
      Emit(OpKind::kLayerNormBwd, NormDims(i), name);
      return;
    case LayerKind::kDropout:
      if (l.rate > 0) Emit(OpKind::kDropoutBwd, {{"n", n_out}}, name);
      return;
    case LayerKind::kActivation:
      if (l.activation == Activation::kSoftmax)
        Emit(OpKind::kSoftmaxBwd, {{"rows", n_out / SoftmaxWidth(out)}, {"c", SoftmaxWidth(out)}},
             name);
      Eltwise(l.activation, n_out, name, true);
      return;
    case LayerKind::kElementwise:
      Emit(OpKind::kEltwiseBwd, {{"n", n_out}}, name, l.op.empty() ? "op" : l.op);
      if (l.learned_elements > 0)
        Emit(OpKind::kReduce, {{"n", n_out}, {"out", l.learned_elements}}, name, "sum");
      return;
    case LayerKind::kAdd:
    case LayerKind::kSubtract:
      return;  // the gradient passes through unchanged
    case LayerKind::kMultiply:
    case LayerKind::kDivide:
      Emit(OpKind::kBinary, {{"n", n_out}}, name, "mul",
           2 * (static_cast<int>(model_.inputs(i).size()) - 1));
      return;
    case LayerKind::kConcatenate:
    case LayerKind::kTranspose:
    case LayerKind::kSlice:
    case LayerKind::kZeroPadding1D:
    case LayerKind::kZeroPadding2D:
    case LayerKind::kCropping2D:
    case LayerKind::kClassToken:
      Emit(OpKind::kReorder, {{"n", n_out}}, name);
      return;
    case LayerKind::kReduceMean:
    case LayerKind::kReduceSum:
      Emit(OpKind::kBinary, {{"n", B() * In(i)}}, name, "add");  // broadcast the gradient back
      return;
    case LayerKind::kPositionEmbedding:
      Emit(OpKind::kReduce, {{"n", n_out}, {"out", out.elements()}}, name, "sum");
      return;
    case LayerKind::kEmbedding:
      Emit(OpKind::kEmbeddingBwd, EmbeddingDims(i), name);
      return;
    case LayerKind::kLstm:
    case LayerKind::kGru: {
      if (o_.rnn == RnnLowering::kUnrolled) return UnrolledRnn(i, true);
      Emit(OpKind::kRnnBwd, RnnDims(i), name, l.kind == LayerKind::kLstm ? "lstm" : "gru");
      return;
    }
    case LayerKind::kAttention: {
      const int64_t s = out.dims[0], d = out.dims[1], h = l.heads, dk = d / h;
      Dims proj{{"mb", B() * s}, {"ic", d}, {"oc", d}, {"bias", l.use_bias}};
      Emit(OpKind::kInnerProductBwdData, proj, name, "", data_grad ? 4 : 3);
      Emit(OpKind::kInnerProductBwdWeights, proj, name, "", 4);
      Emit(OpKind::kMatMul, {{"b", B() * h}, {"m", s}, {"k", dk}, {"n", s}}, name);  // dP
      Emit(OpKind::kMatMul, {{"b", B() * h}, {"m", s}, {"k", s}, {"n", dk}}, name, "", 3);
      Emit(OpKind::kSoftmaxBwd, {{"rows", B() * h * s}, {"c", s}}, name);
      if (l.causal) Emit(OpKind::kEltwiseBwd, {{"n", B() * h * s * s}}, name, "masked_fill");
      Emit(OpKind::kEltwiseBwd, {{"n", B() * h * s * s}}, name, "scale");
      Emit(OpKind::kReorder, {{"n", B() * s * d}}, name, "", 4);  // the heads' copies
      return;
    }
    case LayerKind::kHighway: {
      const int64_t d = out.dims.back();
      Dims ip{{"mb", n_out / d}, {"ic", d}, {"oc", d}, {"bias", 1}};
      for (int k = 0; k < l.highway_layers; ++k) {
        Emit(OpKind::kBinary, {{"n", n_out}}, name, "mul", 4);
        Emit(OpKind::kEltwiseBwd, {{"n", n_out}}, name, "sigmoid");
        Emit(OpKind::kEltwiseBwd, {{"n", n_out}}, name, "relu");
        Emit(OpKind::kInnerProductBwdData, ip, name, "", 2);
        Emit(OpKind::kInnerProductBwdWeights, ip, name, "", 2);
      }
      return;
    }
    default:
      return;
  }
}

// One update per weight tensor, as frameworks apply them.
void Lowerer::Optimizers(int i) {
  const LayerSpec& l = model_.layer(i);
  for (int64_t n : ParamTensors(i)) {
    // GradScaler (fp16 autocast) unscales each gradient before the update.
    if (o_.amp && o_.precision == DType::kFloat16)
      Add({.kind = OpKind::kEltwiseFwd,
           .dtype = DType::kFloat32,
           .alg = "unscale",
           .dims = {{"n", n}}},
          l.name, 1);
    Emit(OpKind::kOptimizer, {{"n", n}}, l.name, std::string(OptimizerName(o_.optimizer)));
  }
}

bool Lowerer::CastsWeights(int i) const {
  return CastsWeightsUnderAutocast(model_.layer(i).kind, o_);
}

bool Lowerer::Input16(int i) const { return InputsIn16(model_, compute16_, i); }

std::vector<int64_t> Lowerer::ParamTensors(int i) const {
  const LayerSpec& l = model_.layer(i);
  std::vector<Shape> in;
  for (int q : model_.inputs(i)) in.push_back(model_.output_shape(q));
  const LayerCounts c = CountLayer(l, in, model_.output_shape(i));
  std::vector<int64_t> tensors;
  if (c.trainable_params == 0) return tensors;
  if ((l.kind == LayerKind::kLstm || l.kind == LayerKind::kGru) && o_.rnn == RnnLowering::kAten) {
    // Per direction the input weights, the recurrent weights, and each bias set, as nn.LSTM
    // holds them (weight_ih, weight_hh, bias_ih, bias_hh). The other lowerings keep one tensor
    // per layer, as the profiles measured before this one were lowered.
    const int64_t gates = (l.kind == LayerKind::kLstm ? 4 : 3) * l.units;
    for (int d = 0; d < (l.bidirectional ? 2 : 1); ++d) {
      tensors.push_back(gates * InShape(i).dims[1]);
      tensors.push_back(gates * l.units);
      for (int b = 0; b < l.bias_sets; ++b) tensors.push_back(gates);
    }
    return tensors;
  }
  int64_t bias = 0;
  switch (l.kind) {
    case LayerKind::kDense:
    case LayerKind::kConv1D:
    case LayerKind::kConv2D:
    case LayerKind::kDepthwiseConv2D:
      bias = l.use_bias ? model_.output_shape(i)
                              .dims[l.channels_first ? 0 : model_.output_shape(i).rank() - 1]
                        : 0;
      break;
    case LayerKind::kBatchNorm:
    case LayerKind::kLayerNorm:
      bias = l.center ? c.trainable_params / ((l.scale ? 1 : 0) + 1) : 0;
      break;
    default:
      break;
  }
  if (c.trainable_params > bias) tensors.push_back(c.trainable_params - bias);
  if (bias > 0) tensors.push_back(bias);
  return tensors;
}

Result<StepOps> Lowerer::Run() {
  const int n = model_.size();
  needs_grad_.assign(n, false);
  for (int i = 0; i < n; ++i) {
    const LayerSpec& l = model_.layer(i);
    std::vector<Shape> in;
    for (int q : model_.inputs(i)) in.push_back(model_.output_shape(q));
    bool grad = CountLayer(l, in, model_.output_shape(i)).trainable_params > 0;
    for (int q : model_.inputs(i)) grad = grad || needs_grad_[q];
    needs_grad_[i] = grad && l.kind != LayerKind::kInput;
  }
  compute16_ = AutocastComputes16(model_, o_);
  for (int i = 0; i < n; ++i) Layer(i);
  out_.backward_begin = out_.update_begin = out_.sequence.size();
  if (!o_.training) return std::move(out_);
  for (int i = n - 1; i >= 0; --i)
    if (needs_grad_[i]) Backward(i);
  out_.update_begin = out_.sequence.size();
  current_ = -1;  // the updates are fp32 under autocast (Float32UnderAutocast)
  for (int i = 0; i < n; ++i) Optimizers(i);
  return std::move(out_);
}

}  // namespace lowering

Result<StepOps> Lower(const Model& model, const LoweringOptions& options) {
  if (options.batch <= 0 || options.batch > kMaxBatch)
    return Status::InvalidArgument("batch must be from 1 to " + std::to_string(kMaxBatch) +
                                   ", got " + std::to_string(options.batch));
  lowering::Lowerer lowerer(model, options);
  return lowerer.Run();
}

}  // namespace epochcost
