// Constant folding for the shape-computation subgraphs that ONNX exporters emit around reshapes
// and RNNs (Shape, Gather, Unsqueeze, Concat, ConstantOfShape, ...). Values are small tensors of
// doubles; an element may stand for the batch size, which is unknown until analysis.
#ifndef EPOCHCOST_ENGINE_ONNX_FOLD_H_
#define EPOCHCOST_ENGINE_ONNX_FOLD_H_

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "engine/status.h"

namespace epochcost::onnx_import {

struct Constant {
  std::vector<int64_t> dims;
  std::vector<double> data;    // empty when the values are unknown (stripped weights)
  // Per element: stands for the batch size times the element's value, a positive integer (1
  // from Shape; PyTorch's attention multiplies it by the heads, and the sequence by it).
  std::vector<bool> is_batch;
  bool integer = false;        // an integer tensor: Div truncates, as ONNX's integer Div does
  bool learned = false;        // a floating-point initializer: the model's parameters
  bool batched = false;        // has a batch-sized axis (initial RNN states, expanded tokens)

  int64_t elements() const;
  bool has_data() const { return !data.empty() || elements() == 0; }
};

// Reads an initializer or a Constant node's tensor. Data is kept only for integer tensors and
// small float tensors; large float tensors (weights) keep their dims only.
Result<Constant> FromTensor(const onnx::TensorProto& t);

// The batch-marked shape vector that Shape(x) yields for an activation of full shape `dims`
// whose batch axis is `batch_axis`, holding `factor` times the batch.
Constant ShapeOf(const std::vector<int64_t>& dims, int batch_axis, int64_t factor = 1);

// Whether `op` is one the folder evaluates when every input is a constant.
bool Foldable(const std::string& op);

// Evaluates `node` over constant inputs (nullptr for an absent optional input).
Result<Constant> Fold(const onnx::NodeProto& node, const std::vector<const Constant*>& inputs);

// Attribute helpers shared with the importer.
int64_t IntAttr(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
double FloatAttr(const onnx::NodeProto& n, const std::string& name, double fallback);
std::string StringAttr(const onnx::NodeProto& n, const std::string& name,
                       const std::string& fallback);
std::vector<int64_t> IntsAttr(const onnx::NodeProto& n, const std::string& name);
bool HasAttr(const onnx::NodeProto& n, const std::string& name);

}  // namespace epochcost::onnx_import

#endif  // EPOCHCOST_ENGINE_ONNX_FOLD_H_
