// `epochcost recommend MODEL`: every catalog offer ranked by predicted cost per epoch.
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/recommend_views.h"
#include "cli/targets.h"
#include "engine/model_source.h"
#include "pricing/recommender.h"

namespace epochcost::cli {
namespace {

struct RecommendOptions {
  std::string model, batch, gpus, plot, isa = "native", unknown_interruptions = "never";
  MarketInputs market;
  LoweringFlags lowering;
  int64_t samples = -1, val_samples = -1;
  // NaN: not given (CLI11 refuses NaN on the command line).
  static constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();
  double epochs = 1, max_hours = kUnset, max_usd = kUnset, checkpoint_minutes = kUnset,
         overhead_us = kUnset, input_ms = 0;
  int top = 20;
  bool json = false, csv = false, pareto = false;
};

int Recommend(const RecommendOptions& o) {
  if (!(o.epochs > 0 && std::isfinite(o.epochs) && o.epochs <= 1e6))  // as `schedule` takes
    return ReportError(Status::InvalidArgument("--epochs must be above 0 and at most 1e6"));
  if (o.top < 0) return ReportError(Status::InvalidArgument("--top must not be negative"));
  for (double v : {o.max_hours, o.max_usd, o.checkpoint_minutes})
    if (!std::isnan(v) && !(v > 0))
      return ReportError(Status::InvalidArgument(
          "--max-hours, --max-usd and --checkpoint-minutes must be positive"));
  if (!std::isnan(o.overhead_us) && !(o.overhead_us >= 0 && o.overhead_us <= 1e6))
    return ReportError(Status::InvalidArgument(kOverheadRange));
  Result<Model> model = LoadModel(o.model);
  if (!model.ok()) return ReportError(model.status());
  int64_t batch = 0;  // the model's own
  const bool batch_auto = o.batch == "auto";
  if (!o.batch.empty() && !batch_auto) {
    char* end = nullptr;
    batch = std::strtoll(o.batch.c_str(), &end, 10);
    if (*end != '\0' || batch <= 0 || batch > (int64_t{1} << 24))
      return ReportError(
          Status::InvalidArgument("--batch '" + o.batch + "': expected a positive number or auto"));
  }
  Result<EpochSizes> sizes = ResolveEpochSizes(*model, batch, o.samples, o.val_samples);
  if (!sizes.ok()) return ReportError(sizes.status());
  batch = sizes->batch;
  pricing::RecommendRequest req;
  req.model = &*model;
  req.batch_auto = batch_auto;
  req.samples = sizes->samples;
  req.val_samples = sizes->val_samples;
  req.epochs = o.epochs;
  std::string opt_name;
  // --channels-last is modelled on GPUs: CPU offers are predicted in PyTorch's default NCHW.
  LoweringFlags cpu_flags = o.lowering;
  cpu_flags.channels_last = false;
  Result<LoweringOptions> cpu =
      ResolveLowering(cpu_flags, *model, batch, &opt_name, LoweringTarget::kCpu);
  if (!cpu.ok()) return ReportError(cpu.status());
  Result<LoweringOptions> gpu =
      ResolveLowering(o.lowering, *model, batch, nullptr, LoweringTarget::kGpu);
  if (!gpu.ok()) return ReportError(gpu.status());
  req.cpu_lowering = *cpu;
  req.gpu_lowering = *gpu;
  for (const std::string& g : SplitCommas(o.gpus)) {
    char* end = nullptr;
    const long n = std::strtol(g.c_str(), &end, 10);
    if (*end != '\0' || n <= 0 || n > 64)
      return ReportError(
          Status::InvalidArgument("--gpus '" + g + "': expected counts like 1,2,4,8"));
    req.gpu_counts.push_back(static_cast<int>(n));
  }
  if (!std::isnan(o.max_hours)) req.max_hours = o.max_hours;
  if (!std::isnan(o.max_usd)) req.max_usd = o.max_usd;
  if (!std::isnan(o.checkpoint_minutes))
    req.checkpoint_interval = Seconds::FromSeconds(o.checkpoint_minutes * 60);
  if (!std::isnan(o.overhead_us)) req.per_op_overhead = Seconds::FromMicroseconds(o.overhead_us);
  Result<Seconds> input = InputPerSample(o.input_ms);
  if (!input.ok()) return ReportError(input.status());
  req.input_per_sample = *input;
  Result<VectorIsa> isa = ParseVectorIsa(o.isa);
  if (!isa.ok()) return ReportError(isa.status().WithContext("--isa"));
  req.isa = *isa;
  Result<pricing::UnknownInterruptions> unknown =
      pricing::ParseUnknownInterruptions(o.unknown_interruptions);
  if (!unknown.ok()) return ReportError(unknown.status());
  req.unknown_interruptions = *unknown;
  req.as_of = o.market.selection.as_of;
  Result<Market> market = OpenMarket(o.market, model->name());
  if (!market.ok()) return ReportError(market.status());
  req.corrections = market->corrections;
  req.every_region = o.market.all_regions;
  const catalog::CatalogStore& catalog = *market->catalog;
  auto interruptions = [&catalog](const catalog::Offer& of) {
    return catalog.InterruptionForOffer(of);
  };
  Result<pricing::Recommendation> r =
      pricing::Recommend(req, market->offers, market->refs, interruptions, MachineOf);
  if (!r.ok()) return ReportError(r.status());
  if (!o.plot.empty()) {
    std::ofstream f(o.plot);
    f << RecommendSvg(*r, model->name() + ": cost and time per epoch", 8);
    if (!f) return ReportError(Status::IoError(o.plot + ": cannot write"));
  }
  const size_t ranked = r->ranked.size();
  if (o.pareto)  // the plot above keeps every offer, the front drawn among them
    std::erase_if(r->ranked, [](const pricing::RankedOffer& x) { return !x.pareto; });
  // What the shipped runs show for the paths of the rows shown (DESIGN's honesty rule); the CSV
  // stays one row per offer.
  const std::vector<PathKey> paths =
      PathsOfRows(r->ranked, o.top > 0 ? static_cast<size_t>(o.top) : r->ranked.size());
  Result<std::vector<PathRecord>> records = std::vector<PathRecord>{};
  if (!o.csv)
    records =
        ShippedRecordsOf(paths, validation::PrecisionLabel(PrecisionName(*gpu), gpu->channels_last),
                         o.market.profiles, o.market.catalog);
  if (o.json)
    std::cout << RecommendJson(*r, o.top, records, *market);
  else if (o.csv)
    std::cout << RecommendCsv(*r, o.top);
  else {
    std::cout << "Model " << model->name() << ", "
              << (batch_auto ? "batch auto" : "batch " + std::to_string(batch)) << ", "
              << PrecisionName(*gpu) << (gpu->channels_last ? ", channels-last (GPUs)" : "") << ", "
              << opt_name << ", " << req.samples << " samples per epoch, " << Epochs(o.epochs)
              << "\n";
    std::cout << market->calibrated;
    std::cout << RecommendTable(*r, o.top, o.epochs, o.pareto ? ranked : 0) << StaleNote(*market)
              << RetiredNote(*market) << RecordLines(paths, records);
  }
  return kExitOk;
}

}  // namespace

void RegisterRecommendCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<RecommendOptions>();
  CLI::App* p = app.add_subcommand("recommend", "Rank every catalog offer by cost per epoch");
  p->add_option("MODEL", o->model, "Zoo name or model file")->required();
  CLI::Option* samples =
      p->add_option("--samples", o->samples, "Training samples per epoch (default: the model's)");
  CLI::Option* val_samples =
      p->add_option("--val-samples", o->val_samples, "Validation samples per epoch");
  p->add_option("--epochs", o->epochs, "Epochs of the job (default 1)");
  p->add_option("--batch", o->batch, "Global batch, or auto: the largest power of two that fits");
  AddLoweringFlags(p, &o->lowering);
  AddMarketOptions(p, &o->market, "on-demand, preemptible, spot (comma-separated)");
  p->add_option("--gpus", o->gpus, "GPU counts to consider, e.g. 1,2,4,8");
  p->add_option("--max-hours", o->max_hours, "Deadline for all epochs, in hours");
  p->add_option("--max-usd", o->max_usd, "Budget for all epochs, in dollars");
  p->add_option("--checkpoint-minutes", o->checkpoint_minutes,
                "Checkpoint interval on spot/preemptible (default: Young/Daly)");
  p->add_option("--unknown-interruptions", o->unknown_interruptions,
                "Spot and preemptible offers without interruption data: never (rank them as if "
                "never interrupted, marked ?; the default), exclude, or a monthly band to assume "
                "(<5%, 5-10%, 10-15%, 15-20%, >20%; marked ~)");
  p->add_option("--overhead-us", o->overhead_us, "Framework overhead per op call (microseconds)");
  AddInputPipelineOption(p, &o->input_ms);
  AddIsaOption(p, &o->isa);
  p->add_option("--top", o->top, "Offers to show (default 20; 0: all)");
  p->add_option("--plot", o->plot, "Write an SVG of s/epoch vs $/epoch with the Pareto front");
  p->add_flag("--json", o->json, "Print JSON");
  p->add_flag("--csv", o->csv, "Print CSV");
  p->add_flag("--pareto", o->pareto,
              "Show only the Pareto-optimal offers (none both faster and cheaper for the job): "
              "the whole trade-off of time against money, cheapest first");
  p->footer(
      "Example:\n  epochcost recommend cifar10_cnn --epochs 50 --as-of 2017-07-01 --plot c.svg");
  p->callback([=] {
    const Status counts = CheckCounts({{samples, 1}, {val_samples, 0}});
    *run = [o, counts] { return counts.ok() ? Recommend(*o) : ReportError(counts); };
  });
}

}  // namespace epochcost::cli
