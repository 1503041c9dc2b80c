// SkyPilot catalog files (skypilot-org/skypilot-catalog, vms.csv, schemas v6-v9): one row per
// instance type and region or zone, with on-demand `Price` and `SpotPrice` (either may be empty).
// GCP rows with an empty InstanceType are GPUs to attach to a host VM; they become attachable
// instances named "<GPU>x<count>". The cloud is told by the header or given with --cloud.
#include <map>

#include "catalog/gcp_gpus.h"
#include "catalog/importers.h"
#include "engine/csv.h"

namespace epochcost::catalog {
namespace {

std::string DetectCloud(const CsvTable& t) {
  if (t.HasColumn("Generation")) return "azure";
  if (t.HasColumn("LocalDiskType") || t.HasColumn("Arch")) return "aws";
  if (!t.header().empty() && t.header().size() > 1 && t.header()[1] == "vCPUs") return "gcp";
  if (!t.HasColumn("AvailabilityZone") && t.HasColumn("SpotPrice")) return "lambda";
  return "";
}

// The per-GPU memory in GiB from GpuInfo's first 'SizeInMiB': N (0 when absent).
double GpuMemoryGib(const std::string& info) {
  const size_t at = info.find("'SizeInMiB': ");
  if (at == std::string::npos) return 0;
  return std::atof(info.c_str() + at + 13) / 1024.0;
}

}  // namespace

Result<ImportBatch> ImportSkyPilot(std::string_view text, const std::string& origin,
                                   const ImportOptions& options) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  const std::string cloud = options.cloud.empty() ? DetectCloud(*t) : options.cloud;
  if (cloud.empty())
    return Status::InvalidArgument(origin +
                                   ": cannot tell the cloud from the header; give --cloud");
  EPOCHCOST_RETURN_IF_ERROR(CheckDate(options.observed_at).WithContext(origin + ": --observed-at"));
  std::map<std::string, int> col;
  for (const char* name : {"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs",
                           "MemoryGiB", "GpuInfo", "Price", "SpotPrice", "Region"}) {
    Result<int> c = t->Column(name);
    if (!c.ok()) return c.status();
    col[name] = *c;
  }
  const int zone_col = t->HasColumn("AvailabilityZone") ? *t->Column("AvailabilityZone") : -1;
  const int arch_col = t->HasColumn("Arch") ? *t->Column("Arch") : -1;

  ImportBatch batch;
  std::map<std::string, bool> seen_instance;
  for (const CsvRecord& r : t->records()) {
    auto field = [&](const char* name) -> const std::string& { return r.fields[col.at(name)]; };
    auto read = [&]() -> Status {
      InstanceType inst;
      inst.provider = cloud;
      inst.gpu = field("AcceleratorName");
      if (!field("AcceleratorCount").empty()) {
        Result<double> n = ParseAmount(field("AcceleratorCount"), "AcceleratorCount");
        if (!n.ok()) return n.status();
        inst.gpu_count = *n;
      }
      inst.gpu_memory_gib = GpuMemoryGib(field("GpuInfo"));
      inst.arch = arch_col >= 0 ? r.fields[arch_col] : "x86_64";
      if (field("InstanceType").empty()) {
        if (inst.gpu.empty())
          return Status::InvalidArgument("InstanceType and AcceleratorName are empty");
        char count[32];
        std::snprintf(count, sizeof count, "%g", inst.gpu_count);
        inst.name = inst.gpu + "x" + count;
        inst.attachable = true;
      } else {
        inst.name = field("InstanceType");
        Result<double> vcpus = ParseAmount(field("vCPUs"), "vCPUs");
        if (!vcpus.ok()) return vcpus.status();
        if (*vcpus <= 0) return Status::InvalidArgument("vCPUs must be positive");
        Result<double> mem = ParseAmount(field("MemoryGiB"), "MemoryGiB");
        if (!mem.ok()) return mem.status();
        inst.vcpus = *vcpus;
        inst.memory_gib = *mem;
      }
      if (field("Region").empty()) return Status::InvalidArgument("Region is empty");
      std::vector<PriceObservation> prices;
      for (auto [column, kind] :
           {std::pair{"Price", PriceKind::kOnDemand}, std::pair{"SpotPrice", PriceKind::kSpot}}) {
        if (field(column).empty()) continue;  // no price of this kind here, as in the source
        Result<double> usd = ParseAmount(field(column), column);
        if (!usd.ok()) return usd.status();
        // GCP's own machine types for A100 to B200 come priced with their GPUs, on the GPU's row:
        // SkyPilot gives the machine type itself $0 (gcp_gpus.h).
        const bool bundled = cloud == "gcp" && GcpGpuBundles().contains(inst.name);
        if (!(bundled && *usd == 0))
          EPOCHCOST_RETURN_IF_ERROR(
              CheckUsdPerHour(*usd, std::string(column) + " " + field(column)));
        PriceObservation p;
        p.provider = cloud;
        p.instance = inst.name;
        p.region = field("Region");
        // AWS and Azure list on-demand per region; spot, and GCP's zonal prices, per zone.
        const bool zonal = zone_col >= 0 && (kind == PriceKind::kSpot || cloud == "gcp");
        p.zone = zonal ? r.fields[zone_col] : "";
        p.kind = kind;
        p.price = UsdPerHour::FromDollarsPerHour(*usd);
        p.observed_at = options.observed_at;
        p.source = origin;
        prices.push_back(std::move(p));
      }
      if (!seen_instance[inst.name]) {
        seen_instance[inst.name] = true;
        batch.instances.push_back(std::move(inst));
      }
      for (auto& p : prices) batch.prices.push_back(std::move(p));
      return Status::Ok();
    };
    Status s = read();
    if (s.ok()) continue;
    Status located = s.WithContext(origin + ":" + std::to_string(r.line));
    if (!options.skip_bad) return located;
    batch.skipped.push_back(located.message());
  }
  return batch;
}

}  // namespace epochcost::catalog
