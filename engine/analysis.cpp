#include "engine/analysis.h"

#include "engine/layer_rules.h"

namespace epochcost {
namespace {

DType OutputType(const LayerSpec& layer, DType precision) {
  if (layer.kind == LayerKind::kInput && layer.dtype) return *layer.dtype;
  return precision;
}

// Marks tensor `i` as kept for the backward pass. A view (flatten, reshape) owns no storage, so
// the tensor it aliases is kept instead.
void MarkSaved(const Model& model, const std::vector<LayerCounts>& counts, int i,
               std::vector<bool>* saved) {
  if (counts[i].is_view) {
    for (int in : model.inputs(i)) MarkSaved(model, counts, in, saved);
    return;
  }
  (*saved)[i] = true;
}

}  // namespace

Result<ModelReport> Analyze(const Model& model, const AnalysisOptions& options) {
  if (options.batch <= 0 || options.batch > kMaxBatch)
    return Status::InvalidArgument("batch must be from 1 to " + std::to_string(kMaxBatch) +
                                   ", got " + std::to_string(options.batch));
  if (!IsFloat(options.precision))
    return Status::InvalidArgument("precision must be fp32, bf16 or fp16");

  const int n = model.size();
  std::vector<LayerCounts> counts(n);
  for (int i = 0; i < n; ++i) {
    std::vector<Shape> in;
    for (int q : model.inputs(i)) in.push_back(model.output_shape(q));
    counts[i] = CountLayer(model.layer(i), in, model.output_shape(i));
  }
  std::vector<bool> saved(n, false);
  for (int i = 0; i < n; ++i) {
    if (counts[i].saves_output) MarkSaved(model, counts, i, &saved);
    if (counts[i].saves_inputs)
      for (int q : model.inputs(i)) MarkSaved(model, counts, q, &saved);
  }

  ModelReport report;
  report.model = model.name();
  report.batch = options.batch;
  report.precision = options.precision;
  report.fp32_weights = options.fp32_weights;
  report.total.name = "total";
  const double b = static_cast<double>(options.batch);
  LayerReport& t = report.total;
  for (int i = 0; i < n; ++i) {
    const LayerSpec& layer = model.layer(i);
    const LayerCounts& c = counts[i];
    LayerReport r;
    r.name = layer.name;
    r.kind = layer.kind;
    r.output = model.output_shape(i);
    r.dtype = OutputType(layer, options.precision);
    r.trainable_params = c.trainable_params;
    r.non_trainable_params = c.non_trainable_params;
    r.fwd = Flops::FromFlops(c.fwd_flops * b);
    r.bwd_data = Flops::FromFlops(c.bwd_data_flops * b);
    r.bwd_weight = Flops::FromFlops(c.bwd_weight_flops * b);
    r.weight_bytes = BytesOf(static_cast<double>(r.params()),
                             options.fp32_weights ? DType::kFloat32 : options.precision);
    const double out_elements = static_cast<double>(r.output.elements());
    if (!c.is_view && layer.kind != LayerKind::kInput) {
      for (int q : model.inputs(i))
        r.input_bytes += BytesOf(static_cast<double>(model.output_shape(q).elements()) * b,
                                 OutputType(model.layer(q), options.precision));
      r.output_bytes = BytesOf(out_elements * b, r.dtype);
    }
    r.saved_bytes =
        BytesOf(c.saved_elements * b, options.precision) + Bytes::FromBytes(c.saved_mask_bytes * b);
    if (saved[i]) r.saved_bytes += BytesOf(out_elements * b, r.dtype);

    t.trainable_params += r.trainable_params;
    t.non_trainable_params += r.non_trainable_params;
    t.fwd += r.fwd;
    t.bwd_data += r.bwd_data;
    t.bwd_weight += r.bwd_weight;
    t.weight_bytes += r.weight_bytes;
    t.input_bytes += r.input_bytes;
    t.output_bytes += r.output_bytes;
    t.saved_bytes += r.saved_bytes;
    report.layers.push_back(std::move(r));
  }
  return report;
}

}  // namespace epochcost
