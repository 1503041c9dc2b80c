// A layer of a model as plain data: its kind and the attributes that kind reads. One struct serves
// every kind (unused fields keep their defaults), so that importers, the model JSON format and the
// analysis all speak the same vocabulary. Layer kinds, their JSON names and their rules are listed
// in layer_kinds.cpp.
#ifndef EPOCHCOST_ENGINE_LAYER_H_
#define EPOCHCOST_ENGINE_LAYER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tensor.h"

namespace epochcost {

enum class LayerKind {
  kInput,
  kDense,   // y = x W (+ b) over the last axis; any rank (time-distributed when rank > 1)
  kMatMul,  // batched product of two activations, (..., m, k) x (..., k, n)
  kConv1D,
  kConv2D,
  kDepthwiseConv2D,
  kSeparableConv1D,  // depthwise then pointwise, one layer as in Keras
  kSeparableConv2D,
  kMaxPool1D,
  kMaxPool2D,
  kAvgPool1D,
  kAvgPool2D,
  kGlobalAvgPool1D,
  kGlobalAvgPool2D,
  kGlobalMaxPool1D,
  kGlobalMaxPool2D,
  kBatchNorm,
  kLayerNorm,
  kDropout,
  kActivation,
  kElementwise,  // any other unary element-wise op (ONNX Erf, Sqrt, Cast, ...)
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kConcatenate,
  kFlatten,
  kReshape,
  kTranspose,
  kSlice,       // a range of one axis
  kReduceMean,  // mean over the given axes (keepdims)
  kReduceSum,   // sum over the given axes (keepdims)
  kEmbedding,
  kLstm,
  kGru,
  kAttention,  // multi-head self-attention with its four projections
  kZeroPadding1D,
  kZeroPadding2D,
  kCropping2D,
  kHighway,
  kClassToken,         // prepends a learned token to a sequence (ViT)
  kPositionEmbedding,  // adds a learned (sequence, features) table (ViT)
  kLoss,
};

enum class Padding { kValid, kSame, kExplicit };

// Activation functions, fused into a layer (Keras `activation=`) or standing alone.
enum class Activation {
  kLinear,
  kRelu,
  kRelu6,
  kTanh,
  kSigmoid,
  kSoftmax,
  kGelu,
  kSwish,
  kHardSigmoid
};

enum class LossFunction {
  kSoftmaxCrossEntropy,        // softmax over logits + cross-entropy, fused (one-hot labels)
  kSparseSoftmaxCrossEntropy,  // same, integer labels
  kCategoricalCrossEntropy,    // cross-entropy over probabilities (Keras after a softmax)
  kBinaryCrossEntropy,         // over sigmoid probabilities
  kMeanSquaredError,
};

enum class RnnOutput {
  kLastState,  // Keras return_sequences=False: (units)
  kSequence,   // Keras return_sequences=True: (timesteps, units)
  kOnnxY,      // ONNX Y without batch: (timesteps, directions, units)
  kOnnxYh,     // ONNX Y_h without batch: (directions, units)
};

struct LayerSpec {
  std::string name;
  LayerKind kind = LayerKind::kInput;
  std::vector<std::string> inputs;  // names of producing layers; order matters

  // input
  std::vector<int64_t> shape;  // per-sample shape
  std::optional<DType>
      dtype;  // pinned element type (token ids: int32); else the analysis' precision

  // dense, conv, embedding, rnn, attention
  int64_t units = 0;  // dense units, conv filters, embedding width, rnn units, model dim
  bool use_bias = true;
  Activation activation = Activation::kLinear;
  std::string shared_weights;  // dense only: reuses this embedding's table (GPT-2 LM head)

  // convolution and pooling (1D uses the first element of each pair)
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilation;
  Padding padding = Padding::kValid;
  std::vector<int64_t> pads;  // explicit: {top, bottom, left, right} or {left, right}
  int64_t groups = 1;
  int64_t depth_multiplier = 1;
  bool channels_first = false;  // NCHW / NCW (ONNX); Keras default is channels last

  // batch norm, layer norm, softmax, concatenate, slice, reduce
  int axis = -1;
  std::vector<int> axes;
  bool scale = true;   // norm: gamma
  bool center = true;  // norm: beta

  // dropout
  double rate = 0.0;

  // reshape, transpose, slice
  std::vector<int64_t> target_shape;  // reshape; one -1 allowed
  std::vector<int> perm;              // transpose, over per-sample axes
  int64_t start = 0;                  // slice [start, end) on `axis`
  int64_t end = 0;

  // embedding
  int64_t vocab = 0;

  // lstm, gru
  bool bidirectional = false;
  RnnOutput rnn_output = RnnOutput::kLastState;
  int bias_sets = 1;  // 1: Keras/TF (one bias), 2: PyTorch/ONNX/cuDNN and Keras GRU reset_after

  // attention
  int64_t heads = 0;
  bool causal = false;

  // highway
  int highway_layers = 1;

  // element-wise op name (kElementwise), its FLOPs per element, and the size of a learned
  // constant operand it applies (an ONNX Mul by a LayerNorm gamma, say), counted as parameters
  std::string op;
  double flops_per_element = 1.0;
  int64_t learned_elements = 0;

  // loss
  LossFunction loss = LossFunction::kSoftmaxCrossEntropy;
  double loss_weight = 1.0;
};

std::string_view LayerKindName(LayerKind k);
Result<LayerKind> ParseLayerKind(std::string_view name);
// Every kind's JSON name, in declaration order.
std::vector<std::string_view> AllLayerKindNames();

std::string_view ActivationName(Activation a);
Result<Activation> ParseActivation(std::string_view name);
std::string_view LossFunctionName(LossFunction f);
Result<LossFunction> ParseLossFunction(std::string_view name);
std::string_view PaddingName(Padding p);
Result<Padding> ParsePadding(std::string_view name);
std::string_view RnnOutputName(RnnOutput o);
Result<RnnOutput> ParseRnnOutput(std::string_view name);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_LAYER_H_
