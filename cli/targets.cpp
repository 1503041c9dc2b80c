#include "cli/targets.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "catalog/instance_facts.h"
#include "cli/format.h"
#include "cli/lowering_flags.h"
#include "cli/run_inputs.h"
#include "engine/near_names.h"
#include "profiler/microbench.h"
#include "validation/run_log.h"

namespace epochcost::cli {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

ReferenceDevice Reference(const profiler::Fingerprint& d,
                          const std::vector<profiler::StoredMeasurement>& ms, int threads) {
  ReferenceDevice r;
  r.name = d.model;
  for (const profiler::StoredMeasurement& m : ms) {
    if (m.threads != threads) continue;
    Result<OpSignature> sig = OpSignature::Parse(m.signature);
    if (!sig.ok()) continue;
    r.ops.push_back({.signature = *sig,
                     .median = m.measurement.median,
                     .host = m.measurement.host,
                     .in_step = m.in_step});
    r.date = std::max(r.date, m.measured_at);
  }
  return r;
}

// The maker of a profiled CPU as data/hardware/cpus.csv's vendor column names it, from its
// fingerprint's model string ("Intel(R) Xeon(R) Processor", "AMD EPYC (family 26, model 2)");
// empty where the string names neither.
std::string CpuVendorOf(const std::string& model) {
  const std::string m = Lower(model);
  if (m.find("intel") != std::string::npos) return "Intel";
  if (m.find("amd") != std::string::npos) return "AMD";
  return "";
}

Seconds Fastest(const ReferenceDevice& r) {
  Seconds best;
  for (const MeasuredOp& m : r.ops)
    if (best.seconds() == 0 || m.median < best) best = m.median;
  return best;
}

}  // namespace

Result<GpuSpec> SpecOfGpuModel(const std::string& model) {
  Result<std::vector<GpuSpec>> all = Gpus();
  if (!all.ok()) return all.status();
  // The longest short name the model string contains, e.g. "H100" in "NVIDIA H100 80GB HBM3";
  // a memory size in the string picks between the 40 and 80 GB rows.
  const std::string m = Lower(model);
  const GpuSpec* best = nullptr;
  for (const GpuSpec& g : *all) {
    if (g.short_name.empty()) continue;
    std::string key = Lower(g.short_name);
    const size_t dash = key.find('-');
    const std::string base = key.substr(0, dash);
    if (m.find(base) == std::string::npos) continue;
    if (dash != std::string::npos && m.find(key.substr(dash + 1)) == std::string::npos) continue;
    if (!best || g.short_name.size() > best->short_name.size()) best = &g;
  }
  if (!best) return Status::NotFound("GPU '" + model + "' has no row in data/hardware/gpus.csv");
  return *best;
}

Result<std::optional<BorrowedCall>> FrameworkCallElsewhere(const profiler::ProfileStore& store,
                                                           const profiler::Fingerprint& self) {
  Result<std::vector<profiler::Fingerprint>> devices = store.Devices();
  if (!devices.ok()) return devices.status();
  // The first CPU of `self`'s ISA (the same kernels' code paths, a CPU of its generation), else
  // the first of any, so that shipping a profile of another ISA does not change what one borrows.
  std::optional<BorrowedCall> any;
  for (const profiler::Fingerprint& d : *devices) {
    if (d.kind != "cpu" || d.id() == self.id()) continue;
    if (any && d.isa != self.isa) continue;  // it could only be a later "any"
    Result<std::vector<profiler::Microbenchmark>> bs = store.Microbenchmarks(d);
    if (!bs.ok()) return bs.status();
    for (const profiler::Microbenchmark& b : *bs) {
      if (b.name != profiler::kFrameworkCall || b.threads != 1) continue;
      BorrowedCall call{d.model, std::max(0.0, b.value)};
      if (d.isa == self.isa) return std::optional<BorrowedCall>(call);
      if (!any) any = call;
      break;
    }
  }
  return any;
}

Result<References> LoadReferences(const profiler::ProfileStore& store,
                                  const std::string& without_gpu) {
  Result<std::vector<profiler::Fingerprint>> devices = store.Devices();
  if (!devices.ok()) return devices.status();
  References refs;
  std::map<DType, size_t> best_cpu;  // the most 1-thread rows of a precision a CPU has so far
  std::map<std::string, std::map<DType, size_t>> best_of_vendor;  // the same per vendor
  struct MeasuredGpu {
    ReferenceDevice device;
    std::string spec;  // its data/hardware/gpus.csv row
    Seconds dispatch;
  };
  std::vector<MeasuredGpu> gpus;
  for (const profiler::Fingerprint& d : *devices) {
    Result<std::vector<profiler::StoredMeasurement>> ms = store.Measurements(d);
    if (!ms.ok()) return ms.status();
    Result<std::vector<profiler::Microbenchmark>> bs = store.Microbenchmarks(d);
    if (!bs.ok()) return bs.status();
    auto bench = [&](const std::string& name, int threads) {
      for (const auto& b : *bs)
        if (b.name == name && b.threads == threads) return b.value;
      return 0.0;
    };
    if (d.kind == "gpu") {
      Result<GpuSpec> spec = SpecOfGpuModel(d.model);
      if (!spec.ok()) continue;  // a GPU the tables lack cannot lend its efficiency
      if (spec->name == without_gpu) continue;
      ReferenceDevice r = Reference(d, *ms, 1);
      if (r.ops.empty()) continue;
      r.roofline = GpuRoofline(*spec);
      r.roofline.latency = Fastest(r);
      gpus.push_back(
          {std::move(r), spec->name, Seconds::FromSeconds(bench("dispatch_seconds", 1))});
    } else {
      ReferenceDevice r = Reference(d, *ms, 1);
      const double peak = bench("peak_gemm_flops", 1), triad = bench("triad_bytes_per_second", 1);
      if (peak <= 0 || triad <= 0) continue;
      // The reference for a precision is the CPU with the most 1-thread rows in it: a profile's
      // bf16 rows do not make it the reference for f32, nor its f32 rows for bf16.
      std::map<DType, size_t> rows;
      for (const MeasuredOp& o : r.ops) ++rows[o.signature.dtype];
      const std::string vendor = CpuVendorOf(d.model);
      std::vector<DType> leads, vendor_leads;
      for (const auto& [dtype, n] : rows) {
        if (n > best_cpu[dtype]) leads.push_back(dtype);
        if (!vendor.empty() && n > best_of_vendor[vendor][dtype]) vendor_leads.push_back(dtype);
      }
      if (leads.empty() && vendor_leads.empty()) continue;
      r.roofline.kind = DeviceKind::kCpu;
      r.roofline.fp32 = FlopsPerSecond::FromFlopsPerSecond(peak);
      r.roofline.bandwidth = BytesPerSecond::FromBytesPerSecond(triad);
      r.roofline.latency = Fastest(r);
      std::map<int, std::vector<MeasuredOp>> sweeps;
      for (int t : {2, 4, 8, 16, 32, 64}) {
        ReferenceDevice at = Reference(d, *ms, t);
        if (!at.ops.empty()) sweeps[t] = at.ops;
      }
      const std::array<Usl, 4> usl = FitUslPerClass(r.ops, sweeps);
      // PyTorch's cost per op call: this CPU's, else another CPU profile's, carried unscaled as
      // the dispatch is (docs/cross-device.md).
      double framework_call = bench(profiler::kFrameworkCall, 1);
      if (framework_call <= 0) {
        Result<std::optional<BorrowedCall>> elsewhere = FrameworkCallElsewhere(store, d);
        if (!elsewhere.ok()) return elsewhere.status();
        if (*elsewhere) framework_call = (*elsewhere)->seconds;
      }
      const CpuReference cpu{std::make_shared<const ReferenceEfficiencies>(std::move(r)), usl,
                             BytesPerSecond::FromBytesPerSecond(triad),
                             Seconds::FromSeconds(bench("dispatch_seconds", 1)),
                             Seconds::FromSeconds(framework_call)};
      for (DType dtype : leads) {
        best_cpu[dtype] = rows[dtype];
        refs.cpu_by_dtype.insert_or_assign(dtype, cpu);
      }
      for (DType dtype : vendor_leads) {
        best_of_vendor[vendor][dtype] = rows[dtype];
        refs.cpu_by_vendor[vendor].insert_or_assign(dtype, cpu);
      }
    }
  }
  if (auto f32 = refs.cpu_by_dtype.find(DType::kFloat32); f32 != refs.cpu_by_dtype.end())
    refs.cpu = f32->second;
  else if (!refs.cpu_by_dtype.empty())
    refs.cpu = refs.cpu_by_dtype.begin()->second;
  // Most measurements first (the first of equals in the store's order), each GPU's own pool led
  // by its own measurements and then the others' in that order.
  std::stable_sort(gpus.begin(), gpus.end(), [](const MeasuredGpu& a, const MeasuredGpu& b) {
    return a.device.ops.size() > b.device.ops.size();
  });
  for (size_t lead = 0; lead < gpus.size(); ++lead) {
    if (refs.gpu_by_model.contains(gpus[lead].spec)) continue;  // two profiles of one GPU model
    std::vector<ReferenceDevice> order{gpus[lead].device};
    for (size_t i = 0; i < gpus.size(); ++i)
      if (i != lead) order.push_back(gpus[i].device);
    GpuReference pool{std::make_shared<const ReferenceEfficiencies>(PoolReferences(order)),
                      gpus[lead].dispatch};
    if (lead == 0) refs.gpu = pool;
    refs.gpu_by_model.emplace(gpus[lead].spec, std::move(pool));
  }
  return refs;
}

Result<Machine> MachineOf(const catalog::InstanceType& t) {
  Machine m;
  m.name = t.provider + ":" + t.name;
  m.vcpus = t.vcpus;
  m.smt = t.arch != "arm64" && catalog::ThreadsPerCoreOf(t) != 1;
  m.host_memory = Bytes::FromGiB(t.memory_gib);
  if (!t.cpu_family.empty()) {
    Result<CpuSpec> cpu = FindCpu(t.cpu_family);
    if (cpu.ok()) m.cpu = *cpu;
  }
  if (!t.gpu.empty() && t.gpu_count > 0) {
    const std::string model = catalog::GpuModelOf(t);
    Result<GpuSpec> gpu = FindGpu(model.empty() ? t.gpu : model);
    if (!gpu.ok()) return gpu.status().WithContext(m.name);
    m.gpu = *gpu;
    m.gpus = static_cast<int>(std::max(1.0, std::floor(t.gpu_count)));
  }
  return m;
}

namespace {

// GCE attaches GPUs to an N1 machine: gcp:HOST+GPU or gcp:HOST+GPUxN is HOST's machine with
// N of GPU, for the combinations the catalog has no price of (a run log names the machine it
// ran on; the run's own price, if any, is in the log).
Result<Machine> AttachedGpus(const std::string& target, const catalog::CatalogStore& catalog) {
  const std::string rest = target.substr(4);
  const size_t plus = rest.find('+');
  std::string gpu = rest.substr(plus + 1);
  int count = 1;
  if (const size_t x = gpu.rfind('x');
      x != std::string::npos && x + 1 < gpu.size() &&
      gpu.find_first_not_of("0123456789", x + 1) == std::string::npos) {
    count = std::stoi(gpu.substr(x + 1));
    gpu = gpu.substr(0, x);
  }
  catalog::OfferFilter f;
  f.cloud = "gcp";
  f.instance = rest.substr(0, plus);
  Result<std::vector<catalog::Offer>> hosts = catalog.Offers(f);
  if (!hosts.ok()) return hosts.status();
  if (hosts->empty() || count < 1 || count > 16)
    return Status::NotFound("--on " + target + ": no instance '" + rest +
                            "' of provider 'gcp' in the catalog, nor a machine '" + f.instance +
                            "' to attach " + gpu + " GPUs to (see `epochcost catalog list`)");
  Result<GpuSpec> g = FindGpu(gpu);
  if (!g.ok()) return g.status().WithContext("--on " + target);
  Result<Machine> m = MachineOf(hosts->front().instance);
  if (!m.ok()) return m.status();
  m->name = target;
  m->gpu = *g;
  m->gpus = count;
  return m;
}

// What a name typed for a hardware table's row may have meant ("skylake", "v100"): the names near
// it (NearNames), else " (known: ...)" with them all.
std::string NearOrKnown(const std::string& typed, const std::vector<std::string>& names) {
  const std::vector<std::string> near = NearNames(typed, names, names.size());
  return near.empty() ? " (known: " + CommaList(names) + ")" : DidYouMean(near);
}

// The GPU `typed` names in gpu:NAME: the row of data/hardware/gpus.csv of that name, or of a part
// of it that no other row has (Abbreviated: "a100", "h100"); else an error saying what was meant.
Result<GpuSpec> GpuNamed(const std::string& typed) {
  Result<GpuSpec> found = FindGpu(typed);
  if (found.ok() || found.status().code() != StatusCode::kNotFound) return found;
  // gpu:V100:8, by analogy with cpu:FAMILY:VCPUS.
  const size_t colon = typed.rfind(':');
  if (colon != std::string::npos && FindGpu(typed.substr(0, colon)).ok())
    return Status::InvalidArgument("--on gpu:" + typed +
                                   ": the GPU count is a value of its own: --on gpu:" +
                                   typed.substr(0, colon) + " --gpus " + typed.substr(colon + 1));
  Result<std::vector<GpuSpec>> all = Gpus();
  if (!all.ok()) return all.status();
  std::vector<std::string> names;
  for (const GpuSpec& g : *all)
    if (!g.short_name.empty()) names.push_back(g.short_name);
  if (const std::string name = Abbreviated(typed, names); !name.empty()) return FindGpu(name);
  return Status::NotFound("--on gpu:" + typed + ": no GPU named '" + typed +
                          "' in data/hardware/gpus.csv" + NearOrKnown(typed, names));
}

// The CPU family `typed` names in `target` (cpu:FAMILY:VCPUS), as GpuNamed: "EPYC Genoa (9004)"
// or "genoa".
Result<CpuSpec> CpuNamed(const std::string& target, const std::string& typed) {
  Result<CpuSpec> found = FindCpu(typed);
  if (found.ok() || found.status().code() != StatusCode::kNotFound) return found;
  Result<std::vector<CpuSpec>> all = Cpus();
  if (!all.ok()) return all.status();
  std::vector<std::string> names;
  for (const CpuSpec& c : *all) names.push_back(c.family);
  if (const std::string name = Abbreviated(typed, names); !name.empty()) return FindCpu(name);
  return Status::NotFound("--on " + target + ": no CPU family '" + typed +
                          "' in data/hardware/cpus.csv" + NearOrKnown(typed, names));
}

}  // namespace

std::string NearInstances(const catalog::CatalogStore& catalog, const std::string& provider,
                          const std::string& typed) {
  Result<std::vector<catalog::InstanceType>> all = catalog.Instances();
  if (!all.ok()) return "";
  std::vector<std::string> names;
  for (const catalog::InstanceType& t : *all)
    if (t.provider == provider) names.push_back(t.name);
  std::vector<std::string> near = NearNames(typed, names);
  for (std::string& n : near) n = provider + ":" + n;
  return DidYouMean(near);
}

Result<Machine> ResolveTarget(const std::string& target, const catalog::CatalogStore& catalog,
                              int gpus) {
  const size_t colon = target.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == target.size())
    return Status::InvalidArgument("--on " + target +
                                   ": expected local-cpu, local-gpu, gpu:NAME, "
                                   "cpu:FAMILY:VCPUS or PROVIDER:INSTANCE");
  const std::string head = target.substr(0, colon), rest = target.substr(colon + 1);
  Machine m;
  m.name = target;
  if (head == "gpu") {
    Result<GpuSpec> g = GpuNamed(rest);
    if (!g.ok()) return g.status();
    m.gpu = *g;
    m.gpus = gpus > 0 ? gpus : 1;
    m.vcpus = 8.0 * m.gpus;  // a host of ordinary size; instances give their own
    return m;
  }
  if (head == "cpu") {
    const size_t last = rest.rfind(':');
    if (last == std::string::npos)
      return Status::InvalidArgument("--on " + target + ": expected cpu:FAMILY:VCPUS");
    Result<CpuSpec> c = CpuNamed(target, rest.substr(0, last));
    if (!c.ok()) return c.status();
    char* end = nullptr;
    const std::string n = rest.substr(last + 1);
    const double vcpus = std::strtod(n.c_str(), &end);
    if (n.empty() || *end != '\0' || vcpus < 1 || vcpus > 4096)
      return Status::InvalidArgument("--on " + target + ": '" + n +
                                     "' is not a vCPU count from 1 to 4096");
    if (gpus > 0)
      return Status::InvalidArgument("--gpus " + std::to_string(gpus) + ": " + target +
                                     " is a CPU");
    m.cpu = *c;
    m.vcpus = vcpus;
    m.smt = c->vendor != "AWS";
    return m;
  }
  catalog::OfferFilter f;
  f.cloud = head;
  f.instance = rest;
  Result<std::vector<catalog::Offer>> offers = catalog.Offers(f);
  if (!offers.ok()) return offers.status();
  if (offers->empty() && head == "gcp" && rest.find('+') != std::string::npos)
    return AttachedGpus(target, catalog);
  if (offers->empty())
    return Status::NotFound("--on " + target + ": no instance '" + rest + "' of provider '" + head +
                            "' in the catalog" + NearInstances(catalog, head, rest) +
                            " (see `epochcost catalog list`)");
  Result<Machine> out = MachineOf(offers->front().instance);
  if (!out.ok()) return out.status();
  if (gpus > 0 && out->gpus == 0)
    return Status::InvalidArgument("--gpus " + std::to_string(gpus) + ": " + target +
                                   " has no GPU");
  if (gpus > 0 && out->gpus > 0 && gpus != out->gpus)
    return Status::InvalidArgument("--gpus " + std::to_string(gpus) + ": " + target + " has " +
                                   std::to_string(out->gpus) + (out->gpus == 1 ? " GPU" : " GPUs"));
  return out;
}

Status NoCalibration(const std::string& framework, const std::string& kind,
                     const profiler::ProfileStore& profiles) {
  std::string shipped;
  for (const std::string& stem : validation::ShippedRunLogsOf(framework, kind))
    shipped += (shipped.empty() ? "@" : ", @") + stem;
  std::set<std::string> known;
  if (Result<std::vector<profiler::StoredCalibration>> cs = profiles.Calibrations(); cs.ok())
    for (const profiler::StoredCalibration& c : *cs)
      if (kind.empty() || c.device_kind == kind) known.insert(c.framework);
  const std::string calibrated = CommaList({known.begin(), known.end()});
  return Status::NotFound("--framework " + framework + ": no calibration stored or shipped for it" +
                          (kind.empty() ? "" : " on " + kind) +
                          "; run: epochcost calibrate RUNS..." +
                          (shipped.empty() ? "" : " (shipped runs of it: " + shipped + ")") +
                          (calibrated.empty() ? "" : " (calibrated: " + calibrated + ")"));
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

Status CheckClouds(const catalog::CatalogStore& catalog, const std::vector<std::string>& clouds) {
  if (clouds.empty()) return Status::Ok();
  Result<catalog::CatalogStats> stats = catalog.Stats();
  if (!stats.ok()) return stats.status();
  std::set<std::string> known;
  for (const catalog::CatalogStats::Row& row : stats->rows) known.insert(row.provider);
  for (const std::string& c : clouds) {
    if (known.contains(c)) continue;
    const std::string have = CommaList({known.begin(), known.end()});
    return Status::InvalidArgument("--cloud '" + c + "': the catalog has no prices of it (it has " +
                                   (have.empty() ? "none" : have) + ")");
  }
  return Status::Ok();
}

Status CheckRegion(const std::vector<catalog::Offer>& offers, const std::string& region,
                   const std::vector<std::string>& clouds, const std::string& as_of) {
  if (region.empty()) return Status::Ok();
  for (const catalog::Offer& o : offers)
    if (o.region == region) return Status::Ok();
  std::set<std::string> regions;  // us-east1 for us-east-1
  for (const catalog::Offer& o : offers) regions.insert(o.region);
  const std::string of = clouds.empty() ? "the catalog" : CommaList(clouds);
  return Status::InvalidArgument("--region '" + region + "': no offer of " + of +
                                 " is in that region" + (as_of.empty() ? "" : " as of " + as_of) +
                                 DidYouMean(NearNames(region, {regions.begin(), regions.end()})) +
                                 " (see `epochcost catalog list" +
                                 (clouds.size() == 1 ? " --cloud " + clouds.front() : "") + "`)");
}

Result<std::vector<catalog::Offer>> SelectOffers(const catalog::CatalogStore& catalog,
                                                 const OfferSelection& s) {
  std::vector<catalog::PriceKind> kinds;
  for (const std::string& k : SplitCommas(s.kinds)) {
    Result<catalog::PriceKind> pk = catalog::ParsePriceKind(k);
    if (!pk.ok()) return pk.status().WithContext("--kind");
    kinds.push_back(*pk);
  }
  const std::vector<std::string> regions = SplitCommas(s.regions);
  std::vector<std::string> clouds;
  for (const std::string& c : s.clouds)
    for (const std::string& one : SplitCommas(c)) clouds.push_back(one);
  if (Status known = CheckClouds(catalog, clouds); !known.ok()) return known;
  std::vector<catalog::Offer> all;
  for (const std::string& cloud : clouds.empty() ? std::vector<std::string>{""} : clouds) {
    catalog::OfferFilter f;
    f.cloud = cloud;
    f.as_of = s.as_of;
    Result<std::vector<catalog::Offer>> got = catalog.Offers(f);
    if (!got.ok()) return got.status();
    std::move(got->begin(), got->end(), std::back_inserter(all));
  }
  if (all.empty() && !s.as_of.empty())
    return Status::InvalidArgument("--as-of " + s.as_of + ": no price " +
                                   (clouds.empty() ? "in the catalog" : "of " + CommaList(clouds)) +
                                   " was observed on or before that date (see `epochcost "
                                   "catalog list`)");
  for (const std::string& region : regions)
    if (Status in = CheckRegion(all, region, clouds, s.as_of); !in.ok()) return in;
  std::vector<catalog::Offer> offers;
  for (catalog::Offer& of : all) {
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), of.kind) == kinds.end()) continue;
    if (!regions.empty() && std::find(regions.begin(), regions.end(), of.region) == regions.end())
      continue;
    offers.push_back(std::move(of));
  }
  return offers;
}

void AddMarketOptions(CLI::App* app, MarketInputs* in, const std::string& kind_help) {
  app->add_option("--cloud", in->selection.clouds,
                  "aws, gcp, azure, lambda (repeat or comma-separate)");
  app->add_option("--kind", in->selection.kinds, kind_help);
  app->add_option("--region", in->selection.regions, "Regions (comma-separated)");
  app->add_flag("--all-regions", in->all_regions,
                "List every region's offer (default: each machine and price kind once, at its "
                "cheapest region)");
  app->add_option("--as-of", in->selection.as_of,
                  "Prices and billing rules in force on this date (YYYY-MM-DD)");
  app->add_flag("--include-retired", in->include_retired,
                "Also rank machine types their provider retired by --as-of (default: the newest "
                "prices) at the prices the catalog has, to study a past market it has no prices "
                "of (data/catalog/retirements.csv)");
  app->add_option(
      "--framework", in->framework,
      "Apply this framework's stored calibrations (cpu, gpu; see `epochcost calibrate`)");
  AddAllocatorOption(app, &in->allocator_keeps);
  app->add_option("--catalog", in->catalog, "Catalog database");
  app->add_option("--profiles", in->profiles, "Profile database");
}

std::string StaleNote(const Market& m) {
  if (m.stale.empty()) return "";
  const catalog::Offer& first = m.stale.front();
  return Counted(m.stale.size(), "offer") + " priced only more than a year before their " +
         "provider's newest prices left out (first: " + first.instance.provider + ":" +
         first.instance.name + " " + std::string(catalog::PriceKindName(first.kind)) + " in " +
         first.region + ", " + first.observed_at + "); --as-of DATE ranks past prices.\n";
}

std::string RetiredOn(const std::string& target) {
  const size_t colon = target.find(':');
  if (colon == std::string::npos) return "";
  catalog::InstanceType t;
  t.provider = target.substr(0, colon);
  t.name = target.substr(colon + 1);
  return catalog::RetiredOn(t);
}

std::string RetiredNote(const Market& m) {
  if (m.retired.empty()) return "";
  std::set<std::string> machines;
  for (const catalog::Offer& o : m.retired)
    machines.insert(o.instance.provider + ":" + o.instance.name);
  const catalog::Offer& first = m.retired.front();
  return Counted(m.retired.size(), "offer") + " of " + Counted(machines.size(), "machine") +
         " their provider has retired left out (first: " + first.instance.provider + ":" +
         first.instance.name + ", retired " + catalog::RetiredOn(first.instance) +
         "; data/catalog/retirements.csv).\n";
}

Result<std::map<std::string, std::string>> NewestPrices(const catalog::CatalogStore& catalog) {
  Result<catalog::CatalogStats> stats = catalog.Stats();
  if (!stats.ok()) return stats.status();
  std::map<std::string, std::string> newest;
  for (const catalog::CatalogStats::Row& row : stats->rows)
    newest[row.provider] = std::max(newest[row.provider], row.newest);
  return newest;
}

Result<Market> OpenMarket(const MarketInputs& in, const std::string& model) {
  if (!in.selection.as_of.empty()) {
    Status s = catalog::CheckDate(in.selection.as_of);
    if (!s.ok()) return s.WithContext("--as-of");
  }
  Market m;
  Result<std::unique_ptr<catalog::CatalogStore>> cat = catalog::CatalogStore::Open(
      in.catalog.empty() ? catalog::CatalogStore::DefaultPath() : in.catalog);
  if (!cat.ok()) return cat.status();
  m.catalog = std::move(*cat);
  Result<std::vector<catalog::Offer>> offers = SelectOffers(*m.catalog, in.selection);
  if (!offers.ok()) return offers.status();
  m.offers = catalog::OnePerRegion(std::move(*offers));
  std::map<std::string, std::string> day;  // provider -> --as-of, else its newest observation
  if (in.selection.as_of.empty()) {
    Result<std::map<std::string, std::string>> newest = NewestPrices(*m.catalog);
    if (!newest.ok()) return newest.status();
    day = std::move(*newest);
    m.stale = catalog::TakeStale(&m.offers, day, kStaleDays);
  } else {
    for (const catalog::Offer& o : m.offers) day[o.instance.provider] = in.selection.as_of;
  }
  if (!in.include_retired) m.retired = catalog::TakeRetired(&m.offers, day);
  Result<std::unique_ptr<profiler::ProfileStore>> store = profiler::ProfileStore::Open(
      in.profiles.empty() ? profiler::ProfileStore::DefaultPath() : in.profiles);
  if (!store.ok()) return store.status();
  m.profiles = std::move(*store);
  Result<References> refs = LoadReferences(*m.profiles);
  if (!refs.ok()) return refs.status();
  m.refs = std::move(*refs);
  if (in.framework.empty()) return m;
  std::string applied, not_applied;
  for (const bool gpu : {false, true}) {
    const char* kind = gpu ? "gpu" : "cpu";
    Result<profiler::StoredCalibration> c = m.profiles->FindCalibration(in.framework, kind);
    if (!c.ok()) continue;
    if (std::string why; !c->AppliesTo(model, &why)) {
      not_applied += "Not calibrated on " + std::string(kind) + ": " + why + "\n";
      continue;
    }
    const bool keeps = !gpu && in.allocator_keeps;  // memory passes are a CPU term
    (gpu ? m.corrections.gpu : m.corrections.cpu) = c->correction().ForAllocator(keeps);
    (gpu ? m.gpu_calibration : m.cpu_calibration) = *c;
    applied += std::string(applied.empty() ? "" : "; ") + kind + " (" +
               (c->shipped ? "shipped, " : "") + CorrectionText(c->correction(), keeps) + ")";
  }
  if (applied.empty() && not_applied.empty()) return NoCalibration(in.framework, "", *m.profiles);
  if (!applied.empty()) m.calibrated = "Calibrated for " + in.framework + ": " + applied + "\n";
  m.calibrated += not_applied;
  return m;
}

}  // namespace epochcost::cli
