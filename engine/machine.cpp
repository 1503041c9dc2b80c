#include "engine/machine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/analysis.h"

namespace epochcost {

Result<const LoweredStep*> LoweringCache::Get(const Model& model, const LoweringOptions& o) {
  char key[160];
  // Every field of LoweringOptions but `training` (both phases are lowered here).
  std::snprintf(key, sizeof key, "%lld|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d",
                static_cast<long long>(o.batch), static_cast<int>(o.precision),
                static_cast<int>(o.optimizer), static_cast<int>(o.rnn),
                o.framework_reorders ? 1 : 0, o.separate_conv_bias ? 1 : 0, o.aten_kernels ? 1 : 0,
                o.mean_global_pool ? 1 : 0, o.aten_batch_norm ? 1 : 0, o.amp ? 1 : 0,
                o.amp_rnn16 ? 1 : 0, o.channels_last ? 1 : 0);
  if (auto it = steps_.find(key); it != steps_.end()) return &it->second;
  LoweredStep s;
  Result<StepOps> train = Lower(model, o);
  if (!train.ok()) return train.status();
  LoweringOptions eval = o;
  eval.training = false;
  Result<StepOps> ev = Lower(model, eval);
  if (!ev.ok()) return ev.status();
  s.train = std::move(*train);
  s.eval = std::move(*ev);
  Result<TrainingMemory> m = MemoryForTraining(model, o, &s.train);
  if (!m.ok()) return m.status();
  s.memory = *m;
  LoweringOptions plus = o;
  plus.batch = o.batch + 1;
  Result<TrainingMemory> m1 = MemoryForTraining(model, plus);
  if (!m1.ok()) return m1.status();
  s.memory_per_sample = (m1->total() - m->total()).value();
  Result<ModelReport> report = Analyze(model, {.batch = o.batch, .precision = o.precision});
  if (!report.ok()) return report.status();
  s.trainable_params = report->total.trainable_params;
  // The input layers' tensors (ids or features) at the device batch.
  for (const LayerReport& l : report->layers)
    if (l.kind == LayerKind::kInput)
      s.input += BytesOf(static_cast<double>(l.output.elements()) * o.batch, l.dtype);
  return &steps_.emplace(key, std::move(s)).first->second;
}

// Fitted by tools/fit_usl_prior.py to the 14 many-vCPU series of data/validation/published-runs.csv
// (Woolf 2017, GCE n1-highcpu-8..64, T(n)/T(8) over effective cores): the only shipped evidence of
// scaling beyond the 2 threads the development CPU can sweep. It peaks at 20.6 effective cores
// (33 vCPUs with hyperthreads), so 64 vCPUs are predicted no faster than 32 for small models,
// as Woolf measured. A measured sweep replaces alpha; beta stays.
// Fitted to Woolf's runs on up to 64 hyperthreaded vCPUs: 32 cores x 1.25 effective.
Usl UslPrior() { return {.alpha = 0.127, .beta = 0.00205, .how = "prior", .max_n = 40}; }

Seconds StepWithHostInput(Seconds device_step, Seconds prepare, double vcpus, bool* waits) {
  const double helpers = std::max(0.0, vcpus - 1);
  *waits = helpers < 1 || prepare / helpers > device_step;
  return helpers < 1 ? device_step + prepare : std::max(device_step, prepare / helpers);
}

std::array<Usl, 4> FitUslPerClass(const std::vector<MeasuredOp>& one_thread,
                                  const std::map<int, std::vector<MeasuredOp>>& at_threads) {
  // Medians, not means: the fit is of the kernels' scaling, which carries to other machines; the
  // stalls a mean adds on the profiled one (two thread pools on two vCPUs) do not.
  std::map<std::string, Seconds> base;
  for (const MeasuredOp& m : one_thread) base[m.signature.ToString()] = m.median;
  std::array<std::vector<SpeedupPoint>, 4> points;
  for (const auto& [n, ops] : at_threads) {
    if (n <= 1) continue;
    std::array<Seconds, 4> t1, tn;
    for (const MeasuredOp& m : ops) {
      // The fit describes the libraries' kernels; PyTorch's own (aten=1) thread as ATen does,
      // some not at all (its Bernoulli mask), and would pull a whole class's speedup down.
      if (m.signature.dim("aten") != 0) continue;
      auto it = base.find(m.signature.ToString());
      if (it == base.end()) continue;
      const int c = static_cast<int>(ClassOf(m.signature.kind));
      t1[c] += it->second;
      tn[c] += m.median;
    }
    for (int c = 0; c < 4; ++c)
      if (tn[c].seconds() > 0) points[c].push_back({static_cast<double>(n), t1[c] / tn[c]});
  }
  std::array<Usl, 4> out;
  for (int c = 0; c < 4; ++c) out[c] = FitUsl(points[c], UslPrior());
  return out;
}

Result<MachinePrediction> PredictOnMachine(const Model& model, LoweringOptions options,
                                           const Machine& machine, const References& refs,
                                           const MachineSettings& settings) {
  MachinePrediction out;
  const bool gpu = machine.gpu.has_value() && machine.gpus > 0;
  const int64_t global_batch = options.batch;
  const int n = gpu ? machine.gpus : 1;
  options.batch = (global_batch + n - 1) / n;
  out.device_batch = options.batch;

  TargetDevice target;
  std::shared_ptr<const ReferenceEfficiencies> reference;
  Seconds overhead;
  Seconds launch;  // a GPU reference's plain launch (EpochOptions::launch)
  if (gpu) {
    target.roofline = GpuRoofline(*machine.gpu);
    if (const GpuReference* g = refs.GpuFor(*machine.gpu)) {
      reference = g->reference;
      target.roofline.latency = reference->device().roofline.latency;
      overhead = g->dispatch;
      launch = g->dispatch;
    } else {
      target.roofline.latency = DefaultLatency(DeviceKind::kGpu);
      overhead = DefaultLatency(DeviceKind::kGpu);
    }
    if (!target.roofline.Supports(options.precision))
      return Status::Unsupported(machine.name + ": the " + target.roofline.name + " has no " +
                                 std::string(DTypeName(options.precision)) + " arithmetic");
  } else {
    if (!machine.cpu)
      return Status::NotFound(machine.name +
                              ": no CPU family known for this machine, and no GPU listed");
    if (options.precision == DType::kTFloat32)
      return Status::Unsupported(machine.name + ": tf32 is a GPU precision");
    if (options.precision == DType::kBFloat16 && machine.cpu->bf16 != true)
      return Status::Unsupported(
          machine.name + ": the " + machine.cpu->family +
          (machine.cpu->bf16.has_value()
               ? " has no bf16 arithmetic (AVX512_BF16 or AMX)"
               : "'s bf16 arithmetic is not known (data/hardware/cpus.csv)") +
          "; its bf16 runs are not modelled");
    const double vcpus = std::max(1.0, machine.vcpus);
    const double physical = machine.smt ? std::max(1.0, vcpus / 2) : vcpus;
    out.threads = machine.smt && vcpus >= 2 ? physical * (1 + kHyperthreadGain) : physical;
    target.cores = out.threads;
    BytesPerSecond per_core;
    if (const CpuReference* cpu = refs.CpuFor(options.precision, machine.cpu->vendor)) {
      reference = cpu->reference;
      per_core = cpu->per_core_bandwidth;
      target.usl = cpu->usl;
      out.framework_overhead = options.aten_kernels && cpu->framework_call.seconds() > 0;
      overhead = out.framework_overhead ? cpu->framework_call : cpu->dispatch;
      target.roofline = CpuRoofline(*machine.cpu, out.threads, per_core);
      target.roofline.latency = reference->device().roofline.latency;
    } else {
      // Without a measured CPU: the socket's bandwidth shared by its cores is unknown, so a
      // core gets the whole socket's, capped by the socket total.
      per_core = machine.cpu->memory_bandwidth_per_socket;
      target.usl.fill(UslPrior());
      overhead = DefaultLatency(DeviceKind::kCpu);
      target.roofline = CpuRoofline(*machine.cpu, out.threads, per_core);
      target.roofline.latency = DefaultLatency(DeviceKind::kCpu);
    }
    if (target.roofline.fp32.value() <= 0 || target.roofline.bandwidth.value() <= 0)
      return Status::NotFound(machine.name +
                              ": data/hardware/cpus.csv lacks the peak rate or "
                              "memory bandwidth of " +
                              machine.cpu->family);
    Result<double> per_cycle = machine.cpu->Fp32FlopPerCycle(settings.isa);
    if (!per_cycle.ok()) return per_cycle.status().WithContext(machine.name);
    out.native_flop_per_cycle = machine.cpu->fp32_flop_per_cycle_per_core;
    out.flop_per_cycle = *per_cycle;
    const double build_share = *per_cycle / out.native_flop_per_cycle;  // of the native peak
    target.roofline.fp32 = target.roofline.fp32 * build_share;
    if (out.threads > 1) {
      // A call the framework runs on one thread (StepOp::serial) has one core whatever the
      // machine's size.
      target.one_core = CpuRoofline(*machine.cpu, 1, per_core);
      target.one_core->fp32 = target.one_core->fp32 * build_share;
      target.one_core->latency = target.roofline.latency;
    }
  }
  if (const std::optional<Seconds> set = settings.PerOpOverhead(!gpu && out.threads > 1)) {
    overhead = *set;
    out.framework_overhead = false;
  }
  out.per_op_overhead = overhead;
  // A calibration's memory passes run at the bandwidth of the cores used; on a GPU the host's
  // dispatch overlaps the kernels and none are fitted.
  if (!gpu) out.bandwidth = target.roofline.bandwidth;

  LoweringCache local;
  Result<const LoweredStep*> lowered =
      (settings.cache ? settings.cache : &local)->Get(model, options);
  if (!lowered.ok()) return lowered.status();
  const LoweredStep& step = **lowered;

  if (!reference) reference = std::make_shared<const ReferenceEfficiencies>(ReferenceDevice{});
  const ScaledTimes times(reference, target);
  // Every call asks for all the target's cores (any count but 1, ScaledTimes::Find) but a serial
  // one, which asks for 1 (RowThreads).
  EpochOptions eo{.threads = target.one_core ? static_cast<int>(std::ceil(out.threads)) : 1,
                  .per_op_overhead = overhead,
                  .kernel_scale = settings.kernel_scale,
                  .per_step_overhead = settings.per_step_overhead,
                  .per_gb_moved = PerGbMoved(settings.memory_passes, out.bandwidth),
                  .dispatch_overlaps = gpu,
                  .launch = launch,
                  .samples = settings.samples,
                  .val_samples = settings.val_samples,
                  .op_rows = settings.op_rows};
  // Steps are counted at the global batch; each device runs its share of it.
  EpochPrediction p = PredictEpoch(step.train, step.eval, options.batch, times, eo);
  p.steps_per_epoch = (settings.samples + global_batch - 1) / global_batch;
  p.eval_steps =
      settings.val_samples > 0 ? (settings.val_samples + global_batch - 1) / global_batch : 0;
  out.compute_step = p.step;
  out.input_pipeline = settings.input_per_sample * static_cast<double>(global_batch);

  if (gpu) {
    // Gradients in the step's storage precision (fp32 under autocast); NVLink where the GPU has
    // it, else PCIe.
    const DType storage =
        options.precision == DType::kTFloat32 || options.amp ? DType::kFloat32 : options.precision;
    const Bytes grads = BytesOf(static_cast<double>(step.trainable_params), storage);
    const BytesPerSecond link =
        machine.gpu->nvlink.value() > 0 ? machine.gpu->nvlink : machine.gpu->pcie;
    if (n > 1 && link.value() <= 0)
      return Status::NotFound(machine.name + ": no interconnect bandwidth for " +
                              machine.gpu->name + " in data/hardware/gpus.csv");
    out.allreduce = RingAllReduce(grads, n, link, kAllReduceHopLatency);
    out.exposed_allreduce = std::max(Seconds(), out.allreduce - p.backward);
    // The host: input bytes of a device batch prepared on the vCPUs left after the one that
    // dispatches, then copied over PCIe to each GPU.
    const Bytes input = step.input;
    const BytesPerSecond host_bw =
        refs.cpu ? refs.cpu->per_core_bandwidth : BytesPerSecond::FromGBps(10);
    const Seconds prepare = input * static_cast<double>(n) / host_bw + out.input_pipeline;
    const Seconds copy = machine.gpu->pcie.value() > 0 ? input / machine.gpu->pcie : Seconds();
    bool waits = false;
    const Seconds step =
        StepWithHostInput(p.step + out.exposed_allreduce, prepare, machine.vcpus, &waits);
    out.input_bound = out.input_pipeline.value() > 0 && waits;
    out.input_step = prepare + copy;
    p.step = step + copy;
    p.step_p10 += p.step - out.compute_step;  // the times here are scaled: one figure per op
    p.step_p90 += p.step - out.compute_step;
  } else if (out.input_pipeline.value() > 0) {
    // The loader's workers run on the cores that train: its CPU time, over the effective cores.
    out.input_step = out.input_pipeline / std::max(1.0, out.threads);
    p.step += out.input_step;
    p.step_p10 += out.input_step;
    p.step_p90 += out.input_step;
  }
  p.epoch = p.step * static_cast<double>(p.steps_per_epoch) +
            p.eval_step * static_cast<double>(p.eval_steps);
  out.source = p.source;
  out.epoch = std::move(p);

  out.memory = step.memory;
  out.capacity = gpu ? machine.gpu->memory : machine.host_memory;
  if (out.capacity.value() > 0) {
    out.fits = out.memory.total() <= out.capacity;
    const double spare = (out.capacity - out.memory.total()).value();
    const double per = step.memory_per_sample;
    out.largest_batch =
        per <= 0
            ? 0
            : std::max<int64_t>(0, options.batch + static_cast<int64_t>(std::floor(spare / per))) *
                  n;
  }
  return out;
}

}  // namespace epochcost
