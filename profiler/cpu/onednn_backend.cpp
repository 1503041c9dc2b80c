#include "profiler/cpu/onednn_backend.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>

#include "profiler/cpu/aten_kernels.h"
#include "profiler/cpu/blas_probe.h"
#include "profiler/cpu/own_kernels.h"
#include "profiler/cpu/torch_kernels.h"
#include "profiler/timer.h"

namespace epochcost::profiler {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;
using dims = memory::dims;

// A primitive ready to run, with every memory its descriptor asks for.
struct Prepared {
  dnnl::primitive primitive;
  std::unordered_map<int, memory> args;
  std::string note;  // the implementation oneDNN chose, "jit:avx2"; and how, where it matters
};

// Every execution argument a training primitive may take; those the descriptor reports with a
// non-zero size get a buffer.
constexpr int kArgs[] = {
    DNNL_ARG_SRC,          DNNL_ARG_SRC_1,          DNNL_ARG_SRC_2,      DNNL_ARG_WEIGHTS,
    DNNL_ARG_WEIGHTS_1,    DNNL_ARG_BIAS,           DNNL_ARG_DST,        DNNL_ARG_DST_1,
    DNNL_ARG_DST_2,        DNNL_ARG_DIFF_SRC,       DNNL_ARG_DIFF_SRC_1, DNNL_ARG_DIFF_SRC_2,
    DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_WEIGHTS_1, DNNL_ARG_DIFF_BIAS,  DNNL_ARG_DIFF_DST,
    DNNL_ARG_DIFF_DST_1,   DNNL_ARG_DIFF_DST_2,     DNNL_ARG_WORKSPACE,  DNNL_ARG_MEAN,
    DNNL_ARG_VARIANCE,     DNNL_ARG_SCALE,          DNNL_ARG_SHIFT,      DNNL_ARG_DIFF_SCALE,
    DNNL_ARG_DIFF_SHIFT,
};

Prepared Prepare(const dnnl::primitive_desc_base& pd, dnnl::primitive p, const dnnl::engine& eng) {
  Prepared out{std::move(p), {}, pd.impl_info_str()};
  for (int arg : kArgs) {
    const memory::desc md = pd.query_md(dnnl::query::exec_arg_md, arg);
    if (md.get_size() == 0) continue;
    memory m(md, eng);
    std::memset(m.get_data_handle(), 0x3D, md.get_size());  // about 0.046 in f32 and bf16
    out.args.emplace(arg, std::move(m));
  }
  return out;
}

dt DataType(DType t) {
  switch (t) {
    case DType::kBFloat16:
      return dt::bf16;
    case DType::kFloat16:
      return dt::f16;
    default:
      return dt::f32;
  }
}

class Builder {
 public:
  Builder(const OpSignature& s, const dnnl::engine& eng)
      : s_(s), eng_(eng), t_(DataType(s.dtype)) {}

  Prepared Build();

 private:
  int64_t D(const char* k, int64_t fallback = 0) const { return s_.dim(k, fallback); }
  memory::desc Any(const dims& d) const { return memory::desc(d, t_, tag::any); }
  memory::desc Plain(const dims& d) const {
    static const tag kTags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde};
    return memory::desc(d, t_, kTags[d.size()]);
  }

  Prepared Conv();
  Prepared InnerProduct();
  Prepared Eltwise();
  Prepared Softmax();
  Prepared Pool();
  Prepared BatchNorm();
  Prepared LayerNorm();
  Prepared Binary();
  Prepared MatMul();
  Prepared Copy();
  Prepared Reduce();
  Prepared Rnn();

  const OpSignature& s_;
  const dnnl::engine& eng_;
  dt t_;
};

Prepared Builder::Conv() {
  const bool two_d = s_.dims.contains("kh");
  const int64_t g = D("g", 1), mb = D("mb"), ic = D("ic"), oc = D("oc");
  dims src{mb, ic}, dst{mb, oc}, wei, strides, dil, pl, pr;
  if (g > 1)
    wei = {g, oc / g, ic / g};
  else
    wei = {oc, ic};
  auto axis = [&](const char* i, const char* o, const char* k, const char* st, const char* dl,
                  const char* p) {
    src.push_back(D(i));
    dst.push_back(D(o));
    wei.push_back(D(k));
    strides.push_back(D(st, 1));
    dil.push_back(D(dl, 1) - 1);  // oneDNN counts dilation from 0
    pl.push_back(D(p));
    const int64_t span = (D(k) - 1) * D(dl, 1) + 1;
    pr.push_back(std::max<int64_t>((D(o) - 1) * D(st, 1) + span - D(i) - D(p), 0));
  };
  if (two_d) axis("ih", "oh", "kh", "sh", "dh", "ph");
  axis("iw", "ow", "kw", "sw", "dw", "pw");
  const auto alg = dnnl::algorithm::convolution_direct;
  dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_training, alg, Any(src), Any(wei),
                                     Any({oc}), Any(dst), strides, dil, pl, pr);
  dnnl::convolution_forward::primitive_desc fpd(fd, eng_);
  switch (s_.kind) {
    case OpKind::kConvFwd:
      return Prepare(fpd, dnnl::convolution_forward(fpd), eng_);
    case OpKind::kConvBwdData: {
      dnnl::convolution_backward_data::desc d(alg, Any(src), Any(wei), Any(dst), strides, dil, pl,
                                              pr);
      dnnl::convolution_backward_data::primitive_desc pd(d, eng_, fpd);
      return Prepare(pd, dnnl::convolution_backward_data(pd), eng_);
    }
    default: {
      dnnl::convolution_backward_weights::desc d(alg, Any(src), Any(wei), Any({oc}), Any(dst),
                                                 strides, dil, pl, pr);
      dnnl::convolution_backward_weights::primitive_desc pd(d, eng_, fpd);
      return Prepare(pd, dnnl::convolution_backward_weights(pd), eng_);
    }
  }
}

Prepared Builder::InnerProduct() {
  const int64_t mb = D("mb"), ic = D("ic"), oc = D("oc");
  const bool bias = D("bias", 1) != 0;
  const memory::desc src = Any({mb, ic}), wei = Any({oc, ic}), dst = Any({mb, oc});
  const memory::desc b = bias ? Any({oc}) : memory::desc();
  dnnl::inner_product_forward::desc fd(dnnl::prop_kind::forward_training, src, wei, b, dst);
  dnnl::inner_product_forward::primitive_desc fpd(fd, eng_);
  switch (s_.kind) {
    case OpKind::kInnerProductFwd:
      return Prepare(fpd, dnnl::inner_product_forward(fpd), eng_);
    case OpKind::kInnerProductBwdData: {
      dnnl::inner_product_backward_data::desc d(src, wei, dst);
      dnnl::inner_product_backward_data::primitive_desc pd(d, eng_, fpd);
      return Prepare(pd, dnnl::inner_product_backward_data(pd), eng_);
    }
    default: {
      dnnl::inner_product_backward_weights::desc d(src, wei, b, dst);
      dnnl::inner_product_backward_weights::primitive_desc pd(d, eng_, fpd);
      return Prepare(pd, dnnl::inner_product_backward_weights(pd), eng_);
    }
  }
}

Prepared Builder::Eltwise() {
  static const std::map<std::string, std::tuple<dnnl::algorithm, float, float>> kAlgs = {
      {"relu", {dnnl::algorithm::eltwise_relu, 0.f, 0.f}},
      {"relu6", {dnnl::algorithm::eltwise_clip, 0.f, 6.f}},
      {"tanh", {dnnl::algorithm::eltwise_tanh, 0.f, 0.f}},
      {"sigmoid", {dnnl::algorithm::eltwise_logistic, 0.f, 0.f}},
      {"gelu", {dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f}},
      {"swish", {dnnl::algorithm::eltwise_swish, 1.f, 0.f}},
      {"hard_sigmoid", {dnnl::algorithm::eltwise_clip, 0.f, 1.f}},
      {"Sqrt", {dnnl::algorithm::eltwise_sqrt, 0.f, 0.f}},
      {"Exp", {dnnl::algorithm::eltwise_exp, 0.f, 0.f}},
      {"Log", {dnnl::algorithm::eltwise_log, 0.f, 0.f}},
      {"Erf", {dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f}},
  };
  // Other element-wise ops (ONNX Add with a constant, Cast, ...) cost a linear pass.
  auto it = kAlgs.find(s_.alg);
  const auto [alg, alpha, beta] =
      it == kAlgs.end() ? std::tuple{dnnl::algorithm::eltwise_linear, 1.f, 0.f} : it->second;
  const memory::desc md = Plain({D("n")});
  dnnl::eltwise_forward::desc fd(dnnl::prop_kind::forward_training, alg, md, alpha, beta);
  dnnl::eltwise_forward::primitive_desc fpd(fd, eng_);
  if (s_.kind == OpKind::kEltwiseFwd) return Prepare(fpd, dnnl::eltwise_forward(fpd), eng_);
  // Frameworks compute the gradients of tanh and sigmoid from the forward's output, which the
  // backward pass keeps: PyTorch's tanh_backward and sigmoid_backward (grad (1 - y^2) and
  // grad y (1 - y)), TensorFlow's TanhGrad and SigmoidGrad. oneDNN's default variants recompute
  // them from the input: 17.0 against 1.4 us for 2,048 values at 1 thread on the development
  // CPU, where PyTorch's tanh_backward takes 3.0 us (docs/accuracy.md). ReLU's gradient costs
  // the same from either.
  static const std::map<dnnl::algorithm, dnnl::algorithm> kFromOutput = {
      {dnnl::algorithm::eltwise_tanh, dnnl::algorithm::eltwise_tanh_use_dst_for_bwd},
      {dnnl::algorithm::eltwise_logistic, dnnl::algorithm::eltwise_logistic_use_dst_for_bwd},
  };
  const auto from_output = kFromOutput.find(alg);
  if (from_output == kFromOutput.end()) {
    dnnl::eltwise_backward::desc d(alg, md, md, alpha, beta);
    dnnl::eltwise_backward::primitive_desc pd(d, eng_, fpd);
    return Prepare(pd, dnnl::eltwise_backward(pd), eng_);
  }
  dnnl::eltwise_forward::desc hint_d(dnnl::prop_kind::forward_training, from_output->second, md,
                                     alpha, beta);
  dnnl::eltwise_forward::primitive_desc hint(hint_d, eng_);
  dnnl::eltwise_backward::desc d(from_output->second, md, md, alpha, beta);
  dnnl::eltwise_backward::primitive_desc pd(d, eng_, hint);
  Prepared p = Prepare(pd, dnnl::eltwise_backward(pd), eng_);
  p.note += ", gradient from the forward's output";
  return p;
}

Prepared Builder::Softmax() {
  const memory::desc md = Plain({D("rows"), D("c")});
  dnnl::softmax_forward::desc fd(dnnl::prop_kind::forward_training, md, 1);
  dnnl::softmax_forward::primitive_desc fpd(fd, eng_);
  if (s_.kind == OpKind::kSoftmaxFwd) return Prepare(fpd, dnnl::softmax_forward(fpd), eng_);
  dnnl::softmax_backward::desc d(md, md, 1);
  dnnl::softmax_backward::primitive_desc pd(d, eng_, fpd);
  return Prepare(pd, dnnl::softmax_backward(pd), eng_);
}

Prepared Builder::Pool() {
  const int64_t mb = D("mb"), c = D("c");
  const dims src{mb, c, D("ih"), D("iw")}, dst{mb, c, D("oh"), D("ow")};
  const dims kernel{D("kh"), D("kw")}, strides{D("sh", 1), D("sw", 1)};
  const dims pl{D("ph"), D("pw")};
  const dims pr{std::max<int64_t>((D("oh") - 1) * D("sh", 1) + D("kh") - D("ih") - D("ph"), 0),
                std::max<int64_t>((D("ow") - 1) * D("sw", 1) + D("kw") - D("iw") - D("pw"), 0)};
  const auto alg =
      s_.alg == "max" ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
  // Pooling takes a concrete source layout (NCHW here) and picks its destination's.
  dnnl::pooling_forward::desc fd(dnnl::prop_kind::forward_training, alg, Plain(src), Any(dst),
                                 strides, kernel, pl, pr);
  dnnl::pooling_forward::primitive_desc fpd(fd, eng_);
  if (s_.kind == OpKind::kPoolFwd) return Prepare(fpd, dnnl::pooling_forward(fpd), eng_);
  dnnl::pooling_backward::desc d(alg, Plain(src), fpd.dst_desc(), strides, kernel, pl, pr);
  dnnl::pooling_backward::primitive_desc pd(d, eng_, fpd);
  return Prepare(pd, dnnl::pooling_backward(pd), eng_);
}

Prepared Builder::BatchNorm() {
  // Normalisation primitives take a concrete layout; NCHW as the data arrives from a framework.
  const memory::desc data = Plain({D("mb"), D("c"), 1, D("sp")});
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::desc fd(dnnl::prop_kind::forward_training, data, 1e-3f, flags);
  dnnl::batch_normalization_forward::primitive_desc fpd(fd, eng_);
  if (s_.kind == OpKind::kBatchNormFwd)
    return Prepare(fpd, dnnl::batch_normalization_forward(fpd), eng_);
  dnnl::batch_normalization_backward::desc d(dnnl::prop_kind::backward, data, data, 1e-3f, flags);
  dnnl::batch_normalization_backward::primitive_desc pd(d, eng_, fpd);
  return Prepare(pd, dnnl::batch_normalization_backward(pd), eng_);
}

Prepared Builder::LayerNorm() {
  const memory::desc md = Plain({D("rows"), D("c")});
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc fd(dnnl::prop_kind::forward_training, md, 1e-5f, flags);
  dnnl::layer_normalization_forward::primitive_desc fpd(fd, eng_);
  if (s_.kind == OpKind::kLayerNormFwd)
    return Prepare(fpd, dnnl::layer_normalization_forward(fpd), eng_);
  dnnl::layer_normalization_backward::desc d(dnnl::prop_kind::backward, md, md, 1e-5f, flags);
  dnnl::layer_normalization_backward::primitive_desc pd(d, eng_, fpd);
  return Prepare(pd, dnnl::layer_normalization_backward(pd), eng_);
}

Prepared Builder::Binary() {
  const auto alg = s_.alg == "mul"   ? dnnl::algorithm::binary_mul
                   : s_.alg == "sub" ? dnnl::algorithm::binary_sub
                   : s_.alg == "div" ? dnnl::algorithm::binary_div
                                     : dnnl::algorithm::binary_add;
  const memory::desc md = Plain({D("n")});
  dnnl::binary::desc d(alg, md, md, md);
  dnnl::binary::primitive_desc pd(d, eng_);
  return Prepare(pd, dnnl::binary(pd), eng_);
}

Prepared Builder::MatMul() {
  const int64_t b = D("b", 1), m = D("m"), k = D("k"), n = D("n");
  dnnl::matmul::desc d(Plain({b, m, k}), Plain({b, k, n}), Plain({b, m, n}));
  dnnl::matmul::primitive_desc pd(d, eng_);
  return Prepare(pd, dnnl::matmul(pd), eng_);
}

// Reorders. With mb, c, h, w: a framework's layout change of that tensor, plain NCHW to oneDNN's
// 16-channel-blocked layout (to NHWC when c is not a multiple of 16). With n alone
// (concatenation, transposes, slices, padding): a copy of n values between those layouts.
Prepared Builder::Copy() {
  dims d;
  if (s_.dims.contains("c")) {
    d = {D("mb", 1), D("c"), D("h", 1), D("w", 1)};
  } else {
    const int64_t n = D("n");
    d = n % 16 == 0 ? dims{1, 16, 1, n / 16} : dims{1, 1, 1, n};
  }
  // A cast (alg=from_TYPE, autocast's): the same plain layout, another type; else a layout change.
  const bool cast = s_.alg.starts_with("from_");
  Result<DType> source = ParseDType(cast ? std::string_view(s_.alg).substr(5) : "fp32");
  if (cast && !source.ok()) throw std::invalid_argument("unknown cast source in " + s_.ToString());
  const memory::desc from(d, cast ? DataType(*source) : t_, tag::abcd);
  const memory::desc to(d, t_, cast ? tag::abcd : d[1] % 16 == 0 ? tag::aBcd16b : tag::acdb);
  memory src(from, eng_), dst(to, eng_);
  std::memset(src.get_data_handle(), 0x3D, from.get_size());
  dnnl::reorder::primitive_desc pd(eng_, from, eng_, to);
  return Prepared{
      dnnl::reorder(pd), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, pd.impl_info_str()};
}

Prepared Builder::Reduce() {
  const int64_t n = D("n"), out = std::max<int64_t>(D("out", 1), 1);
  const auto alg =
      s_.alg == "mean" ? dnnl::algorithm::reduction_mean : dnnl::algorithm::reduction_sum;
  dnnl::reduction::desc d(alg, Plain({n / out, out}), Plain({1, out}), 0.f, 0.f);
  dnnl::reduction::primitive_desc pd(d, eng_);
  return Prepare(pd, dnnl::reduction(pd), eng_);
}

Prepared Builder::Rnn() {
  const int64_t t = D("t"), mb = D("mb"), ic = D("ic"), hc = D("hc"), dirs = D("dirs", 1);
  const bool lstm = s_.alg == "lstm";
  const int64_t gates = lstm ? 4 : 3;
  const auto dir = dirs == 2 ? dnnl::rnn_direction::bidirectional_concat
                             : dnnl::rnn_direction::unidirectional_left2right;
  const memory::desc src_layer = Plain({t, mb, ic});
  const memory::desc iter = Plain({1, dirs, mb, hc});
  const memory::desc w_layer = Any({1, dirs, ic, gates, hc});
  const memory::desc w_iter = Any({1, dirs, hc, gates, hc});
  const memory::desc bias = Any({1, dirs, gates + (lstm ? 0 : 1), hc});
  const memory::desc dst_layer = Plain({t, mb, dirs * hc});
  const bool fwd = s_.kind == OpKind::kRnnFwd;
  if (lstm) {
    dnnl::lstm_forward::desc fd(dnnl::prop_kind::forward_training, dir, src_layer, iter, iter,
                                w_layer, w_iter, bias, dst_layer, iter, iter);
    dnnl::lstm_forward::primitive_desc fpd(fd, eng_);
    if (fwd) return Prepare(fpd, dnnl::lstm_forward(fpd), eng_);
    dnnl::lstm_backward::desc d(dnnl::prop_kind::backward, dir, src_layer, iter, iter, w_layer,
                                w_iter, bias, dst_layer, iter, iter, src_layer, iter, iter, w_layer,
                                w_iter, bias, dst_layer, iter, iter);
    dnnl::lstm_backward::primitive_desc pd(d, eng_, fpd);
    return Prepare(pd, dnnl::lstm_backward(pd), eng_);
  }
  dnnl::lbr_gru_forward::desc fd(dnnl::prop_kind::forward_training, dir, src_layer, iter, w_layer,
                                 w_iter, bias, dst_layer, iter);
  dnnl::lbr_gru_forward::primitive_desc fpd(fd, eng_);
  if (fwd) return Prepare(fpd, dnnl::lbr_gru_forward(fpd), eng_);
  dnnl::lbr_gru_backward::desc d(dnnl::prop_kind::backward, dir, src_layer, iter, w_layer, w_iter,
                                 bias, dst_layer, iter, src_layer, iter, w_layer, w_iter, bias,
                                 dst_layer, iter);
  dnnl::lbr_gru_backward::primitive_desc pd(d, eng_, fpd);
  return Prepare(pd, dnnl::lbr_gru_backward(pd), eng_);
}

Prepared Builder::Build() {
  switch (s_.kind) {
    case OpKind::kConvFwd:
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
      return Conv();
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
      return InnerProduct();
    case OpKind::kEltwiseFwd:
    case OpKind::kEltwiseBwd:
      return Eltwise();
    case OpKind::kSoftmaxFwd:
    case OpKind::kSoftmaxBwd:
      return Softmax();
    case OpKind::kPoolFwd:
    case OpKind::kPoolBwd:
      return Pool();
    case OpKind::kBatchNormFwd:
    case OpKind::kBatchNormBwd:
      return BatchNorm();
    case OpKind::kLayerNormFwd:
    case OpKind::kLayerNormBwd:
      return LayerNorm();
    case OpKind::kBinary:
      return Binary();
    case OpKind::kMatMul:
      return MatMul();
    case OpKind::kConcat:
    case OpKind::kReorder:
      return Copy();
    case OpKind::kReduce:
      return Reduce();
    case OpKind::kRnnFwd:
    case OpKind::kRnnBwd:
      return Rnn();
    default:
      break;
  }
  throw std::logic_error("no oneDNN primitive");
}

bool IsOwnKernel(const OpSignature& s) {
  const OpKind k = s.kind;
  return k == OpKind::kEmbeddingFwd || k == OpKind::kEmbeddingBwd || k == OpKind::kDropoutFwd ||
         k == OpKind::kDropoutBwd || k == OpKind::kLoss || k == OpKind::kOptimizer ||
         (k == OpKind::kReduce && (s.dtype == DType::kFloat32 || s.dtype == DType::kBFloat16));
}

Status CheckCpuSignature(const OpSignature& sig, int threads) {
  if (threads <= 0)
    return Status::InvalidArgument("threads must be positive, got " + std::to_string(threads));
  if (sig.dtype == DType::kTFloat32)
    return Status::Unsupported(sig.ToString() +
                               ": tf32 is a GPU tensor-core math mode; on a CPU use f32");
  return Status::Ok();
}

bool IsAtenProduct(const OpSignature& sig) {
  return sig.dim("aten") != 0 &&
         (sig.kind == OpKind::kInnerProductFwd || sig.kind == OpKind::kInnerProductBwdData ||
          sig.kind == OpKind::kInnerProductBwdWeights);
}

// One call of `sig` on buffers of its own, ready to run again and again: ATen's kernel
// (`before`: the work a step runs just ahead of it, where that changes its time), the project's
// own, or oneDNN's primitive (`note`: the implementation oneDNN chose; `warm`: reads every
// buffer it runs on into the caches).
struct CpuCall {
  std::function<void()> run;
  std::function<void()> before;
  std::string note;
  std::function<void()> warm;
};

// Reads one byte of every cache line of each of `p`'s buffers.
void ReadBuffers(const Prepared& p) {
  unsigned sum = 0;
  for (const auto& [arg, m] : p.args) {
    const auto* bytes = static_cast<const volatile unsigned char*>(m.get_data_handle());
    const size_t size = m.get_desc().get_size();
    for (size_t i = 0; i < size; i += 64) sum += bytes[i];
  }
  [[maybe_unused]] static volatile unsigned sink;
  sink = sum;
}

Result<CpuCall> MakeCpuCall(const OpSignature& sig, const dnnl::engine& engine,
                            dnnl::stream& stream) {
  if (TorchTimes(sig)) {  // PyTorch's own kernel where the ATen module is there, else a stand-in
    Result<TorchCall> call = TorchKernel(sig);
    if (call.ok()) return CpuCall{call->run, call->before, TorchNote()};
    if (call.status().code() != StatusCode::kUnsupported) return call.status();
  }
  // Without the module a whole recurrent layer (aten=1) is timed as oneDNN's RNN primitive: the
  // same layer's products and cells, not ATen's calls for them (torch_kernels.h).
  if (sig.dim("aten") != 0 && !IsRecurrent(sig.kind)) {
    Result<AtenCall> call = AtenKernel(sig);
    if (!call.ok()) return call.status();
    return CpuCall{call->run, call->before, ""};
  }
  if (IsOwnKernel(sig)) {
    Result<std::function<void()>> run = OwnKernel(sig);
    if (!run.ok()) return run.status();
    return CpuCall{*run, nullptr, ""};
  }
  try {
    auto p = std::make_shared<Prepared>(Builder(sig, engine).Build());
    return CpuCall{[p, &stream] {
                     p->primitive.execute(stream, p->args);
                     stream.wait();
                   },
                   nullptr, "oneDNN " + p->note, [p] { ReadBuffers(*p); }};
  } catch (const dnnl::error& e) {
    return Status::Unsupported(sig.ToString() + ": oneDNN cannot run it here (" + e.what() + ")");
  } catch (const std::exception& e) {
    return Status::Internal(sig.ToString() + ": " + e.what());
  }
}

class CpuBackend : public Backend {
 public:
  CpuBackend() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}
  std::string kind() const override { return "cpu"; }

  Result<Measurement> Measure(const OpSignature& sig, const MeasureOptions& options) override {
    if (Status s = CheckCpuSignature(sig, options.threads); !s.ok()) return s;
    omp_set_num_threads(options.threads);
    // A BLAS product's time depends on the products its process ran before (blas_probe.h).
    if (IsAtenProduct(sig)) return MeasureInFreshProcess(sig, options);
    Result<CpuCall> call = MakeCpuCall(sig, engine_, stream_);
    if (!call.ok()) return call.status();
    // Every other op of an f32 step runs beside OpenBLAS's polling workers (null at one thread).
    // A bf16 step has no BLAS products (PyTorch hands them to oneDNN), so its workers sleep.
    // An ATen-module call's `before` only readies it (TorchCall), so the workers poll after it.
    std::function<void()> before = call->before;
    if (sig.dtype == DType::kFloat32 && (!before || TorchTimes(sig))) {
      std::function<void()> polling = BlasWorkersPolling();  // null at one thread
      if (!before)
        before = polling;
      else if (polling)
        before = [ready = before, polling] {
          ready();
          polling();
        };
    }
    try {
      Measurement m = TimeRuns(call->run, options, before);
      m.note = call->note;
      return m;
    } catch (const dnnl::error& e) {
      return Status::Unsupported(sig.ToString() + ": oneDNN cannot run it here (" + e.what() + ")");
    }
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
};

}  // namespace

std::vector<int> ReplayInstances(const std::vector<OpSignature>& ops,
                                 const std::vector<int>& sequence, double budget_bytes) {
  std::vector<int> calls(ops.size(), 0);
  for (int i : sequence)
    if (i >= 0 && i < static_cast<int>(ops.size())) ++calls[i];
  double wanted = 0;  // the bytes of every call's own operands
  for (size_t i = 0; i < ops.size(); ++i) wanted += calls[i] * ops[i].bytes().value();
  const double share = wanted > budget_bytes ? budget_bytes / wanted : 1.0;
  std::vector<int> instances(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    instances[i] = std::max(1, static_cast<int>(std::floor(calls[i] * share)));
  return instances;
}

Result<StepReplay> ReplayCpuStep(const std::vector<OpSignature>& ops,
                                 const std::vector<int>& sequence, const MeasureOptions& options,
                                 const std::vector<bool>& serial, bool warm_operands) {
  if (sequence.empty()) return Status::InvalidArgument("the step has no ops to replay");
  if (!serial.empty() && serial.size() != ops.size())
    return Status::InvalidArgument("serial flags for " + std::to_string(serial.size()) +
                                   " ops, the step has " + std::to_string(ops.size()) + " ops");
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  omp_set_num_threads(options.threads);
  for (int i : sequence)
    if (i < 0 || i >= static_cast<int>(ops.size()))
      return Status::InvalidArgument("op index " + std::to_string(i) + " outside the step's " +
                                     std::to_string(ops.size()) + " ops");
  // A framework gives each call tensors of its own: an unrolled recurrent cell's 40 gate sums read
  // 40 slices of the input projection, written long before. So the k-th call of an op runs on the
  // k-th of its instances (each with its own buffers; ReplayInstances), reused in turn.
  const std::vector<int> instances = ReplayInstances(ops, sequence, kReplayInstanceBytes);
  std::vector<std::vector<CpuCall>> calls(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpSignature& sig = ops[i];
    if (Status s = CheckCpuSignature(sig, options.threads); !s.ok()) return s;
    for (int k = 0; k < instances[i]; ++k) {
      Result<CpuCall> call = MakeCpuCall(sig, engine, stream);
      if (!call.ok()) return call.status();
      calls[i].push_back(std::move(*call));
    }
  }
  // Each call is timed too (two clock reads, tens of nanoseconds, against microseconds a call),
  // with the step it ran in; the warm-up steps' calls are left out.
  using Clock = std::chrono::steady_clock;
  struct Call {
    int op, step;
    double seconds;
  };
  std::vector<Call> timed_calls;
  std::vector<double> step_seconds;
  int steps_run = 0;
  StepReplay out;
  try {
    out.step = TimeRuns(
        [&] {
          const bool timed = steps_run++ >= options.warmup;
          const auto step_start = Clock::now();
          double calls_seconds = 0;                 // the step's calls alone (warm_operands)
          std::vector<size_t> next(ops.size(), 0);  // the instance each op's next call runs on
          for (int i : sequence) {
            const bool alone = !serial.empty() && serial[i] && options.threads > 1;
            if (alone) omp_set_num_threads(1);
            const CpuCall& call = calls[i][next[i]++ % calls[i].size()];
            if (warm_operands && call.warm) call.warm();
            const auto start = Clock::now();
            call.run();
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            calls_seconds += seconds;
            if (timed) timed_calls.push_back({i, static_cast<int>(step_seconds.size()), seconds});
            if (alone) omp_set_num_threads(options.threads);
          }
          if (timed)
            step_seconds.push_back(
                warm_operands ? calls_seconds
                              : std::chrono::duration<double>(Clock::now() - step_start).count());
        },
        options);
  } catch (const dnnl::error& e) {
    return Status::Unsupported(std::string("oneDNN failed while replaying the step (") + e.what() +
                               ")");
  }
  // Warming the operands takes time between the calls: the step is then its calls' sum.
  if (warm_operands && !step_seconds.empty()) out.step = Summarize(step_seconds);
  // The ops' times come from the half of the steps nearest the median step (NearestTheMedian), so
  // that they add up to about the median step, the statistic the reference harness logs: at 2
  // threads on a VM whose 2 vCPUs the step's thread pools share, steps are bimodal (mnist_mlp's
  // replay on the Intel VM: p10 6.0 ms, median 6.6, p90 20.5, mean 17.2) and the calls of the
  // other mode's steps would carry it into every op's mean (docs/accuracy.md, "In-step rows from
  // the steps nearest the median").
  const std::vector<bool> typical = NearestTheMedian(step_seconds);
  std::vector<std::vector<double>> call_seconds(ops.size());
  for (const Call& c : timed_calls)
    if (typical[c.step]) call_seconds[c.op].push_back(c.seconds);
  for (std::vector<double>& samples : call_seconds) {
    out.ops.push_back(samples.empty() ? Measurement{}  // an op the sequence never calls: count 0
                                      : Summarize(std::move(samples)));
    out.ops.back().note = "timed inside the replayed steps nearest their median";
  }
  return out;
}

std::unique_ptr<Backend> MakeCpuBackend() { return std::make_unique<CpuBackend>(); }

std::string OneDnnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace epochcost::profiler
