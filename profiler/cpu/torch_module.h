// The interface of the ATen module, libepochcost-torch.so: PyTorch's own CPU kernels (ATen, from
// Debian's libtorch-dev), built only where that package is installed and opened at run time by
// profiler/cpu/torch_kernels.cpp, so that epochcost neither needs libtorch nor loads it (and
// its thread pools) in runs that time nothing. Plain C types across the boundary: the module
// builds as C++17 against libtorch's headers, the profiler as C++20.
#ifndef EPOCHCOST_PROFILER_CPU_TORCH_MODULE_H_
#define EPOCHCOST_PROFILER_CPU_TORCH_MODULE_H_

#include <cstddef>
#include <cstdint>

extern "C" {

// What the module times: an embedding's forward (at::embedding) and its dense gradient
// (at::embedding_dense_backward, what autograd calls for a dense embedding), and torch.optim's
// for-loop update written out as passes.
enum EpochcostTorchOp {
  kEpochcostTorchEmbeddingFwd = 0,
  kEpochcostTorchEmbeddingBwd = 1,
  kEpochcostTorchOptimizer = 2,
};

// One pass of an update (engine/eager_optimizer.h's EagerPass): `op` and the tensors by the
// codes below, which torch_kernels.cpp converts from EagerOp and EagerTensor by name.
enum EpochcostTorchPassOp {
  kEpochcostTorchZero,
  kEpochcostTorchAdd,
  kEpochcostTorchScale,
  kEpochcostTorchAddScalar,
  kEpochcostTorchAxpy,
  kEpochcostTorchAddcmul,
  kEpochcostTorchAddcdiv,
  kEpochcostTorchSqrt,
  kEpochcostTorchMul,
  kEpochcostTorchDiv,
};
// Tensors 0-4 (parameter, gradient, new gradient, two states) persist from step to step;
// 5 and 6 are temporaries, made by the pass that writes them out of place and freed after the
// update, as Python frees them.
inline constexpr int kEpochcostTorchTensors = 7;
inline constexpr int kEpochcostTorchFirstTemporary = 5;

struct EpochcostTorchPass {
  int op;
  int dst, a, b;
};

struct EpochcostTorchRequest {
  int op;                            // EpochcostTorchOp
  int bf16;                          // 0: f32 tensors, 1: bf16
  int64_t n;                         // optimizer: elements of the parameter
  int64_t rows, vocab, dim;          // embedding: looked-up rows, table rows, width
  const EpochcostTorchPass* passes;  // optimizer: its passes, in order
  int pass_count;
};

// A kernel for `request`, run by epochcost_torch_run until epochcost_torch_free; null, with the
// reason in `why`, where the module cannot make it.
void* epochcost_torch_make(const EpochcostTorchRequest* request, char* why, size_t why_size);
void epochcost_torch_run(void* kernel);
void epochcost_torch_free(void* kernel);
// The libtorch version the module was built against, "1.13.0".
const char* epochcost_torch_version();

}  // extern "C"

#endif  // EPOCHCOST_PROFILER_CPU_TORCH_MODULE_H_
