#include "catalog/importers.h"

#include <array>
#include <cmath>
#include <cstdlib>

namespace epochcost::catalog {

const std::vector<ImporterInfo>& Importers() {
  static const std::vector<ImporterInfo> importers = {
      {"skypilot", "SkyPilot catalog vms.csv (AWS, GCP, Azure, Lambda); --cloud if ambiguous",
       ImportSkyPilot},
      {"csv", "provider,instance_type,region,kind,usd_per_hour,observed_at[,zone,source]",
       ImportPriceCsv},
      {"instances",
       "provider,name,vcpus,memory_gib,cpu_family,gpu,gpu_count,gpu_memory_gib,arch,attachable,"
       "source",
       ImportInstanceCsv},
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
