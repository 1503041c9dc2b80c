#include "validation/run_log.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include "engine/csv.h"
#include "engine/device_specs.h"
#include "engine/lowering.h"
#include "engine/machine.h"
#include "validation/published_runs.h"

namespace epochcost {
// Generated from data/validation/*.csv (scripts/embed_files.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& ShippedRunLogs();
}  // namespace epochcost

namespace epochcost::validation {

Result<double> ParsePositive(const std::string& text, const std::string& column) {
  if (text.empty()) return Status::InvalidArgument(column + " is empty");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v))
    return Status::InvalidArgument(column + " '" + text + "' is not a number");
  if (v <= 0) return Status::InvalidArgument(column + " " + text + " is not positive");
  return v;
}

namespace {

// The most samples an epoch of a run may count (as `predict --samples`), and the longest epoch a
// run may report: kMaxSamples (engine/model.h), 1e9 seconds (31 years).
constexpr double kMaxEpochSeconds = 1e9;
// The dearest page fault a run may report: 1 ms per 4 KiB (the VMs measured 1.6-12 us).
constexpr double kMaxPageFaultUs = 1000;
// The dearest parallel pass a run may report: 1 ms (the tenth Zen 4 VM measured 0.9-3.6 us).
constexpr double kMaxParallelPassUs = 1000;

// A positive number of seconds, at most kMaxEpochSeconds.
Result<double> ParseSeconds(const std::string& text, const std::string& column) {
  Result<double> v = ParsePositive(text, column);
  if (v.ok() && *v > kMaxEpochSeconds)
    return Status::InvalidArgument(column + " " + text + " is absurd (at most 1e9 seconds)");
  return v;
}

// The whole of `text` as a number from 0 to `max`, or nothing.
std::optional<double> NumberFromZeroTo(const std::string& text, double max) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= 0) || v > max) return {};
  return v;
}

}  // namespace

Status ParseTimesAndPrice(const std::function<std::string(const char*)>& field,
                          const char* usd_column, RunRecord& run) {
  Result<double> secs = ParseSeconds(field("seconds_per_epoch"), "seconds_per_epoch");
  if (!secs.ok()) return secs.status();
  run.seconds_per_epoch = *secs;
  if (!field("first_epoch_seconds").empty()) {
    Result<double> first = ParseSeconds(field("first_epoch_seconds"), "first_epoch_seconds");
    if (!first.ok()) return first.status();
    run.first_epoch_seconds = *first;
  }
  if (!field(usd_column).empty()) {
    Result<double> usd = ParsePositive(field(usd_column), usd_column);
    if (!usd.ok()) return usd.status();
    EPOCHCOST_RETURN_IF_ERROR(CheckUsdPerHour(
        *usd, std::string(usd_column) + " " + field(usd_column)));  // as a price file's
    run.usd_per_hour = *usd;
  }
  return Status::Ok();
}

Result<int64_t> ParsePositiveCount(const std::string& text, const std::string& column) {
  Result<double> v = ParsePositive(text, column);
  if (!v.ok()) return v.status();
  if (*v != std::floor(*v) || *v > 1e15)
    return Status::InvalidArgument(column + " '" + text + "' is not a whole number");
  return static_cast<int64_t>(*v);
}

// Column unstated: parameter names (a letter or '_', then letters, digits or '_') separated by
// ';', each once; empty: none.
Result<std::vector<std::string>> ParseUnstated(const std::string& text) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  std::vector<std::string> names;
  if (text.empty()) return names;
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ';');) {
    if (!std::regex_match(name, kName))
      return Status::InvalidArgument("unstated '" + text +
                                     "' is not a list of parameter names separated by ';'");
    if (std::find(names.begin(), names.end(), name) != names.end())
      return Status::InvalidArgument("unstated '" + text + "' names '" + name + "' twice");
    names.push_back(name);
  }
  if (text.back() == ';')
    return Status::InvalidArgument("unstated '" + text +
                                   "' is not a list of parameter names separated by ';'");
  return names;
}

Result<int64_t> ParseCount(const std::string& text, const std::string& column) {
  if (text.empty() || text == "0") return int64_t{0};
  return ParsePositiveCount(text, column);
}

Result<RunColumns> RunColumns::Of(const CsvTable& t, std::initializer_list<const char*> required,
                                  std::initializer_list<const char*> optional) {
  RunColumns out;
  for (const char* name : required) {
    Result<int> c = t.Column(name);
    if (!c.ok()) return c.status();
    out.index_[name] = *c;
  }
  for (const char* name : optional) out.index_[name] = t.HasColumn(name) ? *t.Column(name) : -1;
  return out;
}

std::string RunColumns::operator()(const CsvRecord& r, const std::string& name) const {
  const int c = index_.at(name);
  return c < 0 ? std::string() : r.fields[c];
}

Result<RunLog> ReadRuns(const CsvTable& t, const std::string& origin, bool skip_bad,
                        const std::function<Status(const CsvRecord&, RunRecord&)>& read) {
  RunLog log;
  for (const CsvRecord& r : t.records()) {
    RunRecord run;
    run.origin = origin + ":" + std::to_string(r.line);
    const Status s = read(r, run);
    if (s.ok()) {
      log.runs.push_back(std::move(run));
      continue;
    }
    Status located = s.WithContext(run.origin);
    if (!skip_bad) return located;
    log.skipped.push_back(located.message());
  }
  if (log.runs.empty() && log.skipped.empty())
    return Status::InvalidArgument(origin + ": no runs (a header and no records)");
  return log;
}

Result<RunLog> ParseRunLog(std::string_view text, const std::string& origin, bool skip_bad) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  if (IsPublishedRunsTable(*t)) return ParsePublishedRuns(*t, origin, skip_bad);
  Result<RunColumns> col =
      RunColumns::Of(*t, {"model", "target", "batch", "samples", "seconds_per_epoch", "framework"},
                     {"kind", "label", "precision", "optimizer", "rnn", "layout", "isa", "threads",
                      "gpus", "val_samples", "first_epoch_seconds", "usd_per_hour",
                      "framework_version", "source", "faults_per_step", "allocator",
                      "input_ms_per_sample", "page_fault_us", "parallel_pass_us_before",
                      "parallel_pass_us_after", "unstated"});
  if (!col.ok()) return col.status();
  return ReadRuns(*t, origin, skip_bad, [&](const CsvRecord& r, RunRecord& run) -> Status {
    auto field = [&](const char* name) { return (*col)(r, name); };
    run.model = field("model");
    run.target = field("target");
    run.framework = field("framework");
    if (run.model.empty()) return Status::InvalidArgument("model is empty");
    if (run.target.empty()) return Status::InvalidArgument("target is empty");
    if (run.framework.empty()) return Status::InvalidArgument("framework is empty");
    if (!field("kind").empty()) run.kind = field("kind");
    if (run.kind != "on-demand" && run.kind != "preemptible" && run.kind != "spot")
      return Status::InvalidArgument("kind '" + run.kind +
                                     "' is not on-demand, preemptible or spot");
    if (!field("precision").empty()) run.precision = field("precision");
    run.label = field("label");
    run.optimizer = field("optimizer");
    run.rnn = field("rnn");
    if (!run.rnn.empty() && !ParseRnnLowering(run.rnn).ok())
      return Status::InvalidArgument("rnn '" + run.rnn + "' is not aten, unrolled or fused");
    const std::string layout = field("layout");
    if (!layout.empty() && layout != "nchw" && layout != "nhwc")
      return Status::InvalidArgument("layout '" + layout + "' is not nchw or nhwc");
    run.channels_last = layout == "nhwc";
    run.isa = field("isa");
    if (!run.isa.empty()) {
      Result<VectorIsa> isa = ParseVectorIsa(run.isa);
      if (!isa.ok()) return isa.status().WithContext("isa");
    }
    run.framework_version = field("framework_version");
    run.source = field("source");
    Result<int64_t> batch = ParsePositiveCount(field("batch"), "batch");
    if (!batch.ok()) return batch.status();
    run.batch = *batch;
    Result<int64_t> samples = ParsePositiveCount(field("samples"), "samples");
    if (!samples.ok()) return samples.status();
    run.samples = *samples;
    Result<int64_t> val = ParseCount(field("val_samples"), "val_samples");
    if (!val.ok()) return val.status();
    run.val_samples = *val;
    for (const auto& [column, count] :
         {std::pair{"samples", run.samples}, {"val_samples", run.val_samples}})
      if (count > kMaxSamples)
        return Status::InvalidArgument(std::string(column) + " " + field(column) +
                                       " is absurd (at most 1e12)");
    Result<int64_t> threads = ParseCount(field("threads"), "threads");
    if (!threads.ok()) return threads.status();
    Result<int64_t> gpus = ParseCount(field("gpus"), "gpus");
    if (!gpus.ok()) return gpus.status();
    if (*threads > 4096 || *gpus > 64)
      return Status::InvalidArgument("threads or gpus out of range (at most 4096 and 64)");
    run.threads = static_cast<int>(*threads);
    run.gpus = static_cast<int>(*gpus);
    if (Status st = ParseTimesAndPrice(field, "usd_per_hour", run); !st.ok()) return st;
    if (!field("faults_per_step").empty()) {  // 0 is a count here, not "not stated"
      Result<int64_t> faults = ParseCount(field("faults_per_step"), "faults_per_step");
      if (!faults.ok())
        return Status::InvalidArgument("faults_per_step '" + field("faults_per_step") +
                                       "' is not a whole number of 0 or more");
      run.faults_per_step = *faults;
    }
    if (const std::string price = field("page_fault_us"); !price.empty()) {
      Result<double> us = ParsePositive(price, "page_fault_us");
      if (!us.ok() || *us > kMaxPageFaultUs)
        return Status::InvalidArgument("page_fault_us '" + price +
                                       "' is not a number of microseconds above 0 and at most "
                                       "1000");
      run.page_fault_us = *us;
    }
    for (auto [column, value] : {std::pair{"parallel_pass_us_before", &run.parallel_pass_us_before},
                                 {"parallel_pass_us_after", &run.parallel_pass_us_after}}) {
      const std::string text = field(column);
      if (text.empty()) continue;
      *value = NumberFromZeroTo(text, kMaxParallelPassUs);
      if (!*value)
        return Status::InvalidArgument(std::string(column) + " '" + text +
                                       "' is not a number of microseconds from 0 to 1000");
    }
    if (run.parallel_pass_us_before.has_value() != run.parallel_pass_us_after.has_value())
      return Status::InvalidArgument(
          run.parallel_pass_us_before
              ? "parallel_pass_us_after is empty where parallel_pass_us_before is given"
              : "parallel_pass_us_before is empty where parallel_pass_us_after is given");
    const std::string allocator = field("allocator");
    if (!allocator.empty() && allocator != "keeps" && allocator != "returns")
      return Status::InvalidArgument("allocator '" + allocator + "' is not keeps or returns");
    run.allocator_keeps = allocator == "keeps";
    if (const std::string input = field("input_ms_per_sample"); !input.empty()) {
      const std::optional<double> ms = NumberFromZeroTo(input, kMaxInputPerSampleMs);
      if (!ms)
        return Status::InvalidArgument("input_ms_per_sample '" + input +
                                       "' is not a number of milliseconds from 0 to 600000");
      run.input_ms_per_sample = *ms;
    }
    Result<std::vector<std::string>> unstated = ParseUnstated(field("unstated"));
    if (!unstated.ok()) return unstated.status();
    run.unstated = *std::move(unstated);
    return Status::Ok();
  });
}

Result<std::string_view> ShippedRunLog(const std::string& stem) {
  for (const auto& [name, text] : ShippedRunLogs())
    if (name == stem) return text;
  std::string known;
  for (const std::string& n : ShippedRunLogNames()) known += (known.empty() ? "@" : ", @") + n;
  return Status::NotFound("@" + stem + ": no such shipped run log (there are " + known + ")");
}

std::vector<std::string> ShippedRunLogNames() {
  std::vector<std::string> out;
  for (const auto& [name, text] : ShippedRunLogs()) out.emplace_back(name);
  return out;
}

std::vector<std::string> ShippedRunLogsOf(const std::string& framework, const std::string& kind) {
  const auto matches = [&](const RunRecord& r) {
    const bool gpu = r.gpus > 0 || r.target.starts_with("gpu:");
    return r.framework == framework && (kind.empty() || kind == (gpu ? "gpu" : "cpu"));
  };
  std::vector<std::string> out;
  for (const auto& [name, text] : ShippedRunLogs()) {
    Result<RunLog> log = ParseRunLog(text, "@" + std::string(name), /*skip_bad=*/true);
    if (log.ok() && std::any_of(log->runs.begin(), log->runs.end(), matches))
      out.emplace_back(name);
  }
  return out;
}

Result<KerasLogTimes> ParseKerasLog(std::string_view text, const std::string& origin,
                                    const std::string& column) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  int c = -1;
  if (!column.empty()) {
    Result<int> named = t->Column(column);
    if (!named.ok()) return named.status();
    c = *named;
  } else {
    for (const char* name : {"elapsed", "time", "seconds", "epoch_time"})
      if (t->HasColumn(name)) {
        c = *t->Column(name);
        break;
      }
    if (c < 0)
      return Status::InvalidArgument(origin +
                                     ":1: no elapsed-seconds column (elapsed, time, seconds or "
                                     "epoch_time); name it with --elapsed-column");
  }
  std::vector<double> epochs;
  for (const CsvRecord& r : t->records()) {
    Result<double> v = ParseSeconds(r.fields[c], t->header()[c]);
    if (!v.ok()) return v.status().WithContext(origin + ":" + std::to_string(r.line));
    epochs.push_back(*v);
  }
  if (epochs.empty()) return Status::InvalidArgument(origin + ": no epochs (a header only)");
  KerasLogTimes out;
  out.epochs = static_cast<int>(epochs.size());
  out.first_epoch_seconds = epochs.front();
  std::vector<double> later(epochs.size() > 1 ? epochs.begin() + 1 : epochs.begin(), epochs.end());
  std::sort(later.begin(), later.end());
  const size_t n = later.size();
  out.seconds_per_epoch = n % 2 ? later[n / 2] : (later[n / 2 - 1] + later[n / 2]) / 2;
  return out;
}

}  // namespace epochcost::validation
