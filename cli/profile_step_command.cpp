// `epochcost profile step MODEL`: the model's whole training step run call after call on this CPU
// (profiler/cpu/onednn_backend.h ReplayCpuStep), beside what predict adds up from the profile's
// op means. Nothing is stored: it shows what the ops cost one after another, in one process, with
// the thread pools handing the cores over between them as in a framework's step.
#include <algorithm>
#include <array>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/profile_common.h"
#include "profiler/fingerprint.h"

namespace epochcost::cli {
namespace {

// The step's phases, as StepOps::backward_begin and update_begin split its calls.
constexpr std::array<const char*, 3> kPhases = {"forward", "backward", "update"};

// One phase of a replayed step: its calls' means added up, in the replay and in the profile.
struct PhaseTimes {
  size_t calls = 0;
  Seconds replayed;
  std::optional<Seconds> profiled;  // none where the store lacks one of its ops
};

// One op of a replayed step: a call's mean in the replay and in the profile.
struct OpTimes {
  size_t op = 0;  // index into StepOps::ops
  Seconds replayed_per_call;
  std::optional<Seconds> profiled_per_call;
};

// A step replayed at one thread count.
struct ThreadReplay {
  int threads = 1;
  profiler::Measurement step;
  Seconds in_step;                  // the replay's op means added up over the step's calls
  std::optional<Seconds> profiled;  // the profile's, where it has every op
  std::array<PhaseTimes, 3> phases;
  std::vector<OpTimes> ops;  // most time in the step first
};

// `step` replayed at `threads`, each op's mean in it beside its row in `store` (the row of the
// thread count that prices it: RowThreads), added up per phase and over the step.
Result<ThreadReplay> ReplayAt(const StepOps& step, int threads, const ProfileOptions& o,
                              const profiler::ProfileStore& store) {
  Result<profiler::StepReplay> r = Replay(step, threads, o);
  if (!r.ok()) return r.status();
  ThreadReplay out{.threads = threads, .step = r->step};
  Seconds sum;
  bool all = true;
  for (size_t i = 0; i < step.ops.size(); ++i) {
    std::optional<OpTime> stored =
        store.Find(step.ops[i].signature, RowThreads(step.ops[i], threads));
    out.in_step += r->ops[i].mean * step.ops[i].count;
    if (stored) sum += stored->mean * step.ops[i].count;
    all = all && stored.has_value();
    out.ops.push_back({.op = i,
                       .replayed_per_call = r->ops[i].mean,
                       .profiled_per_call = stored ? std::optional(stored->mean) : std::nullopt});
  }
  if (all) out.profiled = sum;
  const std::array<size_t, 4> bounds = {0, step.backward_begin, step.update_begin,
                                        step.sequence.size()};
  for (size_t p = 0; p < kPhases.size(); ++p) {
    PhaseTimes& phase = out.phases[p];
    phase.calls = bounds[p + 1] - bounds[p];
    Seconds profiled;
    for (size_t k = bounds[p]; k < bounds[p + 1]; ++k) {
      const OpTimes& op = out.ops[step.sequence[k]];
      phase.replayed += op.replayed_per_call;
      if (op.profiled_per_call) profiled += *op.profiled_per_call;
    }
    if (all) phase.profiled = profiled;
  }
  auto per_step = [&](const OpTimes& t) { return t.replayed_per_call * step.ops[t.op].count; };
  std::stable_sort(out.ops.begin(), out.ops.end(),
                   [&](const OpTimes& a, const OpTimes& b) { return per_step(a) > per_step(b); });
  return out;
}

std::string Ms(Seconds s) { return Number("%.3f", s.milliseconds()); }

// The tables: each thread count's replayed step beside the profile's op means, its phases, and
// the ops with the most time in it.
void PrintText(const std::vector<ThreadReplay>& replays, const StepOps& step,
               const ProfileOptions& o) {
  std::vector<std::vector<std::string>> rows = {{"Threads", "Replayed median (ms)", "p10", "p90",
                                                 "Mean", "Steps", "Profile's op means (ms)",
                                                 "Now / profile"}};
  std::vector<std::vector<std::string>> phases = {
      {"Threads", "Phase", "Calls", "Replayed (ms/step)", "Profile (ms/step)"}};
  std::vector<std::vector<std::string>> top = {
      {"Threads", "Share", "ms/step", "Count", "In step (ms/call)", "Profile (ms/call)", "Op"}};
  bool missing = false;
  for (const ThreadReplay& r : replays) {
    const std::string t = std::to_string(r.threads);
    const profiler::Measurement& m = r.step;
    missing = missing || !r.profiled;
    rows.push_back(
        {t, Ms(m.median), Ms(m.p10), Ms(m.p90), Ms(m.mean), std::to_string(m.count),
         r.profiled ? Ms(*r.profiled) : "-",
         r.profiled && r.profiled->seconds() > 0 ? Number("%.2fx", r.in_step / *r.profiled) : "-"});
    for (size_t p = 0; p < kPhases.size(); ++p)
      phases.push_back({t, kPhases[p], std::to_string(r.phases[p].calls), Ms(r.phases[p].replayed),
                        r.phases[p].profiled ? Ms(*r.phases[p].profiled) : "-"});
    for (size_t k = 0; k < r.ops.size() && static_cast<int>(k) < o.top_ops; ++k) {
      const OpTimes& op = r.ops[k];
      const Seconds per_step = op.replayed_per_call * step.ops[op.op].count;
      top.push_back(
          {t,
           Number("%.1f%%",
                  r.in_step.seconds() > 0 ? 100 * per_step.seconds() / r.in_step.seconds() : 0.0),
           Ms(per_step), std::to_string(step.ops[op.op].count), Ms(op.replayed_per_call),
           op.profiled_per_call ? Ms(*op.profiled_per_call) : "-",
           step.ops[op.op].signature.ToString()});
    }
  }
  std::cout << RenderTable(rows, {true, true, true, true, true, true, true, true});
  std::cout << "Profile's op means: the sum over the step's calls of each op's mean in the profile "
               "store, the kernels `predict --on local-cpu` adds up (before its per-op "
               "overhead)";
  if (missing)
    std::cout << "; \"-\": not every op is profiled at that thread count (`epochcost profile "
              << o.models.front() << " --threads " << o.threads << "`)";
  std::cout << ".\nNow / profile: the same sum over this replay's op means (the half of its "
               "steps nearest their median) against the profile's. Above 1, the ops take longer "
               "now than when they were profiled (a VM slower than then, or rows timed alone, "
               "not --in-step), and predictions from the profile read low by about as much; "
               "measure again with `profile MODEL --in-step` if it stays so.\n";
  std::cout << "\nBy phase, the calls' means added up:\n"
            << RenderTable(phases, {true, false, true, true, true})
            << "forward: the layers and the loss (its gradient too); backward: the layers' "
               "gradients; update: each tensor's zero_grad pass, the accumulation of its new "
               "gradient and the optimizer's passes (PyTorch's zero_grad and optimizer phases "
               "together, as `tools/reference/torch_step.py --host-ops` times them; PyTorch "
               "accumulates the gradients in its backward pass).\n";
  if (o.warm_operands)
    std::cout << "--warm-operands: each oneDNN call's buffers were read into the caches just "
                 "before it, untimed, and each step is the sum of its calls.\n";
  if (o.top_ops > 0)
    std::cout << "\nThe ops with the most time in the replayed steps (a call's mean in the half "
                 "of the steps nearest their median, and in the profile):\n"
              << RenderTable(top, {true, true, true, true, true, true, false});
}

// The same as one JSON object, every op listed (--ops only limits the table); seconds throughout,
// null where the profile lacks an op.
void PrintJson(const std::vector<ThreadReplay>& replays, const StepOps& step, const Model& model,
               const LoweringOptions& lowering, const std::string& optimizer,
               const profiler::Fingerprint& here, const ProfileOptions& o) {
  using Json = nlohmann::ordered_json;
  auto seconds = [](const std::optional<Seconds>& s) { return s ? Json(s->seconds()) : Json(); };
  Json j = {{"model", model.name()},
            {"batch", lowering.batch},
            {"precision", PrecisionName(lowering)},
            {"optimizer", optimizer},
            {"device", here.model},
            {"calls", step.sequence.size()},
            {"distinct_ops", step.ops.size()},
            {"warm_operands", o.warm_operands},
            {"threads", Json::array()}};
  for (const ThreadReplay& r : replays) {
    Json phases = Json::array(), ops = Json::array();
    for (size_t p = 0; p < kPhases.size(); ++p)
      phases.push_back({{"phase", kPhases[p]},
                        {"calls", r.phases[p].calls},
                        {"replayed_seconds", r.phases[p].replayed.seconds()},
                        {"profile_seconds", seconds(r.phases[p].profiled)}});
    for (const OpTimes& op : r.ops)
      ops.push_back({{"signature", step.ops[op.op].signature.ToString()},
                     {"count", step.ops[op.op].count},
                     {"replayed_seconds_per_call", op.replayed_per_call.seconds()},
                     {"profile_seconds_per_call", seconds(op.profiled_per_call)}});
    j["threads"].push_back(
        {{"threads", r.threads},
         {"median_seconds", r.step.median.seconds()},
         {"p10_seconds", r.step.p10.seconds()},
         {"p90_seconds", r.step.p90.seconds()},
         {"mean_seconds", r.step.mean.seconds()},
         {"steps", r.step.count},
         {"replayed_op_seconds", r.in_step.seconds()},
         {"profile_op_seconds", seconds(r.profiled)},
         {"now_over_profile",
          r.profiled && r.profiled->seconds() > 0 ? Json(r.in_step / *r.profiled) : Json()},
         {"phases", phases},
         {"ops", ops}});
  }
  std::cout << j.dump(2) << "\n";
}

}  // namespace

int ReplayStep(const ProfileOptions& o) {
  if (o.models.size() != 1) return ReportError(Status::InvalidArgument("give one model to replay"));
  const std::string most = std::to_string(profiler::kMaxRuns);
  if (o.steps < 1 || o.steps > profiler::kMaxRuns)
    return ReportError(Status::InvalidArgument("--steps must be from 1 to " + most + ", got " +
                                               std::to_string(o.steps)));
  if (o.warmup < 0 || o.warmup > profiler::kMaxRuns)
    return ReportError(Status::InvalidArgument("--warmup must be from 0 to " + most + ", got " +
                                               std::to_string(o.warmup)));
  if (o.top_ops < 0)
    return ReportError(
        Status::InvalidArgument("--ops must not be negative, got " + std::to_string(o.top_ops)));
  if (o.batch < 0) return ReportError(Status::InvalidArgument("--batch must be positive"));
  Result<std::vector<int>> threads = ParseThreads(o.threads);
  if (!threads.ok()) return ReportError(threads.status());
  std::string optimizer;
  Result<LoweredModel> m = LoadForProfile(o.models.front(), o, LoweringTarget::kCpu, &optimizer);
  if (!m.ok()) return ReportError(m.status());
  const Model& model = m->model;
  Result<StepOps> step = Lower(model, m->lowering);
  if (!step.ok()) return ReportError(step.status());
  Result<std::unique_ptr<profiler::ProfileStore>> store = OpenProfiles(o.profiles);
  if (!store.ok()) return ReportError(store.status());
  const profiler::Fingerprint here = profiler::LocalCpu();
  (*store)->SelectDevice(here);
  if (!o.json)
    std::cout << "Model " << model.name() << ", batch " << m->lowering.batch << ", "
              << PrecisionName(m->lowering) << ", " << optimizer << ": a training step of "
              << step->sequence.size() << " calls (" << step->ops.size() << " distinct ops) on "
              << here.model << "\n";
  std::vector<ThreadReplay> replays;
  for (int t : *threads) {
    Result<ThreadReplay> r = ReplayAt(*step, t, o, **store);
    if (!r.ok()) return ReportError(r.status());
    replays.push_back(std::move(*r));
  }
  if (o.json)
    PrintJson(replays, *step, model, m->lowering, optimizer, here, o);
  else
    PrintText(replays, *step, o);
  return kExitOk;
}

}  // namespace epochcost::cli
