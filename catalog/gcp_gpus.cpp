#include "catalog/gcp_gpus.h"

#include <cstdlib>

#include "engine/csv.h"
#include "catalog/seed_files.h"

namespace epochcost::catalog {

const std::vector<GpuHostLimit>& GcpGpuHostLimits() {
  static const std::vector<GpuHostLimit> limits = [] {
    std::vector<GpuHostLimit> out;
    Result<CsvTable> t = CsvTable::Parse(SeedFile("gcp-gpu-hosts"), "gcp-gpu-hosts.csv");
    if (!t.ok()) return out;
    for (const CsvRecord& r : t->records())
      out.push_back({r.fields[0], std::atof(r.fields[1].c_str()), std::atof(r.fields[2].c_str())});
    return out;
  }();
  return limits;
}

const std::vector<GpuBundle>& GcpGpuBundles() {
  static const std::vector<GpuBundle> bundles = [] {
    std::vector<GpuBundle> out;
    Result<CsvTable> t = CsvTable::Parse(SeedFile("gcp-gpu-bundled"), "gcp-gpu-bundled.csv");
    if (!t.ok()) return out;
    for (const CsvRecord& r : t->records())
      out.push_back({r.fields[0], std::atof(r.fields[1].c_str()), r.fields[2]});
    return out;
  }();
  return bundles;
}

}  // namespace epochcost::catalog
