// The runs `validate` and `calibrate` read, and their predictions: run logs (files, or @STEM for
// one shipped in data/validation), and Keras CSVLogger files whose settings come from options.
#ifndef EPOCHCOST_CLI_RUN_INPUTS_H_
#define EPOCHCOST_CLI_RUN_INPUTS_H_

#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/prediction.h"
#include "validation/report.h"
#include "validation/run_log.h"

namespace epochcost::cli {

struct RunInputs {
  std::vector<std::string> files;
  bool skip_bad = false;
  validation::RunRecord keras;  // the settings of Keras logs (model, target, batch, ...)
  std::string elapsed_column;
  std::vector<CountOption> counts;  // the Keras logs' count options, checked when the runs are read
};

void AddRunInputOptions(CLI::App* app, RunInputs* inputs);

// Every run of every input, in order. A file whose header has seconds_per_epoch is a run log;
// one with an `epoch` column a Keras log, which needs --model, --on and --framework.
Result<validation::RunLog> ReadRuns(const RunInputs& inputs);

struct PredictedRun {
  validation::RunRecord run;
  Prediction prediction;
};
struct PredictedRuns {
  std::unique_ptr<Predictor> predictor;  // its profile store takes calibrations
  std::vector<PredictedRun> runs;
};
// Reads every input and predicts each run (with the stored calibration of its framework when
// `calibrated` and one exists). A run that cannot be read or predicted (unknown model or
// instance, a precision the device lacks) is an error naming FILE:LINE, or with --skip-bad a
// line "epochcost: skipped ..." on stderr. `hold_out_gpu`: Predictor::HoldOutOwnGpu.
Result<PredictedRuns> ReadAndPredict(const RunInputs& inputs, const std::string& profiles,
                                     const std::string& catalog, bool calibrated,
                                     bool hold_out_gpu = false);

// Each predicted run as `validate` reports it: its family, device kind, path, error and costs.
std::vector<validation::RunResult> ResultsOf(const PredictedRuns& predicted);

// What the shipped run logs (data/validation) show for one prediction path ("same device",
// "scaled from DEVICE", "analytic") on one device kind ("cpu", "gpu"): every shipped run predicted
// as `validate` predicts it, uncalibrated, and those on that path and kind summarised with the
// logs ("@published-runs") and framework builds they come from. No run there: summary.runs 0.
// A prediction path and its device kind: ("scaled from NVIDIA H100 80GB HBM3", "gpu").
using PathKey = std::pair<std::string, std::string>;

// The path of a ranked row (recommend's and serve's: an op-time `source` and a GPU count).
template <typename Row>
PathKey PathOfRow(const Row& row) {
  return {PathOfSource(row.source), row.gpus > 0 ? "gpu" : "cpu"};
}
// The paths of the first `count` rows, each once, in the order of the rows.
template <typename Row>
std::vector<PathKey> PathsOfRows(const std::vector<Row>& rows, size_t count) {
  std::vector<PathKey> out;
  for (size_t i = 0; i < rows.size() && i < count; ++i)
    if (std::find(out.begin(), out.end(), PathOfRow(rows[i])) == out.end())
      out.push_back(PathOfRow(rows[i]));
  return out;
}

struct PathRecord {
  std::string path, device_kind;
  std::string precision;                      // the runs counted: "fp32", "bf16", ...
  validation::GroupSummary summary;           // the runs of that precision
  validation::GroupSummary any_precision;     // every run on the path and kind
  std::vector<std::string> logs, frameworks;  // of the runs counted, in first-seen order
  // The runs counted, one group per framework (named as in `frameworks`, in that order): a
  // path's runs of 2017 TensorFlow and of today's PyTorch err very differently.
  std::vector<validation::GroupSummary> by_framework;
};
// One record per (path, device kind) asked for, in that order, from one pass over the shipped
// runs (about 0.1 s: `predict` and `recommend` print them), counting the runs of `precision`
// (the prediction's: errors differ by precision, docs/accuracy.md).
Result<std::vector<PathRecord>> ShippedRecordsOf(const std::vector<PathKey>& paths,
                                                 const std::string& precision,
                                                 const std::string& profiles,
                                                 const std::string& catalog);

// The record of `path` (path, device kind) among `records`, or why there is none.
Result<PathRecord> RecordOf(const PathKey& path, const Result<std::vector<PathRecord>>& records);

// "57 shipped fp32 runs, MAPE 92.1%, worst -99.8%, 0 within 10%, uncalibrated (FRAMEWORKS;
// epochcost validate @LOG...)", each framework with its runs and MAPE where there are several
// ("pytorch-ngc 4 runs at 3.1%, keras+tensorflow 1.2.1 7 runs at 62.0%"), or that no shipped run of
// that precision takes the path (with the figures of those of other precisions, where there are
// some), or why it was not computed.
std::string RecordFigures(const Result<PathRecord>& record);
// The same as JSON: path, device_kind, precision, runs, mape_percent and worst_percent (null
// without runs), within_10_percent, logs, frameworks, runs_any_precision and
// mape_any_precision_percent, by_framework (framework, runs, mape_percent, worst_percent,
// within_10_percent); or path, device_kind and error.
nlohmann::ordered_json RecordJson(const PathKey& path, const Result<PathRecord>& record);

// A calibration's terms as text: "kernel scale 1.110, per-op overhead 8.08 us, per-step overhead
// 1.097 ms" and, where it has them, ", memory passes 0.543" (with " left out (--allocator keeps)"
// where `allocator_keeps` leaves them out).
std::string CorrectionText(const KernelCorrection& c, bool allocator_keeps = false);

// A calibration a prediction applied, as JSON (framework, device_kind, kernel_scale,
// per_op_overhead_seconds, per_op_overhead_threads_seconds, per_step_overhead_seconds,
// memory_passes, fitted_at, shipped, fitted_to), or null.
nlohmann::ordered_json CalibrationJson(const std::optional<profiler::StoredCalibration>& c);
// A calibration's per-op overhead on more than one thread, in seconds, or null where it has one
// overhead for all.
nlohmann::ordered_json ThreadsJson(const profiler::StoredCalibration& c);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_RUN_INPUTS_H_
