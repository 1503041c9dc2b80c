// `epochcost predict MODEL --on local-cpu|local-gpu`: step and epoch time from the op times
// measured on this machine (`epochcost profile`), with the largest ops and where each time came
// from.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/targets.h"
#include "engine/machine.h"
#include "engine/lowering.h"
#include "engine/model_source.h"
#include "profiler/fingerprint.h"
#include "profiler/gpu/gpu_backend.h"
#include "profiler/profile_store.h"

namespace epochcost::cli {
namespace {

struct PredictOptions {
  std::string model, on = "local-cpu", profiles;
  LoweringFlags lowering;
  std::string catalog;
  int threads = 1, top = 10, gpus = 0;
  int64_t batch = 0, samples = -1, val_samples = -1;
  double overhead_us = -1;
  bool json = false;
};

int PredictElsewhere(const PredictOptions& o);

int Predict(const PredictOptions& o) {
  if (o.on != "local-cpu" && o.on != "local-gpu") return PredictElsewhere(o);
  const bool gpu = o.on == "local-gpu";
  profiler::Fingerprint here;
  if (gpu) {
    Result<profiler::Fingerprint> fp = profiler::LocalGpu();
    if (!fp.ok()) return ReportError(fp.status().WithContext("--on local-gpu"));
    here = *fp;
  } else {
    here = profiler::LocalCpu();
  }
  if (o.threads <= 0) return ReportError(Status::InvalidArgument("--threads must be positive"));
  if (o.batch < 0) return ReportError(Status::InvalidArgument("--batch must be positive"));
  Result<Model> model = LoadModel(o.model);
  if (!model.ok()) return ReportError(model.status());
  Result<EpochSizes> sizes = ResolveEpochSizes(*model, o.batch, o.samples, o.val_samples);
  if (!sizes.ok()) return ReportError(sizes.status());
  const int64_t batch = sizes->batch, samples = sizes->samples, val = sizes->val_samples;
  std::string opt_name;
  Result<LoweringOptions> resolved = ResolveLowering(
      o.lowering, *model, batch, &opt_name, gpu ? LoweringTarget::kGpu : LoweringTarget::kCpu);
  if (!resolved.ok()) return ReportError(resolved.status());
  LoweringOptions lowering = *resolved;
  Result<StepOps> train = Lower(*model, lowering);
  lowering.training = false;
  Result<StepOps> eval = Lower(*model, lowering);
  if (!train.ok()) return ReportError(train.status());
  if (!eval.ok()) return ReportError(eval.status());

  Result<std::unique_ptr<profiler::ProfileStore>> store = profiler::ProfileStore::Open(
      o.profiles.empty() ? profiler::ProfileStore::DefaultPath() : o.profiles);
  if (!store.ok()) return ReportError(store.status());
  (*store)->SelectDevice(here);
  const int threads = gpu ? 1 : o.threads;
  // The per-op overhead: given, else the dispatch cost measured on this device.
  double overhead = o.overhead_us >= 0 ? o.overhead_us * 1e-6 : -1;
  if (overhead < 0) {
    Result<std::vector<profiler::Microbenchmark>> bs = (*store)->Microbenchmarks(here);
    if (!bs.ok()) return ReportError(bs.status());
    for (const auto& b : *bs)
      if (b.name == "dispatch_seconds" && b.threads == threads) overhead = b.value;
  }
  if (overhead < 0) overhead = 0;
  const EpochPrediction p = PredictEpoch(*train, *eval, batch, **store,
                                         {.threads = threads,
                                          .per_op_overhead = Seconds::FromSeconds(overhead),
                                          .dispatch_overlaps = gpu,
                                          .samples = samples,
                                          .val_samples = val});
  if (!p.missing.empty())
    return ReportError(Status::NotFound(
        std::to_string(p.missing.size()) + " op signatures of " + model->name() +
        (gpu ? " are not measured on this GPU"
             : " are not measured on this CPU at " + std::to_string(threads) + " thread(s)") +
        " (first: " + p.missing.front().ToString() + "); run: epochcost profile " + o.model +
        (gpu ? " --device gpu" : " --threads " + std::to_string(threads)) + " --batch " +
        std::to_string(batch) +
        (lowering.precision == DType::kFloat32
             ? ""
             : " --precision " + std::string(DTypeName(lowering.precision)))));

  if (o.json) {
    nlohmann::ordered_json j;
    j["model"] = model->name();
    j["on"] = o.on;
    j["device"] = here.model;
    j["threads"] = threads;
    j["batch"] = batch;
    j["precision"] = DTypeName(lowering.precision);
    j["optimizer"] = opt_name;
    j["per_op_overhead_seconds"] = overhead;
    j["step_seconds"] = p.step.seconds();
    j["steps_per_epoch"] = p.steps_per_epoch;
    j["eval_step_seconds"] = p.eval_step.seconds();
    j["eval_steps"] = p.eval_steps;
    j["epoch_seconds"] = p.epoch.seconds();
    j["ops"] = nlohmann::ordered_json::array();
    for (const OpTiming& t : p.ops)
      j["ops"].push_back({{"signature", t.signature.ToString()},
                          {"count", t.count},
                          {"seconds", t.each.seconds()},
                          {"total_seconds", t.total.seconds()},
                          {"source", t.source},
                          {"layers", t.layers}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  char line[256];
  std::cout << "Model " << model->name() << ", batch " << batch << ", "
            << DTypeName(lowering.precision) << ", " << opt_name << ", on " << o.on << " ("
            << here.model;
  if (!gpu) std::cout << ", " << threads << " thread" << (threads == 1 ? "" : "s");
  std::cout << ")\n";
  std::snprintf(line, sizeof line,
                "step %.3f ms (%zu distinct ops, per-op overhead %.1f us%s)\n"
                "epoch %.2f s = %lld steps x %.3f ms + %lld validation steps x %.3f ms\n",
                p.step.milliseconds(), train->ops.size(), overhead * 1e6,
                gpu ? ", overlapping the kernels" : "", p.epoch.seconds(),
                static_cast<long long>(p.steps_per_epoch), p.step.milliseconds(),
                static_cast<long long>(p.eval_steps), p.eval_step.milliseconds());
  std::cout << line;
  std::vector<std::vector<std::string>> rows = {
      {"Share", "ms/step", "Count", "GFLOP/s", "Op", "Source"}};
  for (size_t i = 0; i < p.ops.size() && static_cast<int>(i) < o.top; ++i) {
    const OpTiming& t = p.ops[i];
    char share[16], ms[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * (t.total / p.step));
    std::snprintf(ms, sizeof ms, "%.3f", t.total.milliseconds());
    const double rate = t.signature.flops().flops() / t.each.seconds();
    rows.push_back(
        {share, ms, std::to_string(t.count), Si(rate * 1e-9), t.signature.ToString(), t.source});
  }
  std::cout << RenderTable(rows, {true, true, true, true, false, false});
  return kExitOk;
}

// A machine that was not measured: a catalog instance or a spec-table device, its op times
// scaled from the store's measured device of the same kind (engine/machine.h).
int PredictElsewhere(const PredictOptions& o) {
  if (o.batch < 0) return ReportError(Status::InvalidArgument("--batch must be positive"));
  if (o.gpus < 0 || o.gpus > 64)
    return ReportError(Status::InvalidArgument("--gpus must be from 1 to 64"));
  Result<std::unique_ptr<catalog::CatalogStore>> cat = catalog::CatalogStore::Open(
      o.catalog.empty() ? catalog::CatalogStore::DefaultPath() : o.catalog);
  if (!cat.ok()) return ReportError(cat.status());
  Result<Machine> machine = ResolveTarget(o.on, **cat, o.gpus);
  if (!machine.ok()) return ReportError(machine.status());
  const bool gpu = machine->gpus > 0;
  Result<Model> model = LoadModel(o.model);
  if (!model.ok()) return ReportError(model.status());
  Result<EpochSizes> sizes = ResolveEpochSizes(*model, o.batch, o.samples, o.val_samples);
  if (!sizes.ok()) return ReportError(sizes.status());
  const int64_t batch = sizes->batch, samples = sizes->samples, val = sizes->val_samples;
  std::string opt_name;
  Result<LoweringOptions> lowering = ResolveLowering(
      o.lowering, *model, batch, &opt_name, gpu ? LoweringTarget::kGpu : LoweringTarget::kCpu);
  if (!lowering.ok()) return ReportError(lowering.status());
  Result<std::unique_ptr<profiler::ProfileStore>> store = profiler::ProfileStore::Open(
      o.profiles.empty() ? profiler::ProfileStore::DefaultPath() : o.profiles);
  if (!store.ok()) return ReportError(store.status());
  Result<References> refs = LoadReferences(**store);
  if (!refs.ok()) return ReportError(refs.status());
  MachineSettings settings{.samples = samples, .val_samples = val};
  if (o.overhead_us >= 0) settings.per_op_overhead = Seconds::FromMicroseconds(o.overhead_us);
  Result<MachinePrediction> p = PredictOnMachine(*model, *lowering, *machine, *refs, settings);
  if (!p.ok()) return ReportError(p.status());
  const EpochPrediction& e = p->epoch;
  if (o.json) {
    nlohmann::ordered_json j;
    j["model"] = model->name();
    j["on"] = o.on;
    j["gpus"] = machine->gpus;
    j["vcpus"] = machine->vcpus;
    j["batch"] = batch;
    j["device_batch"] = p->device_batch;
    j["precision"] = DTypeName(lowering->precision);
    j["optimizer"] = opt_name;
    j["source"] = p->source;
    j["step_seconds"] = e.step.seconds();
    j["compute_step_seconds"] = p->compute_step.seconds();
    j["allreduce_seconds"] = p->allreduce.seconds();
    j["exposed_allreduce_seconds"] = p->exposed_allreduce.seconds();
    j["input_seconds"] = p->input_step.seconds();
    j["steps_per_epoch"] = e.steps_per_epoch;
    j["eval_step_seconds"] = e.eval_step.seconds();
    j["eval_steps"] = e.eval_steps;
    j["epoch_seconds"] = e.epoch.seconds();
    j["memory_bytes"] = p->memory.total().value();
    j["capacity_bytes"] = p->capacity.value();
    j["fits"] = p->fits;
    j["largest_batch"] = p->largest_batch;
    j["ops"] = nlohmann::ordered_json::array();
    for (const OpTiming& t : e.ops)
      j["ops"].push_back({{"signature", t.signature.ToString()},
                          {"count", t.count},
                          {"seconds", t.each.seconds()},
                          {"total_seconds", t.total.seconds()},
                          {"source", t.source},
                          {"layers", t.layers}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  char line[512];
  std::cout << "Model " << model->name() << ", batch " << batch << ", "
            << DTypeName(lowering->precision) << ", " << opt_name << ", on " << o.on << " (";
  if (gpu)
    std::cout << machine->gpus << " x " << machine->gpu->name << ", " << machine->vcpus
              << " vCPUs";
  else
    std::cout << machine->vcpus << " vCPUs of " << machine->cpu->family << ", "
              << p->threads << " effective cores";
  std::cout << ")\n";
  std::snprintf(line, sizeof line,
                "step %.3f ms (compute %.3f ms, all-reduce %.3f ms of which %.3f ms exposed, "
                "input %.3f ms)\n"
                "epoch %.2f s = %lld steps x %.3f ms + %lld validation steps x %.3f ms\n"
                "memory per device %s of %s%s; largest batch that fits: %lld\n",
                e.step.milliseconds(), p->compute_step.milliseconds(),
                p->allreduce.milliseconds(), p->exposed_allreduce.milliseconds(),
                p->input_step.milliseconds(), e.epoch.seconds(),
                static_cast<long long>(e.steps_per_epoch), e.step.milliseconds(),
                static_cast<long long>(e.eval_steps), e.eval_step.milliseconds(),
                Si(p->memory.total().value()).c_str(),
                p->capacity.value() > 0 ? Si(p->capacity.value()).c_str() : "?",
                p->fits ? "" : " (DOES NOT FIT)", static_cast<long long>(p->largest_batch));
  std::cout << line << "source: " << p->source << "\n";
  std::vector<std::vector<std::string>> rows = {{"Share", "ms/step", "Count", "Op", "Source"}};
  for (size_t i = 0; i < e.ops.size() && static_cast<int>(i) < o.top; ++i) {
    const OpTiming& t = e.ops[i];
    char share[16], ms[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * (t.total / p->compute_step));
    std::snprintf(ms, sizeof ms, "%.3f", t.total.milliseconds());
    rows.push_back({share, ms, std::to_string(t.count), t.signature.ToString(), t.source});
  }
  std::cout << RenderTable(rows, {true, true, true, false, false});
  return kExitOk;
}

}  // namespace

void RegisterPredictCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* p = app.add_subcommand("predict", "Predict step and epoch time of training a model");
  p->add_option("MODEL", o->model, "Zoo name or model file")->required();
  p->add_option("--on", o->on,
                "Target: local-cpu (default), local-gpu, a catalog instance (aws:p2.xlarge, "
                "gcp:n1-standard-1+K80), gpu:NAME (gpu:P100) or cpu:FAMILY:VCPUS");
  p->add_option("--gpus", o->gpus, "GPUs of a gpu:NAME target (data parallel; default 1)");
  p->add_option("--catalog", o->catalog, "Catalog database (for instance targets)");
  p->add_option("--threads", o->threads, "CPU threads (default 1)");
  p->add_option("--batch", o->batch, "Batch size (default: the model's own)");
  p->add_option("--samples", o->samples, "Training samples per epoch (default: the model's)");
  p->add_option("--val-samples", o->val_samples,
                "Validation samples per epoch (default: the model's)");
  p->add_option("--overhead-us", o->overhead_us,
                "Framework overhead per op call in microseconds (default: the measured dispatch "
                "cost of a oneDNN primitive on this CPU, or of a kernel launch on this GPU)");
  p->add_option("--top", o->top, "Ops to list (default 10)");
  AddLoweringFlags(p, &o->lowering);
  p->add_option("--profiles", o->profiles, "Profile database");
  p->add_flag("--json", o->json, "Print JSON (step_seconds, epoch_seconds, steps_per_epoch, ops)");
  p->footer(
      "Example:\n  epochcost profile mnist_mlp --threads 1 && epochcost predict mnist_mlp "
      "--on local-cpu --threads 1");
  p->callback([run, o] { *run = [o] { return Predict(*o); }; });
}

}  // namespace epochcost::cli
