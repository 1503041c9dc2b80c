#include "cli/catalog_views.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "catalog/instance_facts.h"
#include "cli/format.h"

namespace epochcost::cli {
namespace {

std::string Number(double v, const char* fmt = "%g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Dollars(double v) { return Number(v, "%.4f"); }

std::string Gpu(const catalog::InstanceType& i) {
  if (i.gpu.empty()) return "-";
  return Number(i.gpu_count) + "x " + i.gpu;
}

// RFC 4180 quoting when a field needs it.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string OffersTable(const std::vector<catalog::Offer>& offers) {
  std::vector<std::vector<std::string>> rows = {{"Provider", "Instance", "vCPUs", "Mem GiB", "GPUs",
                                                 "Region", "Zone", "Kind", "USD/h", "Observed"}};
  for (const catalog::Offer& o : offers)
    rows.push_back({o.instance.provider, o.instance.name, Number(o.instance.vcpus),
                    Number(o.instance.memory_gib, "%.1f"), Gpu(o.instance), o.region,
                    o.zone.empty() ? "-" : o.zone, std::string(catalog::PriceKindName(o.kind)),
                    Dollars(o.price.dollars_per_hour()), o.observed_at});
  return RenderTable(rows, {false, false, true, true, false, false, false, false, true, false}) +
         Thousands(static_cast<int64_t>(offers.size())) + " offers\n";
}

std::string OffersJson(const std::vector<catalog::Offer>& offers) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const catalog::Offer& o : offers) {
    nlohmann::ordered_json e;
    e["provider"] = o.instance.provider;
    e["instance"] = o.instance.name;
    e["vcpus"] = o.instance.vcpus;
    e["memory_gib"] = o.instance.memory_gib;
    e["gpu"] = o.instance.gpu;
    e["gpu_count"] = o.instance.gpu_count;
    e["gpu_memory_gib"] = o.instance.gpu_memory_gib;
    e["region"] = o.region;
    e["zone"] = o.zone;
    e["kind"] = catalog::PriceKindName(o.kind);
    e["usd_per_hour"] = o.price.dollars_per_hour();
    e["observed_at"] = o.observed_at;
    e["source"] = o.source;
    j.push_back(std::move(e));
  }
  return j.dump(2) + "\n";
}

std::string OffersCsv(const std::vector<catalog::Offer>& offers) {
  std::string out =
      "provider,instance,vcpus,memory_gib,gpu,gpu_count,region,zone,kind,usd_per_hour,observed_"
      "at\n";
  for (const catalog::Offer& o : offers)
    out += o.instance.provider + "," + CsvField(o.instance.name) + "," + Number(o.instance.vcpus) +
           "," + Number(o.instance.memory_gib) + "," + CsvField(o.instance.gpu) + "," +
           Number(o.instance.gpu_count) + "," + o.region + "," + o.zone + "," +
           std::string(catalog::PriceKindName(o.kind)) + "," +
           Number(o.price.dollars_per_hour(), "%.6g") + "," + o.observed_at + "\n";
  return out;
}

std::string HistoryTable(const std::vector<catalog::PriceObservation>& history) {
  std::vector<std::vector<std::string>> rows = {
      {"Provider", "Instance", "Region", "Zone", "Kind", "Observed", "USD/h", "Source"}};
  for (const auto& p : history)
    rows.push_back({p.provider, p.instance, p.region, p.zone.empty() ? "-" : p.zone,
                    std::string(catalog::PriceKindName(p.kind)), p.observed_at,
                    Dollars(p.price.dollars_per_hour()), p.source});
  return RenderTable(rows, {false, false, false, false, false, false, true, false});
}

std::string PricesCsv(const std::vector<catalog::PriceObservation>& prices) {
  std::string out = "provider,instance_type,region,kind,usd_per_hour,observed_at,zone,source\n";
  for (const auto& p : prices)
    out += p.provider + "," + CsvField(p.instance) + "," + p.region + "," +
           std::string(catalog::PriceKindName(p.kind)) + "," +
           Number(p.price.dollars_per_hour(), "%.6g") + "," + p.observed_at + "," + p.zone + "," +
           CsvField(p.source) + "\n";
  return out;
}

std::string InstanceText(const catalog::InstanceType& i) {
  std::string out = i.provider + ":" + i.name + "\n";
  out += "  vCPUs        " + Number(i.vcpus) + "\n";
  out += "  memory       " + Number(i.memory_gib, "%.2f") + " GiB\n";
  out += "  CPU family   " + (i.cpu_family.empty() ? std::string("unknown") : i.cpu_family) + "\n";
  const std::string model = catalog::GpuModelOf(i);
  out += "  GPUs         " + Gpu(i) +
         (i.gpu.empty()          ? ""
          : i.gpu_memory_gib > 0 ? " (" + Number(i.gpu_memory_gib, "%.0f") + " GiB each)"
                                 : " (memory not listed)") +
         (model.empty() ? "" : ", predicted as " + model + " (data/catalog/gpu-models.csv)") + "\n";
  out += "  arch         " + (i.arch.empty() ? std::string("unknown") : i.arch) + "\n";
  if (const std::string retired = catalog::RetiredOn(i); !retired.empty())
    out += "  retired      " + retired + " by its provider (data/catalog/retirements.csv)\n";
  if (i.attachable) out += "  attaches to an N1 host VM (gcp:n1-standard-1+" + i.gpu + ")\n";
  return out;
}

std::string InterruptionText(const std::string& where, const catalog::Interruption& i) {
  std::string out = "  " + where + ": ";
  if (!i.frequency_band.empty())
    out += "interrupted " + i.frequency_band + " of the time per month";
  if (i.max_lifetime_hours > 0)
    out += std::string(i.frequency_band.empty() ? "" : "; ") + "runs at most " +
           Number(i.max_lifetime_hours) + " h";
  return out + " (" + i.source + ", " + i.observed_at + ")\n";
}

std::string StatsTable(const catalog::CatalogStats& stats) {
  std::vector<std::vector<std::string>> rows = {
      {"Provider", "Kind", "Instances", "Observations", "Newest"}};
  for (const auto& r : stats.rows)
    rows.push_back({r.provider, std::string(catalog::PriceKindName(r.kind)), Thousands(r.instances),
                    Thousands(r.observations), r.newest});
  return RenderTable(rows, {false, false, true, true, false});
}

std::string SummaryText(const catalog::ImportSummary& s, bool dry_run) {
  return std::string(dry_run ? "dry run, nothing stored: " : "imported: ") +
         Thousands(s.instances_added) + " instance types added, " + Thousands(s.prices_added) +
         " prices added, " + Thousands(s.prices_changed) + " changed, " +
         Thousands(s.prices_unchanged) + " unchanged" +
         (s.prices_unknown_instance
              ? ", " + Thousands(s.prices_unknown_instance) + " left out (instance type unknown)"
              : "") +
         (s.records_ignored ? ", " + Thousands(s.records_ignored) + " records not applicable"
                            : "") +
         (s.interruptions_stored
              ? ", " + Thousands(s.interruptions_stored) + " interruption records stored"
              : "") +
         "\n";
}

}  // namespace epochcost::cli
