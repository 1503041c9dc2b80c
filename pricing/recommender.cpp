#include "pricing/recommender.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "pricing/billing.h"
#include "pricing/regions.h"

namespace epochcost::pricing {
namespace {

struct Evaluated {
  Result<MachinePrediction> prediction = Status::NotFound("");
  Seconds baseline_epoch;
  int64_t batch = 0;
};

// Counts an offer a limit excluded, keeping the closest to the limit by `closer`.
void Note(OverLimit* over, const RankedOffer& offer,
          bool (*closer)(const RankedOffer&, const RankedOffer&)) {
  ++over->offers;
  if (!over->closest || closer(offer, *over->closest)) over->closest = offer;
}

bool Faster(const RankedOffer& a, const RankedOffer& b) { return a.total_time < b.total_time; }
bool Cheaper(const RankedOffer& a, const RankedOffer& b) { return a.total_usd < b.total_usd; }

}  // namespace

std::string MachineKey(const Machine& m) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s|%d|%s|%g|%d|%g", m.gpu ? m.gpu->name.c_str() : "", m.gpus,
                m.cpu ? m.cpu->family.c_str() : "", m.vcpus, m.smt ? 1 : 0, m.host_memory.value());
  return buf;
}

std::string Accelerators(const Machine& m) {
  if (m.gpus > 0)
    return std::to_string(m.gpus) + " x " +
           (m.gpu->short_name.empty() ? m.gpu->name : m.gpu->short_name);
  char buf[128];
  std::snprintf(buf, sizeof buf, "%g vCPU %s", m.vcpus, m.cpu ? m.cpu->core_uarch.c_str() : "?");
  return buf;
}

void MarkPareto(std::vector<RankedOffer>* offers) {
  for (RankedOffer& a : *offers) {
    a.pareto = true;
    for (const RankedOffer& b : *offers) {
      const bool no_worse = b.total_time <= a.total_time && b.total_usd <= a.total_usd;
      const bool better = b.total_time < a.total_time || b.total_usd < a.total_usd;
      if (no_worse && better) {
        a.pareto = false;
        break;
      }
    }
  }
}

Result<UnknownInterruptions> ParseUnknownInterruptions(const std::string& text) {
  if (text == "never") return UnknownInterruptions{};
  if (text == "exclude")
    return UnknownInterruptions{.policy = UnknownInterruptions::Policy::kExclude};
  const UnknownInterruptions assume{.policy = UnknownInterruptions::Policy::kAssume, .band = text};
  if (!text.empty() && InterruptionsPerHour(catalog::Interruption{.frequency_band = text}).ok())
    return assume;
  return Status::InvalidArgument("--unknown-interruptions '" + text +
                                 "': expected never, exclude, or a monthly interruption band: <5%, "
                                 "5-10%, 10-15%, 15-20% or >20%");
}

Result<Recommendation> Recommend(
    const RecommendRequest& r, const std::vector<catalog::Offer>& offers, const References& refs,
    const InterruptionLookup& interruptions,
    const std::function<Result<Machine>(const catalog::InstanceType&)>& machine_of) {
  Recommendation out;
  std::map<std::string, Evaluated> cache;
  std::map<std::string, std::string> dropped;  // machine -> reason
  LoweringCache lowerings;
  auto settings_for = [&](bool gpu) {
    MachineSettings s{.samples = r.samples,
                      .val_samples = r.val_samples,
                      .per_op_overhead = r.per_op_overhead,
                      .input_per_sample = r.input_per_sample,
                      .isa = r.isa,
                      .cache = &lowerings,
                      .op_rows = false};
    s.Apply(r.corrections.For(gpu));
    return s;
  };
  for (const catalog::Offer& offer : offers) {
    const std::string name = offer.instance.provider + ":" + offer.instance.name;
    Result<Machine> machine = machine_of(offer.instance);
    if (!machine.ok()) {
      dropped.emplace(name, machine.status().message());  // names the machine
      continue;
    }
    if (!r.gpu_counts.empty() && machine->gpus > 0 &&
        std::find(r.gpu_counts.begin(), r.gpu_counts.end(), machine->gpus) == r.gpu_counts.end()) {
      continue;
    }
    const std::string key = MachineKey(*machine);
    auto it = cache.find(key);
    if (it == cache.end()) {
      Evaluated e;
      LoweringOptions lowering = machine->gpus > 0 ? r.gpu_lowering : r.cpu_lowering;
      const MachineSettings settings = settings_for(machine->gpus > 0);
      e.prediction = PredictOnMachine(*r.model, lowering, *machine, refs, settings);
      e.batch = lowering.batch;
      if (e.prediction.ok() && r.batch_auto && e.prediction->largest_batch > 0) {
        e.baseline_epoch = e.prediction->epoch.epoch;
        int64_t b = 1;
        const int64_t cap =
            std::min<int64_t>(e.prediction->largest_batch, std::max<int64_t>(r.samples, 1));
        while (b * 2 <= cap) b *= 2;
        if (b != lowering.batch) {
          lowering.batch = b;
          Result<MachinePrediction> at =
              PredictOnMachine(*r.model, lowering, *machine, refs, settings);
          if (at.ok()) {
            e.prediction = std::move(at);
            e.batch = b;
          }
        }
      }
      it = cache.emplace(key, std::move(e)).first;
    }
    const Evaluated& e = it->second;
    if (!e.prediction.ok()) {
      dropped.emplace(name, e.prediction.status().message());
      continue;
    }
    const MachinePrediction& p = *e.prediction;
    if (!p.fits) {
      dropped.emplace(name, "needs " + std::to_string(p.memory.total().value() / 1e9).substr(0, 5) +
                                " GB per device, has " +
                                std::to_string(p.capacity.value() / 1e9).substr(0, 5) + " GB");
      continue;
    }
    RankedOffer ro;
    ro.offer = offer;
    ro.machine = name;
    ro.gpus = machine->gpus;
    ro.accelerators = Accelerators(*machine);
    ro.batch = e.batch;
    ro.epoch = p.epoch.epoch;
    ro.baseline_epoch = e.baseline_epoch;
    ro.source = p.source;
    ro.input_bound = p.input_bound;
    double rate = 0;
    if (offer.kind != catalog::PriceKind::kOnDemand) {
      Result<std::optional<catalog::Interruption>> i = interruptions(offer);
      if (!i.ok()) return i.status().WithContext(name);
      ro.interruptions_known = i->has_value();
      if (!*i && r.unknown_interruptions.policy == UnknownInterruptions::Policy::kExclude) {
        ++out.unknown_interruptions_left_out;
        continue;
      }
      if (!*i && r.unknown_interruptions.policy == UnknownInterruptions::Policy::kAssume) {
        *i = catalog::Interruption{.frequency_band = r.unknown_interruptions.band};
        ro.interruptions_assumed = true;
      }
      if (*i) {
        Result<double> got = InterruptionsPerHour(**i);
        if (!got.ok()) return got.status().WithContext(name);
        rate = *got;
      }
    }
    const Bytes checkpoint = p.memory.weights + p.memory.optimizer_state;
    ro.preemption = ExpectedPreemption(rate, checkpoint, r.checkpoint_interval);
    const double factor = 1 + ro.preemption.overhead;
    ro.usd_per_epoch = Usd::FromDollars(offer.price.value() * ro.epoch.hours() * factor);
    ro.total_time = ro.epoch * (r.epochs * factor);
    Result<BillingRule> rule =
        RuleFor(offer.instance.provider, r.as_of.empty() ? offer.observed_at : r.as_of);
    if (!rule.ok()) return rule.status().WithContext(name);
    ro.total_usd = BilledCost(ro.total_time, offer.price, *rule);
    const bool late = r.max_hours && ro.total_time.hours() > *r.max_hours;
    const bool dear = r.max_usd && ro.total_usd.value() > *r.max_usd;
    if (late) Note(&out.over_deadline, ro, Faster);
    if (dear) Note(&out.over_budget, ro, Cheaper);
    if (!late && !dear) out.ranked.push_back(std::move(ro));
  }
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const RankedOffer& a, const RankedOffer& b) {
                     if (a.usd_per_epoch != b.usd_per_epoch)
                       return a.usd_per_epoch < b.usd_per_epoch;
                     return a.epoch < b.epoch;
                   });
  out.offers = out.ranked.size();
  if (!r.every_region) FoldRegions(&out.ranked);
  MarkPareto(&out.ranked);
  for (const auto& [machine, reason] : dropped) out.dropped.push_back({machine, reason});
  return out;
}

}  // namespace epochcost::pricing
