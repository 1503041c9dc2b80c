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
struct Tensor {
  std::string layer;
  int batch_axis = 0;
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
  Result<Tensor> Act(const onnx::NodeProto& n, int slot);
  bool IsAct(const std::string& name) const { return acts_.contains(name) || IsDataInput(name); }
  bool IsDataInput(const std::string& name) const;
  const Shape& SampleShape(const Tensor& t) const { return shapes_.at(t.layer); }
  std::vector<int64_t> FullShape(const Tensor& t) const;
  Result<int> SampleAxis(const onnx::NodeProto& n, const Tensor& t, int64_t axis) const;
  std::string LayerName(const onnx::NodeProto& n, const std::string& suffix = "");
  Status Emit(LayerSpec l, const std::string& output, int batch_axis);
  Status EmitView(const std::string& name, const Tensor& in, std::vector<int64_t> full_dims,
                  int batch_axis, const std::string& output);
  bool Consumed(const std::string& value) const;

  // Op handlers.
  Status Conv(const onnx::NodeProto& n);
  Status Gemm(const onnx::NodeProto& n);
  Status MatMul(const onnx::NodeProto& n);
  Status Binary(const onnx::NodeProto& n);
  Status Activate(const onnx::NodeProto& n);
  Status Unary(const onnx::NodeProto& n);
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
};

}  // namespace epochcost::onnx_import

#endif  // EPOCHCOST_ENGINE_ONNX_CONVERTER_H_
