// Cloud Billing Catalog API SKUs of Compute Engine (cloudbilling.googleapis.com
// services/6F81-5844-456A/skus, documented in "Get Google Cloud pricing information"). A machine
// type is not priced as such: a vCPU-hour and a GiB-hour SKU per family and region are, so an
// instance's price is composed from its size (vCPUs x core + GiB x RAM) for the machine types the
// catalog knows. GPU SKUs price one GPU-hour; they become attachable "<GPU>x<n>" instances.
#include <cstdio>
#include <map>
#include <tuple>

#include "catalog/gcp_gpus.h"
#include "catalog/json_records.h"

namespace epochcost::catalog {
namespace {

using json_records::Json;

// Description prefixes (after "Spot Preemptible " / "Preemptible ") of the SKUs read.
struct Part {
  const char* prefix;
  const char* family;  // machine-type prefix, or GPU name
  enum { kCore, kRam, kGpu } what;
};

constexpr Part kParts[] = {
    {"N1 Predefined Instance Core", "n1-", Part::kCore},
    {"N1 Predefined Instance Ram", "n1-", Part::kRam},
    {"N2 Instance Core", "n2-", Part::kCore},
    {"N2 Instance Ram", "n2-", Part::kRam},
    {"N2D AMD Instance Core", "n2d-", Part::kCore},
    {"N2D AMD Instance Ram", "n2d-", Part::kRam},
    {"E2 Instance Core", "e2-", Part::kCore},
    {"E2 Instance Ram", "e2-", Part::kRam},
    {"Compute optimized Core", "c2-", Part::kCore},
    {"Compute optimized Ram", "c2-", Part::kRam},
    {"Nvidia Tesla K80 GPU", "K80", Part::kGpu},
    {"Nvidia Tesla P100 GPU", "P100", Part::kGpu},
    {"Nvidia Tesla V100 GPU", "V100", Part::kGpu},
    {"Nvidia Tesla T4 GPU", "T4", Part::kGpu},
    {"Nvidia Tesla P4 GPU", "P4", Part::kGpu},
};

// Per-GPU memory of the attachable GPUs (data/hardware/gpus.csv).
double GpuMemoryGib(const std::string& gpu) {
  if (gpu == "K80") return 12;
  if (gpu == "P4") return 8;
  return 16;
}

// The price of one unit from pricingInfo[0]: the tier that starts at zero usage.
Result<double> UnitPrice(const Json& sku, const std::string& path, const char* want_unit) {
  if (!sku.contains("pricingInfo") || !sku["pricingInfo"].is_array() || sku["pricingInfo"].empty())
    return Status::InvalidArgument(path + ".pricingInfo is missing");
  const Json& expr = sku["pricingInfo"][0].value("pricingExpression", Json::object());
  const std::string unit = expr.value("usageUnit", "");
  if (unit != want_unit)
    return Status::InvalidArgument(path + ".pricingInfo[0].pricingExpression.usageUnit '" + unit +
                                   "' is not " + want_unit);
  if (!expr.contains("tieredRates") || !expr["tieredRates"].is_array() ||
      expr["tieredRates"].empty())
    return Status::InvalidArgument(path +
                                   ".pricingInfo[0].pricingExpression.tieredRates is "
                                   "missing");
  const Json& rate = expr["tieredRates"][0];
  const Json& money = rate.value("unitPrice", Json::object());
  const std::string currency = money.value("currencyCode", "");
  if (currency != "USD")
    return Status::InvalidArgument(path + ": currency '" + currency + "' is not USD");
  double units = 0;
  if (money.contains("units")) {
    Result<double> u = json_records::Amount(money, path + ".unitPrice", "units");
    if (!u.ok()) return u.status();
    units = *u;
  }
  const double nanos = money.value("nanos", 0.0);
  if (nanos < 0) return Status::InvalidArgument(path + ".unitPrice.nanos is negative");
  return units + nanos * 1e-9;
}

}  // namespace

Result<ImportBatch> ImportGcpBillingCatalog(std::string_view text, const std::string& origin,
                                            const ImportOptions& options) {
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  ImportBatch batch;
  batch.ignore_unknown_instances = true;
  // (family, kind, region) -> {core, ram, date}; (gpu, kind, region) -> {price, date}.
  struct Rates {
    double core = -1, ram = -1;
    std::string date;
  };
  std::map<std::tuple<std::string, PriceKind, std::string>, Rates> rates;
  std::map<std::tuple<std::string, PriceKind, std::string>, std::pair<double, std::string>> gpus;

  const std::vector<const Json*> pages = json_records::Pages(*doc);
  for (size_t pg = 0; pg < pages.size(); ++pg) {
    const Json& page = *pages[pg];
    const std::string ppath = pages.size() > 1 ? "[" + std::to_string(pg) + "]." : "";
    if (!page.is_object() || !page.contains("skus") || !page["skus"].is_array())
      return Status::InvalidArgument(origin + ": " + ppath + "skus: expected an array");
    const Json& skus = page["skus"];
    for (size_t i = 0; i < skus.size(); ++i) {
      const std::string path = ppath + "skus[" + std::to_string(i) + "]";
      EPOCHCOST_RETURN_IF_ERROR(
          json_records::Record(origin, path, options, &batch, [&]() -> Status {
            const Json& sku = skus[i];
            Result<std::string> description = json_records::String(sku, path, "description");
            if (!description.ok()) return description.status();
            const Json& category = sku.value("category", Json::object());
            const std::string usage = category.value("usageType", "");
            std::string d = *description;
            PriceKind kind = PriceKind::kOnDemand;
            if (d.rfind("Spot Preemptible ", 0) == 0) {
              kind = PriceKind::kSpot;
              d = d.substr(17);
            } else if (d.rfind("Preemptible ", 0) == 0) {
              kind = PriceKind::kPreemptible;
              d = d.substr(12);
            }
            const Part* part = nullptr;
            for (const Part& p : kParts)
              if (d.rfind(p.prefix, 0) == 0) part = &p;
            if (category.value("serviceDisplayName", "") != "Compute Engine" || part == nullptr ||
                (usage != "OnDemand" && usage != "Preemptible")) {
              ++batch.ignored_records;  // commitments, sole tenancy, custom types, other families
              return Status::Ok();
            }
            if (!sku.contains("serviceRegions") || !sku["serviceRegions"].is_array())
              return Status::InvalidArgument(path + ".serviceRegions is missing");
            std::string date = options.observed_at;
            if (sku.contains("pricingInfo") && sku["pricingInfo"].is_array() &&
                !sku["pricingInfo"].empty() && sku["pricingInfo"][0].contains("effectiveTime")) {
              Result<std::string> eff = json_records::Date(
                  sku["pricingInfo"][0], path + ".pricingInfo[0]", "effectiveTime");
              if (!eff.ok()) return eff.status();
              date = *eff;
            }
            Result<double> price = UnitPrice(sku, path, part->what == Part::kRam ? "GiBy.h" : "h");
            if (!price.ok()) return price.status();
            // A core, GiB or GPU hour: more than $0, as an instance's price (CheckUsdPerHour).
            char unit[64];
            std::snprintf(unit, sizeof unit, " %.9g", *price);
            EPOCHCOST_RETURN_IF_ERROR(CheckUsdPerHour(*price, path + ".unitPrice" + unit));
            for (const Json& region : sku["serviceRegions"]) {
              if (!region.is_string()) return Status::InvalidArgument(path + ".serviceRegions");
              const auto key =
                  std::make_tuple(std::string(part->family), kind, region.get<std::string>());
              if (part->what == Part::kGpu) {
                gpus[key] = {*price, date};
                continue;
              }
              Rates& r = rates[key];
              (part->what == Part::kCore ? r.core : r.ram) = *price;
              r.date = std::max(r.date, date);
            }
            return Status::Ok();
          }));
    }
  }

  for (const auto& [key, r] : rates) {
    const auto& [family, kind, region] = key;
    if (r.core < 0 || r.ram < 0) continue;  // a family needs both its SKUs
    for (const InstanceType& inst : options.known_instances) {
      if (inst.provider != "gcp" || inst.attachable || inst.name.rfind(family, 0) != 0) continue;
      if (inst.name.find("micro") != std::string::npos ||
          inst.name.find("small") != std::string::npos ||
          inst.name.find("medium") != std::string::npos)
        continue;  // shared-core types bill a fraction of a vCPU
      batch.prices.push_back(
          {.provider = "gcp",
           .instance = inst.name,
           .region = region,
           .zone = "",
           .kind = kind,
           .price = UsdPerHour::FromDollarsPerHour(inst.vcpus * r.core + inst.memory_gib * r.ram),
           .observed_at = r.date,
           .source = origin});
    }
  }
  for (const auto& [key, g] : gpus) {
    const auto& [gpu, kind, region] = key;
    for (const GpuHostLimit& l : GcpGpuHostLimits()) {
      if (l.gpu != gpu) continue;
      char count[16];
      std::snprintf(count, sizeof count, "%g", l.count);
      InstanceType inst{.provider = "gcp",
                        .name = gpu + "x" + count,
                        .gpu = gpu,
                        .gpu_count = l.count,
                        .gpu_memory_gib = GpuMemoryGib(gpu),
                        .attachable = true};
      batch.prices.push_back({.provider = "gcp",
                              .instance = inst.name,
                              .region = region,
                              .zone = "",
                              .kind = kind,
                              .price = UsdPerHour::FromDollarsPerHour(l.count * g.first),
                              .observed_at = g.second,
                              .source = origin});
      batch.instances.push_back(std::move(inst));
    }
  }
  return batch;
}

}  // namespace epochcost::catalog
