// Training memory per device: weights + gradients + optimizer state (in the step's precision,
// as the model is converted whole) + the activations the forward pass keeps for the backward
// pass, at the batch each device runs + workspace (the largest single op's operands, a scratch
// that the library may ask for). Linear in the batch, so the largest batch that fits follows
// from two evaluations.
#ifndef EPOCHCOST_ENGINE_MEMORY_H_
#define EPOCHCOST_ENGINE_MEMORY_H_

#include "engine/analysis.h"
#include "engine/lowering.h"
#include "engine/model.h"

namespace epochcost {

struct TrainingMemory {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer_state;
  Bytes activations;
  Bytes workspace;
  Bytes total() const { return weights + gradients + optimizer_state + activations + workspace; }
};

// Arrays of optimizer state per parameter: 0 for SGD, 1 for momentum and RMSprop, 2 for Adam,
// AdamW and Adadelta.
int OptimizerStateArrays(Optimizer o);

// What a training step keeps whatever the machine: weights, gradients, optimizer state and the
// activations saved for the backward pass, from the model's report at options.batch (no
// workspace: that depends on the ops a machine runs).
TrainingMemory StoredForTraining(const ModelReport& report, const LoweringOptions& options);

// `lowered`, when given, is Lower(model, options) already computed (LoweringCache has it).
Result<TrainingMemory> MemoryForTraining(const Model& model, const LoweringOptions& options,
                                         const StepOps* lowered = nullptr);

// Serving memory per replica: the weights + the largest layer's input and output activations at
// `options.batch` (a forward pass frees each activation once its consumers ran, so the largest
// layer bounds what is live beside the weights).
Result<Bytes> MemoryForInference(const Model& model, const LoweringOptions& options);

// The largest batch per device whose memory is at most `capacity` (0 when not even one sample
// fits).
Result<int64_t> LargestBatch(const Model& model, LoweringOptions options, Bytes capacity);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_MEMORY_H_
