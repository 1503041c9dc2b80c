// The static analysis of a model at a batch size and precision: per layer and in total, the
// parameters, FLOPs of the forward pass and of both halves of the backward pass, bytes read and
// written, and the activation memory kept for the backward pass. A multiply-add counts as 2 FLOPs.
#ifndef EPOCHCOST_ENGINE_ANALYSIS_H_
#define EPOCHCOST_ENGINE_ANALYSIS_H_

#include <string>
#include <vector>

#include "engine/model.h"
#include "engine/units.h"

namespace epochcost {

struct AnalysisOptions {
  int64_t batch = 1;
  DType precision = DType::kFloat32;  // of every floating-point tensor not pinned by its layer
  bool fp32_weights = false;          // autocast: weights stay fp32 whatever `precision`
};

// Figures for one training step over `batch` samples.
struct LayerReport {
  std::string name;
  LayerKind kind = LayerKind::kInput;
  Shape output;
  DType dtype = DType::kFloat32;  // of the output tensor
  int64_t trainable_params = 0;
  int64_t non_trainable_params = 0;
  Flops fwd;
  Flops bwd_data;
  Flops bwd_weight;
  Bytes weight_bytes;  // parameters read by the forward pass
  Bytes input_bytes;   // activations read by the forward pass
  Bytes output_bytes;  // activations written by the forward pass
  Bytes saved_bytes;   // kept from the forward pass for the backward pass

  int64_t params() const { return trainable_params + non_trainable_params; }
  Flops bwd() const { return bwd_data + bwd_weight; }
};

struct ModelReport {
  std::string model;
  int64_t batch = 1;
  DType precision = DType::kFloat32;
  bool fp32_weights = false;  // autocast (AnalysisOptions)
  std::vector<LayerReport> layers;
  LayerReport total;  // sums; name "total"
};

Result<ModelReport> Analyze(const Model& model, const AnalysisOptions& options);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_ANALYSIS_H_
