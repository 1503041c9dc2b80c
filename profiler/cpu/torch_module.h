// The interface of the ATen module, libepochcost-torch.so: PyTorch's own CPU kernels (ATen, from
// Debian's libtorch-dev), built only where that package is installed and opened at run time by
// profiler/cpu/torch_kernels.cpp, so that epochcost neither needs libtorch nor loads it (and
// its thread pools) in runs that time nothing. C linkage, for dlsym; the module is built with the
// same compiler and standard as the profiler, so the two share engine/eager_optimizer.h's types.
#ifndef EPOCHCOST_PROFILER_CPU_TORCH_MODULE_H_
#define EPOCHCOST_PROFILER_CPU_TORCH_MODULE_H_

#include <cstddef>
#include <cstdint>

#include "engine/eager_optimizer.h"

extern "C" {

// What the module times: an embedding's forward (at::embedding) and its dense gradient
// (at::embedding_dense_backward, what autograd calls for a dense embedding), torch.optim's
// for-loop update written out as passes, and a chain of `n` element-wise products of four values
// recorded by autograd and run back by its engine (the framework's cost per op call), and a
// recurrent layer as nn.LSTM and nn.GRU run it (at::lstm, at::gru: ATen's loop over the time
// steps, every call recorded by autograd) and its backward pass through autograd's engine.
enum EpochcostTorchOp {
  kEpochcostTorchEmbeddingFwd = 0,
  kEpochcostTorchEmbeddingBwd = 1,
  kEpochcostTorchOptimizer = 2,
  kEpochcostTorchAutogradChain = 3,
  kEpochcostTorchRnnFwd = 4,
  kEpochcostTorchRnnBwd = 5,
};

struct EpochcostTorchRequest {
  int op;                              // EpochcostTorchOp
  int bf16;                            // 0: f32 tensors, 1: bf16
  int64_t n;                           // optimizer: elements of the parameter; chain: products
  int64_t rows, vocab, dim;            // embedding: looked-up rows, table rows, width
  const epochcost::EagerPass* passes;  // optimizer: its passes, in order
  int pass_count;
  // rnn: batch-first input (batch, steps, features); gru 0 is an LSTM; sequence 1 when the model
  // reads the whole output sequence (else the last hidden state of each direction, concatenated);
  // input_grad 1 when the layer's input needs its gradient; inference 1 for a forward pass
  // under torch.no_grad() (evaluation: nothing recorded for a backward pass).
  int64_t steps, batch, features, hidden, directions;
  int gru, sequence, input_grad, inference;
  // rnn: 1 when the layer runs under CPU autocast to bf16 (torch.autocast("cpu", torch.bfloat16)
  // around the forward pass): fp32 input and weights, which ATen's loop casts call by call
  // (bf16 is then 0).
  int autocast;
};

// A kernel for `request`, run by epochcost_torch_run until epochcost_torch_free; null, with the
// reason in `why`, where the module cannot make it. epochcost_torch_prepare readies one timed
// run of a kernel measured alone, untimed: a recurrent layer's backward pass needs the graph of a
// forward pass (inside a replayed step the forward call before leaves it), and a forward pass
// alone drops the graphs its runs left (in a step the backward pass frees each as it goes).
void* epochcost_torch_make(const EpochcostTorchRequest* request, char* why, size_t why_size);
void epochcost_torch_prepare(void* kernel);
void epochcost_torch_run(void* kernel);
void epochcost_torch_free(void* kernel);
// The libtorch version the module was built against, "1.13.0".
const char* epochcost_torch_version();

}  // extern "C"

#endif  // EPOCHCOST_PROFILER_CPU_TORCH_MODULE_H_
