#include "validation/published_runs.h"

#include <map>
#include <regex>
#include <utility>

#include "engine/model_source.h"

namespace epochcost::validation {
namespace {

// Model names of the collection that differ from the zoo's.
std::string ZooName(const std::string& model) {
  return model == "tf_lstm_char_cnn" ? "lstm_char_cnn" : model;
}

// "GCE n1-highcpu-8 (preemptible, ...)" -> gcp:n1-highcpu-8; "GCE K80 + n1-standard-1 (...)"
// -> gcp:n1-standard-1+K80 (+K80x2 for two); "AWS p2.xlarge ..." -> aws:p2.xlarge;
// "Azure Standard_NC6 ..." -> azure:Standard_NC6. The catalog names machines so.
Result<std::string> Target(const std::string& label, int64_t gpus) {
  static const std::regex kGceWithGpu(R"(^GCE ([A-Za-z0-9-]+) \+ ([a-z0-9]+-[a-z0-9]+-\d+))");
  static const std::regex kGce(R"(^GCE ([a-z0-9]+-[a-z0-9]+-\d+))");
  static const std::regex kAws(R"(^AWS ([a-z0-9-]+\.[a-z0-9-]+))");
  static const std::regex kAzure(R"(^Azure (Standard_[A-Za-z0-9_]+))");
  std::smatch m;
  if (std::regex_search(label, m, kGceWithGpu))
    return "gcp:" + m[2].str() + "+" + m[1].str() + (gpus > 1 ? "x" + std::to_string(gpus) : "");
  if (std::regex_search(label, m, kGce)) return "gcp:" + m[1].str();
  if (std::regex_search(label, m, kAws)) return "aws:" + m[1].str();
  if (std::regex_search(label, m, kAzure)) return "azure:" + m[1].str();
  return Status::InvalidArgument(
      "instance_type '" + label +
      "' names no machine epochcost knows how to read (GCE MACHINE, GCE GPU + MACHINE, AWS TYPE, "
      "Azure SIZE); give it as a run log with a target column (docs/run-logs.md)");
}

std::string Kind(const std::string& label) {
  for (const char* k : {"preemptible", "spot"})
    if (label.find(k) != std::string::npos) return k;
  return "on-demand";
}

}  // namespace

bool IsPublishedRunsTable(const CsvTable& t) {
  return t.HasColumn("instance_type") && t.HasColumn("batch_size") && !t.HasColumn("target");
}

Result<RunLog> ParsePublishedRuns(const CsvTable& t, const std::string& origin, bool skip_bad) {
  Result<RunColumns> col =
      RunColumns::Of(t, {"model", "framework", "instance_type", "batch_size", "seconds_per_epoch"},
                     {"source", "framework_version", "gpu_count", "compiled", "first_epoch_seconds",
                      "price_per_hour_usd", "notes"});
  if (!col.ok()) return col.status();
  return ReadRuns(t, origin, skip_bad, [&](const CsvRecord& r, RunRecord& run) -> Status {
    auto field = [&](const char* name) { return (*col)(r, name); };
    run.model = ZooName(field("model"));
    run.framework = field("framework");
    if (run.model.empty()) return Status::InvalidArgument("model is empty");
    if (run.framework.empty()) return Status::InvalidArgument("framework is empty");
    run.label = field("instance_type");
    Result<int64_t> gpus = ParseCount(field("gpu_count"), "gpu_count");
    if (!gpus.ok()) return gpus.status();
    if (*gpus > 64) return Status::InvalidArgument("gpu_count out of range (at most 64)");
    run.gpus = static_cast<int>(*gpus);
    Result<std::string> target = Target(run.label, *gpus);
    if (!target.ok()) return target.status();
    run.target = *target;
    run.kind = Kind(run.label);
    Result<int64_t> batch = ParsePositiveCount(field("batch_size"), "batch_size");
    if (!batch.ok()) return batch.status();
    run.batch = *batch;
    // The notes' batches per epoch where a script states it (tf-lstm-char-cnn), else the
    // epoch of the benchmark script's data set, which the zoo model carries.
    static const std::regex kBatches(R"(batches/epoch=(\d+))");
    const std::string notes = field("notes");
    std::smatch m;
    if (std::regex_search(notes, m, kBatches)) {
      run.samples = std::stoll(m[1].str()) * run.batch;
    } else {
      Result<Model> model = LoadModel(run.model);
      if (!model.ok()) return model.status().WithContext("model");
      run.samples = model->info().training.samples;
      run.val_samples = model->info().training.val_samples;
      if (run.samples <= 0)
        return Status::InvalidArgument("model '" + run.model +
                                       "' has no samples per epoch of its own; give the run as "
                                       "a run log with a samples column (docs/run-logs.md)");
    }
    // The collected 2016-2017 runs all ran recurrent layers as per-step ops (Keras' LSTM
    // loop, TensorFlow's unrolled cells); Keras' CuDNNLSTM/CuDNNGRU run one cuDNN kernel.
    run.rnn = notes.find("CuDNN") != std::string::npos ? "fused" : "unrolled";
    std::string version = field("framework_version");
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{" (see notes)", ""}, {" or ", "/"}})
      for (size_t at; (at = version.find(from)) != std::string::npos;)
        version.replace(at, from.size(), to);
    if (field("compiled") == "yes") version += " compiled";
    run.framework_version = version;
    static const std::regex kFile(R"(file=(\S+))");
    run.source = field("source");
    if (std::regex_search(notes, m, kFile)) run.source += " " + m[1].str();
    if (Status st = ParseTimesAndPrice(field, "price_per_hour_usd", run); !st.ok()) return st;
    return Status::Ok();
  });
}

}  // namespace epochcost::validation
