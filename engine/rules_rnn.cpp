// Rules of the recurrent layers, LSTM and GRU, one or both directions. The input is
// (timesteps, features); the output is the last state or the whole sequence (Keras), or ONNX's Y
// and Y_h laid out without the batch axis. Weight layout follows the framework: `bias_sets` is 1
// for Keras/TensorFlow LSTMs and 2 for PyTorch, ONNX, cuDNN and Keras GRU(reset_after=True).
#include "engine/layer_rules.h"

namespace epochcost::rules {
namespace {

struct Cell {
  double gates;            // 4 for LSTM, 3 for GRU
  double fwd_per_unit;     // element-wise FLOPs of one step per unit
  double states_per_unit;  // values per unit kept per step besides the gates (c and h, or h)
};

Cell CellOf(LayerKind k) {
  // LSTM: 3 sigmoids and 2 tanh (4 FLOPs each), 3 products and 1 sum. GRU: 2 sigmoids, 1 tanh,
  // 3 products and 2 sums.
  if (k == LayerKind::kLstm) return {4, 24, 2};
  return {3, 17, 1};
}

}  // namespace

Result<Shape> InferRnn(const LayerSpec& l, const std::vector<Shape>& in) {
  if (in[0].rank() != 2)
    return Status::ShapeMismatch(Describe(l) + ": expects (timesteps, features), got " +
                                 in[0].ToString());
  if (l.units <= 0) return Status::InvalidArgument(Describe(l) + ": units must be positive");
  if (l.bias_sets < 0 || l.bias_sets > 2)
    return Status::InvalidArgument(Describe(l) + ": bias_sets must be 0, 1 or 2");
  const int64_t t = in[0].dims[0];
  const int64_t dirs = l.bidirectional ? 2 : 1;
  switch (l.rnn_output) {
    case RnnOutput::kLastState:
      return Shape{{dirs * l.units}};
    case RnnOutput::kSequence:
      return Shape{{t, dirs * l.units}};
    case RnnOutput::kOnnxY:
      return Shape{{t, dirs, l.units}};
    case RnnOutput::kOnnxYh:
      return Shape{{dirs, l.units}};
  }
  return Status::Internal(Describe(l) + ": unknown output mode");
}

LayerCounts CountRnn(const LayerSpec& l, const std::vector<Shape>& in, const Shape&) {
  const Cell cell = CellOf(l.kind);
  const double t = static_cast<double>(in[0].dims[0]);
  const double x = static_cast<double>(in[0].dims[1]);
  const double u = static_cast<double>(l.units);
  const double dirs = l.bidirectional ? 2 : 1;
  const double macs = cell.gates * u * (x + u);  // per step and direction
  const double bias = l.bias_sets * cell.gates * u;
  LayerCounts c;
  c.trainable_params = static_cast<int64_t>(dirs * (macs + bias));
  c.fwd_flops = dirs * t * (2 * macs + bias + cell.fwd_per_unit * u);
  c.bwd_data_flops = dirs * t * (2 * macs + cell.fwd_per_unit * u);
  c.bwd_weight_flops = dirs * t * (2 * macs + cell.gates * u);
  c.saves_inputs = true;
  c.saved_elements = dirs * t * u * (cell.gates + cell.states_per_unit);
  return c;
}

}  // namespace epochcost::rules
