// The catalog's plain records: instance types with their hardware, price observations, offers
// (an instance's price of one kind in one place, as of a date), and an import batch.
#ifndef EPOCHCOST_CATALOG_RECORDS_H_
#define EPOCHCOST_CATALOG_RECORDS_H_

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "engine/units.h"

namespace epochcost::catalog {

enum class PriceKind { kOnDemand, kPreemptible, kSpot };

std::string_view PriceKindName(PriceKind k);
// Accepts on_demand (on-demand, ondemand), preemptible, spot.
Result<PriceKind> ParsePriceKind(std::string_view name);

// A machine type as a provider sells it. An accelerator (GCE GPUs attached to a host VM) has no
// CPU of its own: its vcpus and memory are zero and `attachable` is set.
struct InstanceType {
  std::string provider;  // aws, gcp, azure, lambda
  std::string name;      // p2.xlarge, n1-standard-1, K80x1 (attachable)
  double vcpus = 0;
  double memory_gib = 0;
  std::string cpu_family;  // a row of data/hardware/cpus.csv, where known
  std::string gpu;         // a row of data/hardware/gpus.csv (short name), or empty
  double gpu_count = 0;
  double gpu_memory_gib = 0;  // per GPU
  std::string arch;           // x86_64, arm64
  bool attachable = false;
};

struct PriceObservation {
  std::string provider;
  std::string instance;
  std::string region;
  std::string zone;  // empty when the price holds for the whole region
  PriceKind kind = PriceKind::kOnDemand;
  UsdPerHour price;
  std::string observed_at;  // YYYY-MM-DD
  std::string source;
};

// Where a record came from, for error messages: "file.csv:12".
struct RecordOrigin {
  std::string file;
  int line = 0;
  std::string ToString() const { return file + ":" + std::to_string(line); }
};

// How often an offer is interrupted, and how long it may run, where known: an AWS Spot Advisor
// frequency band per instance and region, or a provider rule (GCE preemptible VMs stop after 24 h).
// "*" in instance or region matches any.
struct Interruption {
  std::string provider;
  std::string instance;
  std::string region;
  PriceKind kind = PriceKind::kSpot;
  std::string frequency_band;     // "<5%", "5-10%", "10-15%", "15-20%", ">20%" per month, or ""
  double max_lifetime_hours = 0;  // 0: no limit
  std::string observed_at;
  std::string source;
};

struct ImportBatch {
  std::vector<InstanceType> instances;
  std::vector<PriceObservation> prices;
  std::vector<Interruption> interruptions;
  std::vector<std::string> skipped;  // one line per record left out with --skip-bad
  // Provider price lists cover every instance type; prices of types the catalog has no hardware
  // for are left out and counted when set, and are an error otherwise.
  bool ignore_unknown_instances = false;
  int ignored_records = 0;  // records the format says are not for us (Windows, reserved, ...)
};

struct ImportSummary {
  int instances_added = 0;
  int prices_added = 0;
  int prices_changed = 0;
  int prices_unchanged = 0;
  int prices_unknown_instance = 0;  // left out: no hardware for the instance type
  int records_ignored = 0;
  int interruptions_stored = 0;
};

// An instance's latest price of one kind in one place on or before a date. GCE GPUs attached to
// a host are offers too: instance "n1-standard-1+K80", priced host + GPU.
struct Offer {
  InstanceType instance;
  std::string region;
  std::string zone;
  PriceKind kind = PriceKind::kOnDemand;
  UsdPerHour price;
  std::string observed_at;
  std::string source;
};

// Checks a date is YYYY-MM-DD and a real calendar day.
Status CheckDate(std::string_view date);
// The day a checked date names.
Result<std::chrono::sys_days> DayOf(std::string_view date);

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_RECORDS_H_
