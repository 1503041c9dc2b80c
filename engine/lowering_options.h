// What the lowering's options decide for one op or one layer (engine/lowering_options.cpp), as
// the lowering (engine/lowering.cpp) applies them; the options themselves and their names are in
// engine/lowering.h.
#ifndef EPOCHCOST_ENGINE_LOWERING_OPTIONS_H_
#define EPOCHCOST_ENGINE_LOWERING_OPTIONS_H_

#include <vector>

#include "engine/lowering.h"

namespace epochcost {

// The kinds PyTorch runs in its own CPU kernels wherever they occur (LoweringOptions::
// aten_kernels): fp32 dense products go to the system BLAS (bf16 ones to oneDNN), dropout and
// updates to ATen. Max pooling is marked where its window is known (the lowering's Pool).
bool AlwaysAten(OpKind kind, DType dtype);

// ATen's grain (at::internal::GRAIN_SIZE, PyTorch 1.13): a TensorIterator loop, a copy or a
// concatenation over fewer values runs on the calling thread alone, with no OpenMP region.
inline constexpr int64_t kAtenGrainSize = 32768;

// Whether PyTorch on a CPU (LoweringOptions::aten_kernels) runs `sig` on one thread whatever its
// thread count: an element-wise op (unary, binary, a copy or cast, a concatenation) over fewer
// than kAtenGrainSize values. At 2 threads such a call takes its 1-thread time in PyTorch (a
// 2,048-value mul 1.14 us at both), while oneDNN, which the profile times it with, opens an
// OpenMP region for it (4.5-11 us on the Zen 5 VM; docs/accuracy.md, "Small element-wise calls
// run serially"). Layout reorders around convolutions (mb c h w) are oneDNN's and are not.
bool SerialInAten(const OpSignature& sig);

// The framework calls one call of `sig` makes (StepOp::calls): an update PyTorch runs in its
// for-loop (aten=1) makes one per pass (EagerOptimizerCalls); any other op, 1.
int FrameworkCalls(const OpSignature& sig);

// What autocast runs in fp32 whatever the autocast type (LoweringOptions::amp): the weights'
// update, and the ops on its fp32 list that a step lowers to.
bool Float32UnderAutocast(OpKind kind);

// Whether autocast casts a layer's weights to 16 bits: the layers on its lower-precision list
// (recurrent ones only where LoweringOptions::amp_rnn16, and not those that cast inside).
bool CastsWeightsUnderAutocast(LayerKind kind, const LoweringOptions& o);

// Whether a layer runs under autocast as one op that casts inside, call by call: a recurrent
// layer lowered as PyTorch's whole at::lstm or at::gru (RnnLowering::kAten), whose gate products
// are aten::linear calls that CPU autocast casts to 16 bits each time, weights included, while
// its output stays fp32 (docs/accuracy.md, "An autocast LSTM timed as PyTorch runs it"). Its
// signatures carry dt=bf16 amp=1 and are timed under autocast with fp32 tensors.
bool CastsInsideUnderAutocast(LayerKind kind, const LoweringOptions& o);

// Under autocast, whether each layer of `model` computes in the 16-bit type: the layers that
// cast their weights do; embeddings and recurrent layers not on the list or casting inside,
// whose outputs stay fp32, do not; an input layer does unless only such recurrent layers read
// it; the rest follow their inputs (fp32 if any input is). All true without autocast.
std::vector<bool> AutocastComputes16(const Model& model, const LoweringOptions& o);

// Whether every input of layer i computes in 16 bits (`computes16` as above).
bool InputsIn16(const Model& model, const std::vector<bool>& computes16, int i);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_LOWERING_OPTIONS_H_
