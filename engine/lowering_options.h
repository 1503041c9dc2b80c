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

// What autocast runs in fp32 whatever the autocast type (LoweringOptions::amp): the weights'
// update, and the ops on its fp32 list that a step lowers to.
bool Float32UnderAutocast(OpKind kind);

// Whether autocast casts a layer's weights to 16 bits: the layers on its lower-precision list
// (recurrent ones only where LoweringOptions::amp_rnn16).
bool CastsWeightsUnderAutocast(LayerKind kind, const LoweringOptions& o);

// Under autocast, whether each layer of `model` computes in the 16-bit type: the layers that
// cast their weights do; embeddings and (where not on the list) recurrent layers, whose fp32
// weights are on no list, do not; the rest follow their inputs (fp32 if any input is). All true
// without autocast.
std::vector<bool> AutocastComputes16(const Model& model, const LoweringOptions& o);

// Whether every input of layer i computes in 16 bits (`computes16` as above).
bool InputsIn16(const Model& model, const std::vector<bool>& computes16, int i);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_LOWERING_OPTIONS_H_
