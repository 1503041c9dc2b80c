// Rules of the layers that slide a window over 1-D or 2-D data: convolutions (plain, grouped,
// depthwise, separable), pooling, global pooling, zero padding and cropping. Channels are last
// (Keras) unless the layer says channels_first (ONNX, PyTorch).
#include <cmath>

#include "engine/layer_rules.h"

namespace epochcost::rules {
namespace {

int SpatialRank(LayerKind k) {
  switch (k) {
    case LayerKind::kConv1D:
    case LayerKind::kSeparableConv1D:
    case LayerKind::kMaxPool1D:
    case LayerKind::kAvgPool1D:
    case LayerKind::kGlobalAvgPool1D:
    case LayerKind::kGlobalMaxPool1D:
    case LayerKind::kZeroPadding1D:
      return 1;
    default:
      return 2;
  }
}

// A feature map split into its spatial extent and channel count.
struct FeatureMap {
  std::vector<int64_t> spatial;
  int64_t channels = 0;
};

Result<FeatureMap> Split(const LayerSpec& l, const Shape& s) {
  const int n = SpatialRank(l.kind);
  if (s.rank() != n + 1) {
    const char* want =
        n == 1 ? (l.channels_first ? "(channels, steps)" : "(steps, channels)")
               : (l.channels_first ? "(channels, height, width)" : "(height, width, channels)");
    return Status::ShapeMismatch(Describe(l) + ": expects " + want + ", got " + s.ToString());
  }
  FeatureMap f;
  if (l.channels_first) {
    f.channels = s.dims[0];
    f.spatial.assign(s.dims.begin() + 1, s.dims.end());
  } else {
    f.channels = s.dims.back();
    f.spatial.assign(s.dims.begin(), s.dims.end() - 1);
  }
  return f;
}

Shape Join(const LayerSpec& l, const std::vector<int64_t>& spatial, int64_t channels) {
  Shape s;
  if (l.channels_first) s.dims.push_back(channels);
  s.dims.insert(s.dims.end(), spatial.begin(), spatial.end());
  if (!l.channels_first) s.dims.push_back(channels);
  return s;
}

int64_t At(const std::vector<int64_t>& v, size_t i, int64_t fallback) {
  if (v.empty()) return fallback;
  return i < v.size() ? v[i] : v.back();
}

bool IsPool(LayerKind k) {
  return k == LayerKind::kMaxPool1D || k == LayerKind::kMaxPool2D || k == LayerKind::kAvgPool1D ||
         k == LayerKind::kAvgPool2D;
}

// Output extent of a sliding window along every spatial axis.
Result<std::vector<int64_t>> Slide(const LayerSpec& l, const std::vector<int64_t>& in) {
  const size_t n = in.size();
  if (l.kernel.empty()) return Status::InvalidArgument(Describe(l) + ": kernel is not set");
  if (l.padding == Padding::kExplicit && l.pads.size() != 2 * n)
    return Status::InvalidArgument(Describe(l) + ": explicit padding needs " +
                                   std::to_string(2 * n) + " pads, got " +
                                   std::to_string(l.pads.size()));
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = At(l.kernel, i, 1);
    const int64_t s = At(l.strides, i, IsPool(l.kind) ? k : 1);
    const int64_t d = At(l.dilation, i, 1);
    if (k <= 0 || s <= 0 || d <= 0)
      return Status::InvalidArgument(Describe(l) +
                                     ": kernel, strides and dilation must be positive");
    const int64_t span = d * (k - 1) + 1;
    int64_t o = 0;
    switch (l.padding) {
      case Padding::kSame:
        o = (in[i] + s - 1) / s;
        break;
      case Padding::kValid:
        o = in[i] >= span ? (in[i] - span) / s + 1 : 0;
        break;
      case Padding::kExplicit: {
        const int64_t padded = in[i] + l.pads[2 * i] + l.pads[2 * i + 1];
        o = padded >= span ? (padded - span) / s + 1 : 0;
        break;
      }
    }
    if (o <= 0)
      return Status::ShapeMismatch(Describe(l) + ": window of " + std::to_string(span) +
                                   " does not fit input extent " + std::to_string(in[i]));
    out[i] = o;
  }
  return out;
}

double Product(const std::vector<int64_t>& v, size_t n) {
  double p = 1;
  for (size_t i = 0; i < n; ++i) p *= static_cast<double>(At(v, i, 1));
  return p;
}

}  // namespace

Result<Shape> InferConv(const LayerSpec& l, const std::vector<Shape>& in) {
  Result<FeatureMap> f = Split(l, in[0]);
  if (!f.ok()) return f.status();
  Result<std::vector<int64_t>> spatial = Slide(l, f->spatial);
  if (!spatial.ok()) return spatial.status();
  int64_t channels = l.units;
  if (l.kind == LayerKind::kDepthwiseConv2D) {
    channels = f->channels * l.depth_multiplier;
  } else {
    if (l.units <= 0) return Status::InvalidArgument(Describe(l) + ": filters must be positive");
    if (l.groups <= 0 || f->channels % l.groups != 0 || l.units % l.groups != 0)
      return Status::ShapeMismatch(Describe(l) + ": " + std::to_string(l.groups) +
                                   " groups do not divide " + std::to_string(f->channels) +
                                   " input and " + std::to_string(l.units) + " output channels");
  }
  return Join(l, *spatial, channels);
}

LayerCounts CountConv(const LayerSpec& l, const std::vector<Shape>& in, const Shape& out) {
  const FeatureMap f = *Split(l, in[0]);
  const FeatureMap o = *Split(l, out);
  const double window = Product(l.kernel, f.spatial.size());
  const double positions = Product(o.spatial, o.spatial.size());
  const double cin = static_cast<double>(f.channels);
  const double cout = static_cast<double>(o.channels);
  double macs = 0;
  double weights = 0;
  LayerCounts c;
  switch (l.kind) {
    case LayerKind::kDepthwiseConv2D:
      weights = window * cout;
      macs = positions * cout * window;
      break;
    case LayerKind::kSeparableConv1D:
    case LayerKind::kSeparableConv2D: {
      const double mid = cin * static_cast<double>(l.depth_multiplier);
      weights = window * mid + mid * cout;
      macs = positions * mid * window + positions * mid * cout;
      c.saved_elements = positions * mid;  // the depthwise result feeds the pointwise gradient
      break;
    }
    default:
      weights = window * cin / static_cast<double>(l.groups) * cout;
      macs = positions * cout * window * cin / static_cast<double>(l.groups);
      break;
  }
  const double bias = l.use_bias ? positions * cout : 0;
  c.trainable_params = static_cast<int64_t>(weights) + (l.use_bias ? o.channels : 0);
  c.fwd_flops = 2 * macs + bias;
  c.bwd_data_flops = 2 * macs;
  c.bwd_weight_flops = 2 * macs + bias;
  c.saves_inputs = true;
  const double out_elements = static_cast<double>(out.elements());
  c.fwd_flops += ActivationFlops(l.activation) * out_elements;
  c.bwd_data_flops += ActivationBackwardFlops(l.activation) * out_elements;
  if (ActivationNeedsOutput(l.activation))
    c.saves_output = true;
  else if (l.activation != Activation::kLinear)
    c.saved_elements += out_elements;
  return c;
}

Result<Shape> InferPool(const LayerSpec& l, const std::vector<Shape>& in) {
  Result<FeatureMap> f = Split(l, in[0]);
  if (!f.ok()) return f.status();
  Result<std::vector<int64_t>> spatial = Slide(l, f->spatial);
  if (!spatial.ok()) return spatial.status();
  return Join(l, *spatial, f->channels);
}

// Max pooling keeps one byte per output (the arg-max within the window) for its backward pass,
// as oneDNN's workspace does; average pooling keeps nothing.
LayerCounts CountPool(const LayerSpec& l, const std::vector<Shape>& in, const Shape& out) {
  const double window = Product(l.kernel, static_cast<size_t>(in[0].rank() - 1));
  const double outputs = static_cast<double>(out.elements());
  const bool is_max = l.kind == LayerKind::kMaxPool1D || l.kind == LayerKind::kMaxPool2D;
  LayerCounts c;
  c.fwd_flops = outputs * window;
  c.bwd_data_flops = is_max ? outputs : outputs * window;
  if (is_max) c.saved_mask_bytes = outputs;
  return c;
}

Result<Shape> InferGlobalPool(const LayerSpec& l, const std::vector<Shape>& in) {
  Result<FeatureMap> f = Split(l, in[0]);
  if (!f.ok()) return f.status();
  return Shape{{f->channels}};
}

LayerCounts CountGlobalPool(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const double elements = static_cast<double>(in[0].elements());
  const bool is_max =
      l.kind == LayerKind::kGlobalMaxPool1D || l.kind == LayerKind::kGlobalMaxPool2D;
  LayerCounts c;
  c.fwd_flops = elements;
  c.bwd_data_flops = elements;
  c.saves_inputs = is_max;
  return c;
}

// Zero padding adds pads {top, bottom, left, right} ({left, right} in 1-D); cropping removes them.
Result<Shape> InferPadCrop(const LayerSpec& l, const std::vector<Shape>& in) {
  Result<FeatureMap> f = Split(l, in[0]);
  if (!f.ok()) return f.status();
  const size_t n = f->spatial.size();
  if (l.pads.size() != 2 * n)
    return Status::InvalidArgument(Describe(l) + ": needs " + std::to_string(2 * n) +
                                   " pad amounts, got " + std::to_string(l.pads.size()));
  const int sign = l.kind == LayerKind::kCropping2D ? -1 : 1;
  std::vector<int64_t> spatial(n);
  for (size_t i = 0; i < n; ++i) {
    if (l.pads[2 * i] < 0 || l.pads[2 * i + 1] < 0)
      return Status::InvalidArgument(Describe(l) + ": pad amounts must not be negative");
    spatial[i] = f->spatial[i] + sign * (l.pads[2 * i] + l.pads[2 * i + 1]);
    if (spatial[i] <= 0)
      return Status::ShapeMismatch(Describe(l) + ": cropping leaves nothing of " +
                                   in[0].ToString());
  }
  return Join(l, spatial, f->channels);
}

LayerCounts CountCopy(const LayerSpec&, const std::vector<Shape>&, const Shape&) { return {}; }

}  // namespace epochcost::rules
