// `epochcost catalog list|show|history|import|export|stats`.
#include <chrono>
#include <iostream>
#include <set>

#include "catalog/importers.h"
#include "catalog/store.h"
#include "cli/catalog_views.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "cli/targets.h"
#include "engine/file_util.h"

namespace epochcost::cli {
namespace {

struct CatalogOptions {
  std::string path;  // --catalog; empty: CatalogStore::DefaultPath()
  // list
  std::string cloud, gpu, kind, region, as_of;
  double min_vcpus = 0;
  bool json = false, csv = false;
  // show, history
  std::string instance;
  // import, export
  std::string file, format, observed_at;
  bool dry_run = false, skip_bad = false;
};

Result<std::unique_ptr<catalog::CatalogStore>> OpenStore(const CatalogOptions& o) {
  return catalog::CatalogStore::Open(o.path.empty() ? catalog::CatalogStore::DefaultPath()
                                                    : o.path);
}

// "aws:p2.xlarge" or "p2.xlarge".
std::pair<std::string, std::string> SplitInstance(const std::string& spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return {"", spec};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

Result<catalog::OfferFilter> Filter(const CatalogOptions& o) {
  catalog::OfferFilter f;
  f.cloud = o.cloud;
  f.gpu = o.gpu;
  f.region = o.region;
  f.as_of = o.as_of;
  if (o.min_vcpus < 0) return Status::InvalidArgument("--min-vcpus must not be negative");
  f.min_vcpus = o.min_vcpus;
  if (!o.kind.empty()) {
    Result<catalog::PriceKind> k = catalog::ParsePriceKind(o.kind);
    if (!k.ok()) return k.status().WithContext("--kind");
    f.kind = *k;
  }
  return f;
}

// Where a list came out empty: the error for an --as-of before any price of the cloud, a --region
// no offer of the cloud is in, or a --gpu no offer of the cloud has, at any date; OK where the
// filters are real but exclude each other (no H100 as of 2017).
Status WhyNoOffers(const catalog::CatalogStore& store, const catalog::OfferFilter& f) {
  if (!f.as_of.empty()) {  // as recommend and serve say it
    Result<std::vector<catalog::Offer>> then = store.Offers({.cloud = f.cloud, .as_of = f.as_of});
    if (!then.ok()) return then.status();
    if (then->empty())
      return Status::InvalidArgument("--as-of " + f.as_of + ": no price " +
                                     (f.cloud.empty() ? "in the catalog" : "of " + f.cloud) +
                                     " was observed on or before that date");
  }
  if (!f.region.empty()) {
    Result<std::vector<catalog::Offer>> all = store.Offers({.cloud = f.cloud});
    if (!all.ok()) return all.status();
    const std::vector<std::string> clouds =
        f.cloud.empty() ? std::vector<std::string>{} : std::vector<std::string>{f.cloud};
    if (Status in = CheckRegion(*all, f.region, clouds); !in.ok()) return in;
  }
  if (!f.gpu.empty() && f.gpu != "none") {
    Result<std::vector<catalog::Offer>> with = store.Offers({.cloud = f.cloud, .gpu = f.gpu});
    if (!with.ok()) return with.status();
    if (with->empty())
      return Status::InvalidArgument(
          "--gpu '" + f.gpu + "': no offer of " + (f.cloud.empty() ? "the catalog" : f.cloud) +
          " has that GPU (GPUs are named as the catalog lists them: K80, V100, A100, H100, ...)");
  }
  return Status::Ok();
}

int List(const CatalogOptions& o) {
  if (o.json && o.csv)
    return ReportError(Status::InvalidArgument("--json and --csv exclude each other"));
  Result<catalog::OfferFilter> f = Filter(o);
  if (!f.ok()) return ReportError(f.status());
  Result<std::unique_ptr<catalog::CatalogStore>> store = OpenStore(o);
  if (!store.ok()) return ReportError(store.status());
  if (!o.cloud.empty())
    if (Status known = CheckClouds(**store, {o.cloud}); !known.ok()) return ReportError(known);
  Result<std::vector<catalog::Offer>> offers = (*store)->Offers(*f);
  if (!offers.ok()) return ReportError(offers.status());
  if (offers->empty()) {  // a typo in --region or --gpu, or a date too early?
    Status why = WhyNoOffers(**store, *f);
    if (!why.ok()) return ReportError(why);
  }
  std::cout << (o.json ? OffersJson(*offers) : o.csv ? OffersCsv(*offers) : OffersTable(*offers));
  return kExitOk;
}

int Show(const CatalogOptions& o) {
  auto [provider, name] = SplitInstance(o.instance);
  Result<std::unique_ptr<catalog::CatalogStore>> store = OpenStore(o);
  if (!store.ok()) return ReportError(store.status());
  Result<catalog::OfferFilter> f = Filter(o);
  if (!f.ok()) return ReportError(f.status());
  f->cloud = provider;
  f->instance = name;
  Result<std::vector<catalog::Offer>> offers = (*store)->Offers(*f);
  if (!offers.ok()) return ReportError(offers.status());
  if (offers->empty())
    return ReportError(Status::NotFound("no instance '" + o.instance + "' with prices" +
                                        (o.as_of.empty() ? "" : " as of " + o.as_of) +
                                        NearInstances(**store, provider, name) +
                                        " (see `epochcost catalog list`)"));
  std::cout << InstanceText(offers->front().instance) << "\n" << OffersTable(*offers);
  // Interruptions of each (region, kind) with preemptible or spot offers.
  std::string notes;
  std::set<std::string> seen;
  for (const catalog::Offer& offer : *offers) {
    if (offer.kind == catalog::PriceKind::kOnDemand) continue;
    const std::string where = offer.region + " " + std::string(catalog::PriceKindName(offer.kind));
    if (!seen.insert(where).second) continue;
    Result<std::optional<catalog::Interruption>> i = (*store)->InterruptionForOffer(offer);
    if (!i.ok()) return ReportError(i.status());
    if (*i) notes += InterruptionText(where, **i);
  }
  if (!notes.empty()) std::cout << "Interruptions:\n" << notes;
  return kExitOk;
}

int History(const CatalogOptions& o) {
  auto [provider, name] = SplitInstance(o.instance);
  std::optional<catalog::PriceKind> kind;
  if (!o.kind.empty()) {
    Result<catalog::PriceKind> k = catalog::ParsePriceKind(o.kind);
    if (!k.ok()) return ReportError(k.status().WithContext("--kind"));
    kind = *k;
  }
  Result<std::unique_ptr<catalog::CatalogStore>> store = OpenStore(o);
  if (!store.ok()) return ReportError(store.status());
  Result<std::vector<catalog::PriceObservation>> h =
      (*store)->History(provider, name, o.region, kind);
  if (!h.ok()) return ReportError(h.status());
  if (h->empty() && (!o.region.empty() || kind)) {
    // Say which filter left nothing, and what the instance has.
    Result<std::vector<catalog::PriceObservation>> all =
        (*store)->History(provider, name, "", std::nullopt);
    if (!all.ok()) return ReportError(all.status());
    if (!all->empty()) {
      std::set<std::string> regions, kinds;
      for (const catalog::PriceObservation& p : *all) {
        regions.insert(p.region);
        kinds.insert(std::string(catalog::PriceKindName(p.kind)));
      }
      std::string filter;
      if (!o.region.empty()) filter += " in region '" + o.region + "',";
      if (kind) filter += " of kind " + std::string(catalog::PriceKindName(*kind));
      if (filter.ends_with(',')) filter.pop_back();
      return ReportError(
          Status::NotFound("no prices recorded for '" + o.instance + "'" + filter + " (it has " +
                           std::to_string(all->size()) + " prices, in " +
                           CommaList({regions.begin(), regions.end()}) + ", of kinds " +
                           CommaList({kinds.begin(), kinds.end()}) + ")"));
    }
  }
  if (h->empty())
    return ReportError(Status::NotFound("no prices recorded for '" + o.instance + "'"));
  std::cout << HistoryTable(*h);
  return kExitOk;
}

// An observation dated after tomorrow (UTC, as TodayIso) or before any public cloud price (EC2,
// 2006) is an error naming the record: a price from the future would stay "the newest" over every
// real one (catalog list, recommend), one from before 2006 is a typing slip.
Status CheckObservedDates(const catalog::ImportBatch& batch, const std::string& file) {
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::string latest = IsoDay(today + std::chrono::days{1});
  auto check = [&](const std::string& what, const std::string& date) -> Status {
    if (date.empty()) return Status::Ok();  // a record without a date of its own
    if (date > latest)
      return Status::InvalidArgument(file + ": " + what + " observed " + date +
                                     ": a date in the future (today is " + IsoDay(today) + ")");
    if (date < "2006-01-01")
      return Status::InvalidArgument(file + ": " + what + " observed " + date +
                                     ": before any public cloud price (2006)");
    return Status::Ok();
  };
  for (const catalog::PriceObservation& p : batch.prices)
    EPOCHCOST_RETURN_IF_ERROR(
        check(p.provider + ":" + p.instance + " in " + p.region, p.observed_at));
  for (const catalog::Interruption& i : batch.interruptions)
    EPOCHCOST_RETURN_IF_ERROR(
        check(i.provider + ":" + i.instance + " in " + i.region, i.observed_at));
  return Status::Ok();
}

int Import(const CatalogOptions& o) {
  Result<catalog::ImporterFn> importer = catalog::FindImporter(o.format);
  if (!importer.ok()) return ReportError(importer.status().WithContext("--format"));
  Result<std::string> text = ReadFile(o.file);
  if (!text.ok()) return ReportError(text.status());
  if (!o.observed_at.empty()) {
    Status date = catalog::CheckDate(o.observed_at);
    if (!date.ok()) return ReportError(date.WithContext("--observed-at"));
  }
  Result<std::unique_ptr<catalog::CatalogStore>> store = OpenStore(o);
  if (!store.ok()) return ReportError(store.status());
  Result<std::vector<catalog::InstanceType>> known = (*store)->Instances();
  if (!known.ok()) return ReportError(known.status());
  catalog::ImportOptions options{.observed_at = o.observed_at.empty() ? TodayIso() : o.observed_at,
                                 .cloud = o.cloud,
                                 .skip_bad = o.skip_bad,
                                 .known_instances = std::move(*known)};
  Result<catalog::ImportBatch> batch = (*importer)(*text, o.file, options);
  if (!batch.ok()) return ReportError(batch.status());
  if (Status when = CheckObservedDates(*batch, o.file); !when.ok()) return ReportError(when);
  for (const std::string& s : batch->skipped) std::cerr << "epochcost: skipped " << s << "\n";
  Result<catalog::ImportSummary> summary = (*store)->Import(*batch, o.dry_run);
  if (!summary.ok()) return ReportError(summary.status());
  std::cout << SummaryText(*summary, o.dry_run);
  return kExitOk;
}

int Export(const CatalogOptions& o) {
  if (o.format != "csv")
    return ReportError(Status::InvalidArgument("--format: only csv export is supported"));
  Result<std::unique_ptr<catalog::CatalogStore>> store = OpenStore(o);
  if (!store.ok()) return ReportError(store.status());
  Result<std::vector<catalog::PriceObservation>> all = (*store)->AllPrices();
  if (!all.ok()) return ReportError(all.status());
  std::cout << PricesCsv(*all);
  return kExitOk;
}

int Stats(const CatalogOptions& o) {
  Result<std::unique_ptr<catalog::CatalogStore>> store = OpenStore(o);
  if (!store.ok()) return ReportError(store.status());
  Result<catalog::CatalogStats> s = (*store)->Stats();
  if (!s.ok()) return ReportError(s.status());
  std::cout << StatsTable(*s);
  return kExitOk;
}

void AddCatalogPath(CLI::App* app, CatalogOptions* o) {
  app->add_option("--catalog", o->path,
                  "Catalog database (default $EPOCHCOST_CATALOG, else "
                  "$XDG_DATA_HOME/epochcost/catalog.sqlite)");
}

}  // namespace

void RegisterCatalogCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<CatalogOptions>();
  CLI::App* cat = app.add_subcommand("catalog", "Instance types and their prices, with history");
  cat->require_subcommand(1);
  cat->footer("Example:\n  epochcost catalog list --as-of 2017-11-28 --cloud gcp --gpu K80");
  auto bind = [run, o](int (*fn)(const CatalogOptions&)) {
    return [run, o, fn] { *run = [o, fn] { return fn(*o); }; };
  };

  CLI::App* list =
      cat->add_subcommand("list", "Offers: an instance's latest price per place and kind");
  AddCatalogPath(list, o.get());
  list->add_option("--cloud", o->cloud, "aws, gcp, azure or lambda");
  list->add_option("--gpu", o->gpu, "GPU model (K80, V100, A100, ...), or none for CPU only");
  list->add_option("--kind", o->kind, "on_demand, preemptible or spot");
  list->add_option("--region", o->region, "Region, e.g. us-east-1");
  list->add_option("--min-vcpus", o->min_vcpus, "At least this many vCPUs");
  list->add_option("--as-of", o->as_of, "Prices as of DATE (YYYY-MM-DD)");
  list->add_flag("--json", o->json, "Print JSON");
  list->add_flag("--csv", o->csv, "Print CSV");
  list->footer(
      "Examples:\n  epochcost catalog list --cloud aws --gpu V100 --kind spot\n"
      "  epochcost catalog list --as-of 2017-11-28 --cloud gcp --gpu K80");
  list->callback(bind(List));

  CLI::App* show = cat->add_subcommand("show", "An instance type's hardware and current prices");
  AddCatalogPath(show, o.get());
  show->add_option("INSTANCE", o->instance, "[PROVIDER:]NAME, e.g. aws:p2.xlarge")->required();
  show->add_option("--as-of", o->as_of, "Prices as of DATE (YYYY-MM-DD)");
  show->footer("Example:\n  epochcost catalog show gcp:n1-standard-1+K80 --as-of 2017-11-28");
  show->callback(bind(Show));

  CLI::App* history = cat->add_subcommand("history", "Every recorded price of an instance type");
  AddCatalogPath(history, o.get());
  history->add_option("INSTANCE", o->instance, "[PROVIDER:]NAME")->required();
  history->add_option("--region", o->region, "Only this region");
  history->add_option("--kind", o->kind, "Only this kind");
  history->footer("Example:\n  epochcost catalog history gcp:K80x1");
  history->callback(bind(History));

  CLI::App* import = cat->add_subcommand("import", "Add a price file's prices (one transaction)");
  AddCatalogPath(import, o.get());
  std::string formats;
  for (const auto& i : catalog::Importers())
    formats += "\n  " + std::string(i.format) + ": " + std::string(i.description);
  import->add_option("FILE", o->file, "The price file")->required();
  import->add_option("--format", o->format, "One of:" + formats)->required();
  import->add_option("--cloud", o->cloud, "The provider, where the format does not say");
  import->add_option("--observed-at", o->observed_at,
                     "Date for prices without one (default today, YYYY-MM-DD)");
  import->add_flag("--dry-run", o->dry_run, "Validate and count, store nothing");
  import->add_flag("--skip-bad", o->skip_bad, "Leave out bad records (each is reported)");
  import->footer("Example:\n  epochcost catalog import vms.csv --format skypilot --cloud aws");
  import->callback(bind(Import));

  CLI::App* exp = cat->add_subcommand("export", "Print every price observation");
  AddCatalogPath(exp, o.get());
  exp->add_option("--format", o->format, "csv (the format `import --format csv` reads)")
      ->required();
  exp->footer("Example:\n  epochcost catalog export --format csv > prices.csv");
  exp->callback(bind(Export));

  CLI::App* stats =
      cat->add_subcommand("stats", "Counts per provider and kind, newest observation");
  AddCatalogPath(stats, o.get());
  stats->footer("Example:\n  epochcost catalog stats");
  stats->callback(bind(Stats));
}

}  // namespace epochcost::cli
