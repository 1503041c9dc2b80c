// The CPU backend: times op signatures with the oneDNN primitives a framework calls (memory
// formats left to oneDNN, `format_tag::any`, as frameworks do), and with the project's own
// kernels for what oneDNN lacks (embedding, dropout, loss, optimizer updates).
#ifndef EPOCHCOST_PROFILER_CPU_ONEDNN_BACKEND_H_
#define EPOCHCOST_PROFILER_CPU_ONEDNN_BACKEND_H_

#include <memory>
#include <vector>

#include "profiler/backend.h"

namespace epochcost::profiler {

std::unique_ptr<Backend> MakeCpuBackend();

// A whole step, replayed: the time of each step, and of one call of each distinct op inside it
// (ops[i] for the step's ops[i]: over every call of it in the half of the timed steps nearest
// their median (NearestTheMedian); count 0 for an op the sequence never calls).
struct StepReplay {
  Measurement step;
  std::vector<Measurement> ops;
};

// How many instances (each with buffers of its own) the replay makes of each of `ops`: one per
// call of it in `sequence`, as a framework gives each call tensors of its own, so that a call
// reads operands written a step ago rather than by the call before; all scaled down alike (at
// least one each) where their operands' bytes together would pass `budget_bytes`.
inline constexpr double kReplayInstanceBytes = 2e9;
std::vector<int> ReplayInstances(const std::vector<OpSignature>& ops,
                                 const std::vector<int>& sequence, double budget_bytes);

// Runs a whole step on this CPU, call after call as `sequence` lists them (indices into `ops`,
// StepOps::sequence), each call on its op's next instance (ReplayInstances), and times the step
// as Measure times one op, and each call within it. Unlike Measure, nothing is run ahead of an
// op to stand in for the step around it, and BLAS products run in this process: the step's own
// ops are around them, and the thread pools (OpenMP's, the system BLAS's) hand the cores over
// between calls as they do in a framework's step. ATen's and oneDNN's kernels are the same ones
// Measure times. `serial[i]`, where given, runs every call of ops[i] on one thread (StepOp::serial:
// the framework runs it on its calling thread alone).
//
// `warm_operands` reads every buffer of a oneDNN call (its inputs and outputs) just before it,
// untimed, and times the step as the sum of its calls: what the calls take with their operands
// in the caches, as a framework's data flow leaves the tensors the call before just wrote (an
// upper bound: there, only those are). BLAS products and the project's and ATen's own kernels are
// run as without it. `profile step --warm-operands` shows what it changes, and
// `profile --in-step --warm-operands` stores rows timed so.
Result<StepReplay> ReplayCpuStep(const std::vector<OpSignature>& ops,
                                 const std::vector<int>& sequence, const MeasureOptions& options,
                                 const std::vector<bool>& serial = {}, bool warm_operands = false);

// oneDNN's version, "2.6.3".
std::string OneDnnVersion();

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_ONEDNN_BACKEND_H_
