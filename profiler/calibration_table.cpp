#include "profiler/calibration_table.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <sstream>

#include "engine/csv.h"

namespace epochcost {
// Generated from data/calibrations/*.csv (scripts/embed_files.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& ShippedCalibrationFiles();
}  // namespace epochcost

namespace epochcost::profiler {
namespace {

// models_worse, memory_passes and per_op_overhead_threads_us may be missing (files written before
// they existed); per_op_overhead_threads_us is empty where one overhead is fitted for all.
// clang-format off
constexpr const char* kColumns[] = {
    "framework", "device_kind", "kernel_scale", "per_op_overhead_us", "per_step_overhead_ms",
    "runs", "folds", "mape_before", "mape_after", "fitted_at", "origin", "models",
    "model_mape_before", "model_mape_after", "models_worse", "memory_passes",
    "per_op_overhead_threads_us"};
// clang-format on
bool Optional(const std::string& column) {
  return column == "models_worse" || column == "memory_passes" ||
         column == "per_op_overhead_threads_us";
}

std::string G6(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::string Quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A finite number, at least `min` (and a whole one where `whole`).
Result<double> NumberAtLeast(const std::string& text, const char* column, double min,
                             bool whole = false) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
    return Status::InvalidArgument(std::string(column) + " '" + text + "' is not a number");
  if (v < min || (whole && v != std::floor(v)))
    return Status::InvalidArgument(std::string(column) + " " + text + " is not " +
                                   (whole ? "a whole number " : "") + "at least " + G6(min));
  return v;
}

Result<StoredCalibration> ReadRow(const CsvTable& t, const CsvRecord& r) {
  auto field = [&](const char* name) { return r.fields[*t.Column(name)]; };
  StoredCalibration c;
  c.framework = field("framework");
  if (c.framework.empty()) return Status::InvalidArgument("framework is empty");
  c.device_kind = field("device_kind");
  if (c.device_kind != "cpu" && c.device_kind != "gpu")
    return Status::InvalidArgument("device_kind '" + c.device_kind + "' is not cpu or gpu");
  struct Number {
    const char* column;
    double min;
    bool whole;
    double* out;
  };
  double scale = 0, op_us = 0, step_ms = 0, runs = 0, folds = 0;
  for (const Number& n :
       {Number{"kernel_scale", 0, false, &scale}, Number{"per_op_overhead_us", 0, false, &op_us},
        Number{"per_step_overhead_ms", 0, false, &step_ms}, Number{"runs", 3, true, &runs},
        Number{"folds", 2, true, &folds}, Number{"mape_before", 0, false, &c.mape_before},
        Number{"mape_after", 0, false, &c.mape_after}}) {
    Result<double> v = NumberAtLeast(field(n.column), n.column, n.min, n.whole);
    if (!v.ok()) return v.status();
    *n.out = *v;
  }
  if (scale == 0) return Status::InvalidArgument("kernel_scale 0 is not positive");
  c.kernel_scale = scale;
  c.per_op_overhead = Seconds::FromMicroseconds(op_us);
  c.per_step_overhead = Seconds::FromMilliseconds(step_ms);
  if (t.Column("memory_passes").ok()) {
    Result<double> passes = NumberAtLeast(field("memory_passes"), "memory_passes", 0);
    if (!passes.ok()) return passes.status();
    c.memory_passes = *passes;
  }
  if (t.Column("per_op_overhead_threads_us").ok() && !field("per_op_overhead_threads_us").empty()) {
    Result<double> us =
        NumberAtLeast(field("per_op_overhead_threads_us"), "per_op_overhead_threads_us", 0);
    if (!us.ok()) return us.status();
    c.per_op_overhead_threads = Seconds::FromMicroseconds(*us);
  }
  c.runs = static_cast<int>(runs);
  c.folds = static_cast<int>(folds);
  c.fitted_at = field("fitted_at");
  c.origin = field("origin");
  c.models = field("models");
  // Files written before the column existed have none: every model of the fit applies.
  if (t.Column("models_worse").ok()) c.models_worse = field("models_worse");
  Result<std::map<std::string, std::pair<double, double>>> worse =
      StoredCalibration::ParseModelsWorse(c.models_worse);
  if (!worse.ok()) return worse.status();
  for (const auto& [model, figures] : *worse)
    if (!c.Models().contains(model))
      return Status::InvalidArgument("models_worse: " + model + " is not among its models");
  // Both or neither: a calibration judged with one model per fold, or one that was not.
  const std::string before = field("model_mape_before"), after = field("model_mape_after");
  if (before.empty() != after.empty())
    return Status::InvalidArgument("model_mape_before and model_mape_after: one is empty");
  if (!before.empty()) {
    Result<double> b = NumberAtLeast(before, "model_mape_before", 0);
    if (!b.ok()) return b.status();
    Result<double> a = NumberAtLeast(after, "model_mape_after", 0);
    if (!a.ok()) return a.status();
    c.model_mape_before = *b;
    c.model_mape_after = *a;
  }
  return c;
}

}  // namespace

std::string CalibrationsCsv(const std::vector<StoredCalibration>& cs) {
  std::ostringstream out;
  for (size_t i = 0; i < std::size(kColumns); ++i) out << (i == 0 ? "" : ",") << kColumns[i];
  out << "\n";
  for (const StoredCalibration& c : cs)
    out << c.framework << "," << c.device_kind << "," << G6(c.kernel_scale) << ","
        << G6(c.per_op_overhead.seconds() * 1e6) << "," << G6(c.per_step_overhead.seconds() * 1e3)
        << "," << c.runs << "," << c.folds << "," << G6(c.mape_before) << "," << G6(c.mape_after)
        << "," << c.fitted_at << "," << Quoted(c.origin) << "," << Quoted(c.models) << ","
        << (c.model_mape_before ? G6(*c.model_mape_before) : "") << ","
        << (c.model_mape_after ? G6(*c.model_mape_after) : "") << "," << Quoted(c.models_worse)
        << "," << G6(c.memory_passes) << ","
        << (c.per_op_overhead_threads ? G6(c.per_op_overhead_threads->seconds() * 1e6) : "")
        << "\n";
  return out.str();
}

Result<std::vector<StoredCalibration>> ParseCalibrationsCsv(std::string_view text,
                                                            const std::string& origin) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  for (const char* column : kColumns)
    if (Result<int> c = t->Column(column); !c.ok() && !Optional(column)) return c.status();
  std::vector<StoredCalibration> out;
  for (const CsvRecord& r : t->records()) {
    Result<StoredCalibration> c = ReadRow(*t, r);
    if (!c.ok()) return c.status().WithContext(origin + ":" + std::to_string(r.line));
    for (const StoredCalibration& seen : out)
      if (seen.framework == c->framework && seen.device_kind == c->device_kind)
        return Status::InvalidArgument(origin + ":" + std::to_string(r.line) + ": a second " +
                                       c->framework + " calibration on " + c->device_kind);
    out.push_back(*c);
  }
  return out;
}

Result<std::vector<StoredCalibration>> ShippedCalibrations() {
  // Parsed once: every calibration lookup (one per run `validate --calibrated` predicts) asks.
  static const Result<std::vector<StoredCalibration>> shipped =
      []() -> Result<std::vector<StoredCalibration>> {
    std::vector<StoredCalibration> out;
    for (const auto& [stem, text] : ShippedCalibrationFiles()) {
      Result<std::vector<StoredCalibration>> cs =
          ParseCalibrationsCsv(text, "data/calibrations/" + std::string(stem) + ".csv");
      if (!cs.ok()) return cs.status();
      for (StoredCalibration& c : *cs) {
        c.shipped = true;
        out.push_back(std::move(c));
      }
    }
    return out;
  }();
  return shipped;
}

}  // namespace epochcost::profiler
