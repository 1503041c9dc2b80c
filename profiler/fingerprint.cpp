#include "profiler/fingerprint.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "profiler/cpu/onednn_backend.h"

namespace epochcost::profiler {

std::string WithCpuidWhereMasked(const std::string& name, const std::string& family,
                                 const std::string& model) {
  const bool names_a_part =
      std::any_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); });
  if (names_a_part || family.empty() || model.empty()) return name;
  return name + " (family " + family + ", model " + model + ")";
}

Fingerprint LocalCpu() {
  Fingerprint f;
  f.kind = "cpu";
  f.library = "oneDNN " + OneDnnVersion();
  std::ifstream in("/proc/cpuinfo");
  std::string line, flags, family, model_number;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string physical;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && f.model.empty()) f.model = value;
    if (key == "cpu family" && family.empty()) family = value;
    if (key == "model" && model_number.empty()) model_number = value;
    if (key == "flags" && flags.empty()) flags = value;
    if (key == "processor") ++f.logical_cpus;
    if (key == "physical id") physical = value;
    if (key == "core id") cores.insert({physical, value});
  }
  if (f.logical_cpus == 0) f.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  f.cores = cores.empty() ? f.logical_cpus : static_cast<int>(cores.size());
  std::set<std::string> have;
  std::istringstream words(flags);
  for (std::string w; words >> w;) have.insert(w);
  for (const char* isa : {"avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile"})
    if (have.contains(isa)) f.isa += (f.isa.empty() ? "" : " ") + std::string(isa);
  if (f.model.empty()) f.model = "unknown CPU";
  f.model = WithCpuidWhereMasked(f.model, family, model_number);
  return f;
}

}  // namespace epochcost::profiler
