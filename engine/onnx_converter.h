// The ONNX converter's internals, shared by onnx_import.cpp (graph walk, constants, compute ops)
// and onnx_shape_ops.cpp (reshape, transpose, slicing, concatenation, RNNs, padding). Not a
// public header: the interface is onnx_import.h.
#ifndef EPOCHCOST_ENGINE_ONNX_CONVERTER_H_
#define EPOCHCOST_ENGINE_ONNX_CONVERTER_H_

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/layer_rules.h"
#include "engine/model.h"
#include "engine/onnx_fold.h"

namespace epochcost::onnx_import {

// An activation: the layer that produces it and where the batch axis sits in its ONNX shape.
// PyTorch's nn.MultiheadAttention merges the batch with another dimension in one axis: (S, B, E)
// becomes (S, B*h, E/h) for the heads and (S*B, E) for the output projection. Such an axis holds
// outer x batch x inner values (row-major), and a sample's shape keeps it with outer x inner
// values; an axis of the batch alone leaves the sample's shape.
struct Tensor {
  std::string layer;
  int batch_axis = 0;
  int64_t outer = 1, inner = 1;
  bool merged() const { return outer * inner > 1; }
};

class Converter {
 public:
  explicit Converter(const onnx::ModelProto& model) : model_(model) {}

  Result<Model> Run(const std::string& origin);

 private:
  using Handler = Status (Converter::*)(const onnx::NodeProto&);
  static const std::map<std::string, Handler>& Handlers();

  // Inputs and outputs.
  const Constant* Const(const std::string& name) const;
  // The activation read at `slot`. One whose batch axis is merged with another dimension only
  // where the handler says it follows such a tensor (`merged_ok`); elsewhere it is unsupported.
  Result<Tensor> Act(const onnx::NodeProto& n, int slot, bool merged_ok = false);
  bool IsAct(const std::string& name) const { return acts_.contains(name) || IsDataInput(name); }
  bool IsDataInput(const std::string& name) const;
  const Shape& SampleShape(const Tensor& t) const { return shapes_.at(t.layer); }
  std::vector<int64_t> FullShape(const Tensor& t) const;
  Result<int> SampleAxis(const onnx::NodeProto& n, const Tensor& t, int64_t axis) const;
  std::string LayerName(const onnx::NodeProto& n, const std::string& suffix = "");
  Status Emit(LayerSpec l, const std::string& output, int batch_axis, int64_t outer = 1,
              int64_t inner = 1);
  // Emit with the batch placed as in `like` (an op that keeps every axis where it was).
  Status EmitLike(LayerSpec l, const std::string& output, const Tensor& like) {
    return Emit(std::move(l), output, like.batch_axis, like.outer, like.inner);
  }
  Status EmitView(const std::string& name, const Tensor& in, std::vector<int64_t> full_dims,
                  int batch_axis, const std::string& output, int64_t outer = 1, int64_t inner = 1);
  bool Consumed(const std::string& value) const;
  // Where a reshape of `x` to `target` puts the batch (Reshape's comment).
  struct Kept {
    int axis = -1;
    int64_t outer = 1, inner = 1;
    std::vector<int64_t> dims;  // the target, its batch axis holding outer x inner, no -1 left
  };
  Kept KeptBatchAxis(const Tensor& x, const std::vector<int64_t>& target, int marked,
                     int64_t factor) const;

  // Op handlers.
  Status Conv(const onnx::NodeProto& n);
  Status Gemm(const onnx::NodeProto& n);
  Status MatMul(const onnx::NodeProto& n);
  Status Binary(const onnx::NodeProto& n);
  Status Activate(const onnx::NodeProto& n);
  Status Unary(const onnx::NodeProto& n);
  Status Select(const onnx::NodeProto& n);
  Status Identity(const onnx::NodeProto& n);
  Status Dropout(const onnx::NodeProto& n);
  Status Pool(const onnx::NodeProto& n);
  Status GlobalPool(const onnx::NodeProto& n);
  Status BatchNorm(const onnx::NodeProto& n);
  Status LayerNorm(const onnx::NodeProto& n);
  Status ReduceMean(const onnx::NodeProto& n);
  Status Flatten(const onnx::NodeProto& n);
  Status Reshape(const onnx::NodeProto& n);
  Status Transpose(const onnx::NodeProto& n);
  Status Squeeze(const onnx::NodeProto& n);
  Status Concat(const onnx::NodeProto& n);
  Status Gather(const onnx::NodeProto& n);
  Status Slice(const onnx::NodeProto& n);
  Status Split(const onnx::NodeProto& n);
  Status Rnn(const onnx::NodeProto& n);
  Status Pad(const onnx::NodeProto& n);

  Status Unsupported(const onnx::NodeProto& n, const std::string& why) const {
    return Status::Unsupported("node '" + n.name() + "' (" + n.op_type() + "): " + why);
  }

  const onnx::ModelProto& model_;
  std::map<std::string, Constant> consts_;
  std::map<std::string, Tensor> acts_;
  std::map<std::string, Shape> shapes_;  // by layer name
  std::map<std::string, const onnx::ValueInfoProto*> graph_inputs_;
  std::map<std::string, std::vector<int64_t>> inferred_;  // onnx shape inference, -1 = symbolic
  std::map<std::string, int> bias_free_dense_;            // output value -> layer index (MatMul)
  std::multiset<std::string> readers_;                    // how often each value is read
  std::set<std::string> used_names_;
  std::vector<LayerSpec> layers_;
  std::string batch_symbol_;
  int64_t static_batch_ = 0;  // the batch size of a graph input exported with a fixed one
};

}  // namespace epochcost::onnx_import

#endif  // EPOCHCOST_ENGINE_ONNX_CONVERTER_H_
