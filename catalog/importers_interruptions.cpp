// Interruption data: the project's CSV (provider, instance, region, kind, frequency_band,
// max_lifetime_hours, observed_at, source; "*" matches any instance or region) and the AWS Spot
// Advisor's data file (spot-advisor-data.json: "ranges" label each band index, "spot_advisor"
// gives per region, OS and instance type the band index "r" and the saving "s").
#include <array>
#include <set>

#include "engine/csv.h"
#include "catalog/json_records.h"

namespace epochcost::catalog {
namespace {

const std::set<std::string>& Bands() {
  static const std::set<std::string> bands = {"", "<5%", "5-10%", "10-15%", "15-20%", ">20%"};
  return bands;
}

}  // namespace

Result<ImportBatch> ImportInterruptionCsv(std::string_view text, const std::string& origin,
                                          const ImportOptions& options) {
  Result<CsvTable> t = CsvTable::Parse(text, origin);
  if (!t.ok()) return t.status();
  const char* names[] = {"provider",       "instance",           "region",      "kind",
                         "frequency_band", "max_lifetime_hours", "observed_at", "source"};
  std::array<int, 8> col{};
  for (int i = 0; i < 8; ++i) {
    Result<int> c = t->Column(names[i]);
    if (!c.ok()) return c.status();
    col[i] = *c;
  }
  ImportBatch batch;
  for (const CsvRecord& r : t->records()) {
    EPOCHCOST_RETURN_IF_ERROR(json_records::Record(
        origin + ":" + std::to_string(r.line), "", options, &batch, [&]() -> Status {
          Interruption i;
          i.provider = r.fields[col[0]];
          i.instance = r.fields[col[1]];
          i.region = r.fields[col[2]];
          if (i.provider.empty() || i.instance.empty() || i.region.empty())
            return Status::InvalidArgument("provider, instance and region must not be empty");
          Result<PriceKind> kind = ParsePriceKind(r.fields[col[3]]);
          if (!kind.ok()) return kind.status().WithContext("kind");
          i.kind = *kind;
          i.frequency_band = r.fields[col[4]];
          if (!Bands().contains(i.frequency_band))
            return Status::InvalidArgument("frequency_band '" + i.frequency_band +
                                           "' is not one of <5%, 5-10%, 10-15%, 15-20%, >20%");
          Result<double> hours = ParseAmount(r.fields[col[5]], "max_lifetime_hours");
          if (!hours.ok()) return hours.status();
          i.max_lifetime_hours = *hours;
          i.observed_at = r.fields[col[6]];
          EPOCHCOST_RETURN_IF_ERROR(CheckDate(i.observed_at).WithContext("observed_at"));
          i.source = r.fields[col[7]].empty() ? origin : r.fields[col[7]];
          batch.interruptions.push_back(std::move(i));
          return Status::Ok();
        }));
  }
  return batch;
}

Result<ImportBatch> ImportAwsSpotAdvisor(std::string_view text, const std::string& origin,
                                         const ImportOptions& options) {
  using json_records::Json;
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  EPOCHCOST_RETURN_IF_ERROR(CheckDate(options.observed_at).WithContext(origin + ": --observed-at"));
  const Json& d = *doc;
  if (!d.is_object() || !d.contains("ranges") || !d["ranges"].is_array())
    return Status::InvalidArgument(origin + ": ranges: expected an array");
  if (!d.contains("spot_advisor") || !d["spot_advisor"].is_object())
    return Status::InvalidArgument(origin + ": spot_advisor: expected an object");
  std::map<int64_t, std::string> labels;
  for (size_t i = 0; i < d["ranges"].size(); ++i) {
    const Json& r = d["ranges"][i];
    const std::string path = "ranges[" + std::to_string(i) + "]";
    Result<std::string> label = json_records::String(r, path, "label");
    if (!label.ok()) return label.status().WithContext(origin);
    if (!Bands().contains(*label) || label->empty())
      return Status::InvalidArgument(origin + ": " + path + ".label '" + *label +
                                     "' is not a known band");
    if (!r.contains("index") || !r["index"].is_number_integer())
      return Status::InvalidArgument(origin + ": " + path + ".index is not an integer");
    labels[r["index"].get<int64_t>()] = *label;
  }
  ImportBatch batch;
  for (const auto& by_region : d["spot_advisor"].items()) {
    // Plain references: clang 14 cannot capture structured bindings in a lambda (P1091).
    const std::string& region = by_region.key();
    const Json& systems = by_region.value();
    if (!systems.is_object() || !systems.contains("Linux")) continue;
    for (const auto& by_type : systems["Linux"].items()) {
      const std::string& type = by_type.key();
      const Json& entry = by_type.value();
      const std::string path = "spot_advisor." + region + ".Linux." + type;
      EPOCHCOST_RETURN_IF_ERROR(
          json_records::Record(origin, path, options, &batch, [&]() -> Status {
            if (!entry.is_object() || !entry.contains("r") || !entry["r"].is_number_integer())
              return Status::InvalidArgument(path + ".r is not an integer");
            auto label = labels.find(entry["r"].get<int64_t>());
            if (label == labels.end())
              return Status::InvalidArgument(path + ".r " + entry["r"].dump() + " names no range");
            batch.interruptions.push_back({.provider = "aws",
                                           .instance = type,
                                           .region = region,
                                           .kind = PriceKind::kSpot,
                                           .frequency_band = label->second,
                                           .max_lifetime_hours = 0,
                                           .observed_at = options.observed_at,
                                           .source = origin});
            return Status::Ok();
          }));
    }
  }
  return batch;
}

}  // namespace epochcost::catalog
