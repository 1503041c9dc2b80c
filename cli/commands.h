// The subcommands of `epochcost`. Each Register function adds one subcommand to the app and
// stores, in `run`, the function main() calls when that subcommand was given. A command returns
// its exit status (docs/cli.md): 0 success, 1 bad input or a failed operation, 2 usage error.
#ifndef EPOCHCOST_CLI_COMMANDS_H_
#define EPOCHCOST_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/model.h"
#include "engine/status.h"

namespace epochcost::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

using CommandFn = std::function<int()>;

void RegisterModelsCommand(CLI::App& app, CommandFn* run);
void RegisterCatalogCommand(CLI::App& app, CommandFn* run);
void RegisterProfileCommand(CLI::App& app, CommandFn* run);
void RegisterPredictCommand(CLI::App& app, CommandFn* run);
void RegisterRecommendCommand(CLI::App& app, CommandFn* run);
void RegisterValidateCommand(CLI::App& app, CommandFn* run);
void RegisterCalibrateCommand(CLI::App& app, CommandFn* run);
void RegisterScheduleCommand(CLI::App& app, CommandFn* run);
void RegisterServeCommand(CLI::App& app, CommandFn* run);

// Prints "epochcost: error: MESSAGE" on stderr and returns kExitError.
int ReportError(const Status& status);

// A count option (batch, samples, GPUs) that may be left out: then the command uses its default,
// the model's own batch or sample count, which the option's variable holds as 0 or -1. Given, the
// value must be at least `min`: a 0 or -1 typed on the command line is bad input, not a request
// for the default.
struct CountOption {
  const CLI::Option* option;
  int64_t min;
  int64_t max = kMaxSamples;  // unless the option says otherwise, an epoch's most samples
};

// The one-line error for the first given count out of range ("--batch must be positive, got 0",
// "--samples must be at most 1000000000000, got ..."); OK when every given count is in range.
// Call it after parsing.
Status CheckCounts(const std::vector<CountOption>& counts);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_COMMANDS_H_
