#include "cli/lowering_flags.h"

namespace epochcost::cli {

void AddLoweringFlags(CLI::App* app, LoweringFlags* f) {
  app->add_option("--precision", f->precision, "fp32 (default), tf32 (GPU tensor cores), bf16 or fp16");
  app->add_option("--optimizer", f->optimizer,
                  "sgd, momentum, rmsprop, adam or adadelta (default: the model's, else sgd)");
  app->add_option("--rnn", f->rnn,
                  "unrolled (per-step GEMMs, the default on a CPU, as PyTorch trains there) or "
                  "fused (one RNN primitive, the default on a GPU: cuDNN's RNN)");
  app->add_flag("--no-reorders", f->no_reorders,
                "Leave out the layout reorders frameworks pay around convolutions on a CPU");
}

Result<LoweringOptions> ResolveLowering(const LoweringFlags& f, const Model& model, int64_t batch,
                                        std::string* optimizer_name, LoweringTarget target) {
  Result<DType> precision = ParseDType(f.precision);
  if (!precision.ok()) return precision.status().WithContext("--precision");
  std::string name = f.optimizer;
  if (name.empty()) name = model.info().training.optimizer;
  if (name.empty()) name = "sgd";
  Result<Optimizer> optimizer = ParseOptimizer(name);
  if (!optimizer.ok()) return optimizer.status().WithContext("--optimizer");
  const bool gpu = target == LoweringTarget::kGpu;
  Result<RnnLowering> rnn = ParseRnnLowering(f.rnn.empty() ? (gpu ? "fused" : "unrolled") : f.rnn);
  if (!rnn.ok()) return rnn.status().WithContext("--rnn");
  if (optimizer_name) *optimizer_name = name;
  return LoweringOptions{.batch = batch,
                         .precision = *precision,
                         .optimizer = *optimizer,
                         .training = true,
                         .rnn = *rnn,
                         .framework_reorders = !gpu && !f.no_reorders,
                         .separate_conv_bias = gpu};
}

}  // namespace epochcost::cli
