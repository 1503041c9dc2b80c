// Parallel efficiency. CPUs: the Universal Scalability Law, speedup(n) = n / (1 + α(n−1) +
// βn(n−1)), per op class, with α and β fitted by least squares from thread sweeps (the USL is
// linear in α and β once written as n/speedup − 1 = α(n−1) + βn(n−1)). GPUs, data parallel: a
// ring all-reduce of the gradients, overlapped with the backward pass.
#ifndef EPOCHCOST_ENGINE_PARALLEL_H_
#define EPOCHCOST_ENGINE_PARALLEL_H_

#include <string>
#include <vector>

#include "engine/status.h"
#include "engine/units.h"

namespace epochcost {

struct Usl {
  double alpha = 0;  // contention: the serial fraction
  double beta = 0;   // coherence: the cost of threads agreeing, growing with n²
  std::string how;   // "fitted from threads 1,2,4" or "prior (...)"
  // The most threads (effective cores) its evidence reached, where set: beyond, the speedup is
  // held at speedup(max_n) rather than the quadratic term extrapolated.
  double max_n = 0;

  double Speedup(double n) const;
};

// A measured speedup at n threads (time at 1 thread / time at n).
struct SpeedupPoint {
  double threads = 1;
  double speedup = 1;
};

// Least squares over the points with n > 1. With points at fewer than two thread counts above 1,
// β stays at `prior.beta` and only α is fitted; with none, the prior is returned. α and β are
// kept non-negative.
Usl FitUsl(const std::vector<SpeedupPoint>& points, const Usl& prior);

// Ring all-reduce of `bytes` over n devices: 2(n−1)/n × bytes / link bandwidth + 2(n−1) × latency.
Seconds RingAllReduce(Bytes bytes, int n, BytesPerSecond link, Seconds latency);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_PARALLEL_H_
