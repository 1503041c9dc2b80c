// The lowering flags `models ops`, `profile` and `predict` share (--precision, --optimizer,
// --rnn, --channels-last, --no-reorders, --no-aten) and how they become LoweringOptions for a model
// (its own optimizer when none is given, else SGD).
#ifndef EPOCHCOST_CLI_LOWERING_FLAGS_H_
#define EPOCHCOST_CLI_LOWERING_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "engine/lowering.h"

namespace epochcost::cli {

struct LoweringFlags {
  std::string precision = "fp32";
  std::string optimizer;  // empty: the model's own
  std::string rnn;        // empty: the device's framework default
  bool channels_last = false;
  bool no_reorders = false;
  bool no_aten = false;
};

// What the step is lowered for. Frameworks train differently on each: on a CPU, PyTorch runs
// recurrent layers as per-step GEMMs and reorders tensors to oneDNN's blocked layouts around each
// convolution; on an NVIDIA GPU it calls cuDNN's fused RNN and keeps NCHW.
enum class LoweringTarget { kCpu, kGpu };

// --precision, --optimizer (training only: `serve` predicts inference), --rnn, --channels-last,
// --no-reorders and --no-aten.
void AddLoweringFlags(CLI::App* app, LoweringFlags* flags, bool training = true);

// --isa of predict, recommend and serve: the x86 vector set a framework's CPU kernels were built
// for (engine/device_specs.h VectorIsa), for the CPUs epochcost scales to. `isa` keeps the name.
void AddIsaOption(CLI::App* app, std::string* isa);

// --allocator of predict, recommend and serve: whether the framework's host allocator keeps the
// memory a step frees ("keeps": jemalloc, tcmalloc, glibc with its trim and mmap thresholds
// raised) or returns it to the operating system ("returns", the default: glibc's malloc as it
// comes), to be faulted in again the next step. A calibration's memory passes, which stand for
// those faults, apply only to "returns" (docs/calibration.md).
void AddAllocatorOption(CLI::App* app, bool* keeps);

// --input-ms-per-sample of predict and recommend: the CPU time, in milliseconds of one vCPU, the
// training job's input pipeline spends on one sample (reading, decoding, augmenting: a data
// loader's work), as the user measured it. engine/machine.h says how a step pays it.
void AddInputPipelineOption(CLI::App* app, double* ms);
// The option's value as time; an error for a negative, NaN or absurd one (over 10 minutes).
Result<Seconds> InputPerSample(double ms);

// The error for an --overhead-us of predict and recommend (a framework's cost per op call) that is
// negative or absurd (over a second a call).
inline constexpr char kOverheadRange[] =
    "--overhead-us must be from 0 to 1e6 (microseconds per op call)";

// The flags as given, as a command line fragment (" --precision bf16 --optimizer sgd"; empty when
// none was), so that a suggested `epochcost profile` measures the signatures predict lowered.
std::string LoweringFlagsCommandLine(const LoweringFlags& flags);

// Options for `model` at `batch`; errors name the flag. `optimizer_name` receives the optimizer
// used, when given.
Result<LoweringOptions> ResolveLowering(const LoweringFlags& flags, const Model& model,
                                        int64_t batch, std::string* optimizer_name = nullptr,
                                        LoweringTarget target = LoweringTarget::kCpu);

// Whether a step lowered with `o` from `flags` (no --rnn, PyTorch's CPU kernels) should time its
// recurrent layers as PyTorch's own (RnnLowering::kAten) where they can be: `profile` measures
// them so, and a prediction on a measured CPU uses them where its profile has every such row.
// A CPU predicted by scaling keeps them unrolled: a whole layer's time is mostly PyTorch's work
// per call, which no roofline carries to another CPU.
bool PrefersWholeRnn(const LoweringFlags& flags, const LoweringOptions& o);

// The batch and the samples of an epoch: the options where given (0 or negative: not given),
// else the model's own training defaults. An error when neither gives training samples.
struct EpochSizes {
  int64_t batch = 1;
  int64_t samples = 0;
  int64_t val_samples = 0;
};
Result<EpochSizes> ResolveEpochSizes(const Model& model, int64_t batch, int64_t samples,
                                     int64_t val_samples);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_LOWERING_FLAGS_H_
