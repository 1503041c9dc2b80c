#include "cli/model_views.h"

#include <nlohmann/json.hpp>

#include "cli/format.h"
#include "engine/lowering.h"

namespace epochcost::cli {
namespace {

// The precision as --precision names it: amp / amp-bf16 for autocast's fp32 weights.
std::string PrecisionOf(const ModelReport& r) {
  return PrecisionName({.precision = r.precision, .amp = r.fp32_weights});
}

// Whether some layer reads anything but the layer listed just before it.
bool IsChain(const Model& model) {
  for (int i = 0; i < model.size(); ++i) {
    const auto& in = model.inputs(i);
    if (in.size() > 1 || (in.size() == 1 && in[0] != i - 1)) return false;
  }
  return true;
}

nlohmann::ordered_json Figures(const LayerReport& r) {
  nlohmann::ordered_json j;
  j["params"] = r.params();
  j["trainable_params"] = r.trainable_params;
  j["non_trainable_params"] = r.non_trainable_params;
  j["fwd_flops"] = r.fwd.flops();
  j["bwd_data_flops"] = r.bwd_data.flops();
  j["bwd_weight_flops"] = r.bwd_weight.flops();
  j["weight_bytes"] = r.weight_bytes.bytes();
  j["input_bytes"] = r.input_bytes.bytes();
  j["output_bytes"] = r.output_bytes.bytes();
  j["saved_activation_bytes"] = r.saved_bytes.bytes();
  return j;
}

}  // namespace

std::string ModelTable(const Model& model, const ModelReport& report,
                       const TrainingMemoryView& training) {
  const bool chain = IsChain(model);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"Layer (kind)", "Output shape", "Params",
                                     "Fwd FLOPs",    "Bwd FLOPs",    "Saved act."};
  if (!chain) header.push_back("Connected to");
  rows.push_back(header);
  for (int i = 0; i < model.size(); ++i) {
    const LayerReport& r = report.layers[i];
    std::vector<std::string> row = {r.name + " (" + std::string(LayerKindName(r.kind)) + ")",
                                    r.output.ToString(),
                                    Thousands(r.params()),
                                    Si(r.fwd.flops()),
                                    Si(r.bwd().flops()),
                                    BinaryBytes(r.saved_bytes.bytes())};
    if (!chain) {
      std::string inputs;
      for (int q : model.inputs(i)) inputs += (inputs.empty() ? "" : ", ") + model.layer(q).name;
      row.push_back(inputs);
    }
    rows.push_back(std::move(row));
  }
  const LayerReport& t = report.total;
  std::string out = "Model: " + report.model + "  (batch " + std::to_string(report.batch) + ", " +
                    PrecisionOf(report) + ")\n";
  out += RenderTable(rows, {false, false, true, true, true, true, false});
  out += "Total params: " + Thousands(t.params()) + " (trainable " + Thousands(t.trainable_params) +
         ", non-trainable " + Thousands(t.non_trainable_params) + ")\n";
  out += "FLOPs per step: forward " + Si(t.fwd.flops()) + ", backward " + Si(t.bwd().flops()) +
         " (data " + Si(t.bwd_data.flops()) + ", weights " + Si(t.bwd_weight.flops()) +
         "); a multiply-add counts as 2 FLOPs\n";
  out += "Memory: weights " + BinaryBytes(t.weight_bytes.bytes()) +
         ", activations kept for backward " + BinaryBytes(t.saved_bytes.bytes()) + "\n";
  const TrainingMemory& m = training.memory;
  out += "Training memory (" + training.optimizer + "): " + BinaryBytes(m.total().bytes()) +
         " = weights " + BinaryBytes(m.weights.bytes()) + " + gradients " +
         BinaryBytes(m.gradients.bytes()) + " + optimizer state " +
         BinaryBytes(m.optimizer_state.bytes()) + " + activations " +
         BinaryBytes(m.activations.bytes()) +
         ", before the workspace of the step's largest op (`predict` adds it on a machine)\n";
  return out;
}

std::string ModelJson(const Model& model, const ModelReport& report,
                      const TrainingMemoryView& training) {
  nlohmann::ordered_json j;
  j["model"] = report.model;
  j["source"] = model.info().source;
  j["batch"] = report.batch;
  j["precision"] = PrecisionOf(report);
  j["flop_convention"] = "multiply-add = 2 FLOPs";
  j["layers"] = nlohmann::ordered_json::array();
  for (int i = 0; i < model.size(); ++i) {
    const LayerReport& r = report.layers[i];
    nlohmann::ordered_json l;
    l["name"] = r.name;
    l["kind"] = LayerKindName(r.kind);
    l["inputs"] = nlohmann::ordered_json::array();
    for (int q : model.inputs(i)) l["inputs"].push_back(model.layer(q).name);
    l["output_shape"] = r.output.dims;
    l["dtype"] = DTypeName(r.dtype);
    l.update(Figures(r));
    j["layers"].push_back(std::move(l));
  }
  j["total"] = Figures(report.total);
  const TrainingMemory& m = training.memory;
  j["training_memory"] = {{"optimizer", training.optimizer},
                          {"weights_bytes", m.weights.bytes()},
                          {"gradients_bytes", m.gradients.bytes()},
                          {"optimizer_state_bytes", m.optimizer_state.bytes()},
                          {"activations_bytes", m.activations.bytes()},
                          {"total_bytes", m.total().bytes()}};
  return j.dump(2) + "\n";
}

}  // namespace epochcost::cli
