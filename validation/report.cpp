#include "validation/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "validation/statistics.h"

namespace epochcost::validation {
namespace {

template <typename KeyFn>
std::vector<GroupSummary> GroupBy(const std::vector<RunResult>& results, KeyFn key) {
  std::map<std::string, std::vector<const RunResult*>> groups;
  for (const RunResult& r : results) groups[key(r)].push_back(&r);
  std::vector<GroupSummary> out;
  for (const auto& [name, rs] : groups) out.push_back(SummaryOf(name, rs));
  return out;
}

// One configuration of a run (RepeatedRuns): model, machine, batch, precision, layout, optimizer,
// recurrent layers, ISA, threads, GPUs, samples, framework and version, allocator.
std::string ConfigurationOf(const RunRecord& x) {
  return x.model + "|" + x.target + "|" + std::to_string(x.batch) + "|" + PrecisionLabel(x) + "|" +
         x.optimizer + "|" + x.rnn + "|" + x.isa + "|" + std::to_string(x.threads) + "|" +
         std::to_string(x.gpus) + "|" + std::to_string(x.samples) + "|" +
         std::to_string(x.val_samples) + "|" + x.framework + "|" + x.framework_version + "|" +
         x.allocator();
}

// The runs grouped by `key` (empty: left out), groups in first-seen order.
template <typename KeyFn>
std::vector<std::pair<std::string, std::vector<const RunResult*>>> GroupsOf(
    const std::vector<const RunResult*>& runs, KeyFn key) {
  std::vector<std::pair<std::string, std::vector<const RunResult*>>> groups;
  for (const RunResult* r : runs) {
    const std::string k = key(*r);
    if (k.empty()) continue;
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
    if (it == groups.end()) it = groups.insert(groups.end(), {k, {}});
    it->second.push_back(r);
  }
  return groups;
}

// Kendall's tau of `value` predicted against measured over a group's configurations, and whether
// the configuration predicted best (lowest) is the measured best; runs the report names apart
// (RunLabel) are configurations apart. A configuration measured more than once (several logs of one
// machine) is ranked once, at the median of its runs' values: ranked run by run, its runs were
// ranked against each other, and the predicted best run, one of its logs, was "wrong" against the
// same configuration's faster run in another log.
template <typename ValueFn>
Ranking RankingOf(const std::string& key, const std::vector<const RunResult*>& rs, ValueFn value) {
  const auto configs = GroupsOf(
      rs, [](const RunResult& r) { return ConfigurationOf(r.run) + "|" + RunLabel(r.run); });
  Ranking k{.group = key, .configs = static_cast<int>(configs.size())};
  std::vector<double> predicted, measured;
  for (const auto& [config, runs] : configs) {
    std::vector<double> p, m;
    for (const RunResult* r : runs) {
      const auto [pv, mv] = value(*r);
      p.push_back(pv);
      m.push_back(mv);
    }
    predicted.push_back(Median(p));
    measured.push_back(Median(m));
  }
  k.tau = KendallTau(predicted, measured);
  const size_t p = std::min_element(predicted.begin(), predicted.end()) - predicted.begin();
  const size_t m = std::min_element(measured.begin(), measured.end()) - measured.begin();
  // Configurations that differ in batch only are told apart by it.
  bool batches_differ = false;
  for (const RunResult* r : rs) batches_differ |= r->run.batch != rs.front()->run.batch;
  auto label = [&](const RunRecord& run) {
    return RunLabel(run) + (batches_differ ? ", batch " + std::to_string(run.batch) : "");
  };
  k.predicted_cheapest = label(configs[p].second.front()->run);
  k.measured_cheapest = label(configs[m].second.front()->run);
  k.hit = measured[p] == measured[m];
  k.miss_percent = PercentError(measured[p], measured[m]);
  return k;
}

// A ranking's group: the model and the framework build (with an allocator that keeps its memory,
// which can shorten a CPU step several times over, a build of its own).
std::string BuildOf(const RunRecord& r) {
  return r.model + " (" + r.framework +
         (r.framework_version.empty() ? "" : " " + r.framework_version) +
         (r.allocator_keeps ? ", allocator keeps" : "") + ")";
}

// Each configuration measured more than once, at its best single value (RepeatedRuns).
std::optional<RepeatedRuns> RepeatedOf(const std::vector<const RunResult*>& results) {
  const auto groups = GroupsOf(results, [](const RunResult& r) { return ConfigurationOf(r.run); });
  RepeatedRuns out;
  std::vector<double> best, measured, predicted;
  for (const auto& [key, rs] : groups) {
    if (rs.size() < 2) continue;
    std::vector<double> x, p, error;
    for (const RunResult* r : rs) {
      x.push_back(r->measured_seconds);
      p.push_back(r->predicted_seconds);
      error.push_back(r->error_percent);
    }
    const double c = BestSingleValue(x);
    best.insert(best.end(), x.size(), c);
    measured.insert(measured.end(), x.begin(), x.end());
    predicted.insert(predicted.end(), p.begin(), p.end());
    const auto [fastest, slowest] = std::minmax_element(x.begin(), x.end());
    out.by_config.push_back(
        {.run = rs.front()->run,
         .runs = static_cast<int>(rs.size()),
         .slowest_over_fastest = *slowest / *fastest,
         .floor_mape = Mape(std::vector<double>(x.size(), c), x),
         .mape = Mape(p, x),
         .mean_error_percent = std::accumulate(error.begin(), error.end(), 0.0) / error.size()});
    ++out.configs;
    const int n = static_cast<int>(rs.size());
    out.fewest = out.configs == 1 ? n : std::min(out.fewest, n);
    out.most = std::max(out.most, n);
  }
  if (out.configs == 0) return std::nullopt;
  out.runs = static_cast<int>(measured.size());
  out.floor_mape = Mape(best, measured);
  out.mape = Mape(predicted, measured);
  return out;
}

}  // namespace

GroupSummary SummaryOf(const std::string& name, const std::vector<const RunResult*>& rs) {
  GroupSummary g{.name = name, .runs = static_cast<int>(rs.size())};
  std::vector<double> predicted, measured;
  for (const RunResult* r : rs) {
    predicted.push_back(r->predicted_seconds);
    measured.push_back(r->measured_seconds);
    if (std::abs(r->error_percent) > std::abs(g.worst)) g.worst = r->error_percent;
    if (std::abs(r->error_percent) <= 10) ++g.within_10;
    g.mean_error += r->error_percent / static_cast<double>(rs.size());
  }
  g.mape = Mape(predicted, measured);
  return g;
}

std::string ModelFamily(const Model& model) {
  bool attention = false, recurrent = false, conv = false, embedding = false;
  for (int i = 0; i < model.size(); ++i) {
    switch (model.layer(i).kind) {
      case LayerKind::kAttention:
        attention = true;
        break;
      case LayerKind::kLstm:
      case LayerKind::kGru:
        recurrent = true;
        break;
      case LayerKind::kConv1D:
      case LayerKind::kConv2D:
      case LayerKind::kDepthwiseConv2D:
      case LayerKind::kSeparableConv1D:
      case LayerKind::kSeparableConv2D:
        conv = true;
        break;
      case LayerKind::kEmbedding:
        embedding = true;
        break;
      default:
        break;
    }
  }
  if (attention) return "transformer";
  if (recurrent) return "recurrent";
  if (conv) return "convolutional";
  if (embedding) return "embedding";
  return "dense";
}

std::string RunLabel(const RunRecord& r) {
  std::string s = r.label.empty() ? r.target : r.label;
  if (r.threads > 0)
    s += ", " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
  return s;
}

std::string PlacementOf(const RunRecord& r, double far_pass_us) {
  if (!r.parallel_pass_us_before || !r.parallel_pass_us_after || r.threads <= 1) return "";
  const int far = (*r.parallel_pass_us_before >= far_pass_us) +
                  (*r.parallel_pass_us_after >= far_pass_us);
  return far == 0 ? "near" : far == 2 ? "far" : "mixed";
}

ValidationReport Summarise(std::vector<RunResult> results, double far_pass_us) {
  ValidationReport report;
  report.far_pass_us = far_pass_us;
  report.results = std::move(results);
  std::vector<const RunResult*> all;
  for (const RunResult& r : report.results) all.push_back(&r);
  report.all = SummaryOf("all", all);
  report.by_path = GroupBy(report.results, [](const RunResult& r) { return r.path; });
  report.by_family = GroupBy(report.results, [](const RunResult& r) { return r.family; });
  report.by_kind = GroupBy(report.results, [](const RunResult& r) { return r.device_kind; });
  report.by_precision =
      GroupBy(report.results, [](const RunResult& r) { return PrecisionLabel(r.run); });
  report.by_allocator =
      GroupBy(report.results, [](const RunResult& r) { return std::string(r.run.allocator()); });
  report.by_log = GroupBy(report.results, [](const RunResult& r) { return r.run.log(); });
  for (const char* placement : {"near", "mixed", "far"}) {
    std::vector<const RunResult*> rs;
    for (const RunResult* r : all)
      if (PlacementOf(r->run, far_pass_us) == placement) rs.push_back(r);
    if (!rs.empty()) report.by_placement.push_back(SummaryOf(placement, rs));
  }

  const auto priced = GroupsOf(all, [](const RunResult& r) {
    return r.predicted_usd && r.measured_usd ? BuildOf(r.run) : std::string();
  });
  for (const auto& [key, rs] : priced)
    if (rs.size() >= 2)
      report.rankings.push_back(RankingOf(key, rs, [](const RunResult& r) {
        return std::pair(*r.predicted_usd, *r.measured_usd);
      }));
  const auto unpriced = GroupsOf(all, [](const RunResult& r) {
    return r.predicted_usd || r.measured_usd ? std::string()
                                             : BuildOf(r.run) + " " + PrecisionLabel(r.run);
  });
  for (const auto& [key, rs] : unpriced)
    if (rs.size() >= 2)
      report.time_rankings.push_back(RankingOf(key, rs, [](const RunResult& r) {
        return std::pair(r.predicted_seconds, r.measured_seconds);
      }));
  report.repeated = RepeatedOf(all);
  return report;
}

}  // namespace epochcost::validation
