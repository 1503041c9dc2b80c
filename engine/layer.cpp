#include "engine/layer.h"

#include <array>
#include <utility>

namespace epochcost {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <typename E, size_t N>
std::string_view NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <typename E, size_t N>
Result<E> Parse(const NameTable<E, N>& table, std::string_view name, std::string_view what) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  std::string expected;
  for (const auto& [e, n] : table) expected += (expected.empty() ? "" : ", ") + std::string(n);
  return Status::Unsupported("unknown " + std::string(what) + " '" + std::string(name) +
                             "' (expected one of: " + expected + ")");
}

constexpr NameTable<LayerKind, 43> kKinds = {{
    {LayerKind::kInput, "input"},
    {LayerKind::kDense, "dense"},
    {LayerKind::kMatMul, "matmul"},
    {LayerKind::kConv1D, "conv1d"},
    {LayerKind::kConv2D, "conv2d"},
    {LayerKind::kDepthwiseConv2D, "depthwise_conv2d"},
    {LayerKind::kSeparableConv1D, "separable_conv1d"},
    {LayerKind::kSeparableConv2D, "separable_conv2d"},
    {LayerKind::kMaxPool1D, "max_pool1d"},
    {LayerKind::kMaxPool2D, "max_pool2d"},
    {LayerKind::kAvgPool1D, "avg_pool1d"},
    {LayerKind::kAvgPool2D, "avg_pool2d"},
    {LayerKind::kGlobalAvgPool1D, "global_avg_pool1d"},
    {LayerKind::kGlobalAvgPool2D, "global_avg_pool2d"},
    {LayerKind::kGlobalMaxPool1D, "global_max_pool1d"},
    {LayerKind::kGlobalMaxPool2D, "global_max_pool2d"},
    {LayerKind::kBatchNorm, "batch_norm"},
    {LayerKind::kLayerNorm, "layer_norm"},
    {LayerKind::kDropout, "dropout"},
    {LayerKind::kActivation, "activation"},
    {LayerKind::kElementwise, "elementwise"},
    {LayerKind::kAdd, "add"},
    {LayerKind::kSubtract, "subtract"},
    {LayerKind::kMultiply, "multiply"},
    {LayerKind::kDivide, "divide"},
    {LayerKind::kConcatenate, "concatenate"},
    {LayerKind::kFlatten, "flatten"},
    {LayerKind::kReshape, "reshape"},
    {LayerKind::kTranspose, "transpose"},
    {LayerKind::kSlice, "slice"},
    {LayerKind::kReduceMean, "reduce_mean"},
    {LayerKind::kReduceSum, "reduce_sum"},
    {LayerKind::kEmbedding, "embedding"},
    {LayerKind::kLstm, "lstm"},
    {LayerKind::kGru, "gru"},
    {LayerKind::kAttention, "attention"},
    {LayerKind::kZeroPadding1D, "zero_padding1d"},
    {LayerKind::kZeroPadding2D, "zero_padding2d"},
    {LayerKind::kCropping2D, "cropping2d"},
    {LayerKind::kHighway, "highway"},
    {LayerKind::kClassToken, "class_token"},
    {LayerKind::kPositionEmbedding, "position_embedding"},
    {LayerKind::kLoss, "loss"},
}};

constexpr NameTable<Activation, 9> kActivations = {{
    {Activation::kLinear, "linear"},
    {Activation::kRelu, "relu"},
    {Activation::kRelu6, "relu6"},
    {Activation::kTanh, "tanh"},
    {Activation::kSigmoid, "sigmoid"},
    {Activation::kSoftmax, "softmax"},
    {Activation::kGelu, "gelu"},
    {Activation::kSwish, "swish"},
    {Activation::kHardSigmoid, "hard_sigmoid"},
}};

constexpr NameTable<LossFunction, 5> kLosses = {{
    {LossFunction::kSoftmaxCrossEntropy, "softmax_cross_entropy"},
    {LossFunction::kSparseSoftmaxCrossEntropy, "sparse_softmax_cross_entropy"},
    {LossFunction::kCategoricalCrossEntropy, "categorical_crossentropy"},
    {LossFunction::kBinaryCrossEntropy, "binary_crossentropy"},
    {LossFunction::kMeanSquaredError, "mse"},
}};

constexpr NameTable<Padding, 3> kPaddings = {{
    {Padding::kValid, "valid"},
    {Padding::kSame, "same"},
    {Padding::kExplicit, "explicit"},
}};

constexpr NameTable<RnnOutput, 4> kRnnOutputs = {{
    {RnnOutput::kLastState, "last"},
    {RnnOutput::kSequence, "sequence"},
    {RnnOutput::kOnnxY, "onnx_y"},
    {RnnOutput::kOnnxYh, "onnx_y_h"},
}};

}  // namespace

std::string_view LayerKindName(LayerKind k) { return NameOf(kKinds, k); }
Result<LayerKind> ParseLayerKind(std::string_view n) { return Parse(kKinds, n, "layer kind"); }
std::vector<std::string_view> AllLayerKindNames() {
  std::vector<std::string_view> names;
  for (const auto& [k, n] : kKinds) names.push_back(n);
  return names;
}
std::string_view ActivationName(Activation a) { return NameOf(kActivations, a); }
Result<Activation> ParseActivation(std::string_view n) {
  if (n == "silu") return Activation::kSwish;
  return Parse(kActivations, n, "activation");
}
std::string_view LossFunctionName(LossFunction f) { return NameOf(kLosses, f); }
Result<LossFunction> ParseLossFunction(std::string_view n) { return Parse(kLosses, n, "loss"); }
std::string_view PaddingName(Padding p) { return NameOf(kPaddings, p); }
Result<Padding> ParsePadding(std::string_view n) { return Parse(kPaddings, n, "padding"); }
std::string_view RnnOutputName(RnnOutput o) { return NameOf(kRnnOutputs, o); }
Result<RnnOutput> ParseRnnOutput(std::string_view n) { return Parse(kRnnOutputs, n, "rnn output"); }

}  // namespace epochcost
