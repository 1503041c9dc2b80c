// Lowering a model to the op signatures of a training step.
#include "engine/lowering.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <unordered_map>

#include "engine/eager_optimizer.h"
#include "engine/lowering_options.h"
#include "engine/zoo.h"

namespace epochcost {
namespace {

StepOps LowerZoo(const char* name, int64_t batch, Optimizer opt, bool training = true,
                 RnnLowering rnn = RnnLowering::kUnrolled) {
  Result<Model> m = LoadZooModel(name);
  EXPECT_TRUE(m.ok());
  Result<StepOps> ops =
      Lower(*m, {.batch = batch, .optimizer = opt, .training = training, .rnn = rnn});
  EXPECT_TRUE(ops.ok()) << ops.status().message();
  return ops.ok() ? *ops : StepOps{};
}

int Count(const StepOps& ops, OpKind kind) {
  int n = 0;
  for (const StepOp& op : ops.ops)
    if (op.signature.kind == kind) n += op.count;
  return n;
}

TEST(OpSignatureTest, PrintsAndParsesBack) {
  OpSignature sig{.kind = OpKind::kConvBwdWeights,
                  .dtype = DType::kBFloat16,
                  .dims = {{"mb", 32}, {"ic", 3}, {"oc", 32}, {"ph", 0}}};
  EXPECT_EQ(sig.ToString(), "conv_bwd_weights dt=bf16 ic=3 mb=32 oc=32 ph=0");
  Result<OpSignature> back = OpSignature::Parse(sig.ToString());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, sig);
  EXPECT_EQ(OpSignature::Parse("optimizer dt=f32 alg=adam n=1000")->alg, "adam");
  EXPECT_EQ(OpSignature::Parse("conv_sideways dt=f32").status().message(),
            "unknown op kind 'conv_sideways'");
  EXPECT_EQ(OpSignature::Parse("ip_fwd mb=32").status().message(), "dt= is missing");
  EXPECT_EQ(OpSignature::Parse("ip_fwd dt=f32 mb=-3").status().message(),
            "'mb=-3': sizes must be non-negative integers");
  EXPECT_EQ(OpSignature::Parse("ip_fwd dt=f32 mb=3 mb=4").status().message(),
            "'mb' is given twice");
  // Regression: `profile op "ip_fwd dt=f32 aten=1 ic=16"` timed an empty product, exit 0.
  EXPECT_EQ(OpSignature::Parse("ip_fwd dt=f32 aten=1 ic=16").status().message(),
            "mb= is missing (ip_fwd needs it; docs/op-signatures.md)");
  EXPECT_EQ(OpSignature::Parse("optimizer dt=f32 alg=adam n=0").status().message(),
            "n=0: must be positive");
  EXPECT_EQ(OpSignature::Parse("reorder dt=f32 c=0 mb=2").status().message(),
            "c=0: must be positive");
  EXPECT_TRUE(OpSignature::Parse("reorder dt=f32 c=16 h=4 mb=2 w=4").ok());
  // Regression: `profile op "ip_fwd dt=f32 bias=1 ic=1 mb=1 oc=1 extra=5"` measured and stored a
  // signature with a size no op has.
  EXPECT_EQ(OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=1 mb=1 oc=1 extra=5").status().message(),
            "'extra' is not a size of any op signature (docs/op-signatures.md)");
}

TEST(OpSignatureTest, HashKeysEveryField) {
  // The lent-efficiency cache keys signatures by this hash and ==: a signature parsed back from
  // its text is the same key; one differing in any field is another.
  const OpSignature sig = *OpSignature::Parse("rnn_fwd dt=f32 alg=lstm hc=650 ic=1100 mb=20 t=35");
  std::unordered_map<OpSignature, int, OpSignatureHash> seen{{sig, 1}};
  EXPECT_EQ(OpSignatureHash{}(*OpSignature::Parse(sig.ToString())), OpSignatureHash{}(sig));
  EXPECT_EQ(seen.count(*OpSignature::Parse(sig.ToString())), 1u);
  for (const char* other : {"rnn_bwd dt=f32 alg=lstm hc=650 ic=1100 mb=20 t=35",
                            "rnn_fwd dt=bf16 alg=lstm hc=650 ic=1100 mb=20 t=35",
                            "rnn_fwd dt=f32 alg=gru hc=650 ic=1100 mb=20 t=35",
                            "rnn_fwd dt=f32 alg=lstm hc=650 ic=1100 mb=100 t=35",
                            "rnn_fwd dt=f32 alg=lstm hc=650 ic=1100 mb=20 t=35 dirs=2"})
    EXPECT_EQ(seen.count(*OpSignature::Parse(other)), 0u) << other;
}

TEST(LoweringTest, MnistCnnTrainingStep) {
  StepOps ops = LowerZoo("mnist_cnn", 128, Optimizer::kAdadelta);
  // Forward: two convolutions, two dense layers; backward: weights of all four, data gradients of
  // all but the first convolution (the image needs none).
  EXPECT_EQ(Count(ops, OpKind::kConvFwd), 2);
  EXPECT_EQ(Count(ops, OpKind::kConvBwdWeights), 2);
  EXPECT_EQ(Count(ops, OpKind::kConvBwdData), 1);
  EXPECT_EQ(Count(ops, OpKind::kInnerProductFwd), 2);
  EXPECT_EQ(Count(ops, OpKind::kInnerProductBwdData), 2);
  EXPECT_EQ(Count(ops, OpKind::kInnerProductBwdWeights), 2);
  EXPECT_EQ(Count(ops, OpKind::kDropoutFwd), 2);
  EXPECT_EQ(Count(ops, OpKind::kLoss), 1);
  EXPECT_EQ(ops.ops.front().signature.ToString(),
            "conv_fwd dt=f32 dh=1 dw=1 g=1 ic=1 ih=28 iw=28 kh=3 kw=3 mb=128 oc=32 oh=26 ow=26 "
            "ph=0 pw=0 sh=1 sw=1");
  // One Adadelta update per weight tensor: kernels and biases of the four layers.
  std::multiset<int64_t> updates;
  for (const StepOp& op : ops.ops)
    if (op.signature.kind == OpKind::kOptimizer) {
      EXPECT_EQ(op.signature.alg, "adadelta");
      for (int k = 0; k < op.count; ++k) updates.insert(op.signature.dim("n"));
    }
  EXPECT_EQ(updates, (std::multiset<int64_t>{288, 32, 18432, 64, 1179648, 128, 1280, 10}));
  int64_t total = 0;
  for (int64_t n : updates) total += n;
  EXPECT_EQ(total, 1199882);
}

TEST(LoweringTest, RepeatedLayersAreMeasuredOnce) {
  StepOps ops = LowerZoo("resnet50", 32, Optimizer::kMomentum);
  // conv3_block2..4 share one 3x3 convolution signature.
  bool found = false;
  for (const StepOp& op : ops.ops)
    if (op.signature.kind == OpKind::kConvFwd && op.signature.dim("kh") == 3 &&
        op.signature.dim("ic") == 128 && op.signature.dim("ih") == 28) {
      EXPECT_EQ(op.count, 4);  // blocks 1..4 of stage 3 after the stride
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(Count(ops, OpKind::kConvFwd), 53);  // 49 main-path + 4 shortcut convolutions
  EXPECT_LT(ops.ops.size(), 200u);
}

TEST(LoweringTest, SamePaddingAndStrides) {
  StepOps ops = LowerZoo("cifar10_cnn", 32, Optimizer::kRmsprop);
  const OpSignature& first = ops.ops.front().signature;
  EXPECT_EQ(first.dim("ph"), 1);
  EXPECT_EQ(first.dim("oh"), 32);
  for (const StepOp& op : ops.ops)
    if (op.signature.kind == OpKind::kPoolFwd) {
      EXPECT_EQ(op.signature.dim("sh"), 2);
      EXPECT_EQ(op.signature.alg, "max");
    }
}

TEST(LoweringTest, UnrolledLstmLoopsOverSteps) {
  // Bi-LSTM(64) over 100 steps of 128: per direction one input projection of all 3,200 rows,
  // then per step a hidden projection of 32 rows; backwards the same GEMMs' gradients.
  StepOps ops = LowerZoo("imdb_bidirectional_lstm", 32, Optimizer::kAdam);
  EXPECT_EQ(Count(ops, OpKind::kRnnFwd), 0);
  int input_proj = 0, hidden_proj = 0;
  for (const StepOp& op : ops.ops) {
    if (op.signature.kind != OpKind::kInnerProductFwd || op.signature.dim("oc") != 256) continue;
    if (op.signature.dim("mb") == 3200) input_proj += op.count;
    if (op.signature.dim("mb") == 32) hidden_proj += op.count;
  }
  EXPECT_EQ(input_proj, 2);
  EXPECT_EQ(hidden_proj, 200);
  EXPECT_EQ(Count(ops, OpKind::kInnerProductBwdWeights), 2 + 200 + 1);  // + the dense layer
  // Sums over 32 x 64 values: the cell state's, once a step forward, and backward after each
  // direction's first step the engine's two, of the hidden and the cell state's gradients.
  int state_sums = 0;
  for (const StepOp& op : ops.ops)
    if (op.signature.ToString() == "binary dt=f32 alg=add n=2048") state_sums += op.count;
  EXPECT_EQ(state_sums, 200 + 2 * 198);
}

// PyTorch runs element-wise calls over fewer than 32,768 values on one thread (ATen's grain):
// the bi-LSTM's cell ops over 32 x 64 and 32 x 256 values, not its products, not its input
// projection's 100 x 32 x 256 stacked gradients. Without ATen (another framework), none.
TEST(LoweringTest, PyTorchRunsSmallElementwiseCallsSerially) {
  Result<Model> m = LoadZooModel("imdb_bidirectional_lstm");
  ASSERT_TRUE(m.ok());
  Result<StepOps> step =
      Lower(*m, {.batch = 32, .optimizer = Optimizer::kAdam, .aten_kernels = true});
  ASSERT_TRUE(step.ok()) << step.status().message();
  std::map<std::string, bool> serial;
  for (const StepOp& op : step->ops) serial[op.signature.ToString()] = op.serial;
  EXPECT_TRUE(serial.at("binary dt=f32 alg=mul n=2048"));
  EXPECT_TRUE(serial.at("eltwise_fwd dt=f32 alg=sigmoid n=6144"));
  EXPECT_TRUE(serial.at("concat dt=f32 n=8192"));
  EXPECT_FALSE(serial.at("concat dt=f32 n=819200"));
  EXPECT_FALSE(serial.at("ip_fwd dt=f32 aten=1 bias=1 ic=64 mb=32 oc=256"));
  EXPECT_FALSE(serial.at("optimizer dt=f32 alg=adam aten=1 n=128"));
  EXPECT_TRUE(SerialInAten(*OpSignature::Parse("binary dt=f32 alg=add n=32767")));
  EXPECT_FALSE(SerialInAten(*OpSignature::Parse("binary dt=f32 alg=add n=32768")));
  EXPECT_FALSE(SerialInAten(*OpSignature::Parse("reorder dt=f32 mb=32 c=3 h=32 w=32")));
  Result<StepOps> other = Lower(*m, {.batch = 32, .optimizer = Optimizer::kAdam});
  ASSERT_TRUE(other.ok());
  for (const StepOp& op : other->ops) EXPECT_FALSE(op.serial) << op.signature.ToString();
}

// torch.optim's for-loop update makes one framework call per pass, and Adam and AdamW two more on
// their step counter (PyTorch 1.13, counted at the dispatcher by
// tools/reference/optimizer_calls.py: zero_grad's zero_, AccumulateGrad's add_, and step()'s 1, 3,
// 5, 10, 11 and 11 calls).
TEST(LoweringTest, AnEagerUpdateMakesOneCallPerPass) {
  EXPECT_EQ(EagerOptimizerCalls("sgd"), 3);
  EXPECT_EQ(EagerOptimizerCalls("momentum"), 5);
  EXPECT_EQ(EagerOptimizerCalls("rmsprop"), 7);
  EXPECT_EQ(EagerOptimizerCalls("adam"), 12);
  EXPECT_EQ(EagerOptimizerCalls("adamw"), 13);
  EXPECT_EQ(EagerOptimizerCalls("adadelta"), 13);
  EXPECT_EQ(EagerOptimizerCalls("lamb"), 0);
  EXPECT_EQ(FrameworkCalls(*OpSignature::Parse("optimizer dt=f32 alg=rmsprop aten=1 n=512")), 7);
  EXPECT_EQ(FrameworkCalls(*OpSignature::Parse("optimizer dt=f32 alg=rmsprop n=512")), 1);
  EXPECT_EQ(FrameworkCalls(*OpSignature::Parse("ip_fwd dt=f32 aten=1 bias=1 ic=4 mb=2 oc=3")), 1);
}

TEST(LoweringTest, SequenceListsEveryCallInOrder) {
  // Each op appears in the sequence as often as its count says, and the first time in its
  // first-use order.
  for (const char* name : {"mnist_cnn", "lstm_text_generation", "imdb_bidirectional_lstm"}) {
    StepOps ops = LowerZoo(name, 32, Optimizer::kRmsprop);
    std::vector<int> seen(ops.ops.size(), 0);
    int next_new = 0;
    for (int i : ops.sequence) {
      ASSERT_GE(i, 0);
      ASSERT_LT(i, static_cast<int>(ops.ops.size()));
      if (seen[i]++ == 0) {
        EXPECT_EQ(i, next_new++) << name;
      }
    }
    for (size_t i = 0; i < ops.ops.size(); ++i) EXPECT_EQ(seen[i], ops.ops[i].count) << name;
  }
  // The unrolled cell runs time step by time step: its hidden projection comes back every 9
  // calls forward (projection, gate sum, sigmoid, tanh, 2 products, sum, tanh, product) and every
  // 14 backward (the engine's 2 sums of the states' gradients, 2 products, tanh, 4 products,
  // sigmoid, tanh, concat, 2 gradients).
  StepOps lstm = LowerZoo("lstm_text_generation", 128, Optimizer::kRmsprop);
  std::vector<size_t> fwd, bwd;
  for (size_t k = 0; k < lstm.sequence.size(); ++k) {
    const OpSignature& s = lstm.ops[lstm.sequence[k]].signature;
    if (s.dim("mb") != 128 || s.dim("ic") != 128 || s.dim("oc") != 512) continue;
    if (s.kind == OpKind::kInnerProductFwd) fwd.push_back(k);
    if (s.kind == OpKind::kInnerProductBwdData) bwd.push_back(k);
  }
  ASSERT_EQ(fwd.size(), 40u);
  ASSERT_EQ(bwd.size(), 40u);
  for (size_t k = 1; k < 40; ++k) {
    EXPECT_EQ(fwd[k] - fwd[k - 1], 9u);
    EXPECT_EQ(bwd[k] - bwd[k - 1], 14u);
  }
}
// The sequence splits into the forward pass with the loss, the backward pass and the updates, as
// a framework's step runs them (what `profile step` sums per phase).
TEST(LoweringTest, PhasesSplitTheSequence) {
  StepOps mlp = LowerZoo("mnist_mlp", 128, Optimizer::kRmsprop);
  ASSERT_EQ(mlp.sequence.size(), 25u);
  // Forward: 3 products, 2 relu, 2 dropout, the softmax and the loss. Backward: the softmax's
  // gradient, 3 weight and 2 data gradients of the products, 2 of relu and 2 of dropout.
  // Updates: 3 weights and 3 biases.
  EXPECT_EQ(mlp.backward_begin, 9u);
  EXPECT_EQ(mlp.update_begin, 19u);
  auto kind = [&](size_t k) { return mlp.ops[mlp.sequence[k]].signature.kind; };
  EXPECT_EQ(kind(mlp.backward_begin - 1), OpKind::kLoss);
  for (size_t k = 0; k < mlp.sequence.size(); ++k) {
    EXPECT_EQ(kind(k) == OpKind::kOptimizer, k >= mlp.update_begin) << k;
    if (k >= mlp.backward_begin && k < mlp.update_begin) {
      EXPECT_NE(kind(k), OpKind::kInnerProductFwd) << k;
      EXPECT_NE(kind(k), OpKind::kDropoutFwd) << k;
    }
  }
  StepOps forward = LowerZoo("mnist_mlp", 128, Optimizer::kRmsprop, /*training=*/false);
  EXPECT_EQ(forward.backward_begin, forward.sequence.size());
  EXPECT_EQ(forward.update_begin, forward.sequence.size());
}

TEST(LoweringTest, RecurrentAndEmbeddingModels) {
  StepOps ops =
      LowerZoo("imdb_bidirectional_lstm", 32, Optimizer::kAdam, true, RnnLowering::kFused);
  EXPECT_EQ(Count(ops, OpKind::kRnnFwd), 1);
  EXPECT_EQ(Count(ops, OpKind::kRnnBwd), 1);
  EXPECT_EQ(Count(ops, OpKind::kEmbeddingBwd), 1);
  for (const StepOp& op : ops.ops) {
    if (op.signature.kind == OpKind::kRnnFwd) {
      EXPECT_EQ(op.signature.ToString(), "rnn_fwd dt=f32 alg=lstm dirs=2 hc=64 ic=128 mb=32 t=100");
    }
    if (op.signature.kind == OpKind::kEmbeddingFwd) {
      EXPECT_EQ(op.signature.ToString(), "embedding_fwd dt=f32 dim=128 rows=3200 vocab=20000");
    }
  }
}

// A global average pooling as the frameworks take it on a CPU (mean_global_pool): a mean over
// the 400 positions of imdb_fasttext's [32, 400, 50] embedding output, and its gradient broadcast
// back over the 640,000 values; else oneDNN's pooling with a 400-wide window each way.
TEST(LoweringTest, GlobalAveragePoolingAsAMean) {
  Result<Model> m = LoadZooModel("imdb_fasttext");
  ASSERT_TRUE(m.ok());
  auto signatures = [&](bool mean, bool training) {
    Result<StepOps> ops = Lower(*m, {.batch = 32,
                                     .optimizer = Optimizer::kAdam,
                                     .training = training,
                                     .mean_global_pool = mean});
    EXPECT_TRUE(ops.ok()) << ops.status().message();
    std::vector<std::string> out;
    for (const StepOp& op : ops->ops)
      if (op.layers == std::vector<std::string>{"global_avg_pool1d_1"})
        out.push_back(op.signature.ToString());
    return out;
  };
  EXPECT_EQ(signatures(true, true),
            (std::vector<std::string>{"reduce dt=f32 alg=mean n=640000 out=1600",
                                      "binary dt=f32 alg=add n=640000"}));
  EXPECT_EQ(signatures(true, false),
            (std::vector<std::string>{"reduce dt=f32 alg=mean n=640000 out=1600"}));
  const std::string pool =
      "dt=f32 alg=avg c=50 ih=1 iw=400 kh=1 kw=400 mb=32 oh=1 ow=1 ph=0 pw=0 sh=1 sw=1";
  EXPECT_EQ(signatures(false, true),
            (std::vector<std::string>{"pool_fwd " + pool, "pool_bwd " + pool}));
}

// PyTorch's own recurrent layer (kAten) is one op each way, carrying what its backward pass runs
// back from and whether the input needs its gradient; its updates are nn.LSTM's tensors, per
// direction the input weights, the recurrent weights and the bias (one set in this Keras model);
// evaluation runs it under no_grad (infer=1).
TEST(LoweringTest, PyTorchsRecurrentLayerIsOneOpEachWay) {
  auto lower = [](const char* name, int64_t batch, Optimizer opt, bool training) {
    Result<Model> m = LoadZooModel(name);
    Result<StepOps> ops = Lower(*m, {.batch = batch,
                                     .optimizer = opt,
                                     .training = training,
                                     .rnn = RnnLowering::kAten,
                                     .aten_kernels = true});
    EXPECT_TRUE(ops.ok()) << ops.status().message();
    return *ops;
  };
  StepOps ops = lower("imdb_bidirectional_lstm", 32, Optimizer::kAdam, true);
  std::vector<std::string> lstm;
  for (const StepOp& op : ops.ops)
    if (op.layers.front() == "lstm_1") lstm.push_back(op.signature.ToString());
  EXPECT_EQ(lstm, (std::vector<std::string>{
                      "rnn_fwd dt=f32 alg=lstm aten=1 dirs=2 dx=1 hc=64 ic=128 mb=32 seq=0 t=100",
                      "rnn_bwd dt=f32 alg=lstm aten=1 dirs=2 dx=1 hc=64 ic=128 mb=32 seq=0 t=100",
                      "optimizer dt=f32 alg=adam aten=1 n=32768",   // 256 x 128
                      "optimizer dt=f32 alg=adam aten=1 n=16384",   // 256 x 64
                      "optimizer dt=f32 alg=adam aten=1 n=256"}));  // the bias
  for (const StepOp& op : ops.ops) {
    if (op.layers.front() == "lstm_1" && op.signature.kind == OpKind::kOptimizer) {
      EXPECT_EQ(op.count, 2) << op.signature.ToString();  // one each direction
    }
  }
  // The first layer of lstm_text_generation reads the data: no input gradient.
  StepOps text = lower("lstm_text_generation", 128, Optimizer::kRmsprop, true);
  EXPECT_EQ(text.ops[0].signature.ToString(),
            "rnn_fwd dt=f32 alg=lstm aten=1 dirs=1 dx=0 hc=128 ic=57 mb=128 seq=0 t=40");
  StepOps eval = lower("imdb_bidirectional_lstm", 32, Optimizer::kAdam, false);
  EXPECT_EQ(eval.ops[1].signature.ToString(),
            "rnn_fwd dt=f32 alg=lstm aten=1 dirs=2 hc=64 ic=128 infer=1 mb=32 seq=0 t=100");
  EXPECT_EQ(RnnLoweringName(*ParseRnnLowering("aten")), "aten");
}

TEST(LoweringTest, ForwardOnlyHasNoBackwardOrUpdates) {
  StepOps ops = LowerZoo("bert_base", 8, Optimizer::kAdam, /*training=*/false);
  EXPECT_EQ(Count(ops, OpKind::kOptimizer), 0);
  EXPECT_EQ(Count(ops, OpKind::kInnerProductBwdWeights), 0);
  EXPECT_EQ(Count(ops, OpKind::kDropoutFwd), 0);  // dropout is off outside training
  EXPECT_EQ(Count(ops, OpKind::kMatMul), 24);     // Q K^T and P V in 12 layers
}

TEST(LoweringTest, BadOptions) {
  Result<Model> m = LoadZooModel("mnist_mlp");
  EXPECT_EQ(Lower(*m, {.batch = 0}).status().message(), "batch must be from 1 to 16777216, got 0");
  // An absurd batch is refused, not overflowed (found by giving --batch 100000000000).
  EXPECT_EQ(Lower(*m, {.batch = kMaxBatch + 1}).status().message(),
            "batch must be from 1 to 16777216, got 16777217");
  EXPECT_EQ(ParseRnnLowering("looped").status().message(),
            "unknown RNN lowering 'looped' (expected unrolled, fused or aten)");
  EXPECT_EQ(ParseOptimizer("lamb").status().message(),
            "unknown optimizer 'lamb' (expected sgd, momentum, rmsprop, adam, adamw or adadelta)");
}

// PyTorch on a GPU runs 16-bit batch norm in its own kernels (the weights are 16-bit too, and
// cuDNN's takes 16-bit input only with float ones): those signatures carry aten=1, nothing else.
// Their traffic: the forward reads x twice and writes y, the backward reads x and dy twice and
// writes dx.
TEST(LoweringTest, SixteenBitBatchNormOnAGpuIsPyTorchsOwn) {
  Result<Model> m = LoadZooModel("resnet50");
  ASSERT_TRUE(m.ok());
  auto marked = [&](DType precision, bool aten_batch_norm) {
    std::multiset<OpKind> kinds;
    Result<StepOps> ops = Lower(*m, {.batch = 2,
                                     .precision = precision,
                                     .separate_conv_bias = true,
                                     .aten_batch_norm = aten_batch_norm});
    EXPECT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops)
      if (op.signature.dim("aten") == 1) kinds.insert(op.signature.kind);
    return kinds;
  };
  EXPECT_TRUE(marked(DType::kBFloat16, false).empty());
  const std::multiset<OpKind> kinds = marked(DType::kBFloat16, true);
  EXPECT_GT(kinds.count(OpKind::kBatchNormFwd), 0u);
  EXPECT_EQ(kinds.count(OpKind::kBatchNormFwd), kinds.count(OpKind::kBatchNormBwd));
  EXPECT_EQ(kinds.size(), kinds.count(OpKind::kBatchNormFwd) * 2);
  const OpSignature fwd = *OpSignature::Parse("bnorm_fwd dt=bf16 aten=1 c=3 mb=2 sp=5");
  const OpSignature bwd = *OpSignature::Parse("bnorm_bwd dt=bf16 aten=1 c=3 mb=2 sp=5");
  EXPECT_DOUBLE_EQ(fwd.bytes().value(), 3 * 2 * 30);
  EXPECT_DOUBLE_EQ(bwd.bytes().value(), 5 * 2 * 30);
  EXPECT_DOUBLE_EQ(OpSignature::Parse("bnorm_fwd dt=bf16 c=3 mb=2 sp=5")->bytes().value(),
                   2 * 2 * 30);
}

// Autocast (LoweringOptions::amp), counted by hand on mnist_mlp (784 -> 512 -> 512 -> 10, batch
// 4): each dense layer's weight and bias cast to fp16 forward and back to fp32 backward; the
// input cast once (4 x 784); softmax (forward and backward) and the loss in fp32, each with a
// cast of its 4 x 10 values each way; GradScaler's unscale (fp16 only) and the update in fp32.
// Autocast leaves an embedding (fp32 weights, on no list) in fp32, and the ops after it until a
// 16-bit op casts its input down (and its gradient back up). Recurrent layers are on no list of
// PyTorch 1.13's CPU autocast, yet its LSTM's gate products are linear calls that it casts, so
// epochcost lowers them in 16 bits there too: PyTorch's whole at::lstm (kAten) as one op that
// casts inside (next test), another lowering with amp_rnn16; with amp_rnn16 off they stay fp32.
// (Checked in PyTorch: under torch.autocast("cpu", bfloat16) an embedding, a mean over it and an
// LSTM return fp32, a linear layer bf16, and the LSTM makes 165 casts in 40 steps.)
TEST(LoweringTest, AutocastKeepsEmbeddingsAndWhatFollowsThemInFp32) {
  Result<Model> fasttext = LoadZooModel("imdb_fasttext");
  ASSERT_TRUE(fasttext.ok());
  auto counts = [](const Model& m, LoweringOptions o) {
    std::map<std::string, int> c;
    Result<StepOps> ops = Lower(m, o);
    EXPECT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops) c[op.signature.ToString()] += op.count;
    return c;
  };
  const LoweringOptions amp{.batch = 4, .precision = DType::kBFloat16, .amp = true};
  std::map<std::string, int> c = counts(*fasttext, amp);
  EXPECT_EQ(c["embedding_fwd dt=f32 dim=50 rows=1600 vocab=20000"], 1);
  EXPECT_EQ(c["embedding_bwd dt=f32 dim=50 rows=1600 vocab=20000"], 1);
  EXPECT_EQ(c["pool_fwd dt=f32 alg=avg c=50 ih=1 iw=400 kh=1 kw=400 mb=4 oh=1 ow=1 ph=0 pw=0 sh=1 "
              "sw=1"],
            1);
  // The dense layer reads the pooled 4 x 50 values: cast down, its gradient cast back up.
  EXPECT_EQ(c["reorder dt=bf16 alg=from_fp32 n=200"], 1);
  EXPECT_EQ(c["reorder dt=f32 alg=from_bf16 n=200"], 1);
  EXPECT_EQ(c["ip_fwd dt=bf16 bias=1 ic=50 mb=4 oc=1"], 1);

  Result<Model> lstm = LoadZooModel("imdb_bidirectional_lstm");
  ASSERT_TRUE(lstm.ok());
  LoweringOptions fp32_rnn = amp;  // a framework whose recurrent layers stay fp32 under autocast
  fp32_rnn.rnn = RnnLowering::kUnrolled;
  fp32_rnn.amp_rnn16 = false;
  int rnn16 = 0, rnn32 = 0;
  Result<StepOps> ops = Lower(*lstm, fp32_rnn);
  ASSERT_TRUE(ops.ok());
  for (const StepOp& op : ops->ops)
    for (const std::string& layer : op.layers)
      if (layer == "lstm_1") (op.signature.dtype == DType::kFloat32 ? rnn32 : rnn16) += op.count;
  EXPECT_EQ(rnn16, 0);  // neither its ops nor weight casts
  EXPECT_GT(rnn32, 0);
  LoweringOptions gpu = amp;
  gpu.rnn = RnnLowering::kFused;
  c = counts(*lstm, gpu);
  int fused16 = 0;
  for (const auto& [sig, n] : c)
    if (sig.rfind("rnn_fwd dt=bf16", 0) == 0) fused16 += n;
  EXPECT_EQ(fused16, 1);
}

// PyTorch's whole at::lstm under CPU autocast (RnnLowering::kAten): one op each way that casts its
// gate products' operands call by call, weights included (dt=bf16 amp=1, timed under autocast
// with fp32 tensors), and returns fp32. So no weight casts around it, no cast of an input only it
// reads, and the dense layer after it casts its fp32 input down. Counted by hand, batch 4:
// imdb_bidirectional_lstm's dense layer reads 4 x 128 values; lstm_text_generation's input
// (4 x 40 x 57) goes to its LSTM uncast and its dense layer reads 4 x 128 values.
TEST(LoweringTest, AutocastAtenLstmCastsInsideAndReturnsFp32) {
  const LoweringOptions amp{.batch = 4,
                            .precision = DType::kBFloat16,
                            .rnn = RnnLowering::kAten,
                            .aten_kernels = true,
                            .amp = true};
  for (const char* name : {"imdb_bidirectional_lstm", "lstm_text_generation"}) {
    SCOPED_TRACE(name);
    Result<Model> m = LoadZooModel(name);
    ASSERT_TRUE(m.ok());
    Result<StepOps> ops = Lower(*m, amp);
    ASSERT_TRUE(ops.ok());
    std::map<std::string, int> c;
    int lstm_casts = 0, lstm_amp = 0;
    for (const StepOp& op : ops->ops) {
      c[op.signature.ToString()] += op.count;
      for (const std::string& layer : op.layers) {
        if (layer != "lstm_1") continue;
        if (op.signature.kind == OpKind::kReorder) lstm_casts += op.count;
        if (IsRecurrent(op.signature.kind) && op.signature.dtype == DType::kBFloat16 &&
            op.signature.dim("amp") == 1)
          lstm_amp += op.count;
      }
    }
    EXPECT_EQ(lstm_casts, 0);
    EXPECT_EQ(lstm_amp, 2);  // rnn_fwd and rnn_bwd
    EXPECT_EQ(c["reorder dt=bf16 alg=from_fp32 n=512"], 1);
    EXPECT_EQ(c["reorder dt=bf16 alg=from_fp32 n=9120"], 0);
  }
}

TEST(LoweringTest, AutocastCastsWeightsAndRunsItsFp32OpsInFp32) {
  Result<Model> m = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(m.ok());
  auto lower = [&](DType precision) {
    std::map<std::string, int> counts;
    Result<StepOps> ops =
        Lower(*m, {.batch = 4, .precision = precision, .optimizer = Optimizer::kSgd, .amp = true});
    EXPECT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops) counts[op.signature.ToString()] += op.count;
    return counts;
  };
  const std::map<std::string, int> c = lower(DType::kFloat16);
  for (int64_t n : {401408, 262144, 5120, 10}) {
    const std::string tail = " n=" + std::to_string(n);
    EXPECT_EQ(c.at("reorder dt=f16 alg=from_fp32" + tail), 1) << n;
    EXPECT_EQ(c.at("reorder dt=f32 alg=from_fp16" + tail), 1) << n;
    EXPECT_EQ(c.at("eltwise_fwd dt=f32 alg=unscale" + tail), 1) << n;
    EXPECT_EQ(c.at("optimizer dt=f32 alg=sgd" + tail), 1) << n;
  }
  EXPECT_EQ(c.at("reorder dt=f16 alg=from_fp32 n=512"), 2);  // two 512-wide biases
  EXPECT_EQ(c.at("optimizer dt=f32 alg=sgd n=512"), 2);
  EXPECT_EQ(c.at("reorder dt=f16 alg=from_fp32 n=3136"), 1);  // the input
  EXPECT_EQ(c.at("softmax_fwd dt=f32 c=10 rows=4"), 1);
  EXPECT_EQ(c.at("softmax_bwd dt=f32 c=10 rows=4"), 1);
  EXPECT_EQ(c.at("loss dt=f32 alg=categorical_crossentropy c=10 rows=4"), 1);
  EXPECT_EQ(c.at("reorder dt=f16 alg=from_fp32 n=40"), 3);
  EXPECT_EQ(c.at("reorder dt=f32 alg=from_fp16 n=40"), 3);
  EXPECT_EQ(c.at("ip_fwd dt=f16 bias=1 ic=784 mb=4 oc=512"), 1);
  // bf16 autocast has no GradScaler.
  for (const auto& [sig, n] : lower(DType::kBFloat16))
    EXPECT_EQ(sig.find("unscale"), std::string::npos) << sig;
  // A cast reads its source type and writes its own: (4 + 2) bytes a value.
  EXPECT_DOUBLE_EQ(OpSignature::Parse("reorder dt=f16 alg=from_fp32 n=10")->bytes().value(), 60);
  EXPECT_DOUBLE_EQ(OpSignature::Parse("reorder dt=f16 n=10")->bytes().value(), 40);
}

// channels_last: every 2-D convolution, windowed 2-D pooling and batch norm over a feature map
// carries nhwc=1 (cuDNN's NHWC kernels), nothing else does; PyTorch's own 16-bit batch norm stays
// NCHW.
TEST(LoweringTest, ChannelsLastMarksConvolutionsPoolingAndBatchNorm) {
  Result<Model> m = LoadZooModel("resnet50_v1_5");
  ASSERT_TRUE(m.ok());
  auto marked = [&](bool channels_last, bool aten_batch_norm) {
    std::multiset<OpKind> kinds, unmarked;
    Result<StepOps> ops = Lower(*m, {.batch = 2,
                                     .precision = DType::kFloat16,
                                     .aten_batch_norm = aten_batch_norm,
                                     .amp = !aten_batch_norm,
                                     .channels_last = channels_last});
    EXPECT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops)
      (op.signature.dim("nhwc") == 1 ? kinds : unmarked).insert(op.signature.kind);
    return std::make_pair(kinds, unmarked);
  };
  EXPECT_TRUE(marked(false, false).first.empty());
  const auto [nhwc, plain] = marked(true, false);
  for (OpKind k :
       {OpKind::kConvFwd, OpKind::kConvBwdData, OpKind::kConvBwdWeights, OpKind::kPoolFwd,
        OpKind::kPoolBwd, OpKind::kBatchNormFwd, OpKind::kBatchNormBwd}) {
    EXPECT_GT(nhwc.count(k), 0u) << OpKindName(k);
    // The stem's max pooling is marked; the global average pooling is timed NCHW.
    EXPECT_EQ(plain.count(k), k == OpKind::kPoolFwd || k == OpKind::kPoolBwd ? 1u : 0u)
        << OpKindName(k);
  }
  EXPECT_EQ(nhwc.count(OpKind::kEltwiseFwd) + nhwc.count(OpKind::kBinary), 0u);
  const auto [aten_nhwc, aten_plain] = marked(true, true);
  EXPECT_EQ(aten_nhwc.count(OpKind::kBatchNormFwd), 0u);
  EXPECT_GT(aten_plain.count(OpKind::kBatchNormFwd), 0u);
}

}  // namespace
}  // namespace epochcost

namespace epochcost {
namespace {

double F(const char* line) { return OpSignature::Parse(line)->flops().flops(); }
double B(const char* line) { return OpSignature::Parse(line)->bytes().bytes(); }

TEST(OpSignatureCostTest, HandComputedFlopsAndBytes) {
  // mnist_cnn conv2 at batch 128: 128 x 64 x 24 x 24 x 9 x 32 MACs.
  const char* conv =
      "conv_fwd dt=f32 dh=1 dw=1 g=1 ic=32 ih=26 iw=26 kh=3 kw=3 mb=128 oc=64 oh=24 ow=24 ph=0 "
      "pw=0 sh=1 sw=1";
  EXPECT_DOUBLE_EQ(F(conv), 2.0 * 128 * 64 * 24 * 24 * 9 * 32);
  EXPECT_DOUBLE_EQ(B(conv), 4.0 * (128 * 32 * 26 * 26 + 64 * 32 * 9 + 128 * 64 * 24 * 24));
  // A 1024^3 inner product without bias: 2 x 1024^3 FLOPs over three 4 MiB matrices.
  EXPECT_DOUBLE_EQ(F("ip_fwd dt=f32 bias=0 ic=1024 mb=1024 oc=1024"), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(B("ip_fwd dt=bf16 bias=0 ic=1024 mb=1024 oc=1024"), 3.0 * 2 * 1024 * 1024);
  // Depthwise: groups divide the input channels.
  EXPECT_DOUBLE_EQ(F("conv_fwd dt=f32 g=32 ic=32 iw=8 ih=8 kh=3 kw=3 mb=1 oc=32 oh=8 ow=8"),
                   2.0 * 32 * 64 * 9);
  // Adam over n parameters: 10 FLOPs and 7 arrays of n values.
  EXPECT_DOUBLE_EQ(F("optimizer dt=f32 alg=adam n=1000"), 10000);
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=adam n=1000"), 28000);
  // The dense embedding gradient zeroes the whole table: why imdb_fasttext is memory-bound.
  EXPECT_DOUBLE_EQ(B("embedding_bwd dt=f32 dim=50 rows=12800 vocab=1000000"),
                   4.0 * 1000000 * 50 + 2 * 4.0 * 12800 * 50);
  // A bi-LSTM(64) over 100 steps of 128, batch 32: 2 x 100 x 32 x 4 x 64 x 192 MACs forward.
  EXPECT_DOUBLE_EQ(F("rnn_fwd dt=f32 alg=lstm dirs=2 hc=64 ic=128 mb=32 t=100"),
                   2.0 * 2 * 100 * 32 * 4 * 64 * 192);
  EXPECT_DOUBLE_EQ(F("eltwise_fwd dt=f32 alg=sigmoid n=10"), 40);
  EXPECT_DOUBLE_EQ(F("reorder dt=f32 n=10"), 0);
  EXPECT_DOUBLE_EQ(B("reorder dt=f32 n=10"), 80);
  // A framework's layout change of a whole tensor names its shape.
  EXPECT_DOUBLE_EQ(B("reorder dt=f32 c=64 h=15 mb=32 w=15"), 2.0 * 4 * 32 * 64 * 15 * 15);
}

TEST(OpSignatureCostTest, AtenKernelsCountEveryPass) {
  // torch.optim's for-loop Adam, with zero_grad and the gradient accumulation, in arrays of n
  // values read or written: zero_ 1, add_ 3, mul_ 2, add_ 3, mul_ 2, addcmul_(g, g) 3, sqrt 2,
  // div 2, add_ 2, addcdiv_ 4 = 24.
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=adam aten=1 n=1000"), 24 * 4000);
  // AdamW: Adam's and its weight decay's param.mul_ 2 = 26; fused, Adam's seven arrays.
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=adamw aten=1 n=1000"), 26 * 4000);
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=adamw n=1000"), 7 * 4000);
  EXPECT_DOUBLE_EQ(F("optimizer dt=f32 alg=adamw n=1000"), 11 * 1000);
  // RMSprop: 1 + 3, mul_ 2, addcmul_ 3, sqrt 2, add_ 2, addcdiv_ 4 = 17; SGD: 1 + 3 + add_ 3.
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=rmsprop aten=1 n=1000"), 17 * 4000);
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=sgd aten=1 n=1000"), 7 * 4000);
  // Adadelta: 1 + 3, mul_ 2, addcmul_ 3, add 2, sqrt_ 2, add 2, sqrt_ 2, div_ 3, mul_ 3, mul_ 2,
  // addcmul_(d, d) 3, add_ 3 = 31.
  EXPECT_DOUBLE_EQ(B("optimizer dt=f32 alg=adadelta aten=1 n=1000"), 31 * 4000);
  // Dropout: write the mask, scale it in place, multiply (forward); multiply (backward).
  EXPECT_DOUBLE_EQ(B("dropout_fwd dt=f32 aten=1 n=1000"), 6 * 4000);
  EXPECT_DOUBLE_EQ(B("dropout_bwd dt=f32 aten=1 n=1000"), 3 * 4000);
  // Max pooling adds an int64 index per output; its backward also zeroes the input gradient.
  const double in = 2 * 3 * 4 * 4, out = 2 * 3 * 2 * 2;
  EXPECT_DOUBLE_EQ(B("pool_fwd dt=f32 alg=max aten=1 c=3 ih=4 iw=4 kh=2 kw=2 mb=2 oh=2 ow=2 "
                     "ph=0 pw=0 sh=2 sw=2"),
                   4 * (in + out) + 8 * out);
  EXPECT_DOUBLE_EQ(B("pool_bwd dt=f32 alg=max aten=1 c=3 ih=4 iw=4 kh=2 kw=2 mb=2 oh=2 ow=2 "
                     "ph=0 pw=0 sh=2 sw=2"),
                   4 * (in + out) + 8 * out + 4 * in);
}

TEST(LoweringTest, AtenKernelsWhereAsked) {
  Result<Model> m = LoadZooModel("mnist_cnn");
  ASSERT_TRUE(m.ok());
  auto aten_kinds = [&](bool aten, DType precision = DType::kFloat32) {
    std::multiset<OpKind> kinds;
    Result<StepOps> ops = Lower(
        *m,
        {.batch = 8, .precision = precision, .optimizer = Optimizer::kAdam, .aten_kernels = aten});
    EXPECT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops)
      if (op.signature.dim("aten") == 1) kinds.insert(op.signature.kind);
    return kinds;
  };
  EXPECT_TRUE(aten_kinds(false).empty());
  // Two dense layers (forward, data and weight gradients: BLAS), one max pooling (forward,
  // backward), two dropouts (forward, backward), eight updates; the convolutions stay oneDNN's.
  const std::multiset<OpKind> kinds = aten_kinds(true);
  EXPECT_EQ(kinds.count(OpKind::kInnerProductFwd), 2u);
  EXPECT_EQ(kinds.count(OpKind::kInnerProductBwdData), 2u);
  EXPECT_EQ(kinds.count(OpKind::kInnerProductBwdWeights), 2u);
  EXPECT_EQ(kinds.count(OpKind::kPoolFwd), 1u);
  EXPECT_EQ(kinds.count(OpKind::kPoolBwd), 1u);
  EXPECT_EQ(kinds.count(OpKind::kDropoutFwd), 2u);
  EXPECT_EQ(kinds.count(OpKind::kDropoutBwd), 2u);
  EXPECT_EQ(kinds.count(OpKind::kOptimizer), 8u);
  EXPECT_EQ(kinds.size(), 20u);
  // In bf16 PyTorch hands the products to oneDNN (mkldnn_matmul); the rest stays ATen's.
  const std::multiset<OpKind> bf16 = aten_kinds(true, DType::kBFloat16);
  EXPECT_EQ(bf16.count(OpKind::kInnerProductFwd), 0u);
  EXPECT_EQ(bf16.count(OpKind::kInnerProductBwdData), 0u);
  EXPECT_EQ(bf16.count(OpKind::kInnerProductBwdWeights), 0u);
  EXPECT_EQ(bf16.size(), 14u);
}

}  // namespace
}  // namespace epochcost
