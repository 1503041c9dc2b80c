#include "catalog/gcp_gpus.h"

#include <cstdlib>

#include "engine/csv.h"
#include "catalog/seed_files.h"

namespace epochcost::catalog {
namespace {

// The rows of data/catalog/NAME.csv (compiled in; a bad file is caught by the catalog tests).
std::vector<CsvRecord> SeedRecords(const std::string& name) {
  Result<CsvTable> t = CsvTable::Parse(SeedFile(name), name + ".csv");
  return t.ok() ? t->records() : std::vector<CsvRecord>{};
}

}  // namespace

const std::vector<GpuHostLimit>& GcpGpuHostLimits() {
  static const std::vector<GpuHostLimit> limits = [] {
    std::vector<GpuHostLimit> out;
    for (const CsvRecord& r : SeedRecords("gcp-gpu-hosts"))
      out.push_back({r.fields[0], std::atof(r.fields[1].c_str()), std::atof(r.fields[2].c_str())});
    return out;
  }();
  return limits;
}

const std::map<std::string, GpuBundle>& GcpGpuBundles() {
  static const std::map<std::string, GpuBundle> bundles = [] {
    std::map<std::string, GpuBundle> out;
    for (const CsvRecord& r : SeedRecords("gcp-gpu-bundled"))
      out[r.fields[2]] = {r.fields[0], std::atof(r.fields[1].c_str()), r.fields[2]};
    return out;
  }();
  return bundles;
}

}  // namespace epochcost::catalog
