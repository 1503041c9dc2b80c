#include "catalog/importers.h"

#include <array>
#include <cmath>
#include <cstdlib>

#include "engine/json_util.h"

namespace epochcost::catalog {
namespace {

// Every importer is reached through this table, each under GuardJson: a JSON value of an
// unexpected type outside the per-record readers is an error naming the file, not a crash.
template <ImporterFn Import>
Result<ImportBatch> Guarded(std::string_view text, const std::string& origin,
                            const ImportOptions& options) {
  return GuardJson(origin, [&] { return Import(text, origin, options); });
}

}  // namespace

const std::vector<ImporterInfo>& Importers() {
  static const std::vector<ImporterInfo> importers = {
      {"skypilot", "SkyPilot catalog vms.csv (AWS, GCP, Azure, Lambda); --cloud if ambiguous",
       Guarded<ImportSkyPilot>},
      {"csv", "provider,instance_type,region,kind,usd_per_hour,observed_at[,zone,source]",
       Guarded<ImportPriceCsv>},
      {"instances",
       "provider,name,vcpus,memory_gib,cpu_family,gpu,gpu_count,gpu_memory_gib,arch,attachable,"
       "source",
       Guarded<ImportInstanceCsv>},
      {"aws-price-list",
       "AWS Price List Bulk API offer file (AmazonEC2, JSON): on-demand Linux, shared tenancy",
       Guarded<ImportAwsPriceList>},
      {"aws-spot-history", "`aws ec2 describe-spot-price-history` JSON (Linux/UNIX records)",
       Guarded<ImportAwsSpotHistory>},
      {"gcp-billing-catalog",
       "Cloud Billing Catalog API SKUs JSON (Compute Engine): N1/N2/N2D/E2/C2 vCPU and RAM SKUs "
       "composed into known machine types, and attachable GPUs",
       Guarded<ImportGcpBillingCatalog>},
      {"azure-retail", "Azure Retail Prices API JSON pages (pay-as-you-go, Spot, Low Priority)",
       Guarded<ImportAzureRetail>},
      {"interruptions",
       "provider,instance,region,kind,frequency_band,max_lifetime_hours,observed_at,source",
       Guarded<ImportInterruptionCsv>},
      {"aws-spot-advisor", "AWS Spot Advisor spot-advisor-data.json (interruption bands, Linux)",
       Guarded<ImportAwsSpotAdvisor>},
  };
  return importers;
}

Result<ImporterFn> FindImporter(std::string_view format) {
  std::string known;
  for (const ImporterInfo& i : Importers()) {
    if (i.format == format) return i.import;
    known += (known.empty() ? "" : ", ") + std::string(i.format);
  }
  return Status::InvalidArgument("unknown price-file format '" + std::string(format) +
                                 "' (known: " + known + ")");
}

Result<double> ParseAmount(std::string_view text, const std::string& what) {
  const std::string s(text);
  if (s.empty()) return Status::InvalidArgument(what + " is empty");
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size())
    return Status::InvalidArgument(what + " '" + s + "' is not a number");
  if (!std::isfinite(v)) return Status::InvalidArgument(what + " '" + s + "' is not finite");
  if (v < 0) return Status::InvalidArgument(what + " " + s + " is negative");
  return v;
}

}  // namespace epochcost::catalog
