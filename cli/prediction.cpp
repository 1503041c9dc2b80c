#include "cli/prediction.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>
#include <thread>

#include "cli/format.h"
#include "cli/targets.h"
#include "engine/model_source.h"
#include "profiler/gpu/gpu_backend.h"
#include "profiler/microbench.h"

namespace epochcost::cli {
namespace {

std::string MissingMessage(const Prediction& p, const PredictionRequest& r,
                           const OpSignature& first, size_t count) {
  const bool local = r.on == "local-cpu" || r.on == "local-gpu";
  const std::string where = local ? (p.gpu ? "this GPU" : "this CPU") : p.device;
  std::string s = std::to_string(count) + " op signatures of " + p.model_name +
                  " are not measured on " + where +
                  (p.gpu ? "" : " at " + std::to_string(p.threads) + " thread(s)") +
                  " (first: " + first.ToString() + ")";
  if (local) {
    const std::string command =
        "epochcost profile " + r.model +
        (p.gpu ? " --device gpu" : " --threads " + std::to_string(p.threads)) + " --batch " +
        std::to_string(p.batch) + LoweringFlagsCommandLine(r.lowering);
    // On a CPU, ops timed inside the replayed step: on a CPU never measured before they read the
    // reference harness at 10%, ops timed alone at 37% (docs/accuracy.md, "A new CPU"). The
    // command comes last, runnable as printed (effect.missing_profile_hint).
    s += p.gpu ? "; run: " + command
               : "; --in-step times each op inside the replayed step, as a framework runs it "
                 "(without it each op is timed alone: faster, further from the step); run: " +
                     command + " --in-step";
  }
  // A GPU the hardware table knows can be predicted from the measured ops of every profiled GPU.
  if (Result<GpuSpec> spec = SpecOfGpuModel(p.device); p.gpu && spec.ok())
    s += std::string(local ? ", or" : ";") + " to scale it from the ops measured: --on " +
         (spec->short_name.empty() ? "'gpu:" + spec->name + "'" : "gpu:" + spec->short_name);
  return s;
}

// A measured device predicts the one device measured: --gpus on a CPU, or above 1 on a GPU, is
// an error rather than ignored (gpu:NAME scales to several).
Status MeasuredGpus(const PredictionRequest& r, bool gpu) {
  if (!gpu && r.gpus > 0)
    return Status::InvalidArgument("--gpus " + std::to_string(r.gpus) + ": " + r.on + " is a CPU");
  if (gpu && r.gpus > 1)
    return Status::InvalidArgument("--gpus " + std::to_string(r.gpus) + ": " + r.on +
                                   " is the one GPU measured (gpu:NAME predicts several)");
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Predictor>> Predictor::Open(const std::string& profiles,
                                                   const std::string& catalog) {
  std::unique_ptr<Predictor> p(new Predictor());
  Result<std::unique_ptr<profiler::ProfileStore>> store = profiler::ProfileStore::Open(
      profiles.empty() ? profiler::ProfileStore::DefaultPath() : profiles);
  if (!store.ok()) return store.status();
  p->profiles_ = std::move(*store);
  p->catalog_path_ = catalog.empty() ? catalog::CatalogStore::DefaultPath() : catalog;
  return p;
}

Result<Prediction> Predictor::Predict(const PredictionRequest& r) {
  if (r.threads < 0) return Status::InvalidArgument("--threads must be positive");
  if (r.batch < 0) return Status::InvalidArgument("--batch must be positive");
  if (r.gpus < 0 || r.gpus > 64) return Status::InvalidArgument("--gpus must be from 1 to 64");
  auto loaded = models_.find(r.model);
  if (loaded == models_.end()) {
    Result<Model> m = LoadModel(r.model);
    if (!m.ok()) return m.status();
    loaded = models_.emplace(r.model, std::move(*m)).first;
  }
  const Model* model = &loaded->second;
  if (r.on == "local-cpu") {
    if (Status g = MeasuredGpus(r, false); !g.ok()) return g;
    return PredictMeasured(r, *model, profiler::LocalCpu());
  }
  if (r.on == "local-gpu") {
    if (Status g = MeasuredGpus(r, true); !g.ok()) return g;
    Result<profiler::Fingerprint> fp = profiler::LocalGpu();
    if (!fp.ok()) return fp.status().WithContext("--on local-gpu");
    return PredictMeasured(r, *model, *fp);
  }
  if (r.on.starts_with("device:")) {
    const std::string name = r.on.substr(7);
    Result<std::vector<profiler::Fingerprint>> devices = profiles_->Devices();
    if (!devices.ok()) return devices.status();
    // Several devices can share a model string (the same "AMD EPYC" with and without AVX-512):
    // "device:MODEL [ISA]" picks one by the ISA `profile list` shows; "device:MODEL" the first
    // in the store's order (by the text "kind|model|ISA|library", as `profile list` lists them).
    for (const profiler::Fingerprint& d : *devices) {
      if (d.model != name && d.model + " [" + d.isa + "]" != name) continue;
      if (hold_out_gpu_ && d.kind == "gpu") {
        Result<GpuSpec> spec = SpecOfGpuModel(d.model);
        if (!spec.ok()) return spec.status().WithContext("--on " + r.on);
        PredictionRequest as_unmeasured = r;
        as_unmeasured.on = "gpu:" + spec->name;
        return PredictElsewhere(as_unmeasured, *model);
      }
      if (Status g = MeasuredGpus(r, d.kind == "gpu"); !g.ok()) return g;
      return PredictMeasured(r, *model, d);
    }
    return Status::NotFound("--on " + r.on + ": no profiled device '" + name +
                            "' in the profile store (see `epochcost profile list`)");
  }
  return PredictElsewhere(r, *model);
}

Status Predictor::ApplyCalibration(const PredictionRequest& r, const std::string& kind,
                                   Prediction* p, MachineSettings* settings) {
  settings->per_op_overhead = r.overhead;  // a given overhead wins over a calibration's
  p->allocator_keeps = r.allocator_keeps;
  if (r.framework.empty()) {
    Result<std::vector<profiler::StoredCalibration>> all = profiles_->Calibrations();
    if (!all.ok()) return all.status();
    for (profiler::StoredCalibration& c : *all) {
      std::string why;
      if (c.device_kind == kind && c.AppliesTo(p->model_name, &why))
        p->calibrations_available.push_back(std::move(c));
    }
    return Status::Ok();
  }
  Result<profiler::StoredCalibration> c = profiles_->FindCalibration(r.framework, kind);
  if (!c.ok() && r.calibration_optional && c.status().code() == StatusCode::kNotFound)
    return Status::Ok();
  if (!c.ok() && c.status().code() == StatusCode::kNotFound)
    return NoCalibration(r.framework, kind, *profiles_);
  if (!c.ok()) return c.status().WithContext("--framework");
  if (std::string why; !c->AppliesTo(p->model_name, &why)) {
    if (!r.calibration_optional) p->calibration_not_applied = why;
    return Status::Ok();
  }
  p->calibration = *c;
  settings->Apply(c->correction().ForAllocator(r.allocator_keeps));
  return Status::Ok();
}

Status Predictor::ResolveSizes(const PredictionRequest& r, const Model& model, Prediction* p) {
  p->model = model;
  p->model_name = model.name();
  Result<EpochSizes> sizes = ResolveEpochSizes(model, r.batch, r.samples, r.val_samples);
  if (!sizes.ok()) return sizes.status();
  p->batch = sizes->batch;
  p->samples = sizes->samples;
  p->val_samples = sizes->val_samples;
  Result<LoweringOptions> lowering =
      ResolveLowering(r.lowering, model, p->batch, &p->optimizer,
                      p->gpu ? LoweringTarget::kGpu : LoweringTarget::kCpu);
  if (!lowering.ok()) return lowering.status();
  p->lowering = *lowering;
  return Status::Ok();
}

namespace {

// Whether `model` has a layer of one of `kinds`.
bool HasLayerOf(const Model& model, std::initializer_list<LayerKind> kinds) {
  for (int i = 0; i < model.size(); ++i)
    if (std::find(kinds.begin(), kinds.end(), model.layer(i).kind) != kinds.end()) return true;
  return false;
}

}  // namespace

bool HasRecurrentLayer(const Model& model) {
  return HasLayerOf(model, {LayerKind::kLstm, LayerKind::kGru});
}

std::string RecurrentText(const Prediction& p) {
  if (!p.model || !HasRecurrentLayer(*p.model)) return "";
  switch (p.lowering.rnn) {
    case RnnLowering::kAten:
      return ", recurrent layers as PyTorch's own (timed whole)";
    case RnnLowering::kUnrolled:
      return ", recurrent layers call by call";
    case RnnLowering::kFused:
      return ", recurrent layers fused";
  }
  return "";
}

Result<Prediction> Predictor::PredictMeasured(const PredictionRequest& r, const Model& model,
                                              const profiler::Fingerprint& device) {
  Prediction p;
  p.measured = true;
  p.gpu = device.kind == "gpu";
  p.device = device.model;
  p.threads = p.gpu || r.threads == 0 ? 1 : r.threads;
  p.path = "same device";
  if (!r.isa.empty() && r.isa != "native")
    return Status::InvalidArgument("--isa " + r.isa + ": " + device.model +
                                   " was measured, and its times are what its libraries ran; "
                                   "--isa applies to machines predicted by scaling");
  EPOCHCOST_RETURN_IF_ERROR(ResolveSizes(r, model, &p));
  Result<const LoweredStep*> step = caches_[r.model].Get(model, p.lowering);
  if (!step.ok()) return step.status();
  profiles_->SelectDevice(device);
  // Every op of the passes the epoch runs (only_rnn: only the recurrent layers') is measured.
  auto measured = [&](const LoweredStep& s, bool only_rnn) {
    for (const StepOps* pass : {&s.train, &s.eval}) {
      if (pass == &s.eval && p.val_samples == 0) continue;
      for (const StepOp& op : pass->ops) {
        const bool rnn = IsRecurrent(op.signature.kind);
        if ((rnn || !only_rnn) && !profiles_->Find(op.signature, RowThreads(op, p.threads)))
          return false;
      }
    }
    return true;
  };
  // PyTorch's recurrent layers timed whole (PrefersWholeRnn) where this CPU's profile has them;
  // call by call where it has those rows instead (a profile from before the whole layers); whole
  // where it has neither, so that what is missing is what `profile` measures.
  if (PrefersWholeRnn(r.lowering, p.lowering) && HasRecurrentLayer(model)) {
    LoweringOptions whole = p.lowering;
    whole.rnn = RnnLowering::kAten;
    Result<const LoweredStep*> layers = caches_[r.model].Get(model, whole);
    if (!layers.ok()) return layers.status();
    if (measured(**layers, true) || !measured(**step, false)) {
      p.lowering = whole;
      step = layers;
    }
  }
  // A global average pooling as a mean (LoweringOptions::mean_global_pool) where this CPU's
  // profile has its rows; as the pooling over the whole map where it has those instead (a
  // profile from before the mean: every shipped CPU profile but the Zen 5 one).
  // Only a step that is not all measured is lowered the other way.
  if (p.lowering.mean_global_pool &&
      HasLayerOf(model, {LayerKind::kGlobalAvgPool1D, LayerKind::kGlobalAvgPool2D}) &&
      !measured(**step, false)) {
    LoweringOptions pooled = p.lowering;
    pooled.mean_global_pool = false;
    Result<const LoweredStep*> pooling = caches_[r.model].Get(model, pooled);
    if (!pooling.ok()) return pooling.status();
    if (measured(**pooling, false)) {
      p.lowering = pooled;
      step = pooling;
    }
  }
  p.distinct_ops = (*step)->train.ops.size();

  // The per-op overhead: given, else a calibration's, else what a call costs on this CPU: for a
  // step lowered as PyTorch runs it, PyTorch's cost per call (its dispatcher and autograd,
  // framework_call_seconds) as this CPU's profile measured it or, in a profile from before the
  // ATen module, as another CPU's did (FrameworkCallElsewhere); otherwise a oneDNN primitive's
  // dispatch (a GPU's plain launch). A calibration's memory passes run at the memory bandwidth
  // measured here at these threads.
  MachineSettings settings;
  EPOCHCOST_RETURN_IF_ERROR(ApplyCalibration(r, device.kind, &p, &settings));
  Result<std::vector<profiler::Microbenchmark>> bs = profiles_->Microbenchmarks(device);
  if (!bs.ok()) return bs.status();
  auto bench = [&](std::string_view name, int threads) -> std::optional<double> {
    for (const auto& b : *bs)
      if (b.name == name && b.threads == threads) return std::max(0.0, b.value);
    return std::nullopt;
  };
  std::optional<double> overhead = bench("dispatch_seconds", p.threads);
  std::optional<double> serial = bench("dispatch_seconds", 1);  // EpochOptions
  if (!p.gpu && p.lowering.aten_kernels) {
    std::optional<double> call = bench(profiler::kFrameworkCall, p.threads);
    std::optional<double> call_serial = bench(profiler::kFrameworkCall, 1);
    if (!call) {
      Result<std::optional<BorrowedCall>> elsewhere = FrameworkCallElsewhere(*profiles_, device);
      if (!elsewhere.ok()) return elsewhere.status();
      if (*elsewhere) {
        call = call_serial = (*elsewhere)->seconds;
        p.framework_overhead_from = (*elsewhere)->device;
      }
    }
    if (call) {
      overhead = call;
      serial = call_serial ? call_serial : call;
      p.framework_overhead = true;
    }
  }
  for (const auto& b : *bs) {
    if (p.gpu) break;
    if (b.name == "triad_bytes_per_second" && b.threads == p.threads)
      p.bandwidth = BytesPerSecond::FromBytesPerSecond(b.value);
    // One thread's price where the profile has it, else the run's thread count's.
    if (b.name == "page_fault_seconds" &&
        (b.threads == 1 || (b.threads == p.threads && p.page_fault.seconds() <= 0)))
      p.page_fault = Seconds::FromSeconds(b.value);
  }
  const Seconds launch = Seconds::FromSeconds(overhead.value_or(0));
  std::optional<Seconds> serial_overhead;
  if (serial) serial_overhead = Seconds::FromSeconds(*serial);
  if (const std::optional<Seconds> set = settings.PerOpOverhead(p.threads > 1)) {
    overhead = set->seconds();
    serial_overhead.reset();  // a given or fitted overhead is the framework's, serial or not
    p.framework_overhead = false;
    p.framework_overhead_from.clear();
  }
  p.overhead = Seconds::FromSeconds(overhead.value_or(0));
  p.kernel_scale = settings.kernel_scale;
  p.per_step_overhead = settings.per_step_overhead;
  p.memory_passes = settings.memory_passes;
  if (p.memory_passes > 0 && p.bandwidth.value() <= 0) {
    const std::string threads = std::to_string(p.threads);
    return Status::NotFound(
        "the " + r.framework + " calibration's memory passes need the memory bandwidth of " +
        device.model + " at " + threads + " thread(s), which its profile lacks; measure it: " +
        "epochcost profile " + r.model + " --threads " + threads + " --force");
  }
  profiles_->SelectDevice(device);
  p.epoch = PredictEpoch((*step)->train, (*step)->eval, p.batch, *profiles_,
                         {.threads = p.threads,
                          .per_op_overhead = p.overhead,
                          .serial_per_op_overhead = serial_overhead,
                          .kernel_scale = p.kernel_scale,
                          .per_step_overhead = p.per_step_overhead,
                          .per_gb_moved = PerGbMoved(p.memory_passes, p.bandwidth),
                          .dispatch_overlaps = p.gpu,
                          .launch = launch,
                          .samples = p.samples,
                          .val_samples = p.val_samples});
  if (!p.epoch.missing.empty())
    return Status::NotFound(MissingMessage(p, r, p.epoch.missing.front(), p.epoch.missing.size()));
  // A GPU's host is this machine's CPU for local-gpu; a profile does not record another's.
  const double host_vcpus =
      r.on == "local-gpu" ? static_cast<double>(std::thread::hardware_concurrency()) : 0;
  EPOCHCOST_RETURN_IF_ERROR(AddInputPipeline(r.input_per_sample, host_vcpus, &p));
  return p;
}

Status Predictor::AddInputPipeline(Seconds per_sample, double host_vcpus, Prediction* p) {
  p->input_pipeline = per_sample * static_cast<double>(p->batch);
  if (p->input_pipeline.value() <= 0) return Status::Ok();
  const Seconds step = p->epoch.step;
  if (p->gpu) {
    if (host_vcpus <= 0)
      return Status::InvalidArgument(
          "--input-ms-per-sample: the profile of " + p->device +
          " does not record its host's vCPUs; predict on local-gpu, a gpu:NAME target or a "
          "catalog instance");
    // As on a GPU machine (engine/machine.h).
    p->host_vcpus = host_vcpus;
    p->input_added = StepWithHostInput(step, p->input_pipeline, host_vcpus, &p->input_bound) - step;
  } else {
    p->input_added = p->input_pipeline / static_cast<double>(std::max(1, p->threads));
  }
  p->epoch.step += p->input_added;
  p->epoch.step_p10 += p->input_added;
  p->epoch.step_p90 += p->input_added;
  p->epoch.epoch = p->epoch.step * static_cast<double>(p->epoch.steps_per_epoch) +
                   p->epoch.eval_step * static_cast<double>(p->epoch.eval_steps);
  return Status::Ok();
}

Result<Prediction> Predictor::PredictElsewhere(const PredictionRequest& r, const Model& model) {
  if (!catalog_) {
    Result<std::unique_ptr<catalog::CatalogStore>> cat = catalog::CatalogStore::Open(catalog_path_);
    if (!cat.ok()) return cat.status();
    catalog_ = std::move(*cat);
  }
  auto target = targets_.find({r.on, r.gpus});
  if (target == targets_.end())
    target =
        targets_.emplace(std::pair(r.on, r.gpus), ResolveTarget(r.on, *catalog_, r.gpus)).first;
  Result<Machine> machine = target->second;
  if (!machine.ok()) return machine.status();
  // A CPU machine predicted by scaling runs on all its vCPUs: more threads than it has is a run
  // it cannot have made (fewer are predicted on all of them, docs/run-logs.md).
  if (r.threads > 0 && machine->gpus == 0 && r.threads > std::lround(machine->vcpus))
    return Status::InvalidArgument("--threads " + std::to_string(r.threads) + ": " + r.on +
                                   " has " + Number("%g", machine->vcpus) + " vCPUs");
  Prediction p;
  p.gpu = machine->gpus > 0;
  EPOCHCOST_RETURN_IF_ERROR(ResolveSizes(r, model, &p));
  MachineSettings settings{.samples = p.samples,
                           .val_samples = p.val_samples,
                           .input_per_sample = r.input_per_sample,
                           .cache = &caches_[r.model]};
  if (!r.isa.empty()) {
    Result<VectorIsa> isa = ParseVectorIsa(r.isa);
    if (!isa.ok()) return isa.status().WithContext("--isa");
    settings.isa = *isa;
  }
  EPOCHCOST_RETURN_IF_ERROR(ApplyCalibration(r, p.device_kind(), &p, &settings));
  // The measured references, loaded once (for each GPU held out).
  const std::string without = hold_out_gpu_ && machine->gpu ? machine->gpu->name : "";
  auto refs = references_.find(without);
  if (refs == references_.end()) {
    Result<References> loaded = LoadReferences(*profiles_, without);
    if (!loaded.ok()) return loaded.status();
    refs = references_.emplace(without, std::move(*loaded)).first;
  }
  Result<MachinePrediction> m =
      PredictOnMachine(model, p.lowering, *machine, refs->second, settings);
  if (!m.ok()) return m.status();
  p.machine = std::move(*machine);
  p.epoch = m->epoch;
  p.overhead = m->per_op_overhead;
  p.framework_overhead = m->framework_overhead;
  p.kernel_scale = settings.kernel_scale;
  p.per_step_overhead = settings.per_step_overhead;
  p.memory_passes = settings.memory_passes;
  p.bandwidth = m->bandwidth;
  p.distinct_ops = p.epoch.ops.size();
  p.path = PathOfSource(m->source);
  p.input_pipeline = m->input_pipeline;
  p.input_bound = m->input_bound;
  p.on_machine = std::move(*m);
  return p;
}

std::string PathOfSource(const std::string& s) {
  // "scaled from DEVICE (DATE)", "analytic (efficiency ...)", each maybe "and others".
  return s.starts_with("scaled from ") ? s.substr(0, s.find(" (")) : "analytic";
}

validation::PredictionTerms TermsOf(const Prediction& p) {
  validation::PredictionTerms t;
  auto cost = [&p](const OpTiming& o) {
    validation::OpCost c{static_cast<double>(o.count), o.each, o.signature.bytes(), o.host_extra,
                         o.calls};
    if (o.overhead != p.overhead) c.dispatch = o.overhead;
    return c;
  };
  for (const OpTiming& o : p.epoch.ops) t.train.push_back(cost(o));
  for (const OpTiming& o : p.epoch.eval_ops) t.eval.push_back(cost(o));
  t.steps = static_cast<double>(p.epoch.steps_per_epoch);
  t.eval_steps = static_cast<double>(p.epoch.eval_steps);
  t.extra_per_step = p.on_machine ? p.epoch.step - p.on_machine->compute_step : p.input_added;
  t.overlaps = p.gpu;
  t.threaded = !p.gpu && (p.on_machine ? p.on_machine->threads > 1 : p.threads > 1);
  t.overhead = p.overhead;
  // Memory passes stand for memory returned to the operating system and faulted in again: none
  // where the run's allocator keeps it.
  if (!p.allocator_keeps) t.bandwidth = p.bandwidth;
  return t;
}

}  // namespace epochcost::cli
