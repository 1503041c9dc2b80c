// Lowers a model, at a batch size, precision and optimizer, to the op signatures of one training
// step (forward, backward-data and backward-weights of every layer, the loss, the optimizer's
// updates) or of a forward pass alone. Identical signatures are merged with a count, so repeated
// layers are measured once. docs/op-signatures.md lists what each layer kind becomes.
#ifndef EPOCHCOST_ENGINE_LOWERING_H_
#define EPOCHCOST_ENGINE_LOWERING_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model.h"
#include "engine/op_signature.h"

namespace epochcost {

enum class Optimizer { kSgd, kMomentum, kRmsprop, kAdam, kAdamw, kAdadelta };

std::string_view OptimizerName(Optimizer o);
// sgd, momentum, rmsprop, adam, adamw, adadelta.
Result<Optimizer> ParseOptimizer(std::string_view name);

// How recurrent layers run. Frameworks' CPU training (PyTorch 1.x, Keras LSTM implementation 2)
// loops over time steps: one input projection for the whole sequence, then per step a hidden
// projection and the cell's element-wise ops, and the same backwards (kUnrolled: each of those
// calls an op of its own). oneDNN (and cuDNN) run the whole layer as one fused primitive
// (kFused). kAten is PyTorch's own loop, at::lstm and at::gru, as one op each way (`rnn_fwd`,
// `rnn_bwd` with aten=1), timed whole through libtorch (profiler/cpu/torch_kernels.h): its
// per-step calls, their dispatch and autograd's work, and the tensors they pass each other, as
// PyTorch runs them.
enum class RnnLowering { kUnrolled, kFused, kAten };

std::string_view RnnLoweringName(RnnLowering r);
Result<RnnLowering> ParseRnnLowering(std::string_view name);  // unrolled, fused

struct LoweringOptions {
  int64_t batch = 1;
  DType precision = DType::kFloat32;
  Optimizer optimizer = Optimizer::kSgd;
  bool training = true;  // false: the forward pass only (validation, inference)
  RnnLowering rnn = RnnLowering::kUnrolled;
  // Frameworks in eager mode keep plain NCHW tensors and reorder to and from oneDNN's blocked
  // layouts around every convolution call: its activation operands and its weights. (Seen in
  // oneDNN's verbose log of PyTorch 1.13: 35 reorders per cifar10_cnn step.)
  bool framework_reorders = true;
  // PyTorch on a GPU adds a convolution's bias and reduces its gradient in kernels of their own
  // (seen in torch.profiler: aten::add_ after each cudnn_convolution, aten::sum in its backward).
  bool separate_conv_bias = false;
  // PyTorch (1.x, fp32) on a CPU runs some training work outside oneDNN: dense layers' products
  // in the system BLAS (sgemm, as Debian's PyTorch links it), and in its own kernels (ATen) max
  // pooling with int64 indices, dropout as a Bernoulli mask then two multiplications, and the
  // optimizer update as one element-wise pass per tensor operation (torch.optim's default
  // for-loop implementation, with zero_grad and gradient accumulation). Those signatures carry
  // aten=1 and are timed as PyTorch runs them (profiler/cpu/aten_kernels.h). In bf16 the same
  // holds but for the products, which PyTorch hands to oneDNN (mkldnn_matmul) where the CPU has
  // AVX-512 BW/VL/DQ.
  bool aten_kernels = false;
  // A global average pooling as the frameworks run it on a CPU: a mean over the map (PyTorch's
  // x.mean(dim), and adaptive_avg_pool to 1x1, which calls mean; TensorFlow's reduce_mean), a
  // `reduce alg=mean` forward and its gradient broadcast back in one element-wise pass, as a
  // ReduceMean layer is lowered. False: oneDNN's (cuDNN's) average pooling over the whole map,
  // which on a CPU took 2-4x as long as PyTorch's mean with its gradient (docs/accuracy.md, "A
  // second Zen 5 VM").
  bool mean_global_pool = false;
  // PyTorch on a GPU runs batch norm in its own kernels (native_batch_norm), not cuDNN's, when
  // the weights are 16-bit (the whole model in bf16 or fp16): cudnn_batch_norm takes 16-bit
  // input only with float weights. Those signatures carry aten=1 (profiler/gpu/kernels.h,
  // AtenBatchNormFwd).
  bool aten_batch_norm = false;
  // Automatic mixed precision (torch.autocast, as NVIDIA's recipes train): `precision` is the
  // 16-bit type of the convolutions, products and element-wise ops, while the weights, their
  // gradients and the optimizer stay fp32. Each step casts every weight of a convolution, dense
  // layer, attention or recurrent layer to 16 bits in the forward pass and its gradient back in
  // the backward pass (signatures `reorder alg=from_fp32`, `from_fp16`, `from_bf16`), runs layer
  // norm, softmax and the loss in fp32 with casts around them, and, in fp16, GradScaler unscales
  // every gradient (`eltwise_fwd dt=f32 alg=unscale`). Batch norm takes 16-bit input with fp32
  // weights, so PyTorch calls cuDNN's (aten_batch_norm stays off). Layers on no autocast list
  // whose weights stay fp32 (embeddings) run in fp32, and so does every op after them until one
  // on the 16-bit list casts its input down (and its gradient back up).
  bool amp = false;
  // Under amp: recurrent layers compute in 16 bits, their weights cast once a step (cuDNN's
  // layer: PyTorch's CUDA autocast lists them). False: a framework whose recurrent layers stay
  // fp32. A layer lowered as PyTorch's whole at::lstm or at::gru (kAten, a CPU's) is neither:
  // CPU autocast (1.13) lists none, but casts the gate products' aten::linear calls inside it,
  // so it is one op timed under autocast (CastsInsideUnderAutocast, engine/lowering_options.h).
  bool amp_rnn16 = true;
  // PyTorch's channels_last memory format (NHWC) for 4-D tensors, as NVIDIA's recipes add
  // (`--memory-format nhwc`): 2-D convolutions, windowed 2-D pooling and batch norm over feature
  // maps carry nhwc=1 and are timed on cuDNN's NHWC kernels (a GPU's; batch norm in cuDNN's
  // persistent NHWC mode, as PyTorch calls it in training).
  bool channels_last = false;
};

// The precision as the command line and run logs name it: fp32, tf32, bf16, fp16, or amp (fp16
// autocast) and amp-bf16.
std::string PrecisionName(const LoweringOptions& o);

// The 16-bit type of an autocast precision name (amp: fp16, amp-bf16: bf16); nullopt for others.
std::optional<DType> AutocastType(std::string_view precision);

// One signature and how often a step runs it.
struct StepOp {
  OpSignature signature;
  int count = 0;
  std::vector<std::string> layers;  // the layers that run it, in model order
  // The framework runs each call on one thread whatever the step's thread count (SerialInAten,
  // PyTorch on a CPU): a prediction takes its 1-thread time, and `profile` measures it there.
  bool serial = false;
  // The framework's own calls one call of the op makes, each paying its per-call cost: an eager
  // update's passes (EagerOptimizerCalls, an aten=1 optimizer), else 1.
  int calls = 1;
};

// The thread count whose measurement prices `op` in a step run at `threads`: 1 for a serial op.
inline int RowThreads(const StepOp& op, int threads) { return op.serial ? 1 : threads; }

struct StepOps {
  std::vector<StepOp> ops;  // unique signatures, in first-use order
  // Every call of the step in the order the framework makes it, as indices into `ops` (index i
  // appears ops[i].count times): what `profile step` replays. The calls of one layer's op with a
  // count keep together, but for a recurrent layer's cell, whose ops run time step by time step.
  std::vector<int> sequence;
  // Where the step's phases begin in `sequence`: the calls before backward_begin are the forward
  // pass with the loss (whose op takes its gradient too), those from update_begin on the updates
  // (each with zero_grad's pass and the accumulation of its gradient). A forward pass alone has
  // both at the end.
  size_t backward_begin = 0, update_begin = 0;
};

Result<StepOps> Lower(const Model& model, const LoweringOptions& options);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_LOWERING_H_
