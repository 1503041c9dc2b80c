// The recommender: every offer (instance × region × price kind) priced by its predicted cost per
// epoch. Predictions are computed once per distinct machine (offers share hardware), then each
// offer adds its price, billing rule and interruption cost; deadline and budget filters apply to
// the whole job; the Pareto front is over (hours, dollars) of the job. Views render the result.
#ifndef EPOCHCOST_PRICING_RECOMMENDER_H_
#define EPOCHCOST_PRICING_RECOMMENDER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/records.h"
#include "engine/machine.h"
#include "pricing/preemption.h"

namespace epochcost::pricing {

// What the recommender does with a spot or preemptible offer the catalog has no interruption data
// for (`--unknown-interruptions`): rank it as if never interrupted (the default; the views mark
// it), as if interrupted at an AWS Spot Advisor band the user names, or leave it out.
struct UnknownInterruptions {
  enum class Policy { kNever, kAssume, kExclude };
  Policy policy = Policy::kNever;
  std::string band;  // kAssume: "<5%", "5-10%", "10-15%", "15-20%" or ">20%"
};
// "never", "exclude" or a band; anything else is an error that lists the choices.
Result<UnknownInterruptions> ParseUnknownInterruptions(const std::string& text);

struct RecommendRequest {
  const Model* model = nullptr;
  LoweringOptions cpu_lowering;  // batch = the global batch
  LoweringOptions gpu_lowering;
  bool batch_auto = false;  // each offer at the largest power-of-two batch that fits
  int64_t samples = 0;
  int64_t val_samples = 0;
  double epochs = 1;
  std::vector<int> gpu_counts;  // empty: any
  std::optional<double> max_hours;
  std::optional<double> max_usd;
  std::optional<Seconds> checkpoint_interval;
  std::string as_of;                       // billing rules in force then (empty: today's)
  std::optional<Seconds> per_op_overhead;  // on every machine
  Seconds input_per_sample;            // the input pipeline's CPU time per sample (MachineSettings)
  VectorIsa isa = VectorIsa::kNative;  // CPU offers: the framework build's vector set
  Corrections corrections;    // a framework's calibration (its overhead yields to per_op_overhead)
  bool every_region = false;  // false: one offer per machine and price kind (pricing/regions.h)
  UnknownInterruptions unknown_interruptions;
};

struct RankedOffer {
  catalog::Offer offer;
  std::string machine;  // provider:instance
  int gpus = 0;
  std::string accelerators;  // "1 x K80", or "16 vCPU Skylake-SP"
  int64_t batch = 0;
  Seconds epoch;       // predicted, without interruptions
  Usd usd_per_epoch;   // price x epoch x (1 + preemption overhead)
  Seconds total_time;  // for all epochs, with interruptions
  Usd total_usd;       // billed by the provider's rule
  PreemptionCost preemption;
  // False for a spot or preemptible offer the catalog has no interruption data for: it is ranked
  // as if never interrupted, or at the band the request assumes (interruptions_assumed), and the
  // views say so.
  bool interruptions_known = true;
  bool interruptions_assumed = false;
  Seconds baseline_epoch;  // --batch auto: the epoch at the requested batch, for comparison
  std::string source;
  bool pareto = false;
  bool input_bound = false;  // its GPUs wait for the input pipeline (MachinePrediction)
  int other_regions = 0;     // other regions offering this machine and kind, folded into this row
};

struct DroppedOffer {
  std::string machine;
  std::string reason;
};

// The offers a limit of the job (--max-hours, --max-usd) excluded, and the one of them that came
// closest to it: the fastest for a deadline, the cheapest for a budget.
struct OverLimit {
  size_t offers = 0;
  std::optional<RankedOffer> closest;
};

struct Recommendation {
  std::vector<RankedOffer> ranked;    // cheapest per epoch first
  size_t offers = 0;                  // offers ranked, before one per machine and kind was kept
  std::vector<DroppedOffer> dropped;  // one per machine and reason
  size_t unknown_interruptions_left_out = 0;  // offers, with --unknown-interruptions exclude
  OverLimit over_deadline, over_budget;
};

// Interruption data of an offer (the catalog's), nullopt where none is known.
using InterruptionLookup =
    std::function<Result<std::optional<catalog::Interruption>>(const catalog::Offer&)>;

Result<Recommendation> Recommend(
    const RecommendRequest& request, const std::vector<catalog::Offer>& offers,
    const References& refs, const InterruptionLookup& interruptions,
    const std::function<Result<Machine>(const catalog::InstanceType&)>& machine_of);

// Marks the offers no other beats on both total hours and total dollars.
void MarkPareto(std::vector<RankedOffer>* offers);

// What makes two machines predict alike (offers of one instance type in many regions share it),
// and how a machine's accelerators are shown ("1 x K80", "16 vCPU Skylake-SP").
std::string MachineKey(const Machine& m);
std::string Accelerators(const Machine& m);

}  // namespace epochcost::pricing

#endif  // EPOCHCOST_PRICING_RECOMMENDER_H_
