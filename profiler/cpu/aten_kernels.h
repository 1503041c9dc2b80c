// Kernels that do what PyTorch (1.13, as Debian ships it) does on a CPU where it does not call
// oneDNN: signatures with aten=1. Each follows
// the ATen code path it stands for loop by loop, with its threading (serial where ATen's is
// serial), so that its time here is the time PyTorch spends on that work here:
//
//   ip_fwd/ip_bwd_data/ip_bwd_weights aten=1
//                                     the system BLAS's sgemm (Debian's PyTorch links libblas.so.3,
//                                     OpenBLAS where installed), with addmm's bias copy and the
//                                     bias gradient's column sum, each after an element-wise
//                                     OpenMP pass (see ElementwiseBefore)
//   pool_fwd/pool_bwd alg=max aten=1  max_pool2d_with_indices (NCHW, one scalar pass per output,
//                                     int64 indices) and its backward (zero the input gradient,
//                                     scatter-add by index)
//   dropout_fwd aten=1                bernoulli_ (serial mt19937, two 32-bit draws per value),
//                                     div_ by the keep probability, multiply into a new tensor
//   dropout_bwd aten=1                the gradient times that mask
//   optimizer alg=A aten=1            torch.optim's default for-loop update, one element-wise
//                                     pass per tensor operation, plus zero_grad's zero_ and the
//                                     gradient accumulation's add_ (torch.optim 1.13 defaults:
//                                     foreach off, set_to_none off)
//
// The products are f32 only; pooling, dropout and the updates also run in bf16 (computed in f32,
// stored in bf16, as ATen's Vectorized<BFloat16>: profiler/cpu/element.h).
#ifndef EPOCHCOST_PROFILER_CPU_ATEN_KERNELS_H_
#define EPOCHCOST_PROFILER_CPU_ATEN_KERNELS_H_

#include <functional>
#include <string>

#include "engine/op_signature.h"

namespace epochcost::profiler {

// One op as the profiler times it: `run` does the op once over its own buffers; `before`, when
// set, is what the framework's step always runs just before it, run untimed ahead of each `run`.
struct AtenCall {
  std::function<void()> run;
  std::function<void()> before;
};

// The call for `sig`, or an error for signatures no ATen kernel here stands for.
Result<AtenCall> AtenKernel(const OpSignature& sig);

// What a framework's dense products leave running beside every other op of a step, at more than
// one thread: OpenBLAS's worker threads (the pthread build Debian's PyTorch gets) keep polling for
// work, yielding in a loop, for about 0.1 s after each product, on the cores the next OpenMP
// region needs. On the development CPU (2 vCPUs, PyTorch 1.13, 2 threads) a convolution
// averaging 9.7-10.2 ms repeated alone averaged 10.8-14.4 ms right after a product and 12.8-14.6
// ms 20 ms after one, its median unchanged: every few runs stall for a scheduler slice; 200 ms
// after a product, or with OpenBLAS at one thread, there was no effect (docs/accuracy.md,
// "The step sums means"). The returned call, run untimed before each run of an op
// that is not itself a product, runs a small threaded product whenever 20 ms have passed since
// its last one, so the workers are always polling, as in a step with dense layers. Null at one
// thread, or where the system BLAS cannot be loaded.
std::function<void()> BlasWorkersPolling();

// The kernel set the system BLAS chose for this CPU when it was loaded, as OpenBLAS names it
// (openblas_get_corename: "Haswell", "SkylakeX", "Prescott", ...); empty where the system BLAS is
// another library or cannot be loaded. Loads it (and so starts OpenBLAS's threads) if no product
// was profiled yet.
std::string SystemBlasCore();

// Whether `core` (as SystemBlasCore names it) is one of OpenBLAS's kernel sets older than AVX2 on
// a CPU whose fingerprint ISA (`isa`, "avx2 fma ...") has AVX2. OpenBLAS's dynamic build picks its
// kernels by CPUID family and model, and falls back to old SSE ones on a model it does not know:
// Debian's 0.3.21 runs "Prescott" on the Emerald Rapids VM (family 6, model 207), where a 128 x
// 784 by 784 x 512 product took 3.29 ms against 0.79 ms with OPENBLAS_CORETYPE=SkylakeX
// (docs/accuracy.md, "An Emerald Rapids VM"). Case does not matter.
bool BlasCoreBelowIsa(const std::string& core, const std::string& isa);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_ATEN_KERNELS_H_
