#include "engine/device_specs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "engine/csv.h"

namespace epochcost {

// Generated from data/hardware/*.csv (scripts/embed_files.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& HardwareFiles();

namespace {

std::string_view File(std::string_view stem) {
  for (const auto& [name, text] : HardwareFiles())
    if (name == stem) return text;
  return {};
}

// Reads an optional non-negative number; empty is 0.
Result<double> Number(const CsvRecord& r, int col, const std::string& where, const char* what) {
  const std::string& v = r.fields[col];
  if (v.empty()) return 0.0;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || d < 0)
    return Status::InvalidArgument(where + ":" + std::to_string(r.line) + ": " + what + " '" + v +
                                   "' is not a non-negative number");
  return d;
}

// Columns by name; `names` are required.
Result<std::vector<int>> Columns(const CsvTable& t, const std::vector<const char*>& names) {
  std::vector<int> cols;
  for (const char* n : names) {
    Result<int> c = t.Column(n);
    if (!c.ok()) return c.status();
    cols.push_back(*c);
  }
  return cols;
}

Result<std::vector<GpuSpec>> ParseGpus() {
  const std::string where = "data/hardware/gpus.csv";
  Result<CsvTable> t = CsvTable::Parse(File("gpus"), where);
  if (!t.ok()) return t.status();
  Result<std::vector<int>> c =
      Columns(*t, {"gpu", "skypilot_name", "architecture", "memory_gb", "memory_bw_gbs",
                   "fp32_tflops", "tf32_tensor_tflops", "fp16_tensor_tflops", "bf16_tensor_tflops",
                   "sm_count", "boost_clock_mhz", "source", "pcie_gen", "nvlink_bw_gbs_bidir"});
  if (!c.ok()) return c.status();
  std::vector<GpuSpec> out;
  for (const CsvRecord& r : t->records()) {
    const std::vector<int>& k = *c;
    std::vector<double> v;
    const char* numeric[] = {"memory_gb",          "memory_bw_gbs",      "fp32_tflops",
                             "tf32_tensor_tflops", "fp16_tensor_tflops", "bf16_tensor_tflops",
                             "sm_count",           "boost_clock_mhz"};
    for (int i = 0; i < 8; ++i) {
      Result<double> n = Number(r, k[3 + i], where, numeric[i]);
      if (!n.ok()) return n.status();
      v.push_back(*n);
    }
    GpuSpec g;
    g.name = r.fields[k[0]];
    g.short_name = r.fields[k[1]];
    g.architecture = r.fields[k[2]];
    g.memory = Bytes::FromGB(v[0]);
    g.memory_bandwidth = BytesPerSecond::FromGBps(v[1]);
    g.fp32 = FlopsPerSecond::FromTflops(v[2]);
    g.tf32_tensor = FlopsPerSecond::FromTflops(v[3]);
    g.fp16_tensor = FlopsPerSecond::FromTflops(v[4]);
    g.bf16_tensor = FlopsPerSecond::FromTflops(v[5]);
    g.sm_count = static_cast<int>(v[6]);
    g.boost_clock_mhz = v[7];
    g.source = r.fields[k[11]];
    Result<double> gen = Number(r, k[12], where, "pcie_gen");
    Result<double> nvlink = Number(r, k[13], where, "nvlink_bw_gbs_bidir");
    if (!gen.ok()) return gen.status();
    if (!nvlink.ok()) return nvlink.status();
    if (*gen > 0)
      g.pcie = BytesPerSecond::FromGBps(8.0 * std::pow(2.0, *gen - 3) * 16 * 128.0 / 130.0 / 8);
    g.nvlink = BytesPerSecond::FromGBps(*nvlink / 2);
    if (g.name.empty() || g.source.empty())
      return Status::InvalidArgument(where + ":" + std::to_string(r.line) +
                                     ": a row needs a name and a source");
    out.push_back(std::move(g));
  }
  return out;
}

Result<std::vector<CpuSpec>> ParseCpus() {
  const std::string where = "data/hardware/cpus.csv";
  Result<CsvTable> t = CsvTable::Parse(File("cpus"), where);
  if (!t.ok()) return t.status();
  Result<std::vector<int>> c =
      Columns(*t, {"family", "vendor", "core_uarch", "avx512", "simd_width_bits",
                   "fp32_flop_per_cycle_per_core", "all_core_turbo_ghz", "memory_bw_per_socket_gbs",
                   "source", "simd_fma_units_per_core", "bf16"});
  if (!c.ok()) return c.status();
  std::vector<CpuSpec> out;
  for (const CsvRecord& r : t->records()) {
    const std::vector<int>& k = *c;
    CpuSpec s;
    s.family = r.fields[k[0]];
    s.vendor = r.fields[k[1]];
    s.core_uarch = r.fields[k[2]];
    s.avx512 = r.fields[k[3]] == "yes";
    if (const std::string& bf16 = r.fields[k[10]]; bf16 == "yes" || bf16 == "no")
      s.bf16 = bf16 == "yes";
    else if (!bf16.empty())
      return Status::InvalidArgument(where + ":" + std::to_string(r.line) + ": bf16: '" + bf16 +
                                     "' is not yes, no or empty");
    Result<double> width = Number(r, k[4], where, "simd_width_bits");
    Result<double> flops = Number(r, k[5], where, "fp32_flop_per_cycle_per_core");
    Result<double> ghz = Number(r, k[6], where, "all_core_turbo_ghz");
    Result<double> bw = Number(r, k[7], where, "memory_bw_per_socket_gbs");
    Result<double> units = Number(r, k[9], where, "simd_fma_units_per_core");
    for (const Result<double>* n : {&width, &flops, &ghz, &bw, &units})
      if (!n->ok()) return n->status();
    s.simd_fma_units_per_core = static_cast<int>(*units);
    s.simd_width_bits = static_cast<int>(*width);
    s.fp32_flop_per_cycle_per_core = *flops;
    s.all_core_ghz = *ghz;
    s.memory_bandwidth_per_socket = BytesPerSecond::FromGBps(*bw);
    s.source = r.fields[k[8]];
    if (s.family.empty() || s.source.empty())
      return Status::InvalidArgument(where + ":" + std::to_string(r.line) +
                                     ": a row needs a family and a source");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

FlopsPerSecond CpuSpec::PeakFp32(int cores) const {
  return FlopsPerSecond::FromGflops(fp32_flop_per_cycle_per_core * all_core_ghz * cores);
}

namespace {

struct IsaRow {
  VectorIsa isa;
  std::string_view name;
  int width_bits;  // 0: native
  bool fma;
};
constexpr IsaRow kIsas[] = {{VectorIsa::kNative, "native", 0, true},
                            {VectorIsa::kSse2, "sse2", 128, false},
                            {VectorIsa::kAvx, "avx", 256, false},
                            {VectorIsa::kAvx2, "avx2", 256, true},
                            {VectorIsa::kAvx512, "avx512", 512, true}};
static_assert(static_cast<int>(VectorIsa::kAvx512) == 4, "kIsas is indexed by VectorIsa");

}  // namespace

Result<VectorIsa> ParseVectorIsa(std::string_view name) {
  for (const IsaRow& r : kIsas)
    if (r.name == name) return r.isa;
  return Status::InvalidArgument("vector instruction set '" + std::string(name) +
                                 "' is not native, sse2, avx, avx2 or avx512");
}

std::string_view VectorIsaName(VectorIsa isa) { return kIsas[static_cast<int>(isa)].name; }

Result<double> CpuSpec::Fp32FlopPerCycle(VectorIsa isa) const {
  if (isa == VectorIsa::kNative) return fp32_flop_per_cycle_per_core;
  const IsaRow& row = kIsas[static_cast<int>(isa)];
  if (vendor != "Intel" && vendor != "AMD")
    return Status::Unsupported(family + " is not an x86 CPU: it runs no " + std::string(row.name) +
                               " code");
  if (simd_fma_units_per_core <= 0 || simd_width_bits <= 0 || fp32_flop_per_cycle_per_core <= 0)
    return Status::NotFound("data/hardware/cpus.csv lacks the SIMD units of " + family);
  if (row.width_bits > simd_width_bits || (isa == VectorIsa::kAvx512 && !avx512))
    return Status::Unsupported(family + " has no " + std::string(row.name) + " instructions");
  const double lanes = row.width_bits / 32.0;
  return std::min(fp32_flop_per_cycle_per_core,
                  simd_fma_units_per_core * lanes * (row.fma ? 2 : 1));
}

Result<std::vector<GpuSpec>> Gpus() {
  static const Result<std::vector<GpuSpec>> gpus = ParseGpus();
  return gpus;
}

Result<std::vector<CpuSpec>> Cpus() {
  static const Result<std::vector<CpuSpec>> cpus = ParseCpus();
  return cpus;
}

Result<GpuSpec> FindGpu(std::string_view name) {
  Result<std::vector<GpuSpec>> all = Gpus();
  if (!all.ok()) return all.status();
  // SkyPilot names GCE A3 Mega's GPUs apart from A3's; they are the same H100 80GB SXM (the
  // machines differ in their network), and its catalog gives them the same 80 GiB.
  if (name == "H100-MEGA") name = "H100";
  for (const GpuSpec& g : *all)
    if (g.short_name == name || g.name == name) return g;
  return Status::NotFound("no GPU named '" + std::string(name) + "' in data/hardware/gpus.csv");
}

Result<CpuSpec> FindCpu(std::string_view family) {
  Result<std::vector<CpuSpec>> all = Cpus();
  if (!all.ok()) return all.status();
  for (const CpuSpec& c : *all)
    if (c.family == family) return c;
  return Status::NotFound("no CPU family '" + std::string(family) + "' in data/hardware/cpus.csv");
}

}  // namespace epochcost
