// PyTorch's own CPU kernels, where epochcost was built beside Debian's libtorch-dev: the ATen
// module (profiler/cpu/torch_module.h), opened the first time one of its ops is timed.
//
//   embedding_fwd, embedding_bwd   at::embedding and at::embedding_dense_backward (int64 ids),
//                                  what PyTorch runs for a dense nn.Embedding
//   optimizer alg=A aten=1         torch.optim's for-loop update as the ATen calls it makes,
//                                  pass by pass (engine/eager_optimizer.h), temporaries included
//   rnn_fwd, rnn_bwd aten=1        nn.LSTM's and nn.GRU's layer (at::lstm, at::gru: ATen's C++
//                                  loop over the time steps, each call through the dispatcher
//                                  and autograd) and its backward pass through autograd's engine
//
// Where the module is not there (built without libtorch-dev, or EPOCHCOST_TORCH=off), these ops
// are timed by the project's stand-ins (own_kernels.h, aten_kernels.h; for a recurrent layer,
// oneDNN's RNN primitive), which follow the same passes, not their cost: ATen's dense embedding
// gradient adds each looked-up row through its element-wise machinery (TensorIterator) where the
// stand-in runs a plain loop, and its passes over large tensors ran 1.06-1.4x the stand-in's loops
// on the Intel VM of 2026-11-28 (docs/accuracy.md, "The Intel VM a day later").
#ifndef EPOCHCOST_PROFILER_CPU_TORCH_KERNELS_H_
#define EPOCHCOST_PROFILER_CPU_TORCH_KERNELS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "engine/op_signature.h"

namespace epochcost::profiler {

// Whether the module times `sig` (its kind, and aten=1 for an update or a recurrent layer; f32
// or bf16).
bool TorchTimes(const OpSignature& sig);

// A call through the module: `run` is what is timed; `before`, untimed before each run timed
// alone, readies it (a recurrent layer's backward pass runs the forward pass that it runs back).
struct TorchCall {
  std::function<void()> run;
  std::function<void()> before;
};

// The call for `sig` through the module, or why there is none: Unsupported where the module is
// absent (not built, not found where the build put it, or EPOCHCOST_TORCH=off) or cannot run
// `sig`, and the stand-ins time it; NotFound where $EPOCHCOST_TORCH_MODULE names a file that is
// not a usable module.
Result<TorchCall> TorchKernel(const OpSignature& sig);

// A run of the framework's own work for `ops` op calls through the module: a chain of ops / 2 - 1
// products of four values and their sum, recorded by autograd, and its backward pass
// (torch_module.h): ops / 2 calls each way (`ops` rounded down to even), so that
// its time over `ops` is what PyTorch adds to each call of a training step's kernels (ATen's
// dispatcher, autograd's recording and its engine), the Python that makes the forward calls
// aside. Unsupported where the module is absent, as TorchKernel.
Result<std::function<void()>> TorchAutogradChain(int64_t ops);

// Ok, or NotFound where $EPOCHCOST_TORCH_MODULE names a file that is not a usable module (and
// EPOCHCOST_TORCH is not off): checked before a command measures anything, so that such a run
// fails before it stores a row. Loads the module only where the variable names one.
Status CheckNamedTorchModule();

// "ATen (libtorch 1.13.0)" once the module is loaded, for a measurement's note; "" before.
std::string TorchNote();

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_TORCH_KERNELS_H_
