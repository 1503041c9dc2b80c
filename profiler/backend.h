// The profiler's one interface: a backend measures op signatures on one device. Backends: oneDNN
// on the CPU (cpu/), cuDNN + cuBLAS on NVIDIA GPUs (gpu/, built where CUDA is found).
#ifndef EPOCHCOST_PROFILER_BACKEND_H_
#define EPOCHCOST_PROFILER_BACKEND_H_

#include <string>

#include "engine/op_signature.h"
#include "engine/units.h"

namespace epochcost::profiler {

// The most runs one measurement keeps (the CPU timer stops there; `profile op --repeats` and
// `profile step --steps` may not ask for more) and the longest minimum time one may be asked to
// run (`profile op --min-ms`; the CPU timer may go on for ten times as long).
inline constexpr int kMaxRuns = 100000;
inline constexpr Seconds kMaxMinTime = Seconds::FromSeconds(60);

struct MeasureOptions {
  int threads = 1;  // CPU threads; a GPU backend ignores it
  int warmup = 2;
  int min_repeats = 10;
  Seconds min_time = Seconds::FromMilliseconds(200);
  // Past the minimum count and time, keep repeating, for up to ten times the minimum time, until
  // the mean is known to within this fraction (its standard error over the mean): a step pays
  // each op's mean, and where some runs stall for a scheduler slice (several threads on few
  // cores) 200 ms of runs can miss the slow mode: three such timings of one 2-thread product
  // averaged 1.23-1.34 ms, a fourth 4.26 ms (docs/accuracy.md, "Products after their input's
  // parallel pass").
  double mean_within = 0.03;
};

// Timed runs of one signature: order statistics and mean of the per-run times.
struct Measurement {
  Seconds median;
  Seconds p10;
  Seconds p90;
  int count = 0;
  Seconds mean;      // what a step that runs the op many times pays on average
  std::string note;  // how the backend ran it, e.g. "forward algo 1, workspace 0 MiB"
  // GPU: the host's seconds to enqueue one call (the library's API and its kernel launches), the
  // median over calls made with the stream drained; 0 where not measured (the CPU backend, and
  // GPU profiles measured before 2026-11-26). A step whose calls take the host longer than their
  // kernels waits for the host (engine/step_time.h).
  Seconds host;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "cpu" or "gpu".
  virtual std::string kind() const = 0;
  // Times one signature; an error names what the backend cannot run.
  virtual Result<Measurement> Measure(const OpSignature& sig, const MeasureOptions& options) = 0;
};

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_BACKEND_H_
