// `epochcost schedule`: the monthly cost of a recurring job on a VM started and stopped on a
// schedule, against keeping the VM on (pricing/schedule.h, docs/schedule.md).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "catalog/store.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "cli/prediction.h"
#include "cli/targets.h"
#include "pricing/schedule.h"

namespace epochcost::cli {
namespace {

struct ScheduleOptions {
  std::string every, cron, runtime, boot = "0s", instance = "gcp:n1-standard-1",
                                    kind = "preemptible", region, as_of, catalog;
  double disk_gb = 10;
  int scheduler_jobs = 2;
  std::string function_time = "60s";
  std::optional<double> disk_fee, scheduler_fee, function_fee;
  bool json = false;
  // Or the run time predicted: `epochs` epochs of `model` on the instance (as `predict --on`).
  std::string model, framework, profiles;
  double epochs = 1;
  int64_t batch = 0, samples = -1;
};

// A run time predicted for --model: what `predict MODEL --on INSTANCE` gives an epoch, times
// --epochs (no validation pass; a recurring job's run is its training).
struct PredictedRun {
  Seconds runtime, epoch;
  std::string source;
};

Result<PredictedRun> PredictRun(const ScheduleOptions& o) {
  if (!(o.epochs > 0 && std::isfinite(o.epochs) && o.epochs <= 1e6))
    return Status::InvalidArgument("--epochs must be above 0 and at most 1e6");
  Result<std::unique_ptr<Predictor>> predictor = Predictor::Open(o.profiles, o.catalog);
  if (!predictor.ok()) return predictor.status();
  PredictionRequest r;
  r.model = o.model;
  r.on = o.instance;
  r.batch = o.batch;
  r.samples = o.samples;
  r.val_samples = 0;
  r.framework = o.framework;
  Result<Prediction> p = (*predictor)->Predict(r);
  const std::string what = "--model " + o.model + " on " + o.instance;
  if (!p.ok()) return p.status().WithContext(what);
  if (p->on_machine && !p->on_machine->fits)
    return Status::InvalidArgument(what + ": needs " + Si(p->on_machine->memory.total().value()) +
                                   "B per device, has " + Si(p->on_machine->capacity.value()) +
                                   "B (the largest batch that fits: " +
                                   std::to_string(p->on_machine->largest_batch) + "; --batch)");
  return PredictedRun{p->epoch.epoch * o.epochs, p->epoch.epoch,
                      p->epoch.source.empty() ? p->path : p->epoch.source};
}

std::string Dollars(Usd u) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", u.dollars());
  return buf;
}

// Without --as-of, a price observed more than a year before its provider's newest prices may no
// longer be what the provider charges (recommend and serve leave such offers out). Returns a note
// saying so, naming the price kinds of the same instance that have a price of that last year;
// empty where the price is current or the date was asked for.
Result<std::string> StalePriceNote(const catalog::CatalogStore& cat, const catalog::Offer& offer,
                                   const ScheduleOptions& o) {
  if (!o.as_of.empty()) return std::string();
  Result<std::map<std::string, std::string>> newest_prices = NewestPrices(cat);
  if (!newest_prices.ok()) return newest_prices.status();
  std::map<std::string, std::string>& newest = *newest_prices;
  std::vector<catalog::Offer> chosen = {offer};
  if (catalog::TakeStale(&chosen, newest, kStaleDays).empty()) return std::string();
  Result<std::vector<catalog::Offer>> all =
      cat.Offers({.cloud = offer.instance.provider, .instance = offer.instance.name});
  if (!all.ok()) return all.status();
  catalog::TakeStale(&*all, newest, kStaleDays);  // what is left is current
  std::set<std::string> current;
  for (const catalog::Offer& of : *all) {
    std::string k(PriceKindName(of.kind));
    std::replace(k.begin(), k.end(), '_', '-');  // as --kind spells it
    current.insert(k);
  }
  const std::string kinds = CommaList({current.begin(), current.end()});
  return "note: this " + o.kind + " price is of " + offer.observed_at +
         ", more than a year before " + offer.instance.provider + "'s newest prices (" +
         newest[offer.instance.provider] + "), and may no longer be charged; " +
         (kinds.empty() ? "the catalog has no current price of " + o.instance
                        : o.instance + " has current " + kinds + " prices (--kind)") +
         "; --as-of DATE states the date meant.\n";
}

int Schedule(const ScheduleOptions& o) {
  if (o.every.empty() == o.cron.empty())
    return ReportError(Status::InvalidArgument("give one of --every INTERVAL and --cron EXPR"));
  pricing::ScheduleRequest req;
  if (!o.every.empty()) {
    Result<Seconds> every = pricing::ParseDuration(o.every, "--every");
    if (!every.ok()) return ReportError(every.status());
    // Cron, Cloud Scheduler and EventBridge all start on whole minutes: the rule this prices
    // cannot run every 2 s or every 90 s.
    const double whole_minutes = every->seconds() / 60;
    if (whole_minutes < 1 || whole_minutes != std::floor(whole_minutes))
      return ReportError(Status::InvalidArgument(
          "--every '" + o.every +
          "': a scheduler rule starts on whole minutes (cron, Cloud Scheduler, EventBridge); "
          "give 1m or more, in whole minutes"));
    req.interval = *every;
    req.starts_per_month = pricing::kHoursPerMonth * 3600 / every->seconds();
  } else {
    Result<pricing::CronSchedule> cron = pricing::CronSchedule::Parse(o.cron);
    if (!cron.ok()) return ReportError(cron.status().WithContext("--cron"));
    req.starts_per_month = cron->StartsPerMonth();
    req.interval = cron->ShortestInterval();  // a run longer than it never lets the VM stop
  }
  if (o.runtime.empty() == o.model.empty())
    return ReportError(Status::InvalidArgument(
        "give one of --runtime DURATION and --model MODEL (its run time predicted on --instance)"));
  if (!o.runtime.empty()) {
    Result<Seconds> runtime = pricing::ParseDuration(o.runtime, "--runtime");
    if (!runtime.ok()) return ReportError(runtime.status());
    req.runtime = *runtime;
  }
  if (o.boot != "0s" && o.boot != "0") {
    Result<Seconds> boot = pricing::ParseDuration(o.boot, "--boot-seconds");
    if (!boot.ok()) return ReportError(boot.status());
    req.boot = *boot;
  }
  Result<Seconds> fn = pricing::ParseDuration(o.function_time, "--function-time");
  if (!fn.ok()) return ReportError(fn.status());
  req.function_time = *fn;
  if (!(o.disk_gb > 0 && o.disk_gb <= 65536))  // NaN fails too
    return ReportError(Status::InvalidArgument("--disk-gb must be from 1 to 65536"));
  if (o.scheduler_jobs < 0 || o.scheduler_jobs > 100)
    return ReportError(Status::InvalidArgument("--scheduler-jobs must be from 0 to 100"));
  req.disk_gb = o.disk_gb;
  req.scheduler_jobs = o.scheduler_jobs;
  if (!o.as_of.empty()) {
    Status s = catalog::CheckDate(o.as_of);
    if (!s.ok()) return ReportError(s.WithContext("--as-of"));
  }

  const size_t colon = o.instance.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == o.instance.size())
    return ReportError(Status::InvalidArgument("--instance " + o.instance +
                                               ": expected PROVIDER:INSTANCE (gcp:n1-standard-1)"));
  const std::string provider = o.instance.substr(0, colon), name = o.instance.substr(colon + 1);
  Result<catalog::PriceKind> kind = catalog::ParsePriceKind(o.kind);
  if (!kind.ok()) return ReportError(kind.status().WithContext("--kind"));
  Result<std::unique_ptr<catalog::CatalogStore>> cat = catalog::CatalogStore::Open(
      o.catalog.empty() ? catalog::CatalogStore::DefaultPath() : o.catalog);
  if (!cat.ok()) return ReportError(cat.status());
  catalog::OfferFilter f{
      .cloud = provider, .region = o.region, .instance = name, .kind = *kind, .as_of = o.as_of};
  Result<std::vector<catalog::Offer>> offers = (*cat)->Offers(f);
  if (!offers.ok()) return ReportError(offers.status());
  if (offers->empty())
    return ReportError(Status::NotFound(
        "--instance " + o.instance + ": no " + o.kind + " price in the catalog" +
        (o.region.empty() ? "" : " in " + o.region) +
        (o.as_of.empty() ? "" : " on or before " + o.as_of) + " (see `epochcost catalog list`)"));
  const catalog::Offer* offer = &offers->front();
  for (const catalog::Offer& of : *offers)
    if (of.price < offer->price) offer = &of;
  req.price = offer->price;
  // --model: predicted once the instance is known to be a priced PROVIDER:INSTANCE.
  std::optional<PredictedRun> predicted;
  if (!o.model.empty()) {
    Result<PredictedRun> run = PredictRun(o);
    if (!run.ok()) return ReportError(run.status());
    predicted = *run;
    req.runtime = run->runtime;
  }
  Result<std::string> stale = StalePriceNote(**cat, *offer, o);
  if (!stale.ok()) return ReportError(stale.status());
  Result<pricing::BillingRule> rule =
      pricing::RuleFor(provider, o.as_of.empty() ? TodayIso() : o.as_of);
  if (!rule.ok()) return ReportError(rule.status());
  req.billing = *rule;

  // Fees: the options, else data/fees for the provider and date.
  for (const auto& [fee, flag] : {std::pair{o.disk_fee, "--disk-usd-per-gb-month"},
                                  {o.scheduler_fee, "--scheduler-usd-per-job-month"},
                                  {o.function_fee, "--function-usd-per-second"}})
    if (fee && !(*fee >= 0 && *fee <= 1e6))
      return ReportError(
          Status::InvalidArgument(std::string(flag) + " must be from 0 to 1e6 dollars"));
  const bool all_given = o.disk_fee && o.scheduler_fee && o.function_fee;
  if (!all_given) {
    Result<pricing::ScheduleFees> fees = pricing::FeesFor(provider, o.as_of);
    if (!fees.ok())
      return ReportError(fees.status().WithContext(
          "give --disk-usd-per-gb-month, --scheduler-usd-per-job-month and "
          "--function-usd-per-second"));
    req.fees = *fees;
  }
  if (o.disk_fee) req.fees.disk_usd_per_gb_month = *o.disk_fee;
  if (o.scheduler_fee) req.fees.scheduler_usd_per_job_month = *o.scheduler_fee;
  if (o.function_fee) req.fees.function_usd_per_second = *o.function_fee;

  Result<pricing::ScheduleCost> c = pricing::MonthlyScheduleCost(req);
  if (!c.ok()) return ReportError(c.status());
  if (o.json) {
    nlohmann::ordered_json j;
    j["instance"] = o.instance;
    j["region"] = offer->region;
    j["kind"] = o.kind;
    j["usd_per_hour"] = offer->price.dollars_per_hour();
    j["price_observed_at"] = offer->observed_at;
    j["price_stale"] = !stale->empty();
    if (predicted)
      j["predicted"] = {{"model", o.model},
                        {"epochs", o.epochs},
                        {"epoch_seconds", predicted->epoch.seconds()},
                        {"source", predicted->source}};
    j["runtime_seconds"] = req.runtime.seconds();
    j["starts_per_month"] = req.starts_per_month;
    j["billed_seconds_per_run"] = c->billed_per_run.seconds();
    j["vm_usd"] = c->vm.dollars();
    j["disk_usd"] = c->disk.dollars();
    j["scheduler_usd"] = c->scheduler.dollars();
    j["functions_usd"] = c->functions.dollars();
    j["total_usd_per_month"] = c->total().dollars();
    j["always_on_usd_per_month"] = c->always_on.dollars();
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  char head[512];
  std::snprintf(head, sizeof head,
                "%s %s in %s at $%.4f/h (price of %s); %s\n"
                "%.1f runs a month (%s), each billed %.0f s (%.0f s used)\n",
                o.instance.c_str(), o.kind.c_str(), offer->region.c_str(),
                offer->price.dollars_per_hour(), offer->observed_at.c_str(),
                req.billing.description.c_str(), req.starts_per_month,
                o.every.empty() ? ("cron " + o.cron).c_str() : ("every " + o.every).c_str(),
                c->billed_per_run.seconds(), (req.runtime + req.boot).seconds());
  if (predicted)
    std::cout << "run time predicted: " << Epochs(o.epochs) << " of " << o.model << " x "
              << Number("%.1f", predicted->epoch.seconds())
              << " s = " << Number("%.0f", req.runtime.seconds()) << " s (" << predicted->source
              << ")\n";
  std::cout << head;
  char disk[64], sched[64], fns[96];
  std::snprintf(disk, sizeof disk, "%g GB, all month",
                std::max(req.disk_gb, req.fees.disk_minimum_gb));
  std::snprintf(sched, sizeof sched, "%d rules", req.scheduler_jobs);
  std::snprintf(fns, sizeof fns, "%d calls of %.0f s per run", req.function_calls,
                req.function_time.seconds());
  std::vector<std::vector<std::string>> rows = {
      {"Item", "$/month", "What"},
      {"VM", Dollars(c->vm), "billed seconds x price"},
      {"Disk", Dollars(c->disk), disk},
      {"Scheduler", Dollars(c->scheduler), sched},
      {"Functions", Dollars(c->functions), fns},
      {"Total", Dollars(c->total()), ""},
      {"Always on", Dollars(c->always_on), "the VM all month, and its disk"}};
  std::cout << RenderTable(rows, {false, true, false});
  if (!req.fees.source.empty())
    std::cout << "fees: data/fees/fees.csv, " << req.fees.source << "\n";
  std::cout << *stale;
  return kExitOk;
}

}  // namespace

void RegisterScheduleCommand(CLI::App& app, CommandFn* run) {
  auto o = std::make_shared<ScheduleOptions>();
  CLI::App* s = app.add_subcommand(
      "schedule", "Monthly cost of a recurring job on a VM started and stopped on a schedule");
  s->add_option("--every", o->every, "Interval between starts, whole minutes: 30m, 4h, 1d, 1h30m");
  s->add_option("--cron", o->cron, "Or a 5-field cron expression: \"0 */4 * * *\"");
  s->add_option("--runtime", o->runtime, "The job's run time: 2m, 1h30m");
  s->add_option("--model", o->model,
                "Or the job trains this model (zoo name or file): its run time is predicted on "
                "--instance, as `predict --on` does");
  s->add_option("--epochs", o->epochs, "With --model: epochs a run trains (default 1)");
  CLI::Option* batch =
      s->add_option("--batch", o->batch, "With --model: batch size (default: the model's own)");
  CLI::Option* samples = s->add_option("--samples", o->samples,
                                       "With --model: training samples per epoch (default: the "
                                       "model's)");
  s->add_option("--framework", o->framework,
                "With --model: apply this framework's stored calibration (see `epochcost "
                "calibrate`)");
  s->add_option("--profiles", o->profiles, "With --model: profile database");
  s->add_option("--instance", o->instance, "PROVIDER:INSTANCE (default gcp:n1-standard-1)");
  s->add_option("--kind", o->kind, "on-demand, preemptible (default) or spot");
  s->add_option("--region", o->region, "Region (default: the cheapest)");
  s->add_option("--disk-gb", o->disk_gb, "Boot disk in GB, charged all month (default 10)");
  s->add_option("--boot-seconds", o->boot, "VM boot before the job, billed: 45s (default 0s)");
  s->add_option("--scheduler-jobs", o->scheduler_jobs,
                "Scheduler rules (default 2: one starts the VM, one stops it)");
  s->add_option("--function-time", o->function_time,
                "Run time of each start or stop function call (default 60s)");
  s->add_option("--disk-usd-per-gb-month", o->disk_fee, "Disk fee (default: data/fees)");
  s->add_option("--scheduler-usd-per-job-month", o->scheduler_fee,
                "Scheduler fee (default: data/fees)");
  s->add_option("--function-usd-per-second", o->function_fee,
                "Function time fee (default: data/fees)");
  s->add_option("--as-of", o->as_of, "Prices, billing rule and fees in force on this date");
  s->add_option("--catalog", o->catalog, "Catalog database");
  s->add_flag("--json", o->json, "Print JSON");
  s->footer(
      "Example:\n  epochcost schedule --every 4h --runtime 2m --instance gcp:n1-standard-1 "
      "--kind preemptible --as-of 2018-11-15");
  s->callback([run, o, batch, samples] {
    const Status counts = CheckCounts({{batch, 1}, {samples, 1}});
    *run = [o, counts] { return counts.ok() ? Schedule(*o) : ReportError(counts); };
  });
}

}  // namespace epochcost::cli
