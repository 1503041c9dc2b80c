// `epochcost predict MODEL --on TARGET`: step and epoch time on a measured device (its op times
// from `epochcost profile`) or on any other machine (scaled, cli/prediction.h), with the largest
// ops, where each time came from, and the error the shipped run logs show for that path.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/prediction.h"
#include "cli/profile_common.h"
#include "cli/run_inputs.h"
#include "cli/targets.h"
#include "profiler/microbench.h"

namespace epochcost::cli {
namespace {

struct PredictOptions {
  PredictionRequest request;
  std::string profiles, catalog;
  int top = 10;
  double overhead_us = std::numeric_limits<double>::quiet_NaN();  // NaN: not given
  double input_ms = 0;                                            // --input-ms-per-sample
  bool json = false;
  bool threads_given = false;  // --threads; else 0 in the request (1 on a measured CPU)
};

nlohmann::ordered_json OpsJson(const std::vector<OpTiming>& ops) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const OpTiming& t : ops) {
    nlohmann::ordered_json o = {
        {"signature", t.signature.ToString()}, {"count", t.count}, {"seconds", t.each.seconds()}};
    if (t.host_extra.seconds() > 0) o["host_extra_seconds"] = t.host_extra.seconds();
    if (t.calls > 1) o["framework_calls"] = t.calls;
    o["total_seconds"] = t.total.seconds();
    o["flops"] = t.signature.flops().value();
    o["bytes"] = t.signature.bytes().value();
    o["source"] = t.source;
    o["layers"] = t.layers;
    a.push_back(std::move(o));
  }
  return a;
}

// On a GPU: what the calls whose library takes the host longer than a plain launch (cuDNN's
// plans, an RNN's per-step kernels; measured) add to their dispatch, and how much of the step is
// calls that cost their dispatch rather than their kernel: a step the host's pace decides.
std::string HostLines(const Prediction& p) {
  if (!p.gpu) return "";
  int calls = 0, extra_calls = 0, bound_calls = 0;
  Seconds extra, bound;
  for (const OpTiming& t : p.epoch.ops) {
    calls += t.count;
    if (t.host_extra.seconds() > 0) {
      extra_calls += t.count;
      extra += t.host_extra * t.count;
    }
    if (t.total > t.each * p.kernel_scale * static_cast<double>(t.count) * 1.000001) {
      bound_calls += t.count;
      bound += t.total;
    }
  }
  std::string out;
  char line[512];
  if (extra_calls > 0) {
    std::snprintf(line, sizeof line,
                  "     %d calls take the host %.3f ms a step beyond plain launches (measured), "
                  "added to their dispatch\n",
                  extra_calls, extra.milliseconds());
    out += line;
  }
  if (bound_calls > 0) {
    std::snprintf(line, sizeof line,
                  "     host-bound: %d of %d calls (%.0f%% of the step) cost their dispatch, not "
                  "their kernel; a framework's own host time per call counts only when "
                  "calibrated or given (--overhead-us)\n",
                  bound_calls, calls, 100 * (bound / p.epoch.step));
    out += line;
  }
  return out;
}

// "calibrated for pytorch on cpu (...)", "not calibrated: ...", or, without --framework, the
// calibrations that would apply ("uncalibrated; --framework pytorch applies ..."), or "".
std::string CalibrationLine(const Prediction& p) {
  if (!p.calibration_not_applied.empty())
    return "not calibrated: " + p.calibration_not_applied + "\n";
  if (!p.calibration && !p.calibrations_available.empty()) {
    std::vector<std::string> names;
    for (const profiler::StoredCalibration& c : p.calibrations_available) {
      char figures[160];
      std::snprintf(figures, sizeof figures, " (%s, %d runs, held-out MAPE %.1f%% -> %.1f%%)",
                    c.shipped ? "shipped" : "yours", c.runs, c.mape_before, c.mape_after);
      names.push_back(c.framework + figures);
    }
    return "uncalibrated; calibrations for " + std::string(p.device_kind()) +
           "s (--framework NAME): " + CommaList(names) + "\n";
  }
  if (!p.calibration) return "";
  const profiler::StoredCalibration& c = *p.calibration;
  char figures[160];
  std::snprintf(figures, sizeof figures, " (%d runs, cross-validated MAPE %.1f%% -> %.1f%%, %s)\n",
                c.runs, c.mape_before, c.mape_after, c.fitted_at.c_str());
  const std::string line = "calibrated for " + c.framework + " on " + c.device_kind + ": " +
                           CorrectionText(c.correction(), p.allocator_keeps) + figures;
  if (c.shipped) return line + "  shipped with epochcost, fitted to " + c.origin + "\n";
  return line;
}

// Whose the per-op overhead is, after its figure: "" for a oneDNN dispatch, a calibration's or a
// given one.
std::string FrameworkOverheadText(const Prediction& p) {
  if (!p.framework_overhead) return "";
  return ": PyTorch's dispatch and autograd, measured " + (p.framework_overhead_from.empty()
                                                               ? std::string("here")
                                                               : "on " + p.framework_overhead_from);
}

// "<lead>1.845 ms" where a calibration adds a per-step overhead to each training step, or "".
std::string PerStepText(const Prediction& p, const char* lead) {
  if (p.per_step_overhead.seconds() <= 0) return "";
  char text[96];
  std::snprintf(text, sizeof text, "%s%.3f ms", lead, p.per_step_overhead.seconds() * 1e3);
  return text;
}

void JsonCalibration(const Prediction& p, nlohmann::ordered_json* j) {
  if (p.calibration) {
    (*j)["calibration"] = CalibrationJson(p.calibration);
    // What the prediction charged: 0 where --allocator keeps left the passes out.
    (*j)["calibration"]["memory_passes_applied"] = p.memory_passes;
  }
  if (!p.calibrations_available.empty()) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const profiler::StoredCalibration& c : p.calibrations_available)
      a.push_back({{"framework", c.framework},
                   {"shipped", c.shipped},
                   {"runs", c.runs},
                   {"mape_before_percent", c.mape_before},
                   {"mape_after_percent", c.mape_after}});
    (*j)["calibrations_available"] = a;
  }
  if (!p.calibration_not_applied.empty())
    (*j)["calibration_not_applied"] = p.calibration_not_applied;
}

// "same device, cpu": the path a prediction took, as `validate` groups its runs.
std::string PathName(const Prediction& p) { return p.path + ", " + p.device_kind(); }

// The error the shipped run logs show for the prediction's path (DESIGN's honesty rule).
std::string RecordLine(const Prediction& p, const Result<PathRecord>& r) {
  return "validation of this path (" + PathName(p) + "): " + RecordFigures(r) + "\n";
}

nlohmann::ordered_json RecordJson(const Prediction& p, const Result<PathRecord>& r) {
  return cli::RecordJson({p.path, p.device_kind()}, r);
}

// What this CPU takes to fault in fresh memory, where its profile measured it: not in the step,
// whose ops run on memory they keep, but a framework whose allocator returns a step's memory to
// the operating system pays it again for each 4 KiB each step (docs/profiles.md); with an
// allocator that keeps it (--allocator keeps) the step does not. The price is the profiled VM's:
// another VM of the same CPU paid 6-10x as much (docs/accuracy.md, "A third Zen 5 VM").
std::string PageFaultLine(const Prediction& p) {
  if (p.page_fault.seconds() <= 0) return "";
  char line[300];
  std::snprintf(line, sizeof line,
                "not in the step: page faults, %.2f us per 4 KiB of fresh memory where this "
                "CPU was profiled (%s)\n",
                p.page_fault.seconds() * 1e6,
                p.allocator_keeps ? "none each step: the allocator keeps its memory"
                                  : "paid each step for memory a framework's allocator returns "
                                    "to the OS; one that keeps it, as jemalloc, tcmalloc or glibc "
                                    "with MALLOC_TRIM_THRESHOLD_ raised do, does not: --allocator "
                                    "keeps");
  return line;
}

// The input pipeline (--input-ms-per-sample), where one was given: its CPU time a step and what
// it does to the step.
std::string InputPipelineLine(const Prediction& p) {
  if (p.input_pipeline.seconds() <= 0) return "";
  const double per_sample_ms = p.input_pipeline.milliseconds() / static_cast<double>(p.batch);
  std::string where;
  if (p.gpu) {
    const double vcpus = p.machine ? p.machine->vcpus : p.host_vcpus;
    // engine/machine.h's StepWithHostInput: with no vCPU beside the dispatching one, the host
    // prepares the batch after the dispatch, in turn with it.
    const double helpers = vcpus - 1;
    where = helpers < 1
                ? std::string(
                      "on the host's only vCPU, after the dispatch: the step waits for it "
                      "(input-bound)")
                : "on the " + Number("%g", helpers) + " vCPUs beside the dispatching one: " +
                      (p.input_bound ? "the step waits for it (input-bound)"
                                     : "hidden behind the GPUs' step");
  } else {
    const double cores = p.on_machine ? p.on_machine->threads : p.threads;
    where =
        "sharing the " + Number("%g", cores) + (cores == 1 ? " core" : " cores") +
        " that train: +" +
        Number("%.3f", (p.on_machine ? p.on_machine->input_step : p.input_added).milliseconds()) +
        " ms a step";
  }
  return "input pipeline " + Number("%.3f", p.input_pipeline.milliseconds()) +
         " ms of CPU a step (" + std::to_string(p.batch) + " samples x " +
         Number("%.3f", per_sample_ms) + " ms), " + where + "\n";
}

void JsonInputPipeline(const Prediction& p, nlohmann::ordered_json* j) {
  if (p.input_pipeline.seconds() <= 0) return;
  (*j)["input_pipeline_seconds"] = p.input_pipeline.seconds();
  (*j)["input_bound"] = p.input_bound;
}

// On a measured CPU, the profiled thread count whose epoch is predicted shortest, where it is not
// the one asked for and the prediction is at least kFasterThreads faster: a framework's thread
// pools can make a step slower at more threads than at fewer (on the 2-vCPU development VMs,
// PyTorch's LSTM and MLP steps at 1 thread against 2; docs/accuracy.md, "The fastest thread
// count").
struct FasterThreads {
  int threads = 0;
  Seconds step, epoch;
  double speedup = 1;  // the asked-for count's epoch over this one's
};

// A thread count's epoch must be this many times as fast to be named: below it lie the same
// configuration's runs minutes apart (docs/accuracy.md, "What holds the same-CPU figures").
constexpr double kFasterThreads = 1.05;

std::optional<FasterThreads> FasterThreadCount(Predictor& predictor, const PredictOptions& o,
                                               const Prediction& p) {
  if (p.gpu || !p.measured) return std::nullopt;
  Result<std::vector<profiler::Microbenchmark>> benches =
      predictor.profiles().Microbenchmarks(predictor.profiles().device());
  if (!benches.ok()) return std::nullopt;
  std::set<int> counts;
  // On this machine, only the counts it can run (a profile imported from a larger VM of the
  // same CPU may hold more).
  const int most =
      o.request.on == "local-cpu" ? HardwareThreads() : std::numeric_limits<int>::max();
  for (const profiler::Microbenchmark& b : *benches)
    if (b.threads != p.threads && b.threads <= most) counts.insert(b.threads);
  std::optional<FasterThreads> best;
  for (const int threads : counts) {
    PredictionRequest r = o.request;
    r.threads = threads;
    Result<Prediction> other = predictor.Predict(r);  // fails where an op is not profiled there
    if (!other.ok() || other->epoch.epoch.seconds() <= 0) continue;
    if (other->epoch.epoch * kFasterThreads > p.epoch.epoch) continue;
    if (!best || other->epoch.epoch < best->epoch)
      best = FasterThreads{threads, other->epoch.step, other->epoch.epoch,
                           p.epoch.epoch / other->epoch.epoch};
  }
  return best;
}

// "faster at 1 thread: ..." for FasterThreadCount's answer, or "".
std::string FasterThreadsLine(const Prediction& p, const std::optional<FasterThreads>& f) {
  if (!f) return "";
  char line[320];
  std::snprintf(line, sizeof line,
                "faster at %d thread%s: epoch %.2f s (step %.3f ms), %.2fx as fast as at %d, from "
                "this profile's rows (OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d)\n",
                f->threads, f->threads == 1 ? "" : "s", f->epoch.seconds(), f->step.milliseconds(),
                f->speedup, p.threads, f->threads, f->threads);
  return line;
}

// On the measured device: its own op times.
int PrintMeasured(const PredictOptions& o, const Prediction& p, const Result<PathRecord>& record,
                  const std::optional<FasterThreads>& faster) {
  const EpochPrediction& e = p.epoch;
  if (o.json) {
    nlohmann::ordered_json j;
    j["model"] = p.model_name;
    j["on"] = o.request.on;
    j["device"] = p.device;
    j["threads"] = p.threads;
    j["batch"] = p.batch;
    j["precision"] = PrecisionName(p.lowering);
    j["channels_last"] = p.lowering.channels_last;
    j["optimizer"] = p.optimizer;
    if (p.model && HasRecurrentLayer(*p.model)) j["rnn"] = RnnLoweringName(p.lowering.rnn);
    j["per_op_overhead_seconds"] = p.overhead.seconds();
    if (p.framework_overhead) j["per_op_overhead_measured"] = profiler::kFrameworkCall;
    if (!p.framework_overhead_from.empty())
      j["per_op_overhead_measured_on"] = p.framework_overhead_from;
    JsonCalibration(p, &j);
    j["step_seconds"] = e.step.seconds();
    j["step_p10_seconds"] = e.step_p10.seconds();
    j["step_p90_seconds"] = e.step_p90.seconds();
    j["steps_per_epoch"] = e.steps_per_epoch;
    j["eval_step_seconds"] = e.eval_step.seconds();
    j["eval_steps"] = e.eval_steps;
    j["epoch_seconds"] = e.epoch.seconds();
    JsonInputPipeline(p, &j);
    if (p.page_fault.seconds() > 0) j["page_fault_seconds"] = p.page_fault.seconds();
    if (faster)
      j["faster_threads"] = {{"threads", faster->threads},
                             {"step_seconds", faster->step.seconds()},
                             {"epoch_seconds", faster->epoch.seconds()},
                             {"speedup", faster->speedup}};
    j["validation"] = RecordJson(p, record);
    j["ops"] = OpsJson(e.ops);
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  char line[320];
  std::cout << "Model " << p.model_name << ", batch " << p.batch << ", "
            << PrecisionName(p.lowering) << (p.lowering.channels_last ? ", channels-last" : "")
            << ", " << p.optimizer << ", on " << o.request.on << " (" << p.device;
  if (!p.gpu) std::cout << ", " << p.threads << " thread" << (p.threads == 1 ? "" : "s");
  std::cout << ")" << RecurrentText(p) << "\n" << CalibrationLine(p);
  std::snprintf(line, sizeof line,
                "step %.3f ms (%zu distinct ops, per-op overhead %.1f us%s%s%s)\n"
                "     %.3f to %.3f ms with every op at its own 10th to 90th percentile time\n",
                e.step.milliseconds(), p.distinct_ops, p.overhead.seconds() * 1e6,
                FrameworkOverheadText(p).c_str(), p.gpu ? ", overlapping the kernels" : "",
                PerStepText(p, ", per-step overhead ").c_str(), e.step_p10.milliseconds(),
                e.step_p90.milliseconds());
  std::cout << line << HostLines(p) << InputPipelineLine(p);
  std::snprintf(line, sizeof line,
                "epoch %.2f s = %lld steps x %.3f ms + %lld validation steps x %.3f ms\n",
                e.epoch.seconds(), static_cast<long long>(e.steps_per_epoch), e.step.milliseconds(),
                static_cast<long long>(e.eval_steps), e.eval_step.milliseconds());
  std::cout << line << FasterThreadsLine(p, faster) << PageFaultLine(p) << RecordLine(p, record);
  std::vector<std::vector<std::string>> rows = {
      {"Share", "ms/step", "Count", "GFLOP/s", "Op", "Source"}};
  for (size_t i = 0; i < e.ops.size() && static_cast<int>(i) < o.top; ++i) {
    const OpTiming& t = e.ops[i];
    char share[16], ms[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * (t.total / e.step));
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
int PrintElsewhere(const PredictOptions& o, const Prediction& p, const Result<PathRecord>& record) {
  const Machine& machine = *p.machine;
  const MachinePrediction& m = *p.on_machine;
  const EpochPrediction& e = p.epoch;
  if (o.json) {
    nlohmann::ordered_json j;
    j["model"] = p.model_name;
    j["on"] = o.request.on;
    j["gpus"] = machine.gpus;
    j["vcpus"] = machine.vcpus;
    j["batch"] = p.batch;
    j["device_batch"] = m.device_batch;
    j["precision"] = PrecisionName(p.lowering);
    j["channels_last"] = p.lowering.channels_last;
    j["optimizer"] = p.optimizer;
    j["source"] = m.source;
    const std::string retired = RetiredOn(o.request.on);
    j["retired_on"] = retired.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(retired);
    JsonCalibration(p, &j);
    j["step_seconds"] = e.step.seconds();
    j["compute_step_seconds"] = m.compute_step.seconds();
    j["per_op_overhead_seconds"] = m.per_op_overhead.seconds();
    if (m.framework_overhead) j["per_op_overhead_measured"] = profiler::kFrameworkCall;
    j["allreduce_seconds"] = m.allreduce.seconds();
    j["exposed_allreduce_seconds"] = m.exposed_allreduce.seconds();
    j["input_seconds"] = m.input_step.seconds();
    JsonInputPipeline(p, &j);
    j["steps_per_epoch"] = e.steps_per_epoch;
    j["eval_step_seconds"] = e.eval_step.seconds();
    j["eval_steps"] = e.eval_steps;
    j["epoch_seconds"] = e.epoch.seconds();
    j["memory_bytes"] = m.memory.total().value();
    j["capacity_bytes"] = m.capacity.value();
    j["fits"] = m.fits;
    j["largest_batch"] = m.largest_batch;
    j["validation"] = RecordJson(p, record);
    j["ops"] = OpsJson(e.ops);
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  char line[512];
  std::cout << "Model " << p.model_name << ", batch " << p.batch << ", "
            << PrecisionName(p.lowering) << (p.lowering.channels_last ? ", channels-last" : "")
            << ", " << p.optimizer << ", on " << o.request.on << " (";
  if (p.gpu)
    std::cout << machine.gpus << " x " << machine.gpu->name << ", " << machine.vcpus
              << (machine.vcpus == 1 ? " vCPU" : " vCPUs");
  else
    std::cout << machine.vcpus << (machine.vcpus == 1 ? " vCPU of " : " vCPUs of ")
              << machine.cpu->family << ", " << m.threads
              << (m.threads == 1 ? " effective core" : " effective cores");
  if (!p.gpu && m.flop_per_cycle < m.native_flop_per_cycle)
    std::cout << "; kernels built for " << o.request.isa << ": " << m.flop_per_cycle << " of "
              << m.native_flop_per_cycle << " fp32 FLOPs per cycle";
  std::cout << ")\n" << CalibrationLine(p);
  if (const std::string retired = RetiredOn(o.request.on); !retired.empty())
    std::cout << "note: its provider retired " << o.request.on << " on " << retired
              << " (data/catalog/retirements.csv): it can no longer be rented\n";
  std::snprintf(line, sizeof line,
                "step %.3f ms (compute %.3f ms%s, all-reduce %.3f ms of which %.3f ms exposed, "
                "input %.3f ms)\n"
                "epoch %.2f s = %lld steps x %.3f ms + %lld validation steps x %.3f ms\n"
                "memory per device %s of %s%s; largest batch that fits: %s\n",
                e.step.milliseconds(), m.compute_step.milliseconds(),
                PerStepText(p, " with a per-step overhead of ").c_str(), m.allreduce.milliseconds(),
                m.exposed_allreduce.milliseconds(), m.input_step.milliseconds(), e.epoch.seconds(),
                static_cast<long long>(e.steps_per_epoch), e.step.milliseconds(),
                static_cast<long long>(e.eval_steps), e.eval_step.milliseconds(),
                Si(m.memory.total().value()).c_str(),
                m.capacity.value() > 0 ? Si(m.capacity.value()).c_str() : "?",
                m.fits ? "" : " (DOES NOT FIT)",
                // Without a capacity (a cpu:FAMILY:N target) no batch is known to fit.
                m.capacity.value() > 0 ? std::to_string(m.largest_batch).c_str() : "?");
  std::cout << line << InputPipelineLine(p) << "source: " << m.source << "\n"
            << RecordLine(p, record);
  std::vector<std::vector<std::string>> rows = {{"Share", "ms/step", "Count", "Op", "Source"}};
  for (size_t i = 0; i < e.ops.size() && static_cast<int>(i) < o.top; ++i) {
    const OpTiming& t = e.ops[i];
    char share[16], ms[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * (t.total / m.compute_step));
    std::snprintf(ms, sizeof ms, "%.3f", t.total.milliseconds());
    rows.push_back({share, ms, std::to_string(t.count), t.signature.ToString(), t.source});
  }
  std::cout << RenderTable(rows, {true, true, true, false, false});
  return kExitOk;
}

int Predict(PredictOptions o) {
  if (o.request.threads <= 0)
    return ReportError(Status::InvalidArgument("--threads must be positive"));
  if (o.request.on == "local-cpu" && o.request.threads > HardwareThreads())
    return ReportError(Status::InvalidArgument("--threads " + std::to_string(o.request.threads) +
                                               ": " + HardwareThreadsText()));
  if (!o.threads_given) o.request.threads = 0;
  if (o.top < 0) return ReportError(Status::InvalidArgument("--top must not be negative"));
  if (!std::isnan(o.overhead_us)) {
    if (!(o.overhead_us >= 0 && o.overhead_us <= 1e6))
      return ReportError(Status::InvalidArgument(kOverheadRange));
    o.request.overhead = Seconds::FromMicroseconds(o.overhead_us);
  }
  Result<Seconds> input = InputPerSample(o.input_ms);
  if (!input.ok()) return ReportError(input.status());
  o.request.input_per_sample = *input;
  Result<std::unique_ptr<Predictor>> predictor = Predictor::Open(o.profiles, o.catalog);
  if (!predictor.ok()) return ReportError(predictor.status());
  Result<Prediction> p = (*predictor)->Predict(o.request);
  if (!p.ok()) return ReportError(p.status());
  const PathKey path{p->path, p->device_kind()};
  const Result<PathRecord> record = RecordOf(
      path,
      ShippedRecordsOf(
          {path}, validation::PrecisionLabel(PrecisionName(p->lowering), p->lowering.channels_last),
          o.profiles, o.catalog));
  if (!p->measured) return PrintElsewhere(o, *p, record);
  return PrintMeasured(o, *p, record, FasterThreadCount(**predictor, o, *p));
}

}  // namespace

void RegisterPredictCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* p = app.add_subcommand("predict", "Predict step and epoch time of training a model");
  PredictionRequest& r = o->request;
  r.threads = 1;
  p->add_option("MODEL", r.model, "Zoo name or model file")->required();
  p->add_option("--on", r.on,
                "Target: local-cpu (default), local-gpu, a catalog instance (aws:p2.xlarge, "
                "gcp:n1-standard-1+K80), gpu:NAME (gpu:P100), cpu:FAMILY:VCPUS (cpu:genoa:8: a "
                "family by a part of its name no other has), or device:NAME (a profiled device, "
                "by its model string)");
  CLI::Option* gpus =
      p->add_option("--gpus", r.gpus, "GPUs of a gpu:NAME target (data parallel; default 1)");
  p->add_option("--catalog", o->catalog, "Catalog database (for instance targets)");
  CLI::Option* threads = p->add_option(
      "--threads", r.threads, "CPU threads of a measured CPU (local-cpu, device:NAME; default 1)");
  CLI::Option* batch = p->add_option("--batch", r.batch, "Batch size (default: the model's own)");
  CLI::Option* samples =
      p->add_option("--samples", r.samples, "Training samples per epoch (default: the model's)");
  CLI::Option* val_samples = p->add_option("--val-samples", r.val_samples,
                                           "Validation samples per epoch (default: the model's)");
  p->add_option("--overhead-us", o->overhead_us,
                "Framework overhead per op call in microseconds (default: the measured dispatch "
                "cost of a oneDNN primitive on this CPU, or of a kernel launch on this GPU; "
                "overrides a calibration's)");
  AddIsaOption(p, &r.isa);
  AddAllocatorOption(p, &r.allocator_keeps);
  AddInputPipelineOption(p, &o->input_ms);
  p->add_option("--top", o->top, "Ops to list (default 10)");
  p->add_option("--framework", r.framework,
                "Apply the stored calibration of this framework (pytorch, keras+tensorflow, "
                "...; see `epochcost calibrate`)");
  AddLoweringFlags(p, &r.lowering);
  p->add_option("--profiles", o->profiles, "Profile database");
  p->add_flag("--json", o->json, "Print JSON (step_seconds, epoch_seconds, steps_per_epoch, ops)");
  p->footer(
      "Example:\n  epochcost profile mnist_mlp --threads 1 && epochcost predict mnist_mlp "
      "--on local-cpu --threads 1");
  p->callback([=] {
    const Status counts = CheckCounts({{batch, 1}, {samples, 1}, {val_samples, 0}, {gpus, 1}});
    o->threads_given = threads->count() > 0;
    *run = [o, counts] { return counts.ok() ? Predict(*o) : ReportError(counts); };
  });
}

}  // namespace epochcost::cli
