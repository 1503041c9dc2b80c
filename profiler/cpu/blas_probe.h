// Times a product of the system BLAS (an aten=1 inner product) in a process of its own, in the
// state a training step leaves that BLAS in.
//
// OpenBLAS packs its operands into a buffer it maps once per thread (128 MiB on the development
// CPU) and never unmaps, and the buffer's pages become resident only where some product writes
// them. A product runs slower while pages past the ones it writes itself are not yet resident:
// on the development CPU (AVX2 EPYC, 1 thread) the bi-LSTM's weight gradient 256x3200 by
// 3200x128 took 19.8 ms in a fresh process, also after itself, and 6.3 ms once every page of the
// buffer had been written (memset); madvise(MADV_DONTNEED) on the buffer brought back 19.9 ms.
// perf's samples fall in OpenBLAS's sgemm micro-kernel either way, not in its packing, and the
// kernel is called with the same arguments and buffer addresses (a likely cause: its prefetches
// past the packed panel find unmapped pages). So a product's time depends on the largest products
// its process ran before: in PyTorch's training step they are the model's own (its steady state
// there took 7.0, 13.7 and 20.8 ms for that layer's forward, data and weight gradients; the same
// products timed after larger ones, as the profiler's single process used to, 6.3, 6.6 and 6.3 ms).
//
// The profiler therefore times each such product in a new process (the epochcost-blas-probe
// program) whose BLAS has run nothing but the layer's forward, data-gradient and weight-gradient
// products, once each: the step's state when the layer's products are the model's largest.
// docs/accuracy.md has the measurements, and what this leaves out (a small product in a model
// with larger ones runs faster in PyTorch than here).
#ifndef EPOCHCOST_PROFILER_CPU_BLAS_PROBE_H_
#define EPOCHCOST_PROFILER_CPU_BLAS_PROBE_H_

#include "engine/op_signature.h"
#include "profiler/backend.h"

namespace epochcost::profiler {

// Times `sig` (ip_fwd, ip_bwd_data or ip_bwd_weights with aten=1) in a new epochcost-blas-probe
// process. The program is the one named by $EPOCHCOST_BLAS_PROBE, else the one beside the running
// executable, else the one this build made.
Result<Measurement> MeasureInFreshProcess(const OpSignature& sig, const MeasureOptions& options);

// The probe program: `epochcost-blas-probe THREADS WARMUP MIN_REPEATS MIN_SECONDS SIGNATURE`
// prints "MEDIAN P10 P90 COUNT MEAN" (seconds) on one line, or "error: ..." and exits 1.
int BlasProbeMain(int argc, char** argv);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_BLAS_PROBE_H_
