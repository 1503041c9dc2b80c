// Measured kernels of the project's own for training ops oneDNN has no primitive for. Each does
// the memory traffic its framework counterpart does, over buffers it allocates, with OpenMP
// threads: embedding gather and its dense scatter-add gradient (PyTorch and Keras zero a full
// vocab x dim gradient), dropout mask and scale, softmax cross-entropy with its gradient, one
// optimizer update of n parameters, and f32 sums and means over rows (reduce: oneDNN's primitive
// runs its reference code for them, which no framework calls). Each runs in f32 or in bf16
// (computed in f32, stored in bf16: profiler/cpu/element.h).
#ifndef EPOCHCOST_PROFILER_CPU_OWN_KERNELS_H_
#define EPOCHCOST_PROFILER_CPU_OWN_KERNELS_H_

#include <functional>

#include "engine/op_signature.h"

namespace epochcost::profiler {

// A callable that runs the op once over its own buffers, or an error for unsupported dtypes.
Result<std::function<void()>> OwnKernel(const OpSignature& sig);

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_OWN_KERNELS_H_
