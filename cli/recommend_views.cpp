#include "cli/recommend_views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli/format.h"
#include "cli/prediction.h"
#include "cli/svg_plot.h"

namespace epochcost::cli {
namespace {

size_t Count(const pricing::Recommendation& r, int top) {
  return top > 0 ? std::min<size_t>(r.ranked.size(), top) : r.ranked.size();
}

std::string Kind(const pricing::RankedOffer& o) {
  return std::string(catalog::PriceKindName(o.offer.kind));
}

// "+1.2%", "-" (none expected), "?" (spot or preemptible without interruption data, ranked as if
// never interrupted) or "~+1.2%" (without data, at the band --unknown-interruptions assumes).
std::string Preemption(const pricing::RankedOffer& o) {
  if (!o.interruptions_known && !o.interruptions_assumed) return "?";
  const std::string cost =
      o.preemption.overhead > 0 ? Number("+%.1f%%", 100 * o.preemption.overhead) : "-";
  return o.interruptions_assumed ? "~" + cost : cost;
}

// Where an offer's interruption rate comes from: "known" (the catalog's record; on-demand
// offers too, which are never interrupted), "assumed" (--unknown-interruptions BAND) or
// "unknown" (ranked as if never interrupted).
const char* Interruptions(const pricing::RankedOffer& o) {
  if (o.interruptions_known) return "known";
  return o.interruptions_assumed ? "assumed" : "unknown";
}

}  // namespace

std::string RecordLines(const std::vector<PathKey>& paths,
                        const Result<std::vector<PathRecord>>& records) {
  std::string out;
  for (const auto& path : paths)
    out += "validation of path (" + path.first + ", " + path.second +
           "): " + RecordFigures(RecordOf(path, records)) + "\n";
  return out;
}

std::string RecommendTable(const pricing::Recommendation& r, int top, double epochs,
                           size_t front_of) {
  std::vector<std::vector<std::string>> rows = {{"#", "Instance", "Region", "Kind", "Accelerators",
                                                 "Batch", "$/h", "s/epoch", "$/epoch", "Hours",
                                                 "$ total", "Preempt.", "Pareto", "Source"}};
  for (size_t i = 0; i < Count(r, top); ++i) {
    const pricing::RankedOffer& o = r.ranked[i];
    rows.push_back({std::to_string(i + 1), o.machine, RegionCell(o.offer.region, o.other_regions),
                    Kind(o), o.accelerators, std::to_string(o.batch),
                    Number("%.4f", o.offer.price.value()), Number("%.1f", o.epoch.seconds()),
                    Number("%.4g", o.usd_per_epoch.value()), Number("%.3g", o.total_time.hours()),
                    Number("%.4g", o.total_usd.value()), Preemption(o), o.pareto ? "*" : "",
                    (o.input_bound ? "input-bound; " : "") + o.source});
  }
  std::string out = RenderTable(rows, {true, false, false, false, false, true, true, true, true,
                                       true, true, true, false, false});
  out += (front_of > 0 ? std::to_string(r.ranked.size()) + " Pareto-optimal offers of " +
                             std::to_string(front_of)
                       : Counted(r.ranked.size(), "offer")) +
         " ranked by $/epoch; totals for " + Epochs(epochs) +
         " under each provider's billing rule; * = Pareto-optimal "
         "(no offer both faster and cheaper).\n";
  out += SmallestBillNote(r);
  out += FoldNote(r.ranked.size(), r.offers);
  const auto unknown = std::count_if(r.ranked.begin(), r.ranked.end(), [](const auto& o) {
    return !o.interruptions_known && !o.interruptions_assumed;
  });
  const auto assumed = std::count_if(r.ranked.begin(), r.ranked.end(),
                                     [](const auto& o) { return o.interruptions_assumed; });
  const std::string add_some =
      "add some: epochcost catalog import FILE --format aws-spot-advisor or interruptions";
  if (const auto bound = std::count_if(r.ranked.begin(), r.ranked.end(),
                                       [](const auto& o) { return o.input_bound; });
      bound > 0)
    out += "input-bound: " + std::to_string(bound) +
           " GPU offers whose GPUs wait for the input pipeline (--input-ms-per-sample) on the "
           "vCPUs beside the dispatching one; more vCPUs per GPU, or less CPU per sample, would "
           "speed them up.\n";
  if (unknown > 0)
    out += "? = " + std::to_string(unknown) +
           " spot or preemptible offers without interruption data, ranked as if never interrupted "
           "(" +
           add_some + "; or --unknown-interruptions BAND or exclude).\n";
  if (assumed > 0)
    out += "~ = " + std::to_string(assumed) +
           " spot or preemptible offers without interruption data, ranked as if interrupted at "
           "the band --unknown-interruptions names (" +
           add_some + ").\n";
  if (r.unknown_interruptions_left_out > 0)
    out += std::to_string(r.unknown_interruptions_left_out) +
           " spot or preemptible offers (counting every region) without interruption data left out "
           "(--unknown-interruptions exclude).\n";
  if ((unknown > 0 || assumed > 0) && front_of > 0)
    out += "The front without that risk: --kind on-demand --pareto.\n";
  out += OverLimitNote(r.over_deadline, "the deadline", [](const pricing::RankedOffer& o) {
    return Number("%.3g", o.total_time.hours()) + " h";
  });
  out += OverLimitNote(r.over_budget, "the budget", [](const pricing::RankedOffer& o) {
    return "$" + Number("%.4g", o.total_usd.value());
  });
  out += DroppedSummary(r.dropped);
  return out;
}

std::string OverLimitNote(const pricing::OverLimit& over, const std::string& limit,
                          const std::function<std::string(const pricing::RankedOffer&)>& amount) {
  if (over.offers == 0) return "";
  const pricing::RankedOffer& c = *over.closest;
  return std::to_string(over.offers) + (over.offers == 1 ? " offer" : " offers") + " left out by " +
         limit + "; the closest: " + c.machine + " " +
         std::string(catalog::PriceKindName(c.offer.kind)) + " in " + c.offer.region + ", " +
         amount(c) + ".\n";
}

std::string SmallestBillNote(const pricing::Recommendation& r) {
  if (r.ranked.empty()) return "";
  const auto least = std::min_element(
      r.ranked.begin(), r.ranked.end(),
      [](const auto& a, const auto& b) { return a.total_usd.value() < b.total_usd.value(); });
  const pricing::RankedOffer& first = r.ranked.front();
  // A bill within half a percent of the first row's is the same bill, rounded.
  if (least->total_usd.value() >= first.total_usd.value() * (1 - kSameBill)) return "";
  return "Smallest bill for the job: #" + std::to_string(least - r.ranked.begin() + 1) + " " +
         least->machine + " " + std::string(catalog::PriceKindName(least->offer.kind)) + " in " +
         least->offer.region + ", $" + Number("%.4g", least->total_usd.value()) +
         " against #1's $" + Number("%.4g", first.total_usd.value()) +
         " (billing minimums and rounding weigh on a job this short; docs/catalog.md).\n";
}

std::string RegionCell(const std::string& region, int other_regions) {
  return other_regions > 0 ? region + " +" + std::to_string(other_regions) : region;
}

std::string FoldNote(size_t rows, size_t offers) {
  if (rows >= offers) return "";
  return "Each machine and price kind at its cheapest region; +N: N more regions offer it, none "
         "cheaper (--all-regions lists all " +
         std::to_string(offers) + " offers).\n";
}

std::string DroppedSummary(const std::vector<pricing::DroppedOffer>& dropped) {
  if (dropped.empty()) return "";
  // A reason reads "PROVIDER:MACHINE: why" (the machine the catalog row was predicted as, not
  // always the offer's); machines left out for the same why are counted together.
  static const std::regex kMachinePrefix("^[a-z]+:[^ :]+: ");
  std::vector<std::pair<std::string, std::vector<std::string>>> causes;  // in first-seen order
  for (const pricing::DroppedOffer& d : dropped) {
    const std::string why =
        std::regex_replace(d.reason, kMachinePrefix, "", std::regex_constants::format_first_only);
    auto it =
        std::find_if(causes.begin(), causes.end(), [&](const auto& c) { return c.first == why; });
    if (it == causes.end()) it = causes.insert(causes.end(), {why, {}});
    it->second.push_back(d.machine);
  }
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::string out = std::to_string(dropped.size()) +
                    (dropped.size() == 1 ? " machine left out:\n" : " machines left out:\n");
  constexpr size_t kShown = 5;
  for (size_t i = 0; i < std::min(kShown, causes.size()); ++i) {
    const auto& [why, machines] = causes[i];
    out += "  " + std::to_string(machines.size()) + " x " + why + " (" + machines.front() +
           (machines.size() > 1 ? ", ..." : "") + ")\n";
  }
  if (causes.size() > kShown) {
    const size_t more = causes.size() - kShown;
    out += "  and " + std::to_string(more) + (more == 1 ? " more reason\n" : " more reasons\n");
  }
  return out;
}

std::string RecommendJson(const pricing::Recommendation& r, int top,
                          const Result<std::vector<PathRecord>>& records, const Market& market) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (size_t i = 0; i < Count(r, top); ++i) {
    const pricing::RankedOffer& o = r.ranked[i];
    const PathKey path = PathOfRow(o);
    j.push_back({{"instance", o.offer.instance.name},
                 {"provider", o.offer.instance.provider},
                 {"region", o.offer.region},
                 {"other_regions", o.other_regions},
                 {"kind", Kind(o)},
                 {"accelerators", o.accelerators},
                 {"gpus", o.gpus},
                 {"batch", o.batch},
                 {"usd_per_hour", o.offer.price.value()},
                 {"price_observed_at", o.offer.observed_at},
                 {"epoch_seconds", o.epoch.seconds()},
                 {"usd_per_epoch", o.usd_per_epoch.value()},
                 {"total_usd", o.total_usd.value()},
                 {"total_hours", o.total_time.hours()},
                 {"interruptions_per_hour", o.preemption.rate_per_hour},
                 {"checkpoint_interval_seconds", o.preemption.interval.seconds()},
                 {"preemption_overhead", o.preemption.overhead},
                 {"interruptions_known", o.interruptions_known},
                 {"interruptions_assumed", o.interruptions_assumed},
                 {"pareto", o.pareto},
                 {"input_bound", o.input_bound},
                 {"source", o.source},
                 {"calibration", CalibrationJson(market.CalibrationFor(o.gpus > 0))},
                 {"validation", RecordJson(path, RecordOf(path, records))}});
  }
  return j.dump(2) + "\n";
}

std::string RecommendCsv(const pricing::Recommendation& r, int top) {
  std::ostringstream out;
  out << "rank,instance,provider,region,kind,accelerators,batch,usd_per_hour,epoch_seconds,"
         "usd_per_epoch,total_hours,total_usd,preemption_overhead,pareto,input_bound,source,"
         "other_regions,interruptions_per_hour,interruptions\n";
  auto q = [](const std::string& s) {
    std::string e = "\"";
    for (char c : s) e += c == '"' ? std::string("\"\"") : std::string(1, c);
    return e + "\"";
  };
  for (size_t i = 0; i < Count(r, top); ++i) {
    const pricing::RankedOffer& o = r.ranked[i];
    out << i + 1 << "," << q(o.offer.instance.name) << "," << o.offer.instance.provider << ","
        << o.offer.region << "," << Kind(o) << "," << q(o.accelerators) << "," << o.batch << ","
        << Number("%.6g", o.offer.price.value()) << "," << Number("%.6g", o.epoch.seconds()) << ","
        << Number("%.6g", o.usd_per_epoch.value()) << "," << Number("%.6g", o.total_time.hours())
        << "," << Number("%.6g", o.total_usd.value()) << ","
        << Number("%.4g", o.preemption.overhead) << "," << (o.pareto ? "true" : "false") << ","
        << (o.input_bound ? "true" : "false") << "," << q(o.source) << "," << o.other_regions << ","
        << Number("%.6g", o.preemption.rate_per_hour) << "," << Interruptions(o) << "\n";
  }
  return out.str();
}

// Log-log scatter: x = seconds per epoch, y = dollars per epoch. Every offer is a dot; the Pareto
// front is joined by a line; the `labels` cheapest offers and every Pareto offer are named.
std::string RecommendSvg(const pricing::Recommendation& r, const std::string& title, int labels) {
  std::vector<std::pair<double, double>> points;
  for (const auto& o : r.ranked) points.push_back({o.epoch.seconds(), o.usd_per_epoch.value()});
  const LogLogPlot plot = LogLogPlot::Covering(points);
  if (r.ranked.empty())
    return plot.Begin(title + ": no offers", "seconds per epoch (log)", "dollars per epoch (log)",
                      "$") +
           plot.End("");
  std::ostringstream s;
  s << plot.Begin(title, "seconds per epoch (log)", "dollars per epoch (log)", "$");
  std::vector<const pricing::RankedOffer*> front;
  for (const auto& o : r.ranked)
    if (o.pareto) front.push_back(&o);
  std::sort(front.begin(), front.end(), [](auto* a, auto* b) { return a->epoch < b->epoch; });
  s << "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"";
  for (auto* o : front)
    s << plot.X(o->epoch.seconds()) << "," << plot.Y(o->usd_per_epoch.value()) << " ";
  s << "\"/>\n";
  for (size_t i = r.ranked.size(); i-- > 0;) {
    const auto& o = r.ranked[i];
    const char* color = o.gpus > 0 ? "#1f77b4" : "#2ca02c";
    s << "<circle cx=\"" << plot.X(o.epoch.seconds()) << "\" cy=\""
      << plot.Y(o.usd_per_epoch.value()) << "\" r=\"" << (o.pareto ? 5 : 3) << "\" fill=\"" << color
      << "\" fill-opacity=\"" << (o.pareto ? 1.0 : 0.35) << "\"><title>"
      << SvgEscape(o.machine + " " + o.offer.region + " " + Kind(o)) << "</title></circle>\n";
  }
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    const auto& o = r.ranked[i];
    if (!o.pareto && static_cast<int>(i) >= labels) continue;
    s << "<text x=\"" << plot.X(o.epoch.seconds()) + 7 << "\" y=\""
      << plot.Y(o.usd_per_epoch.value()) - 5 << "\" font-size=\"11\">"
      << SvgEscape(o.offer.instance.name + " (" + Kind(o) + ")") << "</text>\n";
  }
  s << plot.End(
      "<tspan fill=\"#1f77b4\">● GPU</tspan>  <tspan fill=\"#2ca02c\">● CPU</tspan>  "
      "<tspan fill=\"#d62728\">— Pareto front</tspan>");
  return s.str();
}

}  // namespace epochcost::cli
