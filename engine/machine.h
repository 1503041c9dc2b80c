// Training time of a model on a whole machine, measured or not: a CPU-only instance (vCPUs of a
// CPU family) or GPUs attached to a host. Op times come from ScaledTimes (engine/scaled_times.h)
// built on the measured reference of the same kind; on top of them:
// - CPUs: the vCPUs' effective cores (a hyperthread adds a fraction of a core) and the USL per op
//   class;
// - GPUs: data parallel over n GPUs, each running batch/n, with a ring all-reduce of the
//   gradients over NVLink (or PCIe) that overlaps the backward pass; the host queues every op
//   (per-op overhead, overlapping the kernels) and prepares the input batch on its vCPUs (on one
//   vCPU, after the dispatch, not beside it), then copies it to the GPUs over PCIe; a stated
//   input pipeline (CPU time per sample) adds to the preparation;
// - CPUs: a stated input pipeline shares the cores with the step: its CPU time per step, spread
//   over the effective cores, adds to the step;
// - memory per device, with the reason when the model does not fit and the largest batch that
//   does.
// docs/cross-device.md gives the formulas and the priors.
#ifndef EPOCHCOST_ENGINE_MACHINE_H_
#define EPOCHCOST_ENGINE_MACHINE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/memory.h"
#include "engine/scaled_times.h"

namespace epochcost {

struct Machine {
  std::string name;  // "aws:p2.xlarge", "gpu:P100", "cpu:Skylake-SP (...):16"
  std::optional<GpuSpec> gpu;
  int gpus = 0;
  std::optional<CpuSpec> cpu;  // the host's, where known
  double vcpus = 0;
  bool smt = true;    // vCPUs are hyperthreads (two per core); false on Graviton
  Bytes host_memory;  // 0: unknown (not checked)
};

// A measured CPU: 1-thread op times, USL per op class, per-core memory bandwidth, per-op
// dispatch, and PyTorch's cost per op call where a CPU profile measured it (its dispatcher and
// autograd, framework_call_seconds; 0: none), which a step lowered as PyTorch runs it pays on any
// CPU instead of the dispatch. A measured GPU: op times and the per-op launch overhead.
struct CpuReference {
  std::shared_ptr<const ReferenceEfficiencies> reference;
  std::array<Usl, 4> usl;
  BytesPerSecond per_core_bandwidth;
  Seconds dispatch;
  Seconds framework_call;
};
struct GpuReference {
  std::shared_ptr<const ReferenceEfficiencies> reference;
  Seconds dispatch;
};
// The measured GPUs are pooled (PoolReferences): `gpu` leads with the GPU that has the most
// measurements; `gpu_by_model` holds, per measured GPU (its data/hardware/gpus.csv row name), the
// pool that leads with that GPU's own, for predictions on that GPU. The measured CPUs are not
// pooled: per precision the one measured most at it leads, and the same among each vendor's CPUs
// (data/hardware/cpus.csv's vendor column: "Intel", "AMD"), since a CPU's kernels carry best to
// CPUs of its own maker: the same libraries' code paths (OpenBLAS picks its kernels by vendor and
// model), the same cache hierarchy (docs/cross-device.md).
struct References {
  std::optional<CpuReference> cpu;  // the f32 one
  std::map<DType, CpuReference> cpu_by_dtype;
  std::map<std::string, std::map<DType, CpuReference>> cpu_by_vendor;
  std::optional<GpuReference> gpu;
  std::map<std::string, GpuReference> gpu_by_model;

  // The CPU reference for a precision on a CPU of `vendor`: the CPU of that vendor measured most
  // at it, else of any vendor, else `cpu`.
  const CpuReference* CpuFor(DType d, const std::string& vendor = "") const {
    if (auto v = cpu_by_vendor.find(vendor); v != cpu_by_vendor.end())
      if (auto it = v->second.find(d); it != v->second.end()) return &it->second;
    auto it = cpu_by_dtype.find(d);
    return it != cpu_by_dtype.end() ? &it->second : cpu ? &*cpu : nullptr;
  }

  // The GPU reference for a target GPU: its own pool where it was measured, else `gpu`'s.
  const GpuReference* GpuFor(const GpuSpec& g) const {
    auto it = gpu_by_model.find(g.name);
    return it != gpu_by_model.end() ? &it->second : gpu ? &*gpu : nullptr;
  }
};

// Lowerings, memory and largest batch depend on the model, lowering options and device batch
// only, not on the machine: a recommender evaluating hundreds of machines computes them once.
struct LoweredStep {
  StepOps train, eval;
  TrainingMemory memory;
  double memory_per_sample = 0;  // bytes; memory is linear in the batch
  int64_t trainable_params = 0;
  Bytes input;  // the first layer's output at the device batch (the input batch)
};
class LoweringCache {
 public:
  Result<const LoweredStep*> Get(const Model& model, const LoweringOptions& options);

 private:
  std::map<std::string, LoweredStep> steps_;
};

// A framework's calibration (validation/calibration.h, docs/calibration.md): a multiplier on every
// op time, the per-op overhead that replaces the measured dispatch cost (on a CPU, one for steps on
// one thread and one for steps on more, where the fit had runs of both), the framework's own
// fixed cost per training step (its optimizer and training loop), added to each step, and memory
// passes: extra passes over each op's memory traffic (OpSignature::bytes) at the step's memory
// bandwidth, added to the op: what a step pays for memory the profiler's repeated calls find warm
// (fresh outputs faulted in, data gone from the caches between ops). CPUs only.
struct KernelCorrection {
  double kernel_scale = 1;
  Seconds per_op_overhead;
  Seconds per_step_overhead;
  double memory_passes = 0;
  // A CPU step on more than one thread: its per-op overhead (the framework's host thread shares
  // the cores with the runtime's worker threads). Unset: per_op_overhead at any thread count.
  std::optional<Seconds> per_op_overhead_threads;

  // The per-op overhead of a step on one thread, or (`threaded`) on more.
  Seconds PerOpOverhead(bool threaded) const {
    return threaded && per_op_overhead_threads ? *per_op_overhead_threads : per_op_overhead;
  }

  // As it applies to a framework whose allocator keeps the memory a step frees (`keeps`):
  // without the memory passes, which stand for the faults of memory returned to the OS.
  KernelCorrection ForAllocator(bool keeps) const {
    KernelCorrection c = *this;
    if (keeps) c.memory_passes = 0;
    return c;
  }
};
// One per device kind, where a calibration is stored.
struct Corrections {
  std::optional<KernelCorrection> cpu, gpu;
  const std::optional<KernelCorrection>& For(bool gpu_machine) const {
    return gpu_machine ? gpu : cpu;
  }
};

// The longest input pipeline per sample a prediction takes: ten minutes of one vCPU.
inline constexpr double kMaxInputPerSampleMs = 600e3;

struct MachineSettings {
  int64_t samples = 0;
  int64_t val_samples = 0;
  std::optional<Seconds> per_op_overhead;  // overrides the reference's dispatch cost
  // A calibration's per-op overhead where the step runs on more than one thread (unset: the one
  // above at any thread count).
  std::optional<Seconds> per_op_overhead_threads;
  double kernel_scale = 1;    // a calibration's multiplier on op times
  Seconds per_step_overhead;  // a calibration's fixed cost per training step
  double memory_passes = 0;   // a calibration's passes over an op's traffic
  // The input pipeline's CPU time per training sample on one vCPU (decoding, augmentation: what
  // a data loader's workers do), as the user measured it; not scaled between CPUs. 0: none; at
  // most kMaxInputPerSampleMs (the range predict's option and a run log's column accept).
  Seconds input_per_sample;
  // A CPU target's framework build: code compiled for an older vector set than the CPU has runs
  // at that set's peak (CpuSpec::Fp32FlopPerCycle); memory-bound ops are unchanged.
  VectorIsa isa = VectorIsa::kNative;
  LoweringCache* cache = nullptr;  // optional
  bool op_rows = true;  // false: the prediction keeps no per-op rows (ranking many machines)

  // Applies a correction: its scale and per-step cost, and its per-op overhead unless one is
  // already set.
  void Apply(const std::optional<KernelCorrection>& c) {
    if (!c) return;
    kernel_scale = c->kernel_scale;
    per_step_overhead = c->per_step_overhead;
    memory_passes = c->memory_passes;
    if (per_op_overhead) return;
    per_op_overhead = c->per_op_overhead;
    per_op_overhead_threads = c->per_op_overhead_threads;
  }
  // The per-op overhead set for a step on one thread, or (`threaded`) on more, if any.
  std::optional<Seconds> PerOpOverhead(bool threaded) const {
    return threaded && per_op_overhead_threads ? per_op_overhead_threads : per_op_overhead;
  }
};

// The fraction of a core a second hyperthread adds, and the per-hop latency of an all-reduce
// (documented priors, docs/cross-device.md).
inline constexpr double kHyperthreadGain = 0.25;
inline constexpr Seconds kAllReduceHopLatency = Seconds::FromMicroseconds(10);
// USL prior for op classes a reference could not fit (docs/cross-device.md).
Usl UslPrior();

// A GPU step with the host's input work per step (`prepare`: preparing the batch, a stated input
// pipeline) on a host of `vcpus`: beside the device's `device_step` on the vCPUs other than the
// dispatching one, the longer of the two, or after it on a 1-vCPU host. `waits`: the host's side
// is the longer.
Seconds StepWithHostInput(Seconds device_step, Seconds prepare, double vcpus, bool* waits);

struct MachinePrediction {
  EpochPrediction epoch;     // step = per-device compute + exposed all-reduce + host effects
  int64_t device_batch = 0;  // the batch each GPU (or the CPU) runs
  double threads = 0;        // CPU: effective cores
  // CPU: fp32 FLOPs per cycle per core the framework build reaches, and the CPU's (equal unless
  // MachineSettings::isa is an older set).
  double flop_per_cycle = 0, native_flop_per_cycle = 0;
  Seconds compute_step;             // the ops on one device (with per-op overhead)
  Seconds per_op_overhead;          // the one used (the reference's dispatch, or the setting)
  bool framework_overhead = false;  // it is CpuReference::framework_call
  BytesPerSecond bandwidth;  // CPU: the memory bandwidth of the cores used (memory passes' rate)
  Seconds allreduce;         // gradient all-reduce, and what the backward pass does not hide
  Seconds exposed_allreduce;
  Seconds input_step;  // host input preparation and host-to-device copy per step
  // The input pipeline's CPU time per step (global batch x MachineSettings::input_per_sample),
  // part of input_step; GPUs: whether, with a pipeline given, the step waits for the host (the
  // input takes longer on the vCPUs beside the dispatching one than the GPUs' step).
  Seconds input_pipeline;
  bool input_bound = false;
  TrainingMemory memory;  // per device
  Bytes capacity;         // per device (0: unknown)
  bool fits = true;
  int64_t largest_batch = 0;  // global (all devices), 0 when unknown
  std::string source;         // "scaled from DEVICE (DATE)", "analytic", or mixed
};

// USL per op class from a CPU's thread sweep: for each class, the speedup at n threads is the
// class's summed 1-thread time over its summed n-thread time, on the signatures measured at both.
std::array<Usl, 4> FitUslPerClass(const std::vector<MeasuredOp>& one_thread,
                                  const std::map<int, std::vector<MeasuredOp>>& at_threads);

// Whole-machine prediction. `options.batch` is the global batch. Errors: a precision the device
// lacks, a model the lowering refuses.
Result<MachinePrediction> PredictOnMachine(const Model& model, LoweringOptions options,
                                           const Machine& machine, const References& refs,
                                           const MachineSettings& settings);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_MACHINE_H_
