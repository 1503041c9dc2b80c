#include "engine/eager_optimizer.h"

#include <array>

namespace epochcost {
namespace {

using T = EagerTensor;
using O = EagerOp;

// Every update starts as a training step leaves the gradient: zero_grad() zeroes it, and the
// backward pass adds the new gradient into it (AccumulateGrad on a defined gradient).
#define EPOCHCOST_GRADIENT_PASSES \
  {O::kZero, T::kGrad}, { O::kAdd, T::kGrad, T::kGrad, T::kNewGrad }

// torch/optim/sgd.py _single_tensor_sgd: param.add_(grad, alpha=-lr).
constexpr std::array kSgd = std::to_array<EagerPass>({
    EPOCHCOST_GRADIENT_PASSES,
    {O::kAxpy, T::kParam, T::kGrad},
});
// With momentum: buf.mul_(momentum).add_(grad, alpha=1 - dampening); param.add_(buf, alpha=-lr).
constexpr std::array kMomentum = std::to_array<EagerPass>({
    EPOCHCOST_GRADIENT_PASSES,
    {O::kScale, T::kState1, T::kState1},
    {O::kAxpy, T::kState1, T::kGrad},
    {O::kAxpy, T::kParam, T::kState1},
});
// rmsprop.py: square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha);
// avg = square_avg.sqrt().add_(eps); param.addcdiv_(grad, avg, value=-lr).
constexpr std::array kRmsprop = std::to_array<EagerPass>({
    EPOCHCOST_GRADIENT_PASSES,
    {O::kScale, T::kState1, T::kState1},
    {O::kAddcmul, T::kState1, T::kGrad, T::kGrad},
    {O::kSqrt, T::kTemp1, T::kState1},
    {O::kAddScalar, T::kTemp1, T::kTemp1},
    {O::kAddcdiv, T::kParam, T::kGrad, T::kTemp1},
});
// adam.py: exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1);
// exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2);
// denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps);
// param.addcdiv_(exp_avg, denom, value=-step_size).
constexpr std::array kAdam = std::to_array<EagerPass>({
    EPOCHCOST_GRADIENT_PASSES,
    {O::kScale, T::kState1, T::kState1},
    {O::kAxpy, T::kState1, T::kGrad},
    {O::kScale, T::kState2, T::kState2},
    {O::kAddcmul, T::kState2, T::kGrad, T::kGrad},
    {O::kSqrt, T::kTemp1, T::kState2},
    {O::kScale, T::kTemp2, T::kTemp1},
    {O::kAddScalar, T::kTemp2, T::kTemp2},
    {O::kAddcdiv, T::kParam, T::kState1, T::kTemp2},
});
// adamw.py: Adam's passes with param.mul_(1 - lr * weight_decay) (the decoupled weight decay,
// default 0.01) between the gradient's and Adam's own.
constexpr auto kAdamw = [] {
  std::array<EagerPass, kAdam.size() + 1> out{};
  constexpr size_t kDecay = 2;
  for (size_t i = 0, j = 0; i < out.size(); ++i)
    out[i] = i == kDecay ? EagerPass{O::kScale, T::kParam, T::kParam} : kAdam[j++];
  return out;
}();
// adadelta.py: square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho);
// std = square_avg.add(eps).sqrt_(); delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad);
// acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho); param.add_(delta, alpha=-lr).
constexpr std::array kAdadelta = std::to_array<EagerPass>({
    EPOCHCOST_GRADIENT_PASSES,
    {O::kScale, T::kState1, T::kState1},
    {O::kAddcmul, T::kState1, T::kGrad, T::kGrad},
    {O::kAddScalar, T::kTemp1, T::kState1},
    {O::kSqrt, T::kTemp1, T::kTemp1},
    {O::kAddScalar, T::kTemp2, T::kState2},
    {O::kSqrt, T::kTemp2, T::kTemp2},
    {O::kDiv, T::kTemp2, T::kTemp2, T::kTemp1},
    {O::kMul, T::kTemp2, T::kTemp2, T::kGrad},
    {O::kScale, T::kState2, T::kState2},
    {O::kAddcmul, T::kState2, T::kTemp2, T::kTemp2},
    {O::kAxpy, T::kParam, T::kTemp2},
});

#undef EPOCHCOST_GRADIENT_PASSES

}  // namespace

int EagerPass::reads() const {
  switch (op) {
    case O::kZero:
      return 0;
    case O::kScale:
    case O::kAddScalar:
    case O::kSqrt:
      return 1;
    case O::kAdd:
    case O::kMul:
    case O::kDiv:
      return a == b ? 1 : 2;
    case O::kAxpy:
      return 2;
    case O::kAddcmul:
    case O::kAddcdiv:
      return a == b ? 2 : 3;
  }
  return 0;
}

std::span<const EagerPass> EagerOptimizerPasses(std::string_view alg) {
  if (alg == "sgd") return kSgd;
  if (alg == "momentum") return kMomentum;
  if (alg == "rmsprop") return kRmsprop;
  if (alg == "adam") return kAdam;
  if (alg == "adamw") return kAdamw;
  if (alg == "adadelta") return kAdadelta;
  return {};
}

int EagerOptimizerCalls(std::string_view alg) {
  // adam.py and adamw.py: step_t += 1; step = step_t.item()
  const int counter = alg == "adam" || alg == "adamw" ? 2 : 0;
  const std::span<const EagerPass> passes = EagerOptimizerPasses(alg);
  return passes.empty() ? 0 : static_cast<int>(passes.size()) + counter;
}

}  // namespace epochcost
