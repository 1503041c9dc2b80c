#include "cli/run_inputs.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/format.h"
#include "engine/file_util.h"
#include "validation/statistics.h"

namespace epochcost::cli {

using validation::RunLog;
using validation::RunRecord;

void AddRunInputOptions(CLI::App* app, RunInputs* in) {
  app->add_option("RUNS", in->files,
                  "Run logs (docs/run-logs.md; @published-runs for the shipped published runs) "
                  "or Keras CSVLogger files")
      ->required();
  app->add_flag("--skip-bad", in->skip_bad, "Report bad runs and go on without them");
  RunRecord& k = in->keras;
  k.samples = k.val_samples = -1;  // not given: the model's own
  app->add_option("--model", k.model, "Keras logs: the zoo model or model file");
  app->add_option("--on", k.target, "Keras logs: the machine (as predict --on takes it)");
  app->add_option("--framework", k.framework, "Keras logs: the framework (keras+tensorflow)");
  app->add_option("--framework-version", k.framework_version, "Keras logs: its version");
  CLI::Option* batch =
      app->add_option("--batch", k.batch, "Keras logs: batch size (default: the model's)");
  CLI::Option* samples =
      app->add_option("--samples", k.samples, "Keras logs: training samples per epoch");
  CLI::Option* val_samples =
      app->add_option("--val-samples", k.val_samples, "Keras logs: validation samples per epoch");
  app->add_option("--kind", k.kind, "Keras logs: on-demand, preemptible or spot");
  app->add_option("--usd-per-hour", k.usd_per_hour, "Keras logs: the price the run paid");
  CLI::Option* threads = app->add_option("--threads", k.threads, "Keras logs: CPU threads");
  CLI::Option* gpus = app->add_option("--gpus", k.gpus, "Keras logs: GPUs");
  app->add_option("--precision", k.precision, "Keras logs: precision (default fp32)");
  app->add_option("--optimizer", k.optimizer, "Keras logs: optimizer (default: the model's)");
  app->add_option("--rnn", k.rnn,
                  "Keras logs: how recurrent layers ran, aten, unrolled or fused (default: as "
                  "predict)");
  app->add_option("--isa", k.isa,
                  "Keras logs: the vector instructions the framework was built for (default "
                  "native)");
  app->add_option("--elapsed-column", in->elapsed_column,
                  "Keras logs: the elapsed-seconds column (default: elapsed, time, ...)");
  // 0 threads or GPUs is "not stated", as in a run log's columns.
  in->counts = {{batch, 1}, {samples, 1}, {val_samples, 0}, {threads, 0}, {gpus, 0}};
}

Result<RunLog> ReadRuns(const RunInputs& in) {
  if (Status counts = CheckCounts(in.counts); !counts.ok()) return counts;
  RunLog all;
  for (const std::string& file : in.files) {
    std::string text;
    if (file.starts_with("@")) {
      Result<std::string_view> shipped = validation::ShippedRunLog(file.substr(1));
      if (!shipped.ok()) return shipped.status();
      text = std::string(*shipped);
    } else {
      Result<std::string> read = ReadFile(file);
      if (!read.ok()) return read.status();
      text = std::move(*read);
    }
    const std::string header = text.substr(0, text.find('\n'));
    if (header.find("seconds_per_epoch") != std::string::npos) {
      Result<RunLog> log = validation::ParseRunLog(text, file, in.skip_bad);
      if (!log.ok()) return log.status();
      all.runs.insert(all.runs.end(), log->runs.begin(), log->runs.end());
      all.skipped.insert(all.skipped.end(), log->skipped.begin(), log->skipped.end());
      continue;
    }
    if (header.find("epoch") == std::string::npos)
      return Status::InvalidArgument(file +
                                     ":1: neither a run log (no seconds_per_epoch column) nor a "
                                     "Keras log (no epoch column)");
    const RunRecord& k = in.keras;
    if (k.model.empty() || k.target.empty() || k.framework.empty())
      return Status::InvalidArgument(file + ": a Keras log needs --model, --on and --framework");
    if (k.usd_per_hour && !(*k.usd_per_hour > 0 && *k.usd_per_hour <= kMaxUsdPerHour))
      return Status::InvalidArgument("--usd-per-hour must be positive, at most 2000");
    Result<validation::KerasLogTimes> times =
        validation::ParseKerasLog(text, file, in.elapsed_column);
    if (!times.ok()) return times.status();
    RunRecord run = k;
    run.origin = file;
    run.settings_from_options = true;
    run.seconds_per_epoch = times->seconds_per_epoch;
    run.first_epoch_seconds = times->first_epoch_seconds;
    run.source = file + " (median of epochs 2.." + std::to_string(times->epochs) + ")";
    all.runs.push_back(std::move(run));
  }
  return all;
}

namespace {

// The predictor words its errors for the command line ("--on cpu:x:8: no CPU family 'x' ..."); a
// run log's row gives the same settings in its columns (docs/run-logs.md), and its errors name
// those: "target cpu:x:8: ...", "threads 16: gcp:n1-highcpu-8 has 8 vCPUs".
Status InColumnTerms(const Status& s) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kColumns = {{
      {"--on", "target"},
      {"--threads", "threads"},
      {"--gpus", "gpus"},
      {"--batch", "batch"},
      {"--isa", "isa"},
  }};
  std::string m = s.message();
  for (const auto& [flag, column] : kColumns) {
    size_t at = m.find(flag);
    while (at != std::string::npos) {
      const size_t end = at + flag.size();
      const bool whole = end == m.size() || m[end] == ' ' || m[end] == ':';
      if (whole) m.replace(at, flag.size(), column);
      at = m.find(flag, whole ? at + column.size() : end);
    }
  }
  return Status::Error(s.code(), m);
}

// Each name in the run's unstated column is a parameter its model declares (a name that is not
// would leave a typo standing for the parameter the source leaves open).
Status UnstatedAreParameters(const RunRecord& run, const Prediction& p) {
  if (run.unstated.empty() || !p.model) return Status::Ok();
  const std::map<std::string, int64_t>& declared = p.model->info().parameters;
  for (const std::string& name : run.unstated) {
    if (declared.contains(name)) continue;
    std::string known;
    for (const auto& [k, v] : declared) known += (known.empty() ? "" : ", ") + k;
    return Status::InvalidArgument("unstated '" + name + "' is not a parameter of " +
                                   p.model_name +
                                   (known.empty() ? " (it declares none)"
                                                  : " (it declares: " + known + ")"));
  }
  return Status::Ok();
}

}  // namespace

Result<PredictedRuns> ReadAndPredict(const RunInputs& inputs, const std::string& profiles,
                                     const std::string& catalog, bool calibrated,
                                     bool hold_out_gpu) {
  Result<RunLog> log = ReadRuns(inputs);
  if (!log.ok()) return log.status();
  Result<std::unique_ptr<Predictor>> opened = Predictor::Open(profiles, catalog);
  if (!opened.ok()) return opened.status();
  PredictedRuns out;
  out.predictor = std::move(*opened);
  Predictor& predictor = *out.predictor;
  predictor.HoldOutOwnGpu(hold_out_gpu);
  std::vector<std::string> skipped = log->skipped;
  for (const RunRecord& run : log->runs) {
    PredictionRequest r;
    r.model = run.model;
    r.on = run.target;
    r.threads = run.threads;
    r.gpus = run.gpus;
    r.batch = run.batch;
    r.samples = run.samples;
    r.val_samples = run.val_samples;
    r.lowering.precision = run.precision;
    r.lowering.optimizer = run.optimizer;
    r.lowering.rnn = run.rnn;
    r.lowering.channels_last = run.channels_last;
    r.isa = run.isa;
    r.allocator_keeps = run.allocator_keeps;
    r.input_per_sample = Seconds::FromMilliseconds(run.input_ms_per_sample);
    // PyTorch's own CPU kernels (lowering.h) for PyTorch's runs; other frameworks train with
    // fused updates and library pooling (TensorFlow's training ops, oneDNN).
    r.lowering.no_aten = !run.framework.starts_with("pytorch");
    if (calibrated) {  // the framework's calibration where one is stored for the device kind
      r.framework = run.framework;
      r.calibration_optional = true;
    }
    Result<Prediction> p = predictor.Predict(r);
    if (Status named = p.ok() ? UnstatedAreParameters(run, *p) : Status::Ok(); !named.ok())
      p = named;
    if (!p.ok()) {
      const Status why = run.settings_from_options ? p.status() : InColumnTerms(p.status());
      Status located = why.WithContext(run.origin);
      if (!inputs.skip_bad) return located;
      skipped.push_back(located.message());
      continue;
    }
    out.runs.push_back({run, std::move(*p)});
  }
  for (const std::string& s : skipped) std::cerr << "epochcost: skipped " << s << "\n";
  return out;
}

std::vector<validation::RunResult> ResultsOf(const PredictedRuns& predicted) {
  std::vector<validation::RunResult> results;
  for (const PredictedRun& p : predicted.runs) {
    validation::RunResult x;
    x.run = p.run;
    x.run.batch = p.prediction.batch;  // a Keras log's default: the model's
    x.run.samples = p.prediction.samples;
    x.family = validation::ModelFamily(*p.prediction.model);
    x.device_kind = p.prediction.device_kind();
    x.path = p.prediction.path;
    x.predicted_seconds = p.prediction.epoch.epoch.seconds();
    x.measured_seconds = p.run.seconds_per_epoch;
    x.error_percent = validation::PercentError(x.predicted_seconds, x.measured_seconds);
    if (p.run.usd_per_hour) {
      x.predicted_usd = x.predicted_seconds / 3600 * *p.run.usd_per_hour;
      x.measured_usd = x.measured_seconds / 3600 * *p.run.usd_per_hour;
    }
    // The run's own price where it measured one: the profile's is that of the VM it was measured
    // on, and two VMs of one CPU model differed 7x (docs/accuracy.md, "A third Zen 5 VM").
    double price_us = 0;
    if (p.run.page_fault_us) {
      price_us = *p.run.page_fault_us;
      x.page_fault_price_from_run = true;
    } else if (p.prediction.measured) {
      price_us = p.prediction.page_fault.seconds() * 1e6;
    }
    if (p.run.faults_per_step && price_us > 0) {
      x.page_fault_price_us = price_us;
      x.page_fault_seconds = static_cast<double>(*p.run.faults_per_step) * price_us * 1e-6 *
                             static_cast<double>(p.prediction.epoch.steps_per_epoch);
    }
    results.push_back(std::move(x));
  }
  return results;
}

namespace {

// "keras+tensorflow 1.2.1": a run's framework and version, as a path record names it.
std::string FrameworkLabel(const validation::RunRecord& run) {
  return run.framework + (run.framework_version.empty() ? "" : " " + run.framework_version);
}

}  // namespace

Result<std::vector<PathRecord>> ShippedRecordsOf(const std::vector<PathKey>& paths,
                                                 const std::string& precision,
                                                 const std::string& profiles,
                                                 const std::string& catalog) {
  RunInputs inputs;
  for (const std::string& stem : validation::ShippedRunLogNames())
    inputs.files.push_back("@" + stem);
  Result<PredictedRuns> predicted = ReadAndPredict(inputs, profiles, catalog, false);
  if (!predicted.ok()) return predicted.status();
  const std::vector<validation::RunResult> results = ResultsOf(*predicted);
  auto add_once = [](std::vector<std::string>* v, const std::string& s) {
    if (std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
  };
  std::vector<PathRecord> out;
  for (const auto& [path, kind] : paths) {
    PathRecord record{.path = path, .device_kind = kind, .precision = precision};
    std::vector<const validation::RunResult*> on_path, any_precision;
    for (const validation::RunResult& r : results) {
      if (r.path != path || r.device_kind != kind) continue;
      any_precision.push_back(&r);
      if (PrecisionLabel(r.run) != precision) continue;
      on_path.push_back(&r);
      add_once(&record.logs, r.run.log());
      add_once(&record.frameworks, FrameworkLabel(r.run));
    }
    record.summary = validation::SummaryOf(path, on_path);
    for (const std::string& framework : record.frameworks) {
      std::vector<const validation::RunResult*> of_framework;
      for (const validation::RunResult* r : on_path)
        if (FrameworkLabel(r->run) == framework) of_framework.push_back(r);
      record.by_framework.push_back(validation::SummaryOf(framework, of_framework));
    }
    record.any_precision = validation::SummaryOf(path, any_precision);
    out.push_back(std::move(record));
  }
  return out;
}

Result<PathRecord> RecordOf(const PathKey& path, const Result<std::vector<PathRecord>>& records) {
  if (!records.ok()) return records.status();
  for (const PathRecord& r : *records)
    if (r.path == path.first && r.device_kind == path.second) return r;
  return Status::Internal("no record computed for " + path.first);
}

std::string RecordFigures(const Result<PathRecord>& r) {
  if (!r.ok()) return "not computed: " + r.status().message();
  const validation::GroupSummary& s = r->summary;
  const validation::GroupSummary& any = r->any_precision;
  if (s.runs == 0 && any.runs == 0) return "no shipped run takes it, so its error is unknown";
  if (s.runs == 0) {
    char other[160];
    std::snprintf(other, sizeof other, " (at other precisions: %d runs, MAPE %.1f%%)", any.runs,
                  any.mape);
    return "no shipped " + r->precision + " run takes it, so its error is unknown" + other;
  }
  std::vector<std::string> named = r->frameworks;
  if (r->by_framework.size() > 1)
    for (size_t i = 0; i < named.size() && i < r->by_framework.size(); ++i) {
      const validation::GroupSummary& f = r->by_framework[i];
      named[i] += " " + std::to_string(f.runs) + (f.runs == 1 ? " run" : " runs") + " at " +
                  Number("%.1f%%", f.mape);
    }
  const std::string frameworks = CommaList(named);
  std::string logs;
  for (const std::string& l : r->logs) logs += " " + l;
  char figures[160];
  std::snprintf(figures, sizeof figures,
                "%d shipped %s runs, MAPE %.1f%%, worst %+.1f%%, %d within 10%%, uncalibrated",
                s.runs, r->precision.c_str(), s.mape, s.worst, s.within_10);
  return figures + (" (" + frameworks + "; epochcost validate" + logs + ")");
}

nlohmann::ordered_json RecordJson(const PathKey& path, const Result<PathRecord>& r) {
  nlohmann::ordered_json j = {{"path", path.first}, {"device_kind", path.second}};
  if (!r.ok()) {
    j["error"] = r.status().message();
    return j;
  }
  const bool any = r->summary.runs > 0;  // none: the error is unknown, not 0
  j["precision"] = r->precision;
  j["runs"] = r->summary.runs;
  j["mape_percent"] = any ? nlohmann::ordered_json(r->summary.mape) : nullptr;
  j["worst_percent"] = any ? nlohmann::ordered_json(r->summary.worst) : nullptr;
  j["within_10_percent"] = r->summary.within_10;
  j["logs"] = r->logs;
  j["frameworks"] = r->frameworks;
  nlohmann::ordered_json by = nlohmann::ordered_json::array();
  for (const validation::GroupSummary& f : r->by_framework)
    by.push_back({{"framework", f.name},
                  {"runs", f.runs},
                  {"mape_percent", f.mape},
                  {"worst_percent", f.worst},
                  {"within_10_percent", f.within_10}});
  j["by_framework"] = by;
  j["runs_any_precision"] = r->any_precision.runs;
  j["mape_any_precision_percent"] =
      r->any_precision.runs > 0 ? nlohmann::ordered_json(r->any_precision.mape) : nullptr;
  return j;
}

std::string CorrectionText(const KernelCorrection& c, bool allocator_keeps) {
  std::string s = "kernel scale " + Number("%.3f", c.kernel_scale) + ", per-op overhead " +
                  Number("%.2f", c.per_op_overhead.seconds() * 1e6) + " us";
  if (c.per_op_overhead_threads)
    s += " (" + Number("%.2f", c.per_op_overhead_threads->seconds() * 1e6) +
         " us on more than 1 thread)";
  s += ", per-step overhead " + Number("%.3f", c.per_step_overhead.seconds() * 1e3) + " ms";
  if (c.memory_passes > 0)
    s += ", memory passes " + Number("%.3f", c.memory_passes) +
         (allocator_keeps ? " left out (--allocator keeps)" : "");
  return s;
}

nlohmann::ordered_json ThreadsJson(const profiler::StoredCalibration& c) {
  return c.per_op_overhead_threads ? nlohmann::ordered_json(c.per_op_overhead_threads->seconds())
                                   : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json CalibrationJson(const std::optional<profiler::StoredCalibration>& c) {
  if (!c) return nullptr;
  return {{"framework", c->framework},
          {"device_kind", c->device_kind},
          {"kernel_scale", c->kernel_scale},
          {"per_op_overhead_seconds", c->per_op_overhead.seconds()},
          {"per_op_overhead_threads_seconds", ThreadsJson(*c)},
          {"per_step_overhead_seconds", c->per_step_overhead.seconds()},
          {"memory_passes", c->memory_passes},
          {"fitted_at", c->fitted_at},
          {"shipped", c->shipped},
          {"fitted_to", c->origin}};
}

}  // namespace epochcost::cli
