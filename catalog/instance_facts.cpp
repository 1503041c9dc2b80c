#include "catalog/instance_facts.h"

#include <array>
#include <charconv>
#include <vector>

#include "catalog/seed_files.h"
#include "engine/csv.h"

namespace epochcost::catalog {
namespace {

using PatternRow = std::array<std::string, 3>;  // provider, instance pattern, value

// The first three columns of data/catalog/STEM.csv (compiled in; a bad file is caught by the
// catalog tests).
std::vector<PatternRow> PatternTable(const std::string& stem) {
  std::vector<PatternRow> rows;
  Result<CsvTable> t = CsvTable::Parse(SeedFile(stem), stem + ".csv");
  if (t.ok())
    for (const CsvRecord& r : t->records()) rows.push_back({r.fields[0], r.fields[1], r.fields[2]});
  return rows;
}

std::string FirstMatch(const std::vector<PatternRow>& table, const InstanceType& i) {
  for (const auto& [provider, pattern, value] : table)
    if (provider == i.provider && Glob(pattern, i.name)) return value;
  return "";
}

}  // namespace

bool Glob(std::string_view pattern, std::string_view name) {
  const size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == name;
  const std::string_view head = pattern.substr(0, star), rest = pattern.substr(star + 1);
  if (name.substr(0, head.size()) != head) return false;
  for (size_t i = head.size(); i <= name.size(); ++i)
    if (Glob(rest, name.substr(i))) return true;
  return false;
}

std::string CpuFamilyOf(const InstanceType& i) {
  static const std::vector<PatternRow> table = PatternTable("cpu-families");
  return FirstMatch(table, i);
}

std::string GpuModelOf(const InstanceType& i) {
  static const std::vector<PatternRow> table = PatternTable("gpu-models");
  return FirstMatch(table, i);
}

std::string RetiredOn(const InstanceType& i) {
  static const std::vector<PatternRow> table = PatternTable("retirements");
  return FirstMatch(table, i);
}

int ThreadsPerCoreOf(const InstanceType& i) {
  static const std::vector<PatternRow> table = PatternTable("threads-per-core");
  const std::string v = FirstMatch(table, i);
  int threads = 0;
  std::from_chars(v.data(), v.data() + v.size(), threads);  // checked by the catalog tests
  return threads;
}

std::vector<Offer> TakeRetired(std::vector<Offer>* offers,
                               const std::map<std::string, std::string>& as_of) {
  std::vector<Offer> kept, retired;
  for (Offer& o : *offers) {
    const std::string on = RetiredOn(o.instance);
    const auto day = as_of.find(o.instance.provider);
    // Dates compare as text (YYYY-MM-DD).
    const bool gone = !on.empty() && day != as_of.end() && on <= day->second;
    (gone ? retired : kept).push_back(std::move(o));
  }
  *offers = std::move(kept);
  return retired;
}

}  // namespace epochcost::catalog
