// The runs `validate` and `calibrate` read, and their predictions: run logs (files, or @STEM for
// one shipped in data/validation), and Keras CSVLogger files whose settings come from options.
#ifndef EPOCHCOST_CLI_RUN_INPUTS_H_
#define EPOCHCOST_CLI_RUN_INPUTS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/prediction.h"
#include "validation/run_log.h"

namespace epochcost::cli {

struct RunInputs {
  std::vector<std::string> files;
  bool skip_bad = false;
  validation::RunRecord keras;  // the settings of Keras logs (model, target, batch, ...)
  std::string elapsed_column;
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
// line "epochcost: skipped ..." on stderr.
Result<PredictedRuns> ReadAndPredict(const RunInputs& inputs, const std::string& profiles,
                                     const std::string& catalog, bool calibrated);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_RUN_INPUTS_H_
