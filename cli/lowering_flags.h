// The lowering flags `models ops`, `profile` and `predict` share (--precision, --optimizer,
// --rnn, --no-reorders) and how they become LoweringOptions for a model (its own optimizer when
// none is given, else SGD).
#ifndef EPOCHCOST_CLI_LOWERING_FLAGS_H_
#define EPOCHCOST_CLI_LOWERING_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "engine/lowering.h"

namespace epochcost::cli {

struct LoweringFlags {
  std::string precision = "fp32";
  std::string optimizer;  // empty: the model's own
  std::string rnn = "unrolled";
  bool no_reorders = false;
};

void AddLoweringFlags(CLI::App* app, LoweringFlags* flags);

// Options for `model` at `batch`; errors name the flag. `optimizer_name` receives the optimizer
// used, when given.
Result<LoweringOptions> ResolveLowering(const LoweringFlags& flags, const Model& model,
                                        int64_t batch, std::string* optimizer_name = nullptr);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_LOWERING_FLAGS_H_
