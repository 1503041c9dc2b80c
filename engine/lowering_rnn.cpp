// The lowering of a recurrent layer (engine/lowerer.h): as one op each way where a library runs
// the whole layer (oneDNN's or cuDNN's RNN primitive, ATen's at::lstm and at::gru), or unrolled
// into the per-step products and element-wise ops a framework's loop calls.
#include "engine/lowerer.h"

namespace epochcost::lowering {

Dims Lowerer::RnnDims(int i) const {
  const LayerSpec& l = model_.layer(i);
  const Shape& s = InShape(i);
  Dims d{{"t", s.dims[0]},
         {"mb", B()},
         {"ic", s.dims[1]},
         {"hc", l.units},
         {"dirs", l.bidirectional ? 2 : 1}};
  if (o_.rnn != RnnLowering::kAten) return d;
  d["aten"] = 1;
  d["seq"] = l.rnn_output == RnnOutput::kSequence || l.rnn_output == RnnOutput::kOnnxY ? 1 : 0;
  if (!o_.training) {  // evaluation runs under torch.no_grad(): autograd records nothing
    d["infer"] = 1;
    return d;
  }
  bool data_grad = false;
  for (int q : model_.inputs(i)) data_grad = data_grad || needs_grad_[q];
  d["dx"] = data_grad ? 1 : 0;
  return d;
}

// A recurrent layer as frameworks run it on the CPU, per direction: the input projection of all
// steps at once, then per step the hidden projection and the cell: for an LSTM, the gate sum,
// three sigmoids and two tanh (as element-wise ops over the gates), three products and a sum;
// for a GRU, the gate sums, two sigmoids, a tanh, and the interpolation. Backwards, the same
// in reverse, plus the concatenations that undo the forward pass's splits (PyTorch's
// UnsafeSplitBackward and UnbindBackward).
void Lowerer::UnrolledRnn(int i, bool backward) {
  const LayerSpec& l = model_.layer(i);
  const Shape& in = InShape(i);
  const int64_t t = in.dims[0], x = in.dims[1], h = l.units, dirs = l.bidirectional ? 2 : 1;
  const bool lstm = l.kind == LayerKind::kLstm;
  const int64_t gates = lstm ? 4 : 3;
  const int steps = static_cast<int>(t * dirs);
  const Dims input_proj{{"mb", B() * t}, {"ic", x}, {"oc", gates * h}, {"bias", 1}};
  const Dims hidden_proj{{"mb", B()}, {"ic", h}, {"oc", gates * h}, {"bias", 1}};
  const int64_t gate_n = B() * gates * h, unit_n = B() * h;
  const std::string& name = l.name;
  // Per time step, in the order ATen's cell runs them (RNN.cpp: the hidden projection, the gates'
  // sum, their activations, the cell and hidden state; the backward pass from the hidden state
  // back to the gates and the hidden projection's gradients).
  if (!backward) {
    Emit(OpKind::kInnerProductFwd, input_proj, name, "", static_cast<int>(dirs));
    for (int k = 0; k < steps; ++k) {
      Emit(OpKind::kInnerProductFwd, hidden_proj, name);
      Emit(OpKind::kBinary, {{"n", gate_n}}, name, "add");
      Emit(OpKind::kEltwiseFwd, {{"n", (lstm ? 3 : 2) * unit_n}}, name, "sigmoid");
      Emit(OpKind::kEltwiseFwd, {{"n", unit_n}}, name, "tanh");
      Emit(OpKind::kBinary, {{"n", unit_n}}, name, "mul", 2);
      Emit(OpKind::kBinary, {{"n", unit_n}}, name, "add", lstm ? 1 : 2);
      if (lstm) Emit(OpKind::kEltwiseFwd, {{"n", unit_n}}, name, "tanh");
      Emit(OpKind::kBinary, {{"n", unit_n}}, name, "mul");
    }
    return;
  }
  bool data_grad = false;
  for (int q : model_.inputs(i)) data_grad = data_grad || needs_grad_[q];
  // The cell splits its gate pre-activations into views (unsafe_chunk: one for an LSTM, the input
  // and hidden gates' for a GRU); the backward pass concatenates their gradients into one tensor
  // per step. The per-step slices of the input projection are stacked back the same way.
  for (int k = 0; k < steps; ++k) {
    // After a direction's first backward step, autograd's engine sums the two gradients that
    // reach a state used twice: the hidden state's (the next step's projection and the output)
    // and an LSTM's cell state's (the next step and its tanh), a GRU's hidden state's twice.
    // AccumulateGrad's sums of the recurrent weights' gradients over the steps are left out: the
    // only rows of their sizes are the forward gate sum's, whose operands come from memory where
    // these find theirs in cache (docs/accuracy.md, "The engine's gradient sums").
    const bool later = k % t != 0;
    if (later) Emit(OpKind::kBinary, {{"n", unit_n}}, name, "add", 2);
    Emit(OpKind::kBinary, {{"n", unit_n}}, name, "mul", 2);
    if (lstm) Emit(OpKind::kEltwiseBwd, {{"n", unit_n}}, name, "tanh");
    Emit(OpKind::kBinary, {{"n", unit_n}}, name, "mul", 4);
    Emit(OpKind::kEltwiseBwd, {{"n", (lstm ? 3 : 2) * unit_n}}, name, "sigmoid");
    Emit(OpKind::kEltwiseBwd, {{"n", unit_n}}, name, "tanh");
    Emit(OpKind::kConcat, {{"n", gate_n}}, name, "", lstm ? 1 : 2);
    Emit(OpKind::kInnerProductBwdData, hidden_proj, name);
    Emit(OpKind::kInnerProductBwdWeights, hidden_proj, name);
  }
  Emit(OpKind::kConcat, {{"n", B() * t * gates * h}}, name, "", static_cast<int>(dirs));
  if (data_grad) Emit(OpKind::kInnerProductBwdData, input_proj, name, "", static_cast<int>(dirs));
  Emit(OpKind::kInnerProductBwdWeights, input_proj, name, "", static_cast<int>(dirs));
}

}  // namespace epochcost::lowering
