// Wiring between the stores and the engine's cross-device model: the measured references a
// profile store holds, and the machine a `--on` target names.
#ifndef EPOCHCOST_CLI_TARGETS_H_
#define EPOCHCOST_CLI_TARGETS_H_

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/store.h"
#include "engine/machine.h"
#include "profiler/profile_store.h"

namespace epochcost::cli {

// PyTorch's cost per op call as another CPU's profile measured it.
struct BorrowedCall {
  std::string device;  // that CPU's model string
  double seconds = 0;
};

// PyTorch's cost per op call (framework_call_seconds) as the first CPU profile in `store` other
// than `self` that measured it, at 1 thread, one of `self`'s ISA first: what a profile measured
// before the ATen module existed, or without it, and a CPU predicted by scaling from such a
// profile, charge per op call of a step lowered as PyTorch runs it. None where no other CPU
// profile has it.
Result<std::optional<BorrowedCall>> FrameworkCallElsewhere(const profiler::ProfileStore& store,
                                                           const profiler::Fingerprint& self);

// For each precision the store's CPU with the most measurements at it at one thread (`cpu`: the
// f32 one), and every measured GPU (each leading a pool of all of them), as references for
// scaling. A GPU reference needs a spec-table
// row for its model (matched by name); a CPU reference uses its measured 1-thread peak GEMM and
// triad bandwidth.
// `without_gpu`: leave out the profiles of that GPU (its data/hardware/gpus.csv row name), to
// predict it as a GPU nothing was measured on (validate --hold-out-gpu).
Result<References> LoadReferences(const profiler::ProfileStore& store,
                                  const std::string& without_gpu = "");

// The spec-table row of a GPU named as drivers name them ("NVIDIA H100 80GB HBM3").
Result<GpuSpec> SpecOfGpuModel(const std::string& model);

// The hardware of a catalog instance type (cpu family of its host, GPUs).
Result<Machine> MachineOf(const catalog::InstanceType& t);

// What an instance name the catalog lacks may have meant ("c5.larg", "C5.large"): " (did you
// mean: aws:c5.large?)" with up to five of `provider`'s instance types near it (NearNames); empty
// when none is.
std::string NearInstances(const catalog::CatalogStore& catalog, const std::string& provider,
                          const std::string& typed);

// `gpu:NAME` (a gpus.csv short name), `cpu:FAMILY:VCPUS` (a cpus.csv family), or
// `PROVIDER:INSTANCE` from the catalog (`aws:p2.xlarge`, `gcp:n1-standard-1+K80`).
// `gpus` > 0 overrides a spec target's GPU count.
Result<Machine> ResolveTarget(const std::string& target, const catalog::CatalogStore& catalog,
                              int gpus);

// The error for `--framework NAME` with no calibration stored for it (on `kind`, "cpu" or "gpu";
// on any kind when empty): what to run, naming the shipped run logs of that framework, which a
// first calibration can be fitted on (docs/calibration.md), and the frameworks `profiles` has a
// calibration of (a misspelt name is then plain).
Status NoCalibration(const std::string& framework, const std::string& kind,
                     const profiler::ProfileStore& profiles);

// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitCommas(const std::string& s);

// A --cloud the catalog holds no prices of is a typo, not an empty market: the error names the
// providers it has ("--cloud 'gpc': the catalog has no prices of it (it has aws, azure, gcp,
// lambda)"). A provider a user imported (any name) is one it has.
Status CheckClouds(const catalog::CatalogStore& catalog, const std::vector<std::string>& clouds);

// The error for a --region that none of `offers` (the offers of `clouds` on `as_of`, before any
// region was chosen; empty `clouds`: every provider's) is in; OK for an empty `region`.
Status CheckRegion(const std::vector<catalog::Offer>& offers, const std::string& region,
                   const std::vector<std::string>& clouds, const std::string& as_of = "");

// The catalog's offers on `as_of` (empty: the newest) of the given clouds, kinds and regions
// (each comma-separated or repeated; empty: all). Errors name the flag of a bad value.
struct OfferSelection {
  std::vector<std::string> clouds;
  std::string kinds, regions, as_of;
};
Result<std::vector<catalog::Offer>> SelectOffers(const catalog::CatalogStore& catalog,
                                                 const OfferSelection& s);

// What `recommend` and `serve` rank: the selected offers (at a checked --as-of), one per
// instance, region and kind (catalog::OnePerRegion), the measured
// references, and the calibrations of --framework (an error when it has none stored).
struct MarketInputs {
  std::string catalog, profiles, framework;  // empty: default paths, no calibration
  OfferSelection selection;
  bool all_regions = false;      // rank every region's offer, not each machine and kind once
  bool include_retired = false;  // keep machine types their provider has retired
  bool allocator_keeps = false;  // --allocator keeps: a CPU calibration's memory passes left out
};
struct Market {
  std::unique_ptr<catalog::CatalogStore> catalog;
  std::unique_ptr<profiler::ProfileStore> profiles;
  std::vector<catalog::Offer> offers;
  // Without --as-of: offers priced more than a year before their provider's newest price, left
  // out of `offers` (catalog::TakeStale).
  std::vector<catalog::Offer> stale;
  // Offers of machine types their provider retired on or before --as-of (without it, the
  // provider's newest price), left out of `offers` (catalog::TakeRetired).
  std::vector<catalog::Offer> retired;
  References refs;
  Corrections corrections;
  // The --framework calibrations applied to CPU and to GPU offers, where there is one.
  std::optional<profiler::StoredCalibration> cpu_calibration, gpu_calibration;
  const std::optional<profiler::StoredCalibration>& CalibrationFor(bool gpu) const {
    return gpu ? gpu_calibration : cpu_calibration;
  }
  // "Calibrated for F: cpu (...); gpu (...)\n" and a "Not calibrated on KIND: why\n" line for a
  // shipped calibration that does not apply to the model; or empty.
  std::string calibrated;
};
// `model`: the model's name, which decides whether a shipped calibration applies to it
// (profiler::StoredCalibration::AppliesTo).
Result<Market> OpenMarket(const MarketInputs& in, const std::string& model);
// "The newest prices" leave out offers priced only this long before their provider's newest.
inline constexpr int kStaleDays = 365;
// Each provider's newest price observation in the catalog (YYYY-MM-DD), as catalog::TakeStale
// takes it.
Result<std::map<std::string, std::string>> NewestPrices(const catalog::CatalogStore& catalog);
// "N offers priced only before ... left out (...); --as-of DATE ranks past prices.\n", or empty.
std::string StaleNote(const Market& m);
// The day a PROVIDER:INSTANCE target's machine type was retired by its provider, or "" (any other
// target, or one not retired).
std::string RetiredOn(const std::string& target);

// "N offers of M machines their provider has retired left out (first: ...).\n", or empty.
std::string RetiredNote(const Market& m);
// --cloud, --kind (described by `kind_help`), --region, --all-regions, --as-of,
// --include-retired, --framework, --allocator, --catalog, --profiles.
void AddMarketOptions(CLI::App* app, MarketInputs* in, const std::string& kind_help);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_TARGETS_H_
