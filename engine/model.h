// A model: a directed acyclic graph of layers (Boost.Graph inside, our own types outside) with the
// output shape of every layer inferred. A Model is immutable once built; Build() checks names,
// edges, acyclicity and shapes and reports the first problem as a one-line error.
#ifndef EPOCHCOST_ENGINE_MODEL_H_
#define EPOCHCOST_ENGINE_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/layer.h"

namespace epochcost {

// The largest batch a step is analysed or lowered for: far beyond any that fits in memory, and
// small enough that batch x per-sample counts stay exact.
inline constexpr int64_t kMaxBatch = int64_t{1} << 24;

// The most samples an epoch may have, on the command line or in a run log: a trillion, above the
// samples of any data set (1e15 had been predicted as a 1,000-year epoch).
inline constexpr int64_t kMaxSamples = 1'000'000'000'000;

// How the model's authors trained it, where known; later stages use these as defaults.
struct TrainingDefaults {
  std::string optimizer;  // e.g. "rmsprop", "adam"
  int64_t batch = 0;
  int64_t samples = 0;      // training samples per epoch
  int64_t val_samples = 0;  // validation samples per epoch
  // The authors' learning rate, 0 where they kept the framework's default. No prediction depends
  // on it; the reference harness trains with it (data-dependent kernels such as max pooling run
  // at the speed of the activations the training leaves them, docs/accuracy.md).
  double learning_rate = 0;
};

struct ModelInfo {
  std::string name;
  std::string description;
  std::string source;  // where the architecture comes from, and the count it must match
  TrainingDefaults training;
  // The integer parameters the description declares, at the values the model was built with
  // (docs/model-format.md; none for an imported ONNX or Keras model).
  std::map<std::string, int64_t> parameters;
};

class Model {
 public:
  static Result<Model> Build(ModelInfo info, std::vector<LayerSpec> layers);

  const ModelInfo& info() const { return impl_->info; }
  const std::string& name() const { return impl_->info.name; }
  // Layers in a topological order (inputs first); indices below refer to this order.
  int size() const { return static_cast<int>(impl_->order.size()); }
  const LayerSpec& layer(int i) const;
  const Shape& output_shape(int i) const { return impl_->shapes[i]; }
  const std::vector<int>& inputs(int i) const { return impl_->inputs[i]; }
  const std::vector<int>& consumers(int i) const { return impl_->consumers[i]; }
  std::optional<int> Find(std::string_view layer_name) const;

 private:
  struct Impl;
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  struct Impl {
    ModelInfo info;
    std::vector<LayerSpec> layers;  // as given
    std::vector<int> order;         // position in topological order -> index into layers
    std::vector<Shape> shapes;      // by topological position
    std::vector<std::vector<int>> inputs;
    std::vector<std::vector<int>> consumers;
  };
  std::shared_ptr<const Impl> impl_;
};

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_MODEL_H_
