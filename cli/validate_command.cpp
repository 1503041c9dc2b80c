// `epochcost validate RUNS...`: predicted against measured seconds and dollars per epoch of real
// runs, with the error summaries (validation/report.h). `epochcost calibrate RUNS...`: fits each
// framework's correction per device kind, judged by K-fold cross-validation, and stores it beside
// the profiles (validation/calibration.h).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/run_inputs.h"
#include "cli/svg_plot.h"
#include "profiler/calibration_table.h"
#include "validation/report.h"
#include "validation/statistics.h"

namespace epochcost::cli {
namespace {

using validation::ValidationReport;

struct ValidateOptions {
  RunInputs inputs;
  std::string profiles, catalog, plot;
  bool calibrated = false, json = false, hold_out_gpu = false;
  double far_pass_us = validation::kFarPassUs;  // validation::PlacementOf's threshold
};

// --far-pass-us, validate's and calibrate's: above 0, at most 1 ms.
Status CheckFarPassUs(double us) {
  return us > 0 && us <= 1000
             ? Status::Ok()
             : Status::InvalidArgument("--far-pass-us must be above 0 and at most 1000");
}

std::string Usd(const std::optional<double>& v) { return v ? Number("%.4f", *v) : "-"; }

// Each group's runs, MAPE, worst error and runs within 10%, and with `mean_error` their mean signed
// error.
std::string SummaryTable(const std::vector<validation::GroupSummary>& groups,
                         const std::string& title, bool mean_error = false) {
  std::vector<std::vector<std::string>> rows = {{title, "Runs", "MAPE", "Worst", "Within 10%"}};
  if (mean_error) rows[0].push_back("Mean error");
  for (const auto& g : groups) {
    rows.push_back({g.name, std::to_string(g.runs), Number("%.1f%%", g.mape),
                    Number("%+.1f%%", g.worst), std::to_string(g.within_10)});
    if (mean_error) rows.back().push_back(Number("%+.1f%%", g.mean_error));
  }
  return RenderTable(rows, {false, true, true, true, true, true});
}

// The calibrations the runs were predicted with, each once, in the order the runs name them.
std::vector<profiler::StoredCalibration> AppliedCalibrations(
    const std::vector<PredictedRun>& runs) {
  std::vector<profiler::StoredCalibration> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const PredictedRun& p : runs)
    if (const auto& c = p.prediction.calibration;
        c && seen.insert({c->framework, c->device_kind}).second)
      out.push_back(*c);
  return out;
}

// One line per applied calibration, or a line saying none matched. A calibration fitted to some
// of these very runs says how many: their errors are in-sample, not a test of it.
std::string CalibrationLines(const std::vector<profiler::StoredCalibration>& cs,
                             const std::vector<PredictedRun>& runs) {
  std::ostringstream s;
  for (const profiler::StoredCalibration& c : cs) {
    const std::set<std::string> fitted_to = c.RunLogs();
    int in_sample = 0;
    for (const PredictedRun& p : runs)
      in_sample += p.prediction.calibration && p.prediction.calibration->framework == c.framework &&
                   p.prediction.calibration->device_kind == c.device_kind &&
                   fitted_to.contains(p.run.log()) && p.run.unstated.empty();
    s << "Calibration applied: " << c.framework << " on " << c.device_kind << ", "
      << CorrectionText(c.correction()) << " (" << (c.shipped ? "shipped, " : "") << "fitted "
      << c.fitted_at << " on " << c.runs << " runs, held-out MAPE "
      << Number("%.1f%%", c.mape_before) << " -> " << Number("%.1f%%", c.mape_after) << ")\n";
    if (in_sample > 0)
      s << "  " << in_sample << (in_sample == 1 ? " of these runs was" : " of these runs were")
        << " among those it was fitted to (" << c.origin
        << "): their errors are in-sample; its held-out MAPE is the fair figure\n";
  }
  if (cs.empty()) {
    s << "No stored or shipped calibration matches these runs' frameworks.\n";
    return s.str();
  }
  const auto uncalibrated = std::count_if(runs.begin(), runs.end(), [](const PredictedRun& p) {
    return !p.prediction.calibration.has_value();
  });
  if (uncalibrated > 0)
    s << uncalibrated << (uncalibrated == 1 ? " run" : " runs")
      << " left uncalibrated (no calibration of the framework and device kind, or none that "
         "applies to the model)\n";
  return s.str();
}

// The runs that state their page faults per step and what a fault cost where they ran (or, on a
// measured CPU, what its profile measured): the faults at that price, which no prediction
// includes (docs/run-logs.md), or "".
std::string PageFaultTable(const ValidationReport& r) {
  std::vector<std::vector<std::string>> rows = {{"Model", "Machine", "Faults/step", "us/fault",
                                                 "Faults s", "Of measured", "Error with them"}};
  std::vector<double> predicted, with_faults, measured;  // the table's runs
  for (const auto& x : r.results) {
    if (!x.page_fault_seconds) continue;
    predicted.push_back(x.predicted_seconds);
    with_faults.push_back(x.predicted_seconds + *x.page_fault_seconds);
    measured.push_back(x.measured_seconds);
    rows.push_back(
        {x.run.model, validation::RunLabel(x.run), std::to_string(*x.run.faults_per_step),
         Number("%.2f", x.page_fault_price_us) +
             (x.page_fault_price_from_run ? " run" : " profile"),
         Number("%.2f", *x.page_fault_seconds),
         Number("%.1f%%", 100 * *x.page_fault_seconds / x.measured_seconds),
         Number("%+.1f%%", validation::PercentError(x.predicted_seconds + *x.page_fault_seconds,
                                                    x.measured_seconds))});
  }
  if (rows.size() == 1) return "";
  // What predicting each run's faults exactly, at that price, would make of its MAPE.
  return "\nPage faults the runs report, at the price the run measured (run) or its profile's "
         "page_fault_seconds (profile); not in the predictions:\n" +
         RenderTable(rows, {false, false, true, true, true, true, true}) +
         (measured.size() == 1 ? std::string("This run: MAPE ")
                               : "These " + std::to_string(measured.size()) + " runs: MAPE ") +
         Number("%.1f%%", validation::Mape(predicted, measured)) + " as predicted, " +
         Number("%.1f%%", validation::Mape(with_faults, measured)) +
         " with the faults each reports\n";
}

// Each configuration measured more than once: how far its runs lie apart, what the best single
// value and these predictions read them at, and the predictions' mean signed error. A
// configuration whose MAPE stands well above its best single value's is one the predictions miss;
// one whose two figures are close is missed as little as its runs allow.
std::string RepeatedTable(const validation::RepeatedRuns& x) {
  std::vector<std::vector<std::string>> rows = {{"Model", "Machine", "Batch", "Precision", "Runs",
                                                 "Slowest/fastest", "Best one value", "MAPE",
                                                 "Mean error"}};
  for (const validation::RepeatedConfig& c : x.by_config)
    rows.push_back({c.run.model, validation::RunLabel(c.run), std::to_string(c.run.batch),
                    PrecisionLabel(c.run), std::to_string(c.runs),
                    Number("%.2fx", c.slowest_over_fastest), Number("%.1f%%", c.floor_mape),
                    Number("%.1f%%", c.mape), Number("%+.1f%%", c.mean_error_percent)});
  return RenderTable(rows, {false, false, true, false, true, true, true, true, true});
}

// A line for the runs whose sources leave a parameter of their model unstated
// (RunRecord::unstated), or "": "9 runs of imdb_fasttext leave max_features unstated: ...".
std::string UnstatedLine(const ValidationReport& r) {
  int runs = 0;
  std::set<std::string> models, names;
  for (const auto& x : r.results) {
    if (x.run.unstated.empty()) continue;
    ++runs;
    models.insert(x.run.model);
    names.insert(x.run.unstated.begin(), x.run.unstated.end());
  }
  if (runs == 0) return "";
  return std::to_string(runs) + (runs == 1 ? " run of " : " runs of ") +
         CommaList({models.begin(), models.end()}) + (runs == 1 ? " leaves " : " leave ") +
         CommaList({names.begin(), names.end()}) +
         " unstated (run-log column unstated): predicted at the model's defaults, which are not "
         "the network that ran; calibrate fits nothing to them.\n";
}

std::string ReportText(const ValidationReport& r, const std::string& calibrations,
                       bool hold_out_gpu) {
  std::ostringstream s;
  s << "Validated " << r.results.size() << (r.results.size() == 1 ? " run (" : " runs (")
    << (calibrations.empty() ? "uncalibrated"
                             : "calibrated where a calibration is stored or shipped")
    << (hold_out_gpu ? "; each GPU predicted without its own profile" : "") << "): MAPE "
    << Number("%.1f%%", r.all.mape) << ", worst " << Number("%+.1f%%", r.all.worst) << ", "
    << r.all.within_10 << " within 10%\n"
    << calibrations << "\n";
  std::vector<std::vector<std::string>> rows = {{"Model", "Machine", "Framework", "Batch",
                                                 "Precision", "Predicted s", "Measured s", "Error",
                                                 "Predicted $", "Measured $", "Path"}};
  for (const auto& x : r.results)
    rows.push_back(
        {x.run.model, validation::RunLabel(x.run),
         x.run.framework + (x.run.framework_version.empty() ? "" : " " + x.run.framework_version),
         std::to_string(x.run.batch), PrecisionLabel(x.run), Number("%.2f", x.predicted_seconds),
         Number("%.2f", x.measured_seconds), Number("%+.1f%%", x.error_percent),
         Usd(x.predicted_usd), Usd(x.measured_usd), x.path});
  s << RenderTable(rows, {false, false, false, true, false, true, true, true, true, true, false});
  s << UnstatedLine(r) << PageFaultTable(r) << "\n"
    << SummaryTable(r.by_path, "Path") << "\n"
    << SummaryTable(r.by_family, "Model family") << "\n"
    << SummaryTable(r.by_kind, "Device kind");
  if (r.by_precision.size() > 1) s << "\n" << SummaryTable(r.by_precision, "Precision");
  if (r.by_allocator.size() > 1) s << "\n" << SummaryTable(r.by_allocator, "Allocator");
  // With each log's mean signed error: logs of one machine taken at different times differ by
  // how fast it ran then.
  if (r.by_log.size() > 1) s << "\n" << SummaryTable(r.by_log, "Run log", /*mean_error=*/true);
  // Multi-threaded CPU runs that measured their parallel passes: what the VM's vCPU placement did
  // to their errors, which no prediction made before a run can know.
  if (!r.by_placement.empty())
    s << "\n"
      << SummaryTable(r.by_placement, "vCPU placement", /*mean_error=*/true)
      << "Placement by the parallel pass each multi-threaded run measured before and after its "
         "steps: far at "
      << Number("%.2f", r.far_pass_us) << " us or more (--far-pass-us), mixed where it moved.\n";
  if (const auto& x = r.repeated)
    s << "\nRepeated runs: " << x->runs << " runs of " << x->configs
      << (x->configs == 1 ? " configuration" : " configurations") << " measured "
      << (x->fewest == x->most ? std::to_string(x->most)
                               : std::to_string(x->fewest) + " to " + std::to_string(x->most))
      << " times; one value per configuration reads at best MAPE "
      << Number("%.1f%%", x->floor_mape) << " on them (the runs' own spread), these predictions "
      << Number("%.1f%%", x->mape) << ".\n"
      << RepeatedTable(*x);
  // By cost (cheapest first) or by time (fastest first).
  auto rankings = [&](const std::vector<validation::Ranking>& gs, bool by_cost) {
    if (gs.empty()) return;
    const std::string best = by_cost ? "cheapest" : "fastest";
    int hits = 0;
    const std::string title = by_cost ? "Cost ranking" : "Time ranking (no prices)";
    std::vector<std::vector<std::string>> k = {
        {title, "Configs", "Kendall tau", "Predicted " + best, "Measured " + best, "Right?"}};
    for (const auto& g : gs) {
      hits += g.hit;
      k.push_back({g.group, std::to_string(g.configs), Number("%+.2f", g.tau), g.predicted_cheapest,
                   g.measured_cheapest, g.hit ? "yes" : Number("no, %+.0f%%", g.miss_percent)});
    }
    s << "\n" << RenderTable(k, {false, true, true, false, false, false});
    s << (by_cost ? "Cheapest" : "Fastest") << " configuration right for " << hits << " of "
      << gs.size() << " groups (a miss gives the measured extra " << (by_cost ? "cost" : "time")
      << " of the predicted choice).\n";
  };
  rankings(r.rankings, true);
  rankings(r.time_rankings, false);
  return s.str();
}

nlohmann::ordered_json ReportJson(const ValidationReport& r) {
  using Json = nlohmann::ordered_json;
  auto groups = [](const std::vector<validation::GroupSummary>& gs) {
    Json a = Json::array();
    for (const auto& g : gs)
      a.push_back({{"name", g.name},
                   {"runs", g.runs},
                   {"mape", g.mape},
                   {"worst", g.worst},
                   {"within_10_percent", g.within_10}});
    return a;
  };
  Json j;
  j["runs"] = Json::array();
  for (const auto& x : r.results) {
    Json e = {{"origin", x.run.origin},
              {"model", x.run.model},
              {"target", x.run.target},
              {"label", x.run.label},
              {"framework", x.run.framework},
              {"framework_version", x.run.framework_version},
              {"batch", x.run.batch},
              {"precision", x.run.precision},
              {"layout", x.run.channels_last ? "nhwc" : "nchw"},
              {"family", x.family},
              {"device_kind", x.device_kind},
              {"path", x.path},
              {"predicted_seconds_per_epoch", x.predicted_seconds},
              {"measured_seconds_per_epoch", x.measured_seconds},
              {"error_percent", x.error_percent}};
    e["predicted_usd_per_epoch"] = x.predicted_usd ? Json(*x.predicted_usd) : Json(nullptr);
    e["measured_usd_per_epoch"] = x.measured_usd ? Json(*x.measured_usd) : Json(nullptr);
    if (x.page_fault_seconds)
      e["page_faults"] = {{"faults_per_step", *x.run.faults_per_step},
                          {"seconds_per_epoch", *x.page_fault_seconds},
                          {"us_per_fault", x.page_fault_price_us},
                          {"price_from", x.page_fault_price_from_run ? "run" : "profile"}};
    if (!x.run.unstated.empty()) e["unstated"] = x.run.unstated;
    if (x.run.parallel_pass_us_before && x.run.parallel_pass_us_after)
      e["parallel_pass"] = {{"us_before", *x.run.parallel_pass_us_before},
                            {"us_after", *x.run.parallel_pass_us_after},
                            {"placement", Json(validation::PlacementOf(x.run, r.far_pass_us))}};
    j["runs"].push_back(e);
  }
  j["summary"] = {{"runs", r.all.runs},
                  {"mape", r.all.mape},
                  {"worst", r.all.worst},
                  {"within_10_percent", r.all.within_10}};
  j["by_path"] = groups(r.by_path);
  j["by_family"] = groups(r.by_family);
  j["by_device_kind"] = groups(r.by_kind);
  j["by_precision"] = groups(r.by_precision);
  j["by_allocator"] = groups(r.by_allocator);
  j["by_log"] = groups(r.by_log);
  for (size_t i = 0; i < r.by_log.size(); ++i)
    j["by_log"][i]["mean_error_percent"] = r.by_log[i].mean_error;
  j["by_placement"] = groups(r.by_placement);
  for (size_t i = 0; i < r.by_placement.size(); ++i)
    j["by_placement"][i]["mean_error_percent"] = r.by_placement[i].mean_error;
  j["far_pass_us"] = r.far_pass_us;
  // `best`: "cheapest" (cost rankings) or "fastest" (time rankings).
  auto rankings = [](const std::vector<validation::Ranking>& gs, const std::string& best) {
    Json a = Json::array();
    for (const auto& g : gs)
      a.push_back({{"group", g.group},
                   {"configs", g.configs},
                   {"kendall_tau", g.tau},
                   {"predicted_" + best, g.predicted_cheapest},
                   {"measured_" + best, g.measured_cheapest},
                   {"hit", g.hit},
                   {"miss_percent", g.miss_percent}});
    return a;
  };
  j["rankings"] = rankings(r.rankings, "cheapest");
  j["time_rankings"] = rankings(r.time_rankings, "fastest");
  j["repeated_runs"] = nullptr;
  if (const auto& x = r.repeated) {
    Json configs = Json::array();
    for (const validation::RepeatedConfig& c : x->by_config)
      configs.push_back({{"model", c.run.model},
                         {"label", validation::RunLabel(c.run)},
                         {"batch", c.run.batch},
                         {"precision", PrecisionLabel(c.run)},
                         {"runs", c.runs},
                         {"slowest_over_fastest", c.slowest_over_fastest},
                         {"floor_mape", c.floor_mape},
                         {"mape", c.mape},
                         {"mean_error_percent", c.mean_error_percent}});
    j["repeated_runs"] = {{"runs", x->runs},
                          {"configurations", x->configs},
                          {"fewest_runs", x->fewest},
                          {"most_runs", x->most},
                          {"floor_mape", x->floor_mape},
                          {"mape", x->mape},
                          {"by_configuration", configs}};
  }
  return j;
}

// Predicted against measured seconds per epoch on log axes, with y = x and the +-10% band.
std::string ReportSvg(const ValidationReport& r) {
  double lo = 1e300, hi = 0;
  for (const auto& x : r.results)
    for (double v : {x.predicted_seconds, x.measured_seconds}) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (r.results.empty()) lo = 1, hi = 10;
  const LogLogPlot plot(lo, hi, lo, hi);
  std::ostringstream s;
  s << plot.Begin("epochcost validate: " + std::to_string(r.results.size()) + " runs, MAPE " +
                      Number("%.1f%%", r.all.mape),
                  "measured seconds per epoch (log)", "predicted seconds per epoch (log)", "");
  const double a = std::pow(10, std::floor(std::log10(lo))),
               b = std::pow(10, std::ceil(std::log10(hi) + 1e-9));
  s << "<polygon fill=\"#2ca02c\" fill-opacity=\"0.12\" points=\"" << plot.X(a) << ","
    << plot.Y(a * 1.1) << " " << plot.X(b / 1.1) << "," << plot.Y(b) << " " << plot.X(b) << ","
    << plot.Y(b * 0.9) << " " << plot.X(a) << "," << plot.Y(a * 0.9) << "\"/>\n";
  s << "<line x1=\"" << plot.X(a) << "\" y1=\"" << plot.Y(a) << "\" x2=\"" << plot.X(b)
    << "\" y2=\"" << plot.Y(b) << "\" stroke=\"#2ca02c\"/>\n";
  for (const auto& x : r.results)
    s << "<circle cx=\"" << plot.X(x.measured_seconds) << "\" cy=\"" << plot.Y(x.predicted_seconds)
      << "\" r=\"4\" fill=\"" << (x.device_kind == "gpu" ? "#1f77b4" : "#ff7f0e")
      << "\" fill-opacity=\"0.7\"><title>"
      << SvgEscape(x.run.model + " on " + validation::RunLabel(x.run) + ": " +
                   Number("%+.1f%%", x.error_percent))
      << "</title></circle>\n";
  s << plot.End(
      "<tspan fill=\"#1f77b4\">● GPU</tspan>  <tspan fill=\"#ff7f0e\">● CPU</tspan>  "
      "<tspan fill=\"#2ca02c\">— y = x, ±10%</tspan>");
  return s.str();
}

int Validate(const ValidateOptions& o) {
  if (Status st = CheckFarPassUs(o.far_pass_us); !st.ok()) return ReportError(st);
  Result<PredictedRuns> predicted =
      ReadAndPredict(o.inputs, o.profiles, o.catalog, o.calibrated, o.hold_out_gpu);
  if (!predicted.ok()) return ReportError(predicted.status());
  if (predicted->runs.empty())
    return ReportError(Status::InvalidArgument("no run could be predicted"));
  const ValidationReport report = validation::Summarise(ResultsOf(*predicted), o.far_pass_us);
  if (!o.plot.empty()) {
    std::ofstream out(o.plot);
    out << ReportSvg(report);
    if (!out) return ReportError(Status::IoError(o.plot + ": cannot write the plot"));
  }
  if (o.json) {
    nlohmann::ordered_json j = ReportJson(report);
    if (o.hold_out_gpu) j["hold_out_gpu"] = true;
    if (o.calibrated) {
      // Runs are reported in the order they were predicted: each says whether it was calibrated.
      for (size_t i = 0; i < predicted->runs.size(); ++i)
        j["runs"][i]["calibrated"] = predicted->runs[i].prediction.calibration.has_value();
      j["calibrations"] = nlohmann::ordered_json::array();
      for (const profiler::StoredCalibration& c : AppliedCalibrations(predicted->runs))
        j["calibrations"].push_back({{"framework", c.framework},
                                     {"device_kind", c.device_kind},
                                     {"kernel_scale", c.kernel_scale},
                                     {"per_op_overhead_seconds", c.per_op_overhead.seconds()},
                                     {"per_op_overhead_threads_seconds", ThreadsJson(c)},
                                     {"per_step_overhead_seconds", c.per_step_overhead.seconds()},
                                     {"memory_passes", c.memory_passes},
                                     {"runs", c.runs},
                                     {"mape_before", c.mape_before},
                                     {"mape_after", c.mape_after},
                                     {"fitted_at", c.fitted_at},
                                     {"shipped", c.shipped},
                                     {"fitted_to", c.origin}});
    }
    std::cout << j.dump(2) << "\n";
  } else
    std::cout << ReportText(
        report,
        o.calibrated ? CalibrationLines(AppliedCalibrations(predicted->runs), predicted->runs)
                     : std::string(),
        o.hold_out_gpu);
  return kExitOk;
}

// Fold numbers for runs grouped by name, in the order the names first appear.
std::vector<int> FoldsOf(const std::vector<std::string>& names) {
  std::map<std::string, int> index;
  std::vector<int> fold;
  for (const std::string& n : names)
    fold.push_back(index.emplace(n, static_cast<int>(index.size())).first->second);
  return fold;
}

struct CalibrateOptions {
  RunInputs inputs;
  std::string profiles, catalog;
  int folds = 5;
  bool dry_run = false;
  bool keep_worse = false;
  std::string csv;        // where to write the kept calibrations as CSV, or empty
  std::string leave_out;  // "", "model", "machine" or "log": folds by group instead of by index
  double far_pass_us = validation::kFarPassUs;  // validation::PlacementOf's threshold
};

// Held-out MAPE uncalibrated and calibrated of each group of runs (`label` per run, "" for none),
// in the order of the labels.
struct HeldOutGroup {
  std::string label;
  double before = 0, after = 0;  // percent
  size_t runs = 0;
};
std::vector<HeldOutGroup> HeldOutBy(const validation::CrossValidation& cv,
                                    const std::vector<validation::CalibrationSample>& samples,
                                    const std::vector<std::string>& label) {
  std::map<std::string, std::vector<size_t>> runs_of;
  for (size_t i = 0; i < label.size(); ++i)
    if (!label[i].empty()) runs_of[label[i]].push_back(i);
  std::vector<HeldOutGroup> out;
  for (const auto& [l, runs] : runs_of) {
    std::vector<double> before, after, measured;
    for (size_t i : runs) {
      before.push_back(cv.before[i]);
      after.push_back(cv.after[i]);
      measured.push_back(samples[i].measured_seconds);
    }
    out.push_back(
        {l, validation::Mape(before, measured), validation::Mape(after, measured), runs.size()});
  }
  return out;
}

// "  held out, by TITLE: LABEL 24.6% -> 11.6% (54 runs), ...\n", or "" for fewer than two groups.
std::string HeldOutLine(const std::string& title, const std::vector<HeldOutGroup>& groups) {
  if (groups.size() < 2) return "";
  std::string out = "  held out, by " + title + ":";
  for (const HeldOutGroup& g : groups)
    out += (out.back() == ':' ? " " : ", ") + g.label + " " + Number("%.1f%%", g.before) + " -> " +
           Number("%.1f%%", g.after) + " (" + std::to_string(g.runs) +
           (g.runs == 1 ? " run)" : " runs)");
  return out + "\n";
}

// The line for the thread counts of a CPU calibration's runs (a framework's thread pools cost
// differently, docs/accuracy.md): "1 thread", "2 threads"; 0 (a GPU run) is no group.
std::string ByThreadCount(const validation::CrossValidation& cv,
                          const std::vector<validation::CalibrationSample>& samples,
                          const std::vector<int>& threads) {
  std::vector<std::string> label;
  for (int t : threads)
    label.push_back(t <= 0 ? "" : std::to_string(t) + (t == 1 ? " thread" : " threads"));
  std::vector<HeldOutGroup> groups = HeldOutBy(cv, samples, label);
  // By thread count, not by the labels' text ("10 threads" after "2 threads").
  std::sort(groups.begin(), groups.end(), [](const HeldOutGroup& a, const HeldOutGroup& b) {
    return std::stoi(a.label) < std::stoi(b.label);
  });
  return HeldOutLine("thread count", groups);
}

// The line for the vCPU placement of the multi-threaded runs that measured it
// (validation::PlacementOf), near, mixed, far in that order; "" where fewer than two states occur.
std::string ByPlacement(const validation::CrossValidation& cv,
                        const std::vector<validation::CalibrationSample>& samples,
                        const std::vector<std::string>& placement) {
  std::vector<HeldOutGroup> groups = HeldOutBy(cv, samples, placement);
  const auto rank = [](const HeldOutGroup& g) {
    return g.label == "near" ? 0 : g.label == "mixed" ? 1 : 2;
  };
  std::sort(groups.begin(), groups.end(),
            [&](const HeldOutGroup& a, const HeldOutGroup& b) { return rank(a) < rank(b); });
  return HeldOutLine("vCPU placement", groups);
}

int Calibrate(const CalibrateOptions& o) {
  if (o.folds < 2 || o.folds > 1000)
    return ReportError(Status::InvalidArgument("--folds must be from 2 to 1000"));
  if (Status st = CheckFarPassUs(o.far_pass_us); !st.ok()) return ReportError(st);
  Result<PredictedRuns> predicted = ReadAndPredict(o.inputs, o.profiles, o.catalog, false);
  if (!predicted.ok()) return ReportError(predicted.status());

  // One calibration per framework and device kind, in the order the runs name them.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<validation::CalibrationSample>> groups;
  // Each run's model, machine or run log, where --leave-out makes them the folds; and each run's
  // model.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> group_of, model_of;
  // Each run's CPU thread count (0 on a GPU or where the run does not state it).
  std::map<std::pair<std::string, std::string>, std::vector<int>> threads_of;
  // Each run's vCPU placement, where it measured one (validation::PlacementOf), else "".
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> placement_of;
  // The CPU runs whose allocator keeps its memory, fitted without memory passes.
  std::map<std::pair<std::string, std::string>, int> kept;
  // The run logs each calibration is fitted to, as the command line names them, in that order.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> logs_of;
  // The runs whose sources leave a parameter of their model unstated (RunRecord::unstated), and
  // those parameters: the network predicted is not the one that ran, so nothing is fitted to them.
  std::map<std::pair<std::string, std::string>, int> left_out;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> unstated_of;
  for (const PredictedRun& p : predicted->runs) {
    const std::pair<std::string, std::string> key(p.run.framework, p.prediction.device_kind());
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
    if (!p.run.unstated.empty()) {
      ++left_out[key];
      unstated_of[key].insert(p.run.unstated.begin(), p.run.unstated.end());
      continue;
    }
    groups[key].push_back({TermsOf(p.prediction), p.run.seconds_per_epoch});
    group_of[key].push_back(o.leave_out == "model" ? p.run.model
                            : o.leave_out == "log" ? p.run.log()
                                                   : p.run.target);
    model_of[key].push_back(p.prediction.model_name);
    threads_of[key].push_back(p.prediction.gpu ? 0 : p.run.threads);
    placement_of[key].push_back(validation::PlacementOf(p.run, o.far_pass_us));
    if (!p.prediction.gpu && p.run.allocator_keeps) ++kept[key];
    std::vector<std::string>& logs = logs_of[key];
    if (const std::string log = p.run.log(); std::find(logs.begin(), logs.end(), log) == logs.end())
      logs.push_back(log);
  }
  std::vector<profiler::StoredCalibration> fitted;
  int worse = 0, one_group = 0;
  for (const auto& key : order) {
    const std::vector<validation::CalibrationSample>& samples = groups[key];
    std::vector<const validation::CalibrationSample*> ptrs;
    for (const auto& s : samples) ptrs.push_back(&s);
    std::cout << "Calibration of " << key.first << " on " << key.second << ": " << ptrs.size()
              << (ptrs.size() == 1 ? " run" : " runs");
    if (kept[key] > 0)
      std::cout << " (" << kept[key] << " keeping their memory: no memory passes for them)";
    if (left_out[key] > 0)
      std::cout << " (" << left_out[key] << " more left out: "
                << (left_out[key] == 1 ? "its source leaves " : "their sources leave ")
                << CommaList({unstated_of[key].begin(), unstated_of[key].end()}) << " unstated)";
    if (ptrs.empty()) {
      std::cout << ", not fitted: no run to fit\n";
      continue;
    }
    const std::vector<int> folds = FoldsOf(group_of[key]);
    if (!o.leave_out.empty() && *std::max_element(folds.begin(), folds.end()) == 0) {
      std::cout << ", not fitted: all on one " << o.leave_out << ", which leaves --leave-out "
                << o.leave_out << " nothing to hold out\n";
      ++one_group;
      continue;
    }
    Result<validation::CrossValidation> cv = o.leave_out.empty()
                                                 ? validation::CrossValidate(ptrs, o.folds)
                                                 : validation::CrossValidateFolds(ptrs, folds);
    Result<validation::Correction> c = validation::FitCorrection(ptrs);
    if (!cv.ok() || !c.ok()) {
      std::cout << ", not fitted: " << (!c.ok() ? c.status() : cv.status()).message() << "\n";
      continue;
    }
    std::cout << ", " << cv->folds
              << (o.leave_out.empty() ? "-fold cross-validation"
                                      : "-fold cross-validation, one " + o.leave_out + " per fold")
              << "\n"
              << "  " << CorrectionText(*c) << " (fitted on all " << ptrs.size() << " runs)\n"
              << "  held-out MAPE " << Number("%.1f%%", cv->mape_before) << " uncalibrated -> "
              << Number("%.1f%%", cv->mape_after) << " calibrated; worst |error| "
              << Number("%.1f%%", cv->worst_before) << " -> " << Number("%.1f%%", cv->worst_after)
              << "\n"
              << ByThreadCount(*cv, samples, threads_of[key])
              << ByPlacement(*cv, samples, placement_of[key]);
    const std::vector<HeldOutGroup> per_model = HeldOutBy(*cv, samples, model_of[key]);
    std::cout << HeldOutLine("model", per_model);
    // Each machine's (or log's) runs as its own fold predicted them: whether the correction
    // carries to a machine it has not seen, or to runs taken at another time.
    if (o.leave_out == "machine" || o.leave_out == "log")
      std::cout << HeldOutLine(o.leave_out, HeldOutBy(*cv, samples, group_of[key]));
    // A correction that predicts runs it was not fitted to worse than no correction is not kept.
    if (cv->mape_after >= cv->mape_before && !o.keep_worse) {
      std::cout << "  not kept: it predicts the held-out runs worse than no calibration "
                   "(--keep-worse keeps it)\n";
      ++worse;
      continue;
    }
    // For --csv (the shipped calibrations): the models it was fitted to, and whether it carries
    // to a model it has not seen, one model held out at a time.
    std::string origin, models, models_worse;
    for (const std::string& log : logs_of[key]) origin += (origin.empty() ? "" : " ") + log;
    std::optional<validation::CrossValidation> by_model;
    if (!o.csv.empty()) {
      // A shipped calibration is not applied to a model of its fit whose runs it predicted worse
      // than no calibration, held out.
      std::string names;
      for (const HeldOutGroup& g : per_model)
        if (g.after > g.before) {
          models_worse += (models_worse.empty() ? "" : " ") + g.label + "=" +
                          Number("%.1f", g.before) + "/" + Number("%.1f", g.after);
          names += (names.empty() ? "" : ", ") + g.label;
        }
      if (!names.empty())
        std::cout << "  shipped, not applied to " << names
                  << " (held out, their runs predicted worse than uncalibrated)\n";
      for (const std::string& m : std::set<std::string>(model_of[key].begin(), model_of[key].end()))
        models += (models.empty() ? "" : " ") + m;
      const std::vector<int> model_folds = FoldsOf(model_of[key]);
      if (*std::max_element(model_folds.begin(), model_folds.end()) > 0) {
        Result<validation::CrossValidation> m = validation::CrossValidateFolds(ptrs, model_folds);
        if (m.ok()) {
          by_model = *m;
          std::cout << "  one model held out at a time (" << m->folds << " models): held-out MAPE "
                    << Number("%.1f%%", m->mape_before) << " uncalibrated -> "
                    << Number("%.1f%%", m->mape_after) << " calibrated\n";
        }
      }
    }
    fitted.push_back(
        {.framework = key.first,
         .device_kind = key.second,
         .kernel_scale = c->kernel_scale,
         .per_op_overhead = c->per_op_overhead,
         .runs = static_cast<int>(ptrs.size()),
         .folds = cv->folds,
         .mape_before = cv->mape_before,
         .mape_after = cv->mape_after,
         .fitted_at = TodayIso(),
         .origin = origin,
         .per_step_overhead = c->per_step_overhead,
         .memory_passes = c->memory_passes,
         .models = models,
         .model_mape_before = by_model ? std::optional(by_model->mape_before) : std::nullopt,
         .model_mape_after = by_model ? std::optional(by_model->mape_after) : std::nullopt,
         .models_worse = models_worse,
         .per_op_overhead_threads = c->per_op_overhead_threads});
  }
  if (fitted.empty())
    return ReportError(Status::InvalidArgument(
        worse > 0 ? "no calibration predicted its held-out runs better than none; nothing stored"
        : one_group > 0 ? "no calibration fitted (see above): with --leave-out " + o.leave_out +
                              " a framework's runs must span two " + o.leave_out + "s or more"
                        : "no framework had enough runs to calibrate"));
  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    out << profiler::CalibrationsCsv(fitted);
    if (!out) return ReportError(Status::IoError(o.csv + ": cannot write the calibrations"));
    std::cout << "Wrote " << fitted.size() << " calibration" << (fitted.size() == 1 ? "" : "s")
              << " to " << o.csv << ".\n";
  }
  if (o.dry_run) {
    std::cout << "Dry run: nothing stored.\n";
    return kExitOk;
  }
  if (Status s = predicted->predictor->profiles().PutCalibrations(fitted); !s.ok())
    return ReportError(s);
  std::cout << "Stored " << fitted.size() << " calibration" << (fitted.size() == 1 ? "" : "s")
            << "; predict and recommend apply one with --framework NAME.\n";
  return kExitOk;
}

}  // namespace

void RegisterValidateCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* v = app.add_subcommand(
      "validate", "Compare predictions with real training runs (time and cost per epoch)");
  AddRunInputOptions(v, &o->inputs);
  v->add_flag("--calibrated", o->calibrated,
              "Apply the stored calibration of each run's framework, where there is one");
  v->add_flag("--hold-out-gpu", o->hold_out_gpu,
              "Predict each GPU run from the other GPUs' profiles only, as if its GPU had never "
              "been measured (a GPU not profiled)");
  v->add_option("--plot", o->plot, "Write predicted vs measured (SVG, log axes)");
  v->add_flag("--json", o->json, "Print JSON");
  v->add_option("--far-pass-us", o->far_pass_us,
                "A multi-threaded run whose parallel pass (run-log columns parallel_pass_us_*) "
                "cost at least this many microseconds ran on far-apart vCPUs (default 2)");
  v->add_option("--profiles", o->profiles, "Profile database");
  v->add_option("--catalog", o->catalog, "Catalog database");
  v->footer("Example:\n  epochcost validate @published-runs --plot published.svg");
  v->callback([run, o] { *run = [o] { return Validate(*o); }; });
}

void RegisterCalibrateCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* c = app.add_subcommand(
      "calibrate",
      "Fit each framework's kernel scale, per-op and per-step overhead and, on CPUs, memory passes "
      "to real runs (docs/calibration.md)");
  AddRunInputOptions(c, &o->inputs);
  CLI::Option* folds = c->add_option("--folds", o->folds, "Cross-validation folds (default 5)");
  c->add_option("--leave-out", o->leave_out,
                "Cross-validate with one model, one machine or one run log per fold instead of "
                "--folds")
      ->check(CLI::IsMember({"model", "machine", "log"}))
      ->excludes(folds);
  c->add_flag("--dry-run", o->dry_run, "Report the fit and its cross-validation; store nothing");
  c->add_flag("--keep-worse", o->keep_worse,
              "Keep a calibration even where it predicts the held-out runs worse than none");
  c->add_option("--csv", o->csv,
                "Also write the kept calibrations to this CSV file (docs/calibration.md)");
  c->add_option("--far-pass-us", o->far_pass_us,
                "As validate's: the parallel pass of a run on far-apart vCPUs, for the held-out "
                "figures by vCPU placement (default 2)");
  c->add_option("--profiles", o->profiles, "Profile database (where calibrations are stored)");
  c->add_option("--catalog", o->catalog, "Catalog database");
  c->footer("Example:\n  epochcost calibrate @published-runs --folds 5 --dry-run");
  c->callback([run, o] { *run = [o] { return Calibrate(*o); }; });
}

}  // namespace epochcost::cli
