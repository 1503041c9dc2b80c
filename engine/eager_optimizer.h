// torch.optim's default update of one parameter tensor on a CPU (PyTorch 1.13: the for-loop
// implementation, foreach off), written out as the element-wise passes it runs, with zero_grad's
// zero_ (set_to_none off) and the autograd engine's accumulation of the new gradient into the
// zeroed one before them. Each pass streams whole tensors; the profiler runs exactly these passes
// (profiler/cpu/aten_kernels.cpp) and the cost model counts their traffic from the same list.
#ifndef EPOCHCOST_ENGINE_EAGER_OPTIMIZER_H_
#define EPOCHCOST_ENGINE_EAGER_OPTIMIZER_H_

#include <span>
#include <string_view>

namespace epochcost {

// The tensors a pass reads or writes: the parameter, its gradient, the new gradient autograd
// produced, up to two state tensors (exp_avg, square_avg, ...) and two temporaries.
enum class EagerTensor { kParam, kGrad, kNewGrad, kState1, kState2, kTemp1, kTemp2 };
inline constexpr int kEagerTensors = 7;

enum class EagerOp {
  kZero,       // dst = 0                       (zero_)
  kAdd,        // dst = a + b                   (add_, add)
  kScale,      // dst = a * c                   (mul_ by a scalar, div by a scalar)
  kAddScalar,  // dst = a + c                   (add_ of a scalar, add of a scalar)
  kAxpy,       // dst = dst + c * a             (add_(a, alpha=c))
  kAddcmul,    // dst = dst + c * a * b         (addcmul_)
  kAddcdiv,    // dst = dst + c * a / b         (addcdiv_)
  kSqrt,       // dst = sqrt(a)                 (sqrt, sqrt_)
  kMul,        // dst = a * b                   (mul_)
  kDiv,        // dst = a / b                   (div_)
};

struct EagerPass {
  EagerOp op;
  EagerTensor dst;
  EagerTensor a = EagerTensor::kParam;  // unused by kZero
  EagerTensor b = EagerTensor::kParam;  // used by kAdd, kAddcmul, kAddcdiv, kMul, kDiv
  // Tensors the pass reads (an in-place op reads its destination too); it writes one.
  int reads() const;
};

// The passes of optimizer `alg` (sgd, momentum, rmsprop, adam, adamw, adadelta); empty for
// another name.
std::span<const EagerPass> EagerOptimizerPasses(std::string_view alg);

// The framework calls the update of one parameter tensor makes: one per pass, and Adam's and
// AdamW's two on their step counter, a one-value tensor (step_t += 1 and step_t.item()); 0 for
// another name. PyTorch 1.13 makes exactly these (sgd 3, momentum 5, rmsprop 7, adam 12, adamw 13,
// adadelta 13, counted at the dispatcher by tools/reference/optimizer_calls.py). The lowering
// charges each the framework's cost per call (StepOp::calls).
int EagerOptimizerCalls(std::string_view alg);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_EAGER_OPTIMIZER_H_
