// The lowering's working state: one training step of a model, as the op signatures a framework
// calls, collected layer by layer (Lowerer::Run). Shared by engine/lowering.cpp (layers, their
// gradients and the updates) and engine/lowering_rnn.cpp (recurrent layers); not an interface of
// its own: callers use Lower() (engine/lowering.h).
#ifndef EPOCHCOST_ENGINE_LOWERER_H_
#define EPOCHCOST_ENGINE_LOWERER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/lowering.h"
#include "engine/model.h"

namespace epochcost::lowering {

// An op signature's dimensions, by name (OpSignature::dims).
using Dims = std::map<std::string, int64_t>;

// Collects signatures for one step, merging identical ones.
class Lowerer {
 public:
  Lowerer(const Model& model, const LoweringOptions& o) : model_(model), o_(o) {}

  Result<StepOps> Run();

 private:
  void Emit(OpKind kind, Dims dims, const std::string& layer, std::string alg = "", int count = 1);
  // A dtype conversion of n values (autocast's casts), as a copy from `from` to `to`.
  void Cast(int64_t n, DType from, DType to, const std::string& layer, int count = 1);
  void Add(OpSignature sig, const std::string& layer, int count);
  // The layer's trainable tensors (weights, then bias), in values.
  std::vector<int64_t> ParamTensors(int i) const;
  // Whether autocast casts the layer's weights to 16 bits (the ops on its lower-precision list).
  bool CastsWeights(int i) const;
  // Whether every input of layer i computes in 16 bits under autocast (compute16_).
  bool Input16(int i) const;
  void Eltwise(Activation a, int64_t n, const std::string& layer, bool backward);
  void Layer(int i);
  void Backward(int i);
  void Conv(int i, bool forward);
  std::pair<Dims, std::string> Pool(int i) const;
  // Dims the forward and backward ops of a layer share.
  Dims DenseDims(int i) const;
  Dims NormDims(int i) const;
  // A whole recurrent layer's op; under RnnLowering::kAten also what PyTorch's layer runs back
  // from (seq=1: the whole output sequence, else the last state) and whether its input needs the
  // gradient (dx=1: autograd records the input's part forwards and computes it backwards); in a
  // forward pass alone (evaluation), infer=1.
  Dims RnnDims(int i) const;
  Dims EmbeddingDims(int i) const;
  void Optimizers(int i);
  void UnrolledRnn(int i, bool backward);

  int64_t B() const { return o_.batch; }
  int64_t In(int i, int k = 0) const { return model_.output_shape(model_.inputs(i)[k]).elements(); }
  const Shape& InShape(int i, int k = 0) const { return model_.output_shape(model_.inputs(i)[k]); }

  const Model& model_;
  const LoweringOptions& o_;
  std::vector<bool> compute16_;   // autocast: the layer computes in o_.precision
  int current_ = -1;              // the layer whose ops Emit adds
  std::vector<bool> needs_grad_;  // the layer's output gradient is computed
  StepOps out_;
  std::map<std::string, size_t> index_;
};

}  // namespace epochcost::lowering

#endif  // EPOCHCOST_ENGINE_LOWERER_H_
