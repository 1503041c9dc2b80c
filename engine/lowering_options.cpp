// The names of the lowering's options, as the command line and run logs spell them.
#include <array>

#include "engine/lowering.h"

namespace epochcost {
namespace {

constexpr std::array<std::pair<Optimizer, std::string_view>, 5> kOptimizers = {{
    {Optimizer::kSgd, "sgd"},
    {Optimizer::kMomentum, "momentum"},
    {Optimizer::kRmsprop, "rmsprop"},
    {Optimizer::kAdam, "adam"},
    {Optimizer::kAdadelta, "adadelta"},
}};

}  // namespace

std::string_view RnnLoweringName(RnnLowering r) {
  return r == RnnLowering::kFused ? "fused" : "unrolled";
}

Result<RnnLowering> ParseRnnLowering(std::string_view name) {
  if (name == "unrolled") return RnnLowering::kUnrolled;
  if (name == "fused") return RnnLowering::kFused;
  return Status::InvalidArgument("unknown RNN lowering '" + std::string(name) +
                                 "' (expected unrolled or fused)");
}

std::optional<DType> AutocastType(std::string_view precision) {
  if (precision == "amp") return DType::kFloat16;
  if (precision == "amp-bf16") return DType::kBFloat16;
  return std::nullopt;
}

std::string PrecisionName(const LoweringOptions& o) {
  if (o.amp) return o.precision == DType::kBFloat16 ? "amp-bf16" : "amp";
  return std::string(DTypeName(o.precision));
}

std::string_view OptimizerName(Optimizer o) {
  for (const auto& [opt, name] : kOptimizers)
    if (opt == o) return name;
  return "?";
}

Result<Optimizer> ParseOptimizer(std::string_view name) {
  for (const auto& [opt, n] : kOptimizers)
    if (n == name) return opt;
  return Status::InvalidArgument("unknown optimizer '" + std::string(name) +
                                 "' (expected sgd, momentum, rmsprop, adam or adadelta)");
}

}  // namespace epochcost
