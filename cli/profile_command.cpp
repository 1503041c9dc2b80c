// `epochcost profile MODEL...` measures what `predict` needs on this machine's CPU or GPU
// (--device) and stores it; `profile op SIGNATURE` times one repro line; `profile step MODEL` runs
// and times a model's whole step on the CPU; `profile export|import FILE` moves profiles.
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "catalog/records.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/profile_common.h"
#include "engine/file_util.h"
#include "engine/lowering.h"
#include "engine/model_source.h"
#include "profiler/cpu/aten_kernels.h"
#include "profiler/cpu/onednn_backend.h"
#include "profiler/cpu/torch_kernels.h"
#include "profiler/fingerprint.h"
#include "profiler/gpu/gpu_backend.h"
#include "profiler/microbench.h"
#include "profiler/profile_store.h"

namespace epochcost::cli {

// The functions profile_common.h declares.

Result<std::vector<int>> ParseThreads(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    int t = 0;
    try {
      t = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || t <= 0)
      return Status::InvalidArgument("--threads '" + list +
                                     "': expected positive integers separated by commas");
    if (t > HardwareThreads())
      return Status::InvalidArgument("--threads " + std::to_string(t) + ": " +
                                     HardwareThreadsText());
    out.push_back(t);
  }
  if (out.empty()) return Status::InvalidArgument("--threads is empty");
  return out;
}

int HardwareThreads() {
  static const int n = std::max(1, profiler::LocalCpu().logical_cpus);  // reads /proc/cpuinfo
  return n;
}

std::string HardwareThreadsText() {
  const int n = HardwareThreads();
  return "this machine has " + std::to_string(n) +
         (n == 1 ? " hardware thread" : " hardware threads");
}

Result<std::unique_ptr<profiler::ProfileStore>> OpenProfiles(const std::string& path) {
  return profiler::ProfileStore::Open(path.empty() ? profiler::ProfileStore::DefaultPath() : path);
}

Result<LoweredModel> LoadForProfile(const std::string& spec, const ProfileOptions& o,
                                    LoweringTarget target, std::string* optimizer) {
  Result<Model> model = LoadModel(spec);
  if (!model.ok()) return model.status();
  const int64_t batch = o.batch ? o.batch : std::max<int64_t>(model->info().training.batch, 1);
  Result<LoweringOptions> lowering = ResolveLowering(o.lowering, *model, batch, optimizer, target);
  if (!lowering.ok()) return lowering.status();
  if (PrefersWholeRnn(o.lowering, *lowering)) lowering->rnn = RnnLowering::kAten;
  return LoweredModel{std::move(*model), *lowering};
}

Result<profiler::StepReplay> Replay(const StepOps& step, int threads, const ProfileOptions& o) {
  std::vector<OpSignature> ops;
  std::vector<bool> serial;
  for (const StepOp& op : step.ops) {
    ops.push_back(op.signature);
    serial.push_back(op.serial);
  }
  return profiler::ReplayCpuStep(ops, step.sequence,
                                 {.threads = threads,
                                  .warmup = o.warmup,
                                  .min_repeats = o.steps,
                                  .min_time = Seconds(),
                                  .mean_within = 1},
                                 serial, o.warm_operands);
}

namespace {

// PyTorch's products (the aten=1 rows) run in the system BLAS, timed here as PyTorch runs them on
// this machine. Where OpenBLAS did not know the CPU and fell back to pre-AVX2 kernels, they are
// that slow here and may not be on a machine with a newer OpenBLAS: say so, once, after the rows
// are stored (profiler::BlasCoreBelowIsa).
void WarnOfOldBlasKernels(const profiler::Fingerprint& here) {
  std::string core = profiler::SystemBlasCore();
  if (!profiler::BlasCoreBelowIsa(core, here.isa)) return;
  std::cerr << "epochcost: warning: the system BLAS (OpenBLAS) runs its " << core
            << " kernels on this CPU, which has AVX2: it does not know this model, so PyTorch's "
               "products were timed at that speed, as PyTorch runs them here (OPENBLAS_CORETYPE="
               "Haswell or newer, set for both the profile and the training, changes it)\n";
}

// The device measured: its backend, fingerprint, how steps are lowered for it and how long each
// signature is timed (GPU signatures are timed for 50 ms: a GPU runs each one many times in that).
struct LocalDevice {
  std::unique_ptr<profiler::Backend> backend;
  profiler::Fingerprint fingerprint;
  LoweringTarget target = LoweringTarget::kCpu;
  std::function<profiler::MeasureOptions(int threads)> options;
};

Result<LocalDevice> OpenDevice(const std::string& name) {
  LocalDevice d;
  if (name == "cpu") {
    if (Status s = profiler::CheckNamedTorchModule(); !s.ok()) return s;
    d.backend = profiler::MakeCpuBackend();
    d.fingerprint = profiler::LocalCpu();
    d.options = [](int threads) { return profiler::MeasureOptions{.threads = threads}; };
    return d;
  }
  if (name != "gpu") return Status::InvalidArgument("--device '" + name + "': expected cpu or gpu");
  Result<std::unique_ptr<profiler::Backend>> gpu = profiler::MakeGpuBackend();
  if (!gpu.ok()) return gpu.status().WithContext("--device gpu");
  Result<profiler::Fingerprint> fp = profiler::LocalGpu();
  if (!fp.ok()) return fp.status().WithContext("--device gpu");
  d.backend = std::move(*gpu);
  d.fingerprint = *fp;
  d.target = LoweringTarget::kGpu;
  d.options = [](int) {
    return profiler::MeasureOptions{
        .threads = 1, .warmup = 3, .min_repeats = 10, .min_time = Seconds::FromMilliseconds(50)};
  };
  return d;
}

// "[#####.....] 12/40 conv_fwd ..." on stderr, only on a terminal.
void Progress(int done, int total, const std::string& what) {
  if (!isatty(STDERR_FILENO)) return;
  const int width = 30, filled = total ? done * width / total : width;
  std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done
            << "/" << total << " " << what.substr(0, 60) << "\033[K" << std::flush;
  if (done == total) std::cerr << "\n";
}

// One lowered pass of a model (its validation pass or its training step), as `profile` measures it.
struct Pass {
  std::string model;
  bool training = true;
  StepOps step;
};

// The reference harness measures each run in three rounds, a process each, and logs the round
// with the median step (tools/reference/harness_runs.sh ROUNDS=3), because at 2 threads on a
// 2-vCPU VM a whole round can fall into the slow mode of GNU OpenMP's spinning team and
// OpenBLAS's workers sharing the cores: mnist_mlp's three rounds on the Zen 5 VM 3.75, 7.05 and
// 3.83 s an epoch, and one replay of its step there stored rows adding up to 16.2 ms where two
// others ran at medians of 8.3 and 7.7 ms (docs/accuracy.md, "In-step rows from the middle half
// of the median round", and "In-step rows from the steps nearest the median"). So a pass stored
// in-step is replayed as often and its median round kept. The rounds of one thread count go over
// every pass in turn (the first round of each pass, then the second, ...), so that a pass's rounds
// fall tens of seconds apart rather than back to back and a slow spell of the machine shorter than
// that falls on one of them, not on all three (no gain measured on the Zen 5 VM, whose spells
// lasted as long as a whole thread count's replay: docs/accuracy.md, "Rounds spread over the
// profile").
constexpr int kInStepRounds = 3;

// The round whose step has the median time.
profiler::StepReplay MedianRound(std::vector<profiler::StepReplay> rounds) {
  std::sort(rounds.begin(), rounds.end(), [](const auto& a, const auto& b) {
    return a.step.median.seconds() < b.step.median.seconds();
  });
  return rounds[rounds.size() / 2];
}

// `counts` with 1 added (first) where `needed` and it lacks it: a serial op's row and dispatch
// are measured at 1 thread (StepOp::serial).
std::vector<int> WithOneThread(std::vector<int> counts, bool needed) {
  if (needed && std::find(counts.begin(), counts.end(), 1) == counts.end())
    counts.insert(counts.begin(), 1);
  return counts;
}

// `profile --in-step`: each pass (each model's validation pass, then its training step) replayed
// on this CPU at each thread count (ReplayCpuStep, in rounds: MedianRound), and every op stored at
// its calls' times inside the pass, where the step's own ops, not a stand-in, run before each call.
// A signature two passes share keeps the times of the last one replayed: the training step of the
// last model given. An op the framework runs serially is predicted from its 1-thread row, so it is
// stored from the 1-thread replay alone, which runs whenever such an op is in a pass; where 1 is
// not among `threads`, that replay stores the serial ops' rows only, and every other op's
// 1-thread row stays as it was. With
// `force_kinds` (and not --force) only the rows of those kinds and those not stored yet are
// stored; every other one stays as it was. Returns the rows stored.
Result<int> ProfileInStep(const ProfileOptions& o, const std::vector<int>& threads,
                          const std::vector<Pass>& passes, const std::set<OpKind>& force_kinds,
                          const profiler::Fingerprint& here, profiler::ProfileStore& store,
                          const std::string& today) {
  // Stored only once every step has replayed: an op the CPU cannot run changes nothing.
  std::vector<profiler::StoredMeasurement> rows;
  bool serial = false;
  for (const Pass& pass : passes)
    for (const StepOp& op : pass.step.ops) serial = serial || op.serial;
  for (int t : WithOneThread(threads, serial)) {
    std::vector<std::vector<profiler::StepReplay>> rounds(passes.size());
    for (int k = 0; k < kInStepRounds; ++k)
      for (size_t p = 0; p < passes.size(); ++p) {
        const Pass& pass = passes[p];
        Progress(0, 1,
                 pass.model + (pass.training ? " training step" : " validation pass") + " at " +
                     std::to_string(t) + " thread(s), round " + std::to_string(k + 1) + " of " +
                     std::to_string(kInStepRounds));
        Result<profiler::StepReplay> r = Replay(pass.step, t, o);
        if (!r.ok()) return r.status();
        rounds[p].push_back(*std::move(r));
      }
    const bool asked = std::find(threads.begin(), threads.end(), t) != threads.end();
    for (size_t p = 0; p < passes.size(); ++p) {
      const StepOps& step = passes[p].step;
      const profiler::StepReplay r = MedianRound(std::move(rounds[p]));
      for (size_t i = 0; i < step.ops.size(); ++i)
        // None for an op listed with no call (a count of 0), nor for a serial one but at 1 thread,
        // nor for any other at a thread count replayed only for the serial ones.
        if (r.ops[i].count > 0 && RowThreads(step.ops[i], t) == t &&
            (asked || step.ops[i].serial)) {
          const OpSignature& sig = step.ops[i].signature;
          const bool keep = !o.force && !force_kinds.empty() && !force_kinds.contains(sig.kind) &&
                            store.Find(sig, t).has_value();
          // A row whose operands were warmed before each call is not one the step's caches
          // gave it: it carries to other CPUs as a row timed alone does.
          if (!keep) rows.push_back({sig.ToString(), t, r.ops[i], today, !o.warm_operands});
        }
    }
  }
  Progress(1, 1, "");
  for (const profiler::StoredMeasurement& row : rows)
    EPOCHCOST_RETURN_IF_ERROR(store.Put(here, row));
  return static_cast<int>(rows.size());
}

int ProfileModels(const ProfileOptions& o) {
  Result<std::vector<int>> threads = ParseThreads(o.device == "gpu" ? "1" : o.threads);
  if (!threads.ok()) return ReportError(threads.status());
  if (o.batch < 0) return ReportError(Status::InvalidArgument("--batch must be positive"));
  std::set<OpKind> force_kinds;
  for (const std::string& kind : o.force_kinds) {
    Result<OpKind> k = ParseOpKind(kind);
    if (!k.ok()) return ReportError(k.status().WithContext("--force-kind"));
    force_kinds.insert(*k);
  }
  if (o.warm_operands && !o.in_step)
    return ReportError(Status::InvalidArgument(
        "--warm-operands warms the operands of a replayed step's calls; it needs --in-step"));
  if (o.in_step && o.device != "cpu")
    return ReportError(Status::InvalidArgument(
        "--in-step replays a step on this machine's CPU; it does not apply to --device " +
        o.device));
  Result<LocalDevice> device = OpenDevice(o.device);
  if (!device.ok()) return ReportError(device.status());
  Result<std::unique_ptr<profiler::ProfileStore>> store = OpenProfiles(o.profiles);
  if (!store.ok()) return ReportError(store.status());
  const profiler::Fingerprint& here = device->fingerprint;
  (*store)->SelectDevice(here);

  // Every signature a validation pass and a training step of each model runs, and those the
  // framework runs serially (measured at 1 thread only: StepOp::serial).
  std::vector<Pass> passes;
  std::set<std::string> wanted, serial;
  for (const std::string& spec : o.models) {
    Result<LoweredModel> m = LoadForProfile(spec, o, device->target);
    if (!m.ok()) return ReportError(m.status());
    for (bool training : {false, true}) {
      m->lowering.training = training;
      Result<StepOps> step = Lower(m->model, m->lowering);
      if (!step.ok()) return ReportError(step.status());
      for (const StepOp& op : step->ops) {
        wanted.insert(op.signature.ToString());
        if (op.serial) serial.insert(op.signature.ToString());
      }
      passes.push_back({m->model.name(), training, std::move(*step)});
    }
  }
  profiler::Backend& backend = *device->backend;
  const std::string today = TodayIso();
  int measured = 0, reused = 0;
  if (o.in_step) {
    Result<int> n = ProfileInStep(o, *threads, passes, force_kinds, here, **store, today);
    if (!n.ok()) return ReportError(n.status());
    measured = *n;
    wanted.clear();  // every signature was just measured, inside its step
  }
  std::vector<std::string> skipped;  // what the backend cannot run, with its reason
  std::vector<std::pair<std::string, int>> todo;
  if (o.again) {  // every stored op, at its own thread count
    Result<std::vector<profiler::StoredMeasurement>> stored = (*store)->Measurements(here);
    if (!stored.ok()) return ReportError(stored.status());
    if (stored->empty())
      return ReportError(Status::NotFound("--again: nothing is stored for " + here.model +
                                          " yet; give the models to profile"));
    std::set<int> counts;
    for (const profiler::StoredMeasurement& m : *stored) {
      counts.insert(m.threads);
      // A run cut short goes on where it stopped: what it measured is dated today.
      if (!o.measured_before.empty() && m.measured_at >= o.measured_before) {
        ++reused;
        continue;
      }
      todo.push_back({m.signature, m.threads});
    }
    *threads = std::vector<int>(counts.begin(), counts.end());  // for the microbenchmarks
  }
  std::set<std::pair<std::string, int>> planned;
  for (int at : o.again ? std::vector<int>() : *threads)
    for (const std::string& sig : wanted) {
      const int t = serial.contains(sig) ? 1 : at;
      if (!planned.insert({sig, t}).second) continue;
      const OpSignature parsed = *OpSignature::Parse(sig);
      const bool forced = o.force || force_kinds.contains(parsed.kind);
      if (!forced && (*store)->Find(parsed, t)) {
        ++reused;
        continue;
      }
      todo.push_back({sig, t});
    }
  for (size_t i = 0; i < todo.size(); ++i) {
    const auto& [sig, t] = todo[i];
    Progress(static_cast<int>(i), static_cast<int>(todo.size()), sig);
    Result<profiler::Measurement> m = backend.Measure(*OpSignature::Parse(sig), device->options(t));
    if (!m.ok() && m.status().code() == StatusCode::kUnsupported) {
      skipped.push_back(m.status().message());
      continue;
    }
    if (!m.ok()) return ReportError(m.status());
    Status s = (*store)->Put(here, {sig, t, *m, today});
    if (!s.ok()) return ReportError(s);
    ++measured;
  }
  Progress(static_cast<int>(todo.size()), static_cast<int>(todo.size()), "");
  // Microbenchmarks, once per thread count, and at 1 thread where a serial op is measured there
  // (its dispatch is the 1-thread one: EpochOptions::serial_per_op_overhead).
  Result<std::vector<profiler::Microbenchmark>> have = (*store)->Microbenchmarks(here);
  if (!have.ok()) return ReportError(have.status());
  for (int t : WithOneThread(*threads, !serial.empty())) {
    // A GPU's are stored once any is; a CPU's once all are (a CPU profile from before one of
    // them existed measures them all again).
    bool stored = false;
    if (o.device == "gpu")
      for (const auto& b : *have) stored = stored || b.threads == t;
    else
      stored = profiler::HasCpuMicrobenchmarks(*have, t);
    if (stored && !o.force && !o.again) continue;
    Result<std::vector<profiler::Microbenchmark>> bs =
        o.device == "gpu" ? profiler::RunGpuMicrobenchmarks(today)
                          : profiler::RunMicrobenchmarks(backend, t, today);
    if (!bs.ok()) return ReportError(bs.status());
    for (const auto& b : *bs) {
      Status s = (*store)->PutMicrobenchmark(here, b);
      if (!s.ok()) return ReportError(s);
    }
  }
  // Whether the store held microbenchmark `name` at `t` threads before this run.
  const auto stored = [&](std::string_view name, int t) {
    return std::any_of(have->begin(), have->end(), [&](const profiler::Microbenchmark& b) {
      return b.threads == t && b.name == name;
    });
  };
  // PyTorch's cost per op call, where the ATen module is there to measure it (a profile from
  // before it, or from a build without it, lacks it and gets it on its next run).
  for (int t : o.device == "gpu" ? std::vector<int>() : WithOneThread(*threads, !serial.empty())) {
    if (stored(profiler::kFrameworkCall, t) && !o.force && !o.again) continue;
    Result<double> call = profiler::MeasureFrameworkCall(t);
    if (!call.ok() && call.status().code() == StatusCode::kUnsupported) break;
    if (!call.ok()) return ReportError(call.status());
    Status s = (*store)->PutMicrobenchmark(here, {profiler::kFrameworkCall, t, *call, today});
    if (!s.ok()) return ReportError(s);
  }
  // Where the cores were when the rows were timed: one parallel pass's cost at each thread count
  // above 1, measured with the rows (a profile from before it lacks it and gets it on its next
  // run).
  for (int t : o.device == "gpu" ? std::vector<int>() : *threads) {
    if (t < 2) continue;
    if (stored(profiler::kParallelPass, t) && !o.force && !o.again && measured == 0) continue;
    Result<double> pass = profiler::MeasureParallelPass(t);
    if (!pass.ok()) return ReportError(pass.status());
    Status s = (*store)->PutMicrobenchmark(here, {profiler::kParallelPass, t, *pass, today});
    if (!s.ok()) return ReportError(s);
  }
  if (o.in_step)
    std::cout << "profiled on " << here.model << " (" << here.library
              << "): " << Counted(measured, "op time") << " stored from replayed steps\n";
  else
    std::cout << "profiled on " << here.model << " (" << here.library
              << "): " << Counted(measured, "signature") << " measured, " << reused
              << " already stored\n";
  if (o.device != "gpu") WarnOfOldBlasKernels(here);
  if (!skipped.empty()) {
    std::cerr << "epochcost: warning: " << Counted(skipped.size(), "signature")
              << " could not be measured on this device (first: " << skipped.front() << ")\n";
    return kExitError;
  }
  return kExitOk;
}

int MeasureOp(const ProfileOptions& o) {
  Result<OpSignature> sig = OpSignature::Parse(o.signature);
  if (!sig.ok()) return ReportError(sig.status().WithContext("signature"));
  Result<std::vector<int>> threads = ParseThreads(o.threads);
  if (!threads.ok()) return ReportError(threads.status());
  if (o.repeats <= 0 || o.repeats > profiler::kMaxRuns)
    return ReportError(Status::InvalidArgument("--repeats must be from 1 to " +
                                               std::to_string(profiler::kMaxRuns) + ", got " +
                                               std::to_string(o.repeats)));
  if (!(o.min_ms >= 0 && o.min_ms <= profiler::kMaxMinTime.milliseconds()))  // NaN fails too
    return ReportError(Status::InvalidArgument("--min-ms must be from 0 to " +
                                               Number("%g", profiler::kMaxMinTime.milliseconds()) +
                                               " (a minute), got " + Number("%g", o.min_ms)));
  Result<LocalDevice> device = OpenDevice(o.device);
  if (!device.ok()) return ReportError(device.status());
  std::cout << sig->ToString() << "\n";
  for (int t : *threads) {
    profiler::MeasureOptions options = device->options(t);
    options.min_repeats = o.repeats;
    options.min_time = Seconds::FromMilliseconds(o.min_ms);
    Result<profiler::Measurement> m = device->backend->Measure(*sig, options);
    if (!m.ok()) return ReportError(m.status());
    char line[200];
    const std::string on = o.device == "gpu"
                               ? device->fingerprint.model
                               : std::to_string(t) + (t == 1 ? " thread" : " threads");
    std::snprintf(line, sizeof line,
                  "median %.4f ms  p10 %.4f ms  p90 %.4f ms  mean %.4f ms  (%d runs, %s)\n",
                  m->median.milliseconds(), m->p10.milliseconds(), m->p90.milliseconds(),
                  m->mean.milliseconds(), m->count, on.c_str());
    std::cout << line;
    if (!m->note.empty()) std::cout << m->note << "\n";
  }
  return kExitOk;
}

int Export(const ProfileOptions& o) {
  Result<std::unique_ptr<profiler::ProfileStore>> store = OpenProfiles(o.profiles);
  if (!store.ok()) return ReportError(store.status());
  Result<profiler::Fingerprint> device = o.device == "gpu"
                                             ? profiler::LocalGpu()
                                             : Result<profiler::Fingerprint>(profiler::LocalCpu());
  if (!device.ok()) return ReportError(device.status().WithContext("--device gpu"));
  Result<std::string> json = (*store)->ExportJson(*device);
  if (!json.ok()) return ReportError(json.status());
  FILE* f = o.file == "-" ? stdout : std::fopen(o.file.c_str(), "w");
  if (!f) return ReportError(Status::IoError(o.file + ": cannot write"));
  std::fputs(json->c_str(), f);
  if (f != stdout) std::fclose(f);
  return kExitOk;
}

int Import(const ProfileOptions& o) {
  Result<std::string> text = ReadFile(o.file);
  if (!text.ok()) return ReportError(text.status());
  Result<std::unique_ptr<profiler::ProfileStore>> store = OpenProfiles(o.profiles);
  if (!store.ok()) return ReportError(store.status());
  Result<int> n = (*store)->ImportJson(*text, o.file);
  if (!n.ok()) return ReportError(n.status());
  std::cout << "imported " << Counted(*n, "measurement") << " from " << o.file << "\n";
  return kExitOk;
}

// The store's devices (what `predict --on device:NAME` takes), and its calibrations.
int List(const ProfileOptions& o) {
  Result<std::unique_ptr<profiler::ProfileStore>> store = OpenProfiles(o.profiles);
  if (!store.ok()) return ReportError(store.status());
  Result<std::vector<profiler::Fingerprint>> devices = (*store)->Devices();
  if (!devices.ok()) return ReportError(devices.status());
  std::vector<std::vector<std::string>> rows = {
      {"Kind", "Device", "ISA", "Measurements", "In step", "Threads", "Measured", "Library"}};
  for (const profiler::Fingerprint& d : *devices) {
    Result<std::vector<profiler::StoredMeasurement>> ms = (*store)->Measurements(d);
    if (!ms.ok()) return ReportError(ms.status());
    std::set<int> threads;
    std::string first, last;
    size_t in_step = 0;  // rows timed inside the replayed step (profile --in-step)
    for (const auto& m : *ms) {
      threads.insert(m.threads);
      if (first.empty() || m.measured_at < first) first = m.measured_at;
      last = std::max(last, m.measured_at);
      in_step += m.in_step;
    }
    std::string t;
    for (int n : threads) t += (t.empty() ? "" : ",") + std::to_string(n);
    rows.push_back({d.kind, d.model, d.isa.empty() ? "-" : d.isa, std::to_string(ms->size()),
                    d.kind == "cpu" ? std::to_string(in_step) : "-", t,
                    first == last ? first : first + ".." + last, d.library});
  }
  std::cout << RenderTable(rows, {false, false, false, true, true, false, false, false});
  Result<std::vector<profiler::StoredCalibration>> cs = (*store)->Calibrations();
  if (!cs.ok()) return ReportError(cs.status());
  if (cs->empty()) return kExitOk;
  std::vector<std::vector<std::string>> c = {{"Calibration", "On", "Kernel scale", "Overhead (us)",
                                              "Per step (ms)", "Memory passes", "Runs", "CV MAPE",
                                              "Applies to", "Fitted"}};
  bool threaded_note = false;
  for (const auto& k : *cs) {
    char scale[32], us[64], batch[32], gb[32], mape[64];
    std::snprintf(scale, sizeof scale, "%.3f", k.kernel_scale);
    if (k.per_op_overhead_threads) {  // "1 thread / more"
      threaded_note = true;
      std::snprintf(us, sizeof us, "%.2f / %.2f", k.per_op_overhead.seconds() * 1e6,
                    k.per_op_overhead_threads->seconds() * 1e6);
    } else {
      std::snprintf(us, sizeof us, "%.2f", k.per_op_overhead.seconds() * 1e6);
    }
    std::snprintf(batch, sizeof batch, "%.3f", k.per_step_overhead.seconds() * 1e3);
    std::snprintf(gb, sizeof gb, "%.3f", k.memory_passes);
    std::snprintf(mape, sizeof mape, "%.1f%% -> %.1f%%", k.mape_before, k.mape_after);
    // A shipped calibration that does not carry to unseen models applies to its own only, less
    // those it predicted worse held out.
    const bool any = k.AppliesTo("", nullptr);
    const size_t worse = k.shipped ? k.ModelsWorse().size() : 0;
    const size_t own = k.Models().size();
    std::string applies = any        ? "any model"
                          : own == 1 ? "its 1 model"
                                     : "its " + std::to_string(own) + " models";
    if (worse > 0) applies += " but " + std::to_string(worse);
    c.push_back({k.framework, k.device_kind, scale, us, batch, gb, std::to_string(k.runs), mape,
                 applies, k.fitted_at + (k.shipped ? " (shipped)" : "")});
  }
  std::cout << "\n"
            << RenderTable(c, {false, false, true, true, true, true, true, false, false, false});
  if (threaded_note)
    std::cout << "Overhead A / B: per op call in a step on 1 thread / on more than 1.\n";
  return kExitOk;
}

int ForgetCalibration(const ProfileOptions& o) {
  const std::string& framework = o.file;
  Result<std::unique_ptr<profiler::ProfileStore>> store = OpenProfiles(o.profiles);
  if (!store.ok()) return ReportError(store.status());
  Result<int> n = (*store)->ForgetCalibrations(framework);
  if (!n.ok()) return ReportError(n.status());
  if (*n == 0)
    return ReportError(Status::NotFound("forget-calibration " + framework +
                                        ": the store has no calibration of it (`epochcost "
                                        "profile list` lists them; shipped ones stay)"));
  std::cout << "Removed " << *n << " calibration" << (*n == 1 ? "" : "s") << " of " << framework
            << "; a shipped one, where there is one, applies again.\n";
  return kExitOk;
}

}  // namespace

void RegisterProfileCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* profile = app.add_subcommand(
      "profile", "Measure the op times of models on this machine's CPU or GPU and store them");
  profile->add_option("MODEL", o->models, "Zoo names or model files");
  profile->add_option("--device", o->device, "cpu (default: oneDNN) or gpu (cuDNN and cuBLAS)");
  profile->add_option("--threads", o->threads,
                      "CPU thread counts, e.g. 1,2 (default 1; at most the logical processors)");
  CLI::Option* batch =
      profile->add_option("--batch", o->batch, "Batch size (default: each model's own)");
  profile->add_option("--profiles", o->profiles,
                      "Profile database (default $EPOCHCOST_PROFILES, else "
                      "$XDG_DATA_HOME/epochcost/profiles.sqlite)");
  profile->add_flag("--force", o->force, "Measure again what is already stored");
  profile
      ->add_option("--force-kind", o->force_kinds,
                   "Measure again the stored ops of these kinds only, e.g. "
                   "eltwise_fwd,eltwise_bwd,binary (after a change to how the profiler times them)")
      ->delimiter(',');
  profile->add_flag(
      "--again", o->again,
      "Measure again every op stored for this device, at its thread count, and "
      "the microbenchmarks (after a change to how the profiler times ops); no models");
  profile->add_option("--measured-before", o->measured_before,
                      "With --again: only the ops measured before this day (YYYY-MM-DD), so that "
                      "a run cut short goes on where it stopped");
  profile->add_flag("--in-step", o->in_step,
                    "Time each op inside its model's replayed step (50 steps after 5 warm-up, "
                    "as `profile step`, in three rounds), not alone, and store its calls' times "
                    "in the median round's steps nearest its median (CPU)");
  profile->add_flag("--warm-operands", o->warm_operands,
                    "With --in-step: read each oneDNN call's buffers into the caches just before "
                    "it (untimed), as a framework's data flow leaves the tensors the call before "
                    "wrote, and store the calls' times so (not the default: the shipped "
                    "profiles' rows are timed cold)");
  AddLoweringFlags(profile, &o->lowering);
  profile->footer(
      "Examples:\n  epochcost profile mnist_cnn mnist_mlp --threads 1,2\n"
      "  epochcost profile resnet50 --device gpu --precision bf16\n"
      "  epochcost profile export my-cpu.json");
  profile->callback([run, o, profile, batch] {
    if (profile->get_subcommands().empty())
      *run = [o, counts = CheckCounts({{batch, 1}})] {
        if (!counts.ok()) return ReportError(counts);
        if (o->models.empty() && !o->again)
          return ReportError(Status::InvalidArgument("give one or more models to profile"));
        if (!o->models.empty() && o->again)
          return ReportError(
              Status::InvalidArgument("--again measures what is stored; give no models with it"));
        if (!o->measured_before.empty()) {
          if (!o->again)
            return ReportError(Status::InvalidArgument("--measured-before goes with --again"));
          if (Status d = catalog::CheckDate(o->measured_before); !d.ok())
            return ReportError(d.WithContext("--measured-before"));
        }
        return ProfileModels(*o);
      };
  });

  CLI::App* op = profile->add_subcommand("op", "Time one op signature (a line of `models ops`)");
  op->add_option("SIGNATURE", o->signature, "e.g. \"ip_fwd dt=f32 bias=1 ic=1024 mb=1024 oc=1024\"")
      ->required();
  op->add_option("--min-ms", o->min_ms,
                 "Keep repeating for at least this long (default 200, at most 60000), then, on the "
                 "CPU, for up to "
                 "ten times as long until the mean is known to within 3%");
  op->add_option("--repeats", o->repeats,
                 "And at least this many times (default 10, at most 100000)");
  op->add_option("--threads", o->threads,
                 "CPU thread counts, e.g. 1,2 (default 1; at most the logical processors)");
  op->add_option("--device", o->device, "cpu (default) or gpu");
  op->footer(
      "Example:\n  epochcost profile op \"ip_fwd dt=f32 bias=1 ic=1024 mb=1024 oc=1024\" "
      "--threads 1,2");
  op->callback([run, o] { *run = [o] { return MeasureOp(*o); }; });

  CLI::App* step = profile->add_subcommand(
      "step",
      "Run a model's whole training step on this CPU, call after call, and time it (nothing is "
      "stored)");
  step->add_option("MODEL", o->models, "A zoo name or model file")->required();
  step->add_option("--threads", o->threads,
                   "CPU thread counts, e.g. 1,2 (default 1; at most the logical processors)");
  CLI::Option* step_batch =
      step->add_option("--batch", o->batch, "Batch size (default: the model's own)");
  step->add_option("--steps", o->steps,
                   "Timed steps (default 50, as the reference harness; at most 100000)");
  step->add_option("--warmup", o->warmup, "Untimed steps first (default 5)");
  step->add_option("--ops", o->top_ops,
                   "List this many ops with the most time inside the step, per thread count "
                   "(default 10; 0: none)");
  step->add_option("--profiles", o->profiles, "Profile database, for the op means beside it");
  step->add_flag("--warm-operands", o->warm_operands,
                 "Read each oneDNN call's buffers into the caches just before it (untimed; the "
                 "step is then the sum of its calls), as a framework's data flow leaves the "
                 "tensors the call before wrote: how much of the in-step time is cold operands");
  step->add_flag("--json", o->json,
                 "Print one JSON object: per thread count the replayed step, its phases and every "
                 "op, in seconds (docs/profiles.md)");
  AddLoweringFlags(step, &o->lowering);
  step->footer("Example:\n  epochcost profile step lstm_text_generation --threads 1,2");
  step->callback([run, o, step_batch] {
    *run = [o, counts = CheckCounts({{step_batch, 1}})] {
      if (!counts.ok()) return ReportError(counts);
      return ReplayStep(*o);
    };
  });

  CLI::App* exp =
      profile->add_subcommand("export", "Write this machine's CPU or GPU profile as JSON");
  exp->add_option("FILE", o->file, "Output file, or - for stdout")->required();
  exp->add_option("--device", o->device, "cpu (default) or gpu");
  exp->add_option("--profiles", o->profiles, "Profile database");
  exp->callback([run, o] { *run = [o] { return Export(*o); }; });

  CLI::App* list = profile->add_subcommand(
      "list", "List the profiled devices (for predict --on device:NAME) and the calibrations");
  list->add_option("--profiles", o->profiles, "Profile database");
  list->callback([run, o] { *run = [o] { return List(*o); }; });

  CLI::App* forget = profile->add_subcommand(
      "forget-calibration",
      "Remove the calibrations `calibrate` stored for a framework (the shipped ones apply again)");
  forget->add_option("FRAMEWORK", o->file, "As run logs name it: pytorch, keras+tensorflow, ...")
      ->required();
  forget->add_option("--profiles", o->profiles, "Profile database");
  forget->callback([run, o] { *run = [o] { return ForgetCalibration(*o); }; });

  CLI::App* imp = profile->add_subcommand("import", "Add a profile JSON file to the store");
  imp->add_option("FILE", o->file, "A file written by `profile export`")->required();
  imp->add_option("--profiles", o->profiles, "Profile database");
  imp->callback([run, o] { *run = [o] { return Import(*o); }; });
}

}  // namespace epochcost::cli
