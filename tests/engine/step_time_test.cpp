// PredictEpoch (engine/step_time.h): a step's ops summed with their counts, overheads and a
// calibration's terms, on a CPU and on a GPU, against hand-computed figures.
#include "engine/step_time.h"

#include <gtest/gtest.h>

#include "engine/lowering.h"
#include "engine/zoo.h"

namespace epochcost {
namespace {

// A fixed table of op times, for exact step and epoch arithmetic.
class FakeTimes : public OpTimeSource {
 public:
  std::optional<OpTime> Find(const OpSignature& sig, int) const override {
    if (sig.kind == OpKind::kConvFwd) return std::nullopt;
    return OpTime{Seconds::FromMilliseconds(1), Seconds::FromMicroseconds(800),
                  Seconds::FromMilliseconds(2), Seconds::FromMicroseconds(1200), "fake"};
  }
};

TEST(PredictEpochTest, SumsCountsTimesAndOverheadPerStep) {
  Result<Model> m = LoadZooModel("mnist_mlp");
  Result<StepOps> train = Lower(*m, {.batch = 128, .optimizer = Optimizer::kRmsprop});
  Result<StepOps> eval = Lower(*m, {.batch = 128, .training = false});
  int calls = 0, eval_calls = 0;
  for (const StepOp& op : train->ops) calls += op.count;
  for (const StepOp& op : eval->ops) eval_calls += op.count;
  EpochPrediction p = PredictEpoch(*train, *eval, 128, FakeTimes(),
                                   {.threads = 1,
                                    .per_op_overhead = Seconds::FromMicroseconds(10),
                                    .samples = 60000,
                                    .val_samples = 10000});
  EXPECT_TRUE(p.missing.empty());
  // Each op at its mean (1.2 ms, not its 1 ms median) plus the overhead.
  EXPECT_NEAR(p.step.seconds(), calls * 1.210e-3, 1e-12);
  // The spread: every op at its 10th (0.8 ms) and 90th (2 ms) percentile, overhead on each.
  EXPECT_NEAR(p.step_p10.seconds(), calls * 0.810e-3, 1e-12);
  EXPECT_NEAR(p.step_p90.seconds(), calls * 2.010e-3, 1e-12);
  EXPECT_EQ(p.steps_per_epoch, 469);  // ceil(60000 / 128)
  EXPECT_EQ(p.eval_steps, 79);        // ceil(10000 / 128)
  EXPECT_NEAR(p.epoch.seconds(), 469 * calls * 1.210e-3 + 79 * eval_calls * 1.210e-3, 1e-9);
  EXPECT_EQ(p.eval_ops.size(), eval->ops.size());
  // A calibration's kernel scale multiplies the op time, not the overhead.
  EpochPrediction scaled = PredictEpoch(*train, *eval, 128, FakeTimes(),
                                        {.threads = 1,
                                         .per_op_overhead = Seconds::FromMicroseconds(10),
                                         .kernel_scale = 3,
                                         .samples = 60000});
  EXPECT_NEAR(scaled.step.seconds(), calls * 3.610e-3, 1e-12);
  EXPECT_NEAR(scaled.step_p90.seconds(), calls * 6.010e-3, 1e-12);
  // A cost per GB moved (a calibration's memory passes at the step's bandwidth) adds each op's
  // bytes (OpSignature::bytes) at that rate, to every call.
  double gb = 0;
  for (const StepOp& op : train->ops) gb += op.count * op.signature.bytes().value() * 1e-9;
  EpochPrediction moved = PredictEpoch(*train, *eval, 128, FakeTimes(),
                                       {.threads = 1,
                                        .per_op_overhead = Seconds::FromMicroseconds(10),
                                        .per_gb_moved = Seconds::FromMilliseconds(25),
                                        .samples = 60000});
  EXPECT_GT(gb, 0);
  EXPECT_NEAR(moved.step.seconds(), calls * 1.210e-3 + 25e-3 * gb, 1e-12);
}

// A GPU: each call costs the longer of its kernel and its dispatch, the dispatch being the
// per-op overhead plus the call's measured host time beyond a plain launch.
class HostTimes : public OpTimeSource {
 public:
  std::optional<OpTime> Find(const OpSignature& sig, int) const override {
    OpTime t{Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(8),
             Seconds::FromMicroseconds(20), Seconds::FromMicroseconds(12), "fake"};
    // Forward passes: 30 us of host each (a cuDNN plan, say); the others unknown.
    if (!IsBackward(sig.kind)) t.host = Seconds::FromMicroseconds(30);
    return t;
  }
};

TEST(PredictEpochTest, AGpuCallsHostTimeBeyondALaunchAddsToItsDispatch) {
  Result<Model> m = LoadZooModel("mnist_mlp");
  Result<StepOps> train = Lower(*m, {.batch = 128, .optimizer = Optimizer::kSgd});
  Result<StepOps> eval = Lower(*m, {.batch = 128, .training = false});
  int fwd = 0, rest = 0;
  for (const StepOp& op : train->ops) (IsBackward(op.signature.kind) ? rest : fwd) += op.count;
  ASSERT_GT(fwd, 0);
  ASSERT_GT(rest, 0);
  const EpochOptions gpu{.per_op_overhead = Seconds::FromMicroseconds(5),
                         .dispatch_overlaps = true,
                         .launch = Seconds::FromMicroseconds(4),
                         .samples = 128};
  EpochPrediction p = PredictEpoch(*train, *eval, 128, HostTimes(), gpu);
  // Forward: max(12 us kernel, 5 + (30 - 4) us) = 31 us; the others max(12, 5) = 12 us.
  EXPECT_NEAR(p.step.seconds(), fwd * 31e-6 + rest * 12e-6, 1e-12);
  for (const OpTiming& t : p.ops)
    EXPECT_DOUBLE_EQ(t.host_extra.seconds(), IsBackward(t.signature.kind) ? 0 : 26e-6);
  // A CPU adds its overhead to each kernel and has no host time of its own to add.
  EpochOptions cpu = gpu;
  cpu.dispatch_overlaps = false;
  EXPECT_NEAR(PredictEpoch(*train, *eval, 128, HostTimes(), cpu).step.seconds(),
              (fwd + rest) * 17e-6, 1e-12);
}

// Times by thread count: 1 ms at one thread, 3 ms at two, to tell which row a call took.
class ThreadedTimes : public OpTimeSource {
 public:
  std::optional<OpTime> Find(const OpSignature&, int threads) const override {
    const Seconds t = Seconds::FromMilliseconds(threads == 1 ? 1 : 3);
    return OpTime{t, t, t, t, "fake"};
  }
};

// PyTorch runs an element-wise call over fewer than 32,768 values on one thread whatever its
// thread count (SerialInAten): at 2 threads it takes its 1-thread row and the 1-thread dispatch;
// the products and the larger element-wise calls take the 2-thread rows and dispatch.
TEST(PredictEpochTest, ASerialCallTakesItsOneThreadTimeAndDispatch) {
  Result<Model> m = LoadZooModel("imdb_bidirectional_lstm");
  const LoweringOptions o{.batch = 32, .optimizer = Optimizer::kAdam, .aten_kernels = true};
  Result<StepOps> train = Lower(*m, o);
  LoweringOptions eval_o = o;
  eval_o.training = false;
  Result<StepOps> eval = Lower(*m, eval_o);
  // Calls, and framework calls (an update makes one per pass: serial ones make one each).
  int serial = 0, parallel = 0, parallel_calls = 0;
  for (const StepOp& op : train->ops) {
    (op.serial ? serial : parallel) += op.count;
    if (!op.serial) parallel_calls += op.count * op.calls;
  }
  ASSERT_GT(serial, 0);
  ASSERT_GT(parallel, 0);
  EpochPrediction p = PredictEpoch(*train, *eval, 32, ThreadedTimes(),
                                   {.threads = 2,
                                    .per_op_overhead = Seconds::FromMicroseconds(4),
                                    .serial_per_op_overhead = Seconds::FromMicroseconds(1),
                                    .samples = 32});
  EXPECT_NEAR(p.step.seconds(), serial * 1.001e-3 + parallel * 3e-3 + parallel_calls * 4e-6, 1e-12);
  for (const OpTiming& t : p.ops)
    if (t.source != "fake") {
      EXPECT_EQ(t.source, "fake, its 1-thread time (run serially)");
    }
  // At one thread there is nothing to tell apart; without the 1-thread dispatch, the one given.
  EXPECT_NEAR(PredictEpoch(*train, *eval, 32, ThreadedTimes(),
                           {.per_op_overhead = Seconds::FromMicroseconds(4), .samples = 32})
                  .step.seconds(),
              (serial + parallel) * 1e-3 + (serial + parallel_calls) * 4e-6, 1e-12);
  EXPECT_NEAR(
      PredictEpoch(*train, *eval, 32, ThreadedTimes(),
                   {.threads = 2, .per_op_overhead = Seconds::FromMicroseconds(4), .samples = 32})
          .step.seconds(),
      serial * 1.004e-3 + parallel * 3e-3 + parallel_calls * 4e-6, 1e-12);
}

// An update PyTorch runs in its for-loop makes one framework call per pass (Adam 12 for each
// parameter tensor: tools/reference/optimizer_calls.py), each paying the per-op overhead; its
// kernel is timed once. imdb_fasttext's three tensors (embedding, dense weights and bias) add
// 3 x 11 overheads to the step; with oneDNN's lowering (no aten=1) an update is one call.
TEST(PredictEpochTest, AnEagerUpdateChargesTheOverheadOncePerPass) {
  Result<Model> m = LoadZooModel("imdb_fasttext");
  const LoweringOptions aten{.batch = 32, .optimizer = Optimizer::kAdam, .aten_kernels = true};
  LoweringOptions plain = aten;
  plain.aten_kernels = false;
  Result<StepOps> eager = Lower(*m, aten), fused = Lower(*m, plain);
  LoweringOptions eval_o = aten;
  eval_o.training = false;
  Result<StepOps> eval = Lower(*m, eval_o);
  int calls = 0, updates = 0;
  for (const StepOp& op : eager->ops) {
    calls += op.count;
    if (op.signature.kind == OpKind::kOptimizer) {
      EXPECT_EQ(op.calls, 12) << op.signature.ToString();
      updates += op.count;
    } else {
      EXPECT_EQ(op.calls, 1) << op.signature.ToString();
    }
  }
  EXPECT_EQ(updates, 3);
  for (const StepOp& op : fused->ops) EXPECT_EQ(op.calls, 1) << op.signature.ToString();
  const EpochOptions o{.threads = 1,
                       .per_op_overhead = Seconds::FromMicroseconds(10),
                       .samples = 32,
                       .op_rows = true};
  const EpochPrediction p = PredictEpoch(*eager, *eval, 32, FakeTimes(), o);
  EXPECT_NEAR(p.step.seconds(), calls * 1.2e-3 + (calls + 3 * 11) * 10e-6, 1e-12);
  for (const OpTiming& t : p.ops)
    if (t.signature.kind == OpKind::kOptimizer) {
      EXPECT_EQ(t.calls, 12);
      EXPECT_NEAR(t.total.seconds(), t.count * (1.2e-3 + 12 * 10e-6), 1e-12);
    }
}

TEST(PredictEpochTest, ListsMissingSignaturesOnce) {
  Result<Model> m = LoadZooModel("mnist_cnn");
  Result<StepOps> train = Lower(*m, {.batch = 8});
  Result<StepOps> eval = Lower(*m, {.batch = 8, .training = false});
  EpochPrediction p =
      PredictEpoch(*train, *eval, 8, FakeTimes(), {.samples = 80, .val_samples = 8});
  EXPECT_EQ(p.missing.size(), 2u);  // the two convolutions' forward passes
}

}  // namespace
}  // namespace epochcost
