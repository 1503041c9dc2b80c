#include "validation/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "validation/statistics.h"

namespace epochcost::validation {
namespace {

GroupSummary Summary(const std::string& name, const std::vector<const RunResult*>& rs) {
  GroupSummary g{.name = name, .runs = static_cast<int>(rs.size())};
  std::vector<double> predicted, measured;
  for (const RunResult* r : rs) {
    predicted.push_back(r->predicted_seconds);
    measured.push_back(r->measured_seconds);
    if (std::abs(r->error_percent) > std::abs(g.worst)) g.worst = r->error_percent;
    if (std::abs(r->error_percent) <= 10) ++g.within_10;
  }
  g.mape = Mape(predicted, measured);
  return g;
}

template <typename KeyFn>
std::vector<GroupSummary> GroupBy(const std::vector<RunResult>& results, KeyFn key) {
  std::map<std::string, std::vector<const RunResult*>> groups;
  for (const RunResult& r : results) groups[key(r)].push_back(&r);
  std::vector<GroupSummary> out;
  for (const auto& [name, rs] : groups) out.push_back(Summary(name, rs));
  return out;
}

}  // namespace

std::string ModelFamily(const Model& model) {
  bool attention = false, recurrent = false, conv = false, embedding = false;
  for (int i = 0; i < model.size(); ++i) {
    switch (model.layer(i).kind) {
      case LayerKind::kAttention: attention = true; break;
      case LayerKind::kLstm:
      case LayerKind::kGru: recurrent = true; break;
      case LayerKind::kConv1D:
      case LayerKind::kConv2D:
      case LayerKind::kDepthwiseConv2D:
      case LayerKind::kSeparableConv1D:
      case LayerKind::kSeparableConv2D: conv = true; break;
      case LayerKind::kEmbedding: embedding = true; break;
      default: break;
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
  if (r.threads > 0) s += ", " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
  return s;
}

ValidationReport Summarise(std::vector<RunResult> results) {
  ValidationReport report;
  report.results = std::move(results);
  std::vector<const RunResult*> all;
  for (const RunResult& r : report.results) all.push_back(&r);
  report.all = Summary("all", all);
  report.by_path = GroupBy(report.results, [](const RunResult& r) { return r.path; });
  report.by_family = GroupBy(report.results, [](const RunResult& r) { return r.family; });
  report.by_kind = GroupBy(report.results, [](const RunResult& r) { return r.device_kind; });

  std::map<std::string, std::vector<const RunResult*>> groups;
  std::vector<std::string> order;
  for (const RunResult& r : report.results) {
    if (!r.predicted_usd || !r.measured_usd) continue;
    std::string key = r.run.model + " (" + r.run.framework +
                      (r.run.framework_version.empty() ? "" : " " + r.run.framework_version) + ")";
    if (!groups.contains(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const std::string& key : order) {
    const std::vector<const RunResult*>& rs = groups[key];
    if (rs.size() < 2) continue;
    Ranking k{.group = key, .configs = static_cast<int>(rs.size())};
    std::vector<double> predicted, measured;
    for (const RunResult* r : rs) {
      predicted.push_back(*r->predicted_usd);
      measured.push_back(*r->measured_usd);
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
    k.predicted_cheapest = label(rs[p]->run);
    k.measured_cheapest = label(rs[m]->run);
    k.hit = measured[p] == measured[m];
    k.miss_percent = PercentError(measured[p], measured[m]);
    report.rankings.push_back(k);
  }
  return report;
}

}  // namespace epochcost::validation
