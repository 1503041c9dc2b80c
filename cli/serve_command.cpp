// `epochcost serve MODEL --qps Q`: the cheapest clusters of each catalog offer that serve Q
// requests per second within a p95 latency (pricing/serving.h, docs/serving.md).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/prediction.h"
#include "cli/recommend_views.h"
#include "cli/svg_plot.h"
#include "cli/targets.h"
#include "engine/model_source.h"
#include "pricing/serving.h"

namespace epochcost::cli {
namespace {

struct ServeOptions {
  std::string model, plot, isa = "native";
  MarketInputs market{.selection = {.kinds = "on-demand"}};
  LoweringFlags lowering;
  double qps = 0, node_efficiency = 0.8;
  std::optional<double> p95_ms;
  std::optional<int> replicas;
  int64_t max_batch = 32;
  int top = 20;
  bool json = false, csv = false;
};

std::string Kind(const pricing::ServingOffer& s) {
  return std::string(catalog::PriceKindName(s.offer.kind));
}

std::string Table(const pricing::ServingPlan& plan, size_t top) {
  std::vector<std::vector<std::string>> rows = {{"#", "Instance", "Region", "Kind", "Accelerators",
                                                 "Nodes", "Replicas", "Batch", "p95 ms",
                                                 "Capacity/s", "$/month", "$/M req", "Source"}};
  for (size_t i = 0; i < plan.ranked.size() && i < top; ++i) {
    const pricing::ServingOffer& s = plan.ranked[i];
    rows.push_back({std::to_string(i + 1), s.machine, RegionCell(s.offer.region, s.other_regions),
                    Kind(s), s.accelerators, std::to_string(s.nodes), std::to_string(s.replicas),
                    std::to_string(s.batch), Number("%.1f", s.p95.milliseconds()),
                    Number("%.0f", s.capacity), Number("%.2f", s.monthly.dollars()),
                    Number("%.3f", s.usd_per_million), s.source});
  }
  return RenderTable(
      rows, {true, false, false, false, false, true, true, true, true, true, true, true, false});
}

nlohmann::ordered_json Json(const pricing::ServingPlan& plan, size_t top,
                            const Result<std::vector<PathRecord>>& records, const Market& market) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (size_t i = 0; i < plan.ranked.size() && i < top; ++i) {
    const pricing::ServingOffer& s = plan.ranked[i];
    const PathKey path = PathOfRow(s);
    a.push_back({{"instance", s.machine},
                 {"region", s.offer.region},
                 {"other_regions", s.other_regions},
                 {"kind", Kind(s)},
                 {"accelerators", s.accelerators},
                 {"nodes", s.nodes},
                 {"replicas_per_node", s.replicas},
                 {"batch", s.batch},
                 {"service_seconds", s.service.seconds()},
                 {"p95_seconds", s.p95.seconds()},
                 {"capacity_per_second", s.capacity},
                 {"usd_per_month", s.monthly.dollars()},
                 {"usd_per_million_requests", s.usd_per_million},
                 {"source", s.source},
                 {"calibration", CalibrationJson(market.CalibrationFor(s.gpus > 0))},
                 {"validation", RecordJson(path, RecordOf(path, records))}});
  }
  return a;
}

std::string Csv(const pricing::ServingPlan& plan, size_t top) {
  std::ostringstream out;
  out << "rank,instance,region,kind,accelerators,nodes,replicas_per_node,batch,p95_seconds,"
         "capacity_per_second,usd_per_month,usd_per_million_requests,other_regions\n";
  for (size_t i = 0; i < plan.ranked.size() && i < top; ++i) {
    const pricing::ServingOffer& s = plan.ranked[i];
    out << i + 1 << "," << s.machine << "," << s.offer.region << "," << Kind(s) << ",\""
        << s.accelerators << "\"," << s.nodes << "," << s.replicas << "," << s.batch << ","
        << Number("%.6g", s.p95.seconds()) << "," << Number("%.6g", s.capacity) << ","
        << Number("%.6g", s.monthly.dollars()) << "," << Number("%.6g", s.usd_per_million) << ","
        << s.other_regions << "\n";
  }
  return out.str();
}

// Monthly cost against p95 latency, one dot per offer.
std::string Svg(const pricing::ServingPlan& plan, const std::string& title) {
  std::vector<std::pair<double, double>> points;
  for (const auto& o : plan.ranked) points.push_back({o.p95.milliseconds(), o.monthly.dollars()});
  const LogLogPlot plot = LogLogPlot::Covering(points);
  std::ostringstream s;
  s << plot.Begin(title, "p95 latency, ms (log)", "dollars per month (log)", "$");
  for (const auto& o : plan.ranked)
    s << "<circle cx=\"" << plot.X(o.p95.milliseconds()) << "\" cy=\""
      << plot.Y(o.monthly.dollars()) << "\" r=\"4\" fill=\"" << (o.gpus > 0 ? "#1f77b4" : "#2ca02c")
      << "\" fill-opacity=\"0.6\"><title>"
      << SvgEscape(o.machine + " x " + std::to_string(o.nodes) + " " + o.offer.region)
      << "</title></circle>\n";
  s << plot.End("<tspan fill=\"#1f77b4\">● GPU</tspan>  <tspan fill=\"#2ca02c\">● CPU</tspan>");
  return s.str();
}

// The machines that cannot serve, counted by reason as `recommend` counts its own.
std::string Dropped(const pricing::ServingPlan& plan) {
  std::vector<pricing::DroppedOffer> dropped;
  for (const auto& [machine, why] : plan.dropped) dropped.push_back({machine, why});
  return DroppedSummary(dropped);
}

// A plan on spot or preemptible nodes loses their capacity whenever the provider reclaims them;
// the ranking prices the nodes, not that loss. Says so where the ranked offers include some.
std::string ReclaimableNote(const pricing::ServingPlan& plan) {
  const auto reclaimable = std::count_if(plan.ranked.begin(), plan.ranked.end(), [](const auto& o) {
    return o.offer.kind != catalog::PriceKind::kOnDemand;
  });
  if (reclaimable == 0) return "";
  return std::to_string(reclaimable) +
         " spot or preemptible offers: the provider can reclaim their nodes at any time (GCE "
         "preemptible within 24 h), and the plan does not count the requests lost meanwhile; "
         "keep on-demand nodes for the rate you cannot lose (--kind on-demand).\n";
}

int Serve(const ServeOptions& o) {
  if (!(o.qps > 0 && o.qps <= 1e9))  // NaN fails too
    return ReportError(Status::InvalidArgument("--qps must be positive (at most 1e9)"));
  if (o.p95_ms && !(*o.p95_ms > 0 && *o.p95_ms <= 1e9))
    return ReportError(Status::InvalidArgument("--p95-ms must be positive (at most 1e9)"));
  if (o.max_batch < 1 || o.max_batch > 4096)
    return ReportError(Status::InvalidArgument("--max-batch must be from 1 to 4096"));
  if (o.replicas && (*o.replicas < 1 || *o.replicas > 256))
    return ReportError(Status::InvalidArgument("--replicas-per-node must be from 1 to 256"));
  if (o.top < 0) return ReportError(Status::InvalidArgument("--top must not be negative"));
  Result<Model> model = LoadModel(o.model);
  if (!model.ok()) return ReportError(model.status());
  pricing::ServeRequest req;
  req.model = &*model;
  // --channels-last is modelled on GPUs: CPU offers are predicted in PyTorch's default NCHW.
  LoweringFlags cpu_flags = o.lowering;
  cpu_flags.channels_last = false;
  Result<LoweringOptions> cpu =
      ResolveLowering(cpu_flags, *model, 1, nullptr, LoweringTarget::kCpu);
  if (!cpu.ok()) return ReportError(cpu.status());
  Result<LoweringOptions> gpu =
      ResolveLowering(o.lowering, *model, 1, nullptr, LoweringTarget::kGpu);
  if (!gpu.ok()) return ReportError(gpu.status());
  req.cpu_lowering = *cpu;
  req.gpu_lowering = *gpu;
  req.cpu_lowering.training = req.gpu_lowering.training = false;
  req.qps = o.qps;
  if (o.p95_ms) req.p95 = Seconds::FromMilliseconds(*o.p95_ms);
  req.max_batch = o.max_batch;
  req.replicas_per_node = o.replicas.value_or(0);
  req.node_efficiency = o.node_efficiency;
  Result<VectorIsa> isa = ParseVectorIsa(o.isa);
  if (!isa.ok()) return ReportError(isa.status().WithContext("--isa"));
  req.isa = *isa;
  Result<Market> market = OpenMarket(o.market, model->name());
  if (!market.ok()) return ReportError(market.status());
  req.corrections = market->corrections;
  req.every_region = o.market.all_regions;
  Result<pricing::ServingPlan> plan =
      pricing::PlanServing(req, market->offers, market->refs, MachineOf);
  if (!plan.ok()) return ReportError(plan.status());
  const size_t top = o.top > 0 ? static_cast<size_t>(o.top) : plan->ranked.size();
  if (!o.plot.empty()) {
    std::ofstream f(o.plot);
    f << Svg(*plan, model->name() + ": serving " + Number("%g", o.qps) + " requests/s");
    if (!f) return ReportError(Status::IoError(o.plot + ": cannot write"));
  }
  // What the shipped runs show for the rows' paths (DESIGN's honesty rule). They are training
  // runs: no shipped run measured serving, which the text says.
  const std::vector<PathKey> paths = PathsOfRows(plan->ranked, top);
  Result<std::vector<PathRecord>> records = std::vector<PathRecord>{};
  if (!o.csv)
    records = ShippedRecordsOf(paths, PrecisionName(req.cpu_lowering), o.market.profiles,
                               o.market.catalog);
  if (o.json) {
    std::cout << Json(*plan, top, records, *market).dump(2) << "\n";
  } else if (o.csv) {
    std::cout << Csv(*plan, top);
  } else {
    std::cout << "Model " << model->name() << ", " << Number("%g", o.qps) << " requests/s"
              << (o.p95_ms ? ", p95 <= " + Number("%g", *o.p95_ms) + " ms" : "")
              << ", batches up to " << o.max_batch << ", "
              << (o.replicas ? std::to_string(*o.replicas) + " replica(s) per node"
                             : "a replica per GPU (per CPU node)")
              << ", each node after the first adds " << Number("%.0f%%", 100 * o.node_efficiency)
              << "\n"
              << market->calibrated << Table(*plan, top) << Counted(plan->ranked.size(), "offer")
              << " can serve it, ranked by monthly cost (730 h).\n"
              << FoldNote(plan->ranked.size(), plan->offers) << ReclaimableNote(*plan)
              << Dropped(*plan) << StaleNote(*market) << RetiredNote(*market)
              << (paths.empty() ? ""
                                : "No shipped run measured serving; the training runs on these "
                                  "paths:\n")
              << RecordLines(paths, records);
  }
  return kExitOk;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* s = app.add_subcommand(
      "serve", "Rank clusters of catalog offers that serve a model at a request rate");
  s->add_option("MODEL", o->model, "Zoo name or model file")->required();
  s->add_option("--qps", o->qps, "Requests per second to serve")->required();
  s->add_option("--p95-ms", o->p95_ms, "p95 latency target in milliseconds");
  s->add_option("--max-batch", o->max_batch, "Largest dynamic batch (default 32)");
  AddIsaOption(s, &o->isa);
  s->add_option("--replicas-per-node", o->replicas,
                "Model replicas per node, sharing its vCPUs or GPUs (default: one per GPU, one "
                "per CPU node)");
  s->add_option("--node-efficiency", o->node_efficiency,
                "Throughput each node after the first adds, as a fraction of one (default 0.8)");
  s->add_option("--top", o->top, "Offers to list (default 20, 0 for all)");
  s->add_flag("--json", o->json, "Print JSON");
  s->add_flag("--csv", o->csv, "Print CSV");
  s->add_option("--plot", o->plot, "Write monthly cost against p95 latency (SVG)");
  AddLoweringFlags(s, &o->lowering, /*training=*/false);
  AddMarketOptions(s, &o->market, "on-demand (default), preemptible, spot (comma-separated)");
  s->footer("Example:\n  epochcost serve mobilenet_v2 --qps 200 --p95-ms 100 --cloud azure");
  s->callback([run, o] { *run = [o] { return Serve(*o); }; });
}

}  // namespace epochcost::cli
