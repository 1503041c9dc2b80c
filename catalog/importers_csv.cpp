// The project's own CSV formats: prices (provider, instance_type, region, kind, usd_per_hour,
// observed_at[, zone, source]) and instance hardware (docs/catalog.md).
#include <array>

#include "catalog/importers.h"
#include "engine/csv.h"

namespace epochcost::catalog {
namespace {

// Runs `read` on every record, collecting skipped ones or stopping at the first error.
template <typename Fn>
Status EachRecord(const CsvTable& t, const std::string& origin, const ImportOptions& options,
                  ImportBatch* batch, Fn read) {
  for (const CsvRecord& r : t.records()) {
    Status s = read(r);
    if (s.ok()) continue;
    Status located = s.WithContext(origin + ":" + std::to_string(r.line));
    if (!options.skip_bad) return located;
    batch->skipped.push_back(located.message());
  }
  return Status::Ok();
}

}  // namespace

Result<ImportBatch> ImportPriceCsv(std::string_view text, const std::string& origin,
                                   const ImportOptions& options) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  std::array<int, 6> col{};
  const char* names[] = {"provider", "instance_type", "region",
                         "kind",     "usd_per_hour",  "observed_at"};
  for (int i = 0; i < 6; ++i) {
    Result<int> c = t->Column(names[i]);
    if (!c.ok()) return c.status();
    col[i] = *c;
  }
  const int zone = t->HasColumn("zone") ? *t->Column("zone") : -1;
  const int source = t->HasColumn("source") ? *t->Column("source") : -1;
  ImportBatch batch;
  Status s = EachRecord(*t, origin, options, &batch, [&](const CsvRecord& r) -> Status {
    PriceObservation p;
    p.provider = r.fields[col[0]];
    p.instance = r.fields[col[1]];
    p.region = r.fields[col[2]];
    if (p.provider.empty()) return Status::InvalidArgument("provider is empty");
    if (p.instance.empty()) return Status::InvalidArgument("instance_type is empty");
    if (p.region.empty()) return Status::InvalidArgument("region is empty");
    Result<PriceKind> kind = ParsePriceKind(r.fields[col[3]]);
    if (!kind.ok()) return kind.status().WithContext("kind");
    p.kind = *kind;
    Result<double> usd = ParseAmount(r.fields[col[4]], "usd_per_hour");
    if (!usd.ok()) return usd.status();
    EPOCHCOST_RETURN_IF_ERROR(CheckUsdPerHour(*usd, "usd_per_hour " + r.fields[col[4]]));
    p.price = UsdPerHour::FromDollarsPerHour(*usd);
    p.observed_at = r.fields[col[5]];
    EPOCHCOST_RETURN_IF_ERROR(CheckDate(p.observed_at).WithContext("observed_at"));
    if (zone >= 0) p.zone = r.fields[zone];
    p.source = source >= 0 && !r.fields[source].empty() ? r.fields[source] : origin;
    batch.prices.push_back(std::move(p));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return batch;
}

Result<ImportBatch> ImportInstanceCsv(std::string_view text, const std::string& origin,
                                      const ImportOptions& options) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  const char* names[] = {"provider", "name",      "vcpus",          "memory_gib", "cpu_family",
                         "gpu",      "gpu_count", "gpu_memory_gib", "arch",       "attachable"};
  std::array<int, 10> col{};
  for (int i = 0; i < 10; ++i) {
    Result<int> c = t->Column(names[i]);
    if (!c.ok()) return c.status();
    col[i] = *c;
  }
  ImportBatch batch;
  Status s = EachRecord(*t, origin, options, &batch, [&](const CsvRecord& r) -> Status {
    InstanceType i;
    i.provider = r.fields[col[0]];
    i.name = r.fields[col[1]];
    if (i.provider.empty() || i.name.empty())
      return Status::InvalidArgument("provider and name must not be empty");
    Result<double> vcpus = ParseAmount(r.fields[col[2]], "vcpus");
    Result<double> mem = ParseAmount(r.fields[col[3]], "memory_gib");
    Result<double> gpus =
        ParseAmount(r.fields[col[6]].empty() ? "0" : r.fields[col[6]], "gpu_count");
    Result<double> gmem =
        ParseAmount(r.fields[col[7]].empty() ? "0" : r.fields[col[7]], "gpu_memory_gib");
    for (const Result<double>* v : {&vcpus, &mem, &gpus, &gmem})
      if (!v->ok()) return v->status();
    i.vcpus = *vcpus;
    i.memory_gib = *mem;
    i.cpu_family = r.fields[col[4]];
    i.gpu = r.fields[col[5]];
    i.gpu_count = *gpus;
    i.gpu_memory_gib = *gmem;
    i.arch = r.fields[col[8]];
    const std::string& a = r.fields[col[9]];
    if (a != "0" && a != "1") return Status::InvalidArgument("attachable must be 0 or 1");
    i.attachable = a == "1";
    if (!i.attachable && i.vcpus <= 0) return Status::InvalidArgument("vcpus must be positive");
    batch.instances.push_back(std::move(i));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return batch;
}

}  // namespace epochcost::catalog
