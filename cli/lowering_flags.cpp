#include "cli/lowering_flags.h"

#include <algorithm>

#include "engine/machine.h"

namespace epochcost::cli {

void AddLoweringFlags(CLI::App* app, LoweringFlags* f, bool training) {
  app->add_option("--precision", f->precision,
                  "fp32 (default), tf32 (GPU tensor cores), bf16, fp16, or amp / amp-bf16 "
                  "(autocast: 16-bit compute, fp32 weights and optimizer)");
  if (training)
    app->add_option("--optimizer", f->optimizer,
                    "sgd, momentum, rmsprop, adam, adamw or adadelta (default: the model's, else "
                    "sgd)");
  app->add_option("--rnn", f->rnn,
                  "aten (PyTorch's own layer, at::lstm or at::gru, timed whole through libtorch: "
                  "what profile measures on a CPU, and what a measured CPU predicts with where "
                  "its profile has it), unrolled (each time step's GEMMs and element-wise ops: "
                  "otherwise the default on a CPU) or fused (one RNN primitive, the default on a "
                  "GPU: cuDNN's RNN)");
  app->add_flag("--channels-last", f->channels_last,
                "4-D tensors in PyTorch's channels_last (NHWC) memory format, as NVIDIA's recipes "
                "train: convolutions, pooling and batch norm on cuDNN's NHWC kernels (GPUs; "
                "recommend and serve predict CPU offers in NCHW)");
  app->add_flag("--no-reorders", f->no_reorders,
                "Leave out the layout reorders frameworks pay around convolutions on a CPU");
  app->add_flag("--no-aten", f->no_aten,
                "Time dense products, max pooling, dropout and optimizer updates as oneDNN "
                "primitives and fused kernels, not as PyTorch runs them on a CPU (its BLAS and "
                "own kernels, the default there in fp32); on a GPU, time bf16/fp16 batch norm "
                "as cuDNN's, not PyTorch's own");
}

void AddIsaOption(CLI::App* app, std::string* isa) {
  app->add_option("--isa", *isa,
                  "CPUs epochcost scales to: the vector instructions the framework's kernels were "
                  "built for, native (default), sse2, avx, avx2 (with FMA) or avx512");
}

void AddAllocatorOption(CLI::App* app, bool* keeps) {
  app->add_option_function<std::string>(
         "--allocator", [keeps](const std::string& v) { *keeps = v == "keeps"; },
         "What the framework's memory allocator does with the memory a step frees: returns "
         "(default; glibc's malloc as it comes gives it back to the OS and faults it in again) "
         "or keeps (jemalloc, tcmalloc, glibc with MALLOC_TRIM_THRESHOLD_ and "
         "MALLOC_MMAP_THRESHOLD_ raised): a calibration's memory passes apply to returns only")
      ->check(CLI::IsMember({"keeps", "returns"}));
}

void AddInputPipelineOption(CLI::App* app, double* ms) {
  app->add_option("--input-ms-per-sample", *ms,
                  "CPU time of the input pipeline per training sample, in milliseconds of one "
                  "vCPU (reading, decoding, augmenting; default 0: none): on a GPU machine it "
                  "runs on the vCPUs beside the dispatching one, overlapping the step; on a CPU "
                  "it shares the cores with the step");
}

Result<Seconds> InputPerSample(double ms) {
  if (!(ms >= 0) || ms > kMaxInputPerSampleMs)
    return Status::InvalidArgument(
        "--input-ms-per-sample must be from 0 to 600000 (milliseconds of one vCPU per sample)");
  return Seconds::FromMilliseconds(ms);
}

std::string LoweringFlagsCommandLine(const LoweringFlags& f) {
  std::string s;
  if (f.precision != "fp32") s += " --precision " + f.precision;
  if (!f.optimizer.empty()) s += " --optimizer " + f.optimizer;
  if (!f.rnn.empty()) s += " --rnn " + f.rnn;
  if (f.channels_last) s += " --channels-last";
  if (f.no_reorders) s += " --no-reorders";
  if (f.no_aten) s += " --no-aten";
  return s;
}

Result<LoweringOptions> ResolveLowering(const LoweringFlags& f, const Model& model, int64_t batch,
                                        std::string* optimizer_name, LoweringTarget target) {
  // amp and amp-bf16: autocast's mixed precision, 16-bit compute over fp32 weights.
  const std::optional<DType> autocast = AutocastType(f.precision);
  const bool amp = autocast.has_value();
  Result<DType> precision = amp ? Result<DType>(*autocast) : ParseDType(f.precision);
  if (!precision.ok() || !IsFloat(*precision))
    return Status::InvalidArgument("unknown precision '" + f.precision +
                                   "' (expected fp32, tf32, bf16, fp16, amp or amp-bf16)")
        .WithContext("--precision");
  std::string name = f.optimizer;
  if (name.empty()) name = model.info().training.optimizer;
  if (name.empty()) name = "sgd";
  Result<Optimizer> optimizer = ParseOptimizer(name);
  if (!optimizer.ok()) return optimizer.status().WithContext("--optimizer");
  const bool gpu = target == LoweringTarget::kGpu;
  if (f.channels_last && !gpu)
    return Status::InvalidArgument(
        "--channels-last: the NHWC memory format is modelled on GPUs only");
  const bool aten =
      !gpu && !f.no_aten && (*precision == DType::kFloat32 || *precision == DType::kBFloat16);
  // Recurrent layers: cuDNN's on a GPU, unrolled on a CPU (PrefersWholeRnn says where PyTorch's
  // own layer, timed whole, replaces that).
  Result<RnnLowering> rnn = ParseRnnLowering(f.rnn.empty() ? (gpu ? "fused" : "unrolled") : f.rnn);
  if (!rnn.ok()) return rnn.status().WithContext("--rnn");
  if (*rnn == RnnLowering::kAten && (gpu || !aten))
    return Status::InvalidArgument(
               "aten: PyTorch's own recurrent layers are timed on a CPU, in fp32 or bf16, "
               "without --no-aten")
        .WithContext("--rnn");
  if (optimizer_name) *optimizer_name = name;
  return LoweringOptions{
      .batch = batch,
      .precision = *precision,
      .optimizer = *optimizer,
      .training = true,
      .rnn = *rnn,
      .framework_reorders = !gpu && !f.no_reorders,
      .separate_conv_bias = gpu,
      .aten_kernels = aten,
      .mean_global_pool = !gpu,
      .aten_batch_norm = gpu && !f.no_aten && !amp &&
                         (*precision == DType::kBFloat16 || *precision == DType::kFloat16),
      .amp = amp,
      .channels_last = f.channels_last};
}

bool PrefersWholeRnn(const LoweringFlags& f, const LoweringOptions& o) {
  return f.rnn.empty() && o.aten_kernels && o.rnn == RnnLowering::kUnrolled;
}

Result<EpochSizes> ResolveEpochSizes(const Model& model, int64_t batch, int64_t samples,
                                     int64_t val_samples) {
  const TrainingDefaults& d = model.info().training;
  EpochSizes e;
  e.batch = batch > 0 ? batch : std::max<int64_t>(d.batch, 1);
  e.samples = samples >= 0 ? samples : d.samples;
  e.val_samples = val_samples >= 0 ? val_samples : d.val_samples;
  if (e.samples <= 0)
    return Status::InvalidArgument(
        "the model has no default sample count; give --samples N (training samples per epoch)");
  return e;
}

}  // namespace epochcost::cli
