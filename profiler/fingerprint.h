// What identifies a measured device: for a CPU, its model string, ISA extensions, cores and
// logical CPUs, and the library version. Profiles are keyed by Fingerprint::id().
#ifndef EPOCHCOST_PROFILER_FINGERPRINT_H_
#define EPOCHCOST_PROFILER_FINGERPRINT_H_

#include <string>

namespace epochcost::profiler {

struct Fingerprint {
  std::string kind;   // "cpu"
  std::string model;  // "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz"
  std::string isa;    // "avx2 avx512f avx512_bf16 amx"
  int cores = 0;      // physical cores
  int logical_cpus = 0;
  std::string library;  // "oneDNN 2.6.3"

  // "cpu|MODEL|ISA|LIBRARY": what a measurement depends on (threads are stored per measurement).
  std::string id() const { return kind + "|" + model + "|" + isa + "|" + library; }
};

// This machine's CPU, read from /proc/cpuinfo.
Fingerprint LocalCpu();

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_FINGERPRINT_H_
