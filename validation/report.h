// What `epochcost validate` reports: each run's predicted and measured time and cost per epoch,
// and the summaries (docs/accuracy.md): MAPE and worst case per prediction path, per model
// family, per device kind, per precision and per run log; per model (and framework build), Kendall's tau between
// predicted and measured cost rankings and whether the predicted cheapest configuration is the
// measured one; for runs without prices, the same of their time rankings, per model, build and
// precision.
#ifndef EPOCHCOST_VALIDATION_REPORT_H_
#define EPOCHCOST_VALIDATION_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/model.h"
#include "validation/run_log.h"

namespace epochcost::validation {

// "transformer", "recurrent", "convolutional", "embedding" or "dense", by the model's layers (the
// first of these that it has).
std::string ModelFamily(const Model& model);

struct RunResult {
  RunRecord run;
  std::string family;
  std::string device_kind;  // "cpu" or "gpu"
  std::string path;         // "same device", "scaled from DEVICE", "analytic"
  double predicted_seconds = 0, measured_seconds = 0;
  double error_percent = 0;
  std::optional<double> predicted_usd, measured_usd;  // per epoch, at the run's price
  // Where the run states its faults per step and what a fault costs (page_fault_us, measured on
  // the run's machine), or is predicted on the device it ran on with a profile that measured
  // page_fault_seconds: the faults' seconds per epoch at that price (not in predicted_seconds),
  // the price in microseconds, and whether it is the run's own.
  std::optional<double> page_fault_seconds;
  double page_fault_price_us = 0;
  bool page_fault_price_from_run = false;
};

// Where a multi-threaded CPU run's vCPUs sat, from the parallel-pass cost it measured before and
// after its steps (RunRecord::parallel_pass_us_before, _after): "near" where both are below
// `far_pass_us`, "far" where both are at or above it, "mixed" where the VM moved them during the
// run; "" for a run that does not state both, or ran on one thread.
std::string PlacementOf(const RunRecord& r, double far_pass_us);
// The default threshold: on the tenth Zen 4 VM ATen's pass read 0.86-1.75 us when a cache line
// took ~60 ns between the two vCPUs and back, 2.6-3.6 us when it took ~370 ns (docs/accuracy.md,
// "Near and far vCPUs").
constexpr double kFarPassUs = 2.0;

struct GroupSummary {
  std::string name;
  int runs = 0;
  double mape = 0, worst = 0;  // percent; worst is the signed error of largest magnitude
  int within_10 = 0;           // runs whose |error| is at most 10%
  double mean_error = 0;       // percent, signed: above 0, predicted too slow on average
};

// A group's ranking by cost per epoch (runs with prices), or by seconds per epoch (runs without:
// then "cheapest" reads "fastest").
struct Ranking {
  std::string group;  // model, framework and version (and precision, by time)
  int configs = 0;    // distinct configurations, each at the median of its runs (RankingOf)
  double tau = 0;
  std::string predicted_cheapest, measured_cheapest;  // run labels
  bool hit = false;
  double miss_percent = 0;  // measured cost (time) of the predicted choice over the measured best
};

// One configuration of RepeatedRuns below, measured more than once.
struct RepeatedConfig {
  RunRecord run;  // its first run, which names it
  int runs = 0;
  double slowest_over_fastest = 0;  // the longest measured epoch over the shortest
  double floor_mape = 0, mape = 0;  // percent, over this configuration's runs
  double mean_error_percent = 0;    // signed: above 0, predicted too slow on average
};

// Runs of one configuration (model, machine, batch, precision, layout, optimizer, recurrent
// layers, ISA, threads, GPUs, samples, framework and version) measured more than once. A
// prediction gives such a configuration one value, so how far its runs lie apart bounds what any
// prediction can reach on them: `floor_mape` is the MAPE with each configuration at its
// BestSingleValue, `mape` these predictions' on the same runs.
struct RepeatedRuns {
  int runs = 0;                     // in configurations measured more than once
  int configs = 0;                  // those configurations
  int fewest = 0, most = 0;         // the fewest and the most runs of one of them
  double floor_mape = 0, mape = 0;  // percent
  // Each configuration, in the order its first run came: which of them the predictions miss by
  // more than their runs' spread allows.
  std::vector<RepeatedConfig> by_config;
};

struct ValidationReport {
  std::vector<RunResult> results;
  GroupSummary all;
  std::vector<GroupSummary> by_path, by_family, by_kind, by_precision;
  // By what the host allocator does with a step's freed memory (RunRecord::allocator_keeps):
  // "keeps" or "returns".
  std::vector<GroupSummary> by_allocator;
  // By the run log each run was read from (RunRecord::log): logs of the same machine taken at
  // different times show by their mean error how fast the machine was then.
  std::vector<GroupSummary> by_log;
  // By PlacementOf, near, mixed, far in that order, of the runs that have one (none: empty).
  std::vector<GroupSummary> by_placement;
  double far_pass_us = kFarPassUs;  // the threshold by_placement used
  std::vector<Ranking> rankings;  // groups with at least two priced configurations
  // Groups with at least two configurations none of which has a price, ranked by time: a
  // recommender ranks their machines by it where prices are equal or unknown.
  std::vector<Ranking> time_rankings;
  std::optional<RepeatedRuns> repeated;  // none when no configuration was measured twice
};

ValidationReport Summarise(std::vector<RunResult> results, double far_pass_us = kFarPassUs);

// One group's MAPE, worst signed error and runs within 10%, named `name`.
GroupSummary SummaryOf(const std::string& name, const std::vector<const RunResult*>& runs);

// How a run's machine is named in reports: its label, else its target.
std::string RunLabel(const RunRecord& r);

}  // namespace epochcost::validation

#endif  // EPOCHCOST_VALIDATION_REPORT_H_
