// What identifies a measured device: for a CPU, its model string, ISA extensions, cores and
// logical CPUs, and the library version. Profiles are keyed by Fingerprint::id().
#ifndef EPOCHCOST_PROFILER_FINGERPRINT_H_
#define EPOCHCOST_PROFILER_FINGERPRINT_H_

#include <string>

namespace epochcost::profiler {

struct Fingerprint {
  std::string kind;  // "cpu"
  std::string
      model;  // "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz", "AMD EPYC (family 26, model 2)"
  std::string isa;  // "avx2 avx512f avx512_bf16 amx"
  int cores = 0;    // physical cores
  int logical_cpus = 0;
  std::string library;  // "oneDNN 2.6.3"

  // "cpu|MODEL|ISA|LIBRARY": what a measurement depends on (threads are stored per measurement).
  std::string id() const { return kind + "|" + model + "|" + isa + "|" + library; }
};

// This machine's CPU, read from /proc/cpuinfo.
Fingerprint LocalCpu();

// A CPU's model string as the fingerprint keeps it. Cloud VMs often mask the part ("AMD EPYC",
// "Intel Xeon Processor"): different CPUs then share a name, and a profile measured on one was
// taken for another's (a Zen 5 VM was predicted 45-93% too fast from a faster "AMD EPYC" VM's
// profile). A name without a digit gets the CPUID family and model /proc/cpuinfo gives:
// "AMD EPYC (family 26, model 2)". A name that names its part is kept as it is.
std::string WithCpuidWhereMasked(const std::string& name, const std::string& family,
                                 const std::string& model);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_FINGERPRINT_H_
