// `profile step`'s replay of a whole training step on the CPU (profiler/cpu/onednn_backend.h
// ReplayCpuStep): it runs every call of the lowered step and times the step and each call; no
// time is asserted.
#include <gtest/gtest.h>

#include "engine/lowering.h"
#include "engine/lowering_options.h"
#include "engine/zoo.h"
#include "profiler/cpu/onednn_backend.h"

namespace epochcost::profiler {
namespace {

struct Step {
  std::vector<OpSignature> ops;
  std::vector<int> sequence;
};

Step LowerForReplay(const char* model, int64_t batch, RnnLowering rnn = RnnLowering::kUnrolled) {
  Result<Model> m = LoadZooModel(model);
  EXPECT_TRUE(m.ok());
  Result<StepOps> step = Lower(
      *m, {.batch = batch, .optimizer = Optimizer::kRmsprop, .rnn = rnn, .aten_kernels = true});
  EXPECT_TRUE(step.ok()) << step.status().message();
  Step out;
  for (const StepOp& op : step->ops) out.ops.push_back(op.signature);
  out.sequence = step->sequence;
  return out;
}

const MeasureOptions kThreeSteps{
    .threads = 1, .warmup = 1, .min_repeats = 3, .min_time = Seconds(), .mean_within = 1};

TEST(StepReplayTest, RunsEveryCallOfAStep) {
  // A dense model with BLAS products, dropout and RMSprop's passes, and a recurrent one whose
  // cell runs time step by time step, or whole as PyTorch's layer (the ATen module's, whose
  // backward call runs back the graph its forward call left; oneDNN's RNN without the module).
  for (auto [model, rnn] : {std::pair{"mnist_mlp", RnnLowering::kUnrolled},
                            std::pair{"lstm_text_generation", RnnLowering::kUnrolled},
                            std::pair{"lstm_text_generation", RnnLowering::kAten}}) {
    Step step = LowerForReplay(model, 8, rnn);
    Result<StepReplay> r = ReplayCpuStep(step.ops, step.sequence, kThreeSteps);
    ASSERT_TRUE(r.ok()) << model << ": " << r.status().message();
    const Measurement* m = &r->step;
    EXPECT_EQ(m->count, 3) << model;
    EXPECT_GT(m->median.seconds(), 0) << model;
    EXPECT_LE(m->p10.seconds(), m->median.seconds()) << model;
    EXPECT_LE(m->median.seconds(), m->p90.seconds()) << model;
    // Every op ran inside the two timed steps nearest the median (of three: the median's and the
    // nearer other), and its calls' times fit within those steps' (at most the p90 step's).
    ASSERT_EQ(r->ops.size(), step.ops.size());
    std::vector<int> count(step.ops.size(), 0);
    for (int i : step.sequence) ++count[i];
    double calls = 0;
    for (size_t i = 0; i < step.ops.size(); ++i) {
      EXPECT_EQ(r->ops[i].count, count[i] * 2) << model << " " << step.ops[i].ToString();
      EXPECT_GT(r->ops[i].mean.seconds(), 0) << model << " " << step.ops[i].ToString();
      calls += r->ops[i].mean.seconds() * count[i];
    }
    EXPECT_LE(calls, m->p90.seconds() * 1.0001) << model;
  }
}

// An op the framework runs serially replays on one thread inside a 2-thread step, and is timed.
TEST(StepReplayTest, RunsSerialOpsOnOneThread) {
  Step step = LowerForReplay("lstm_text_generation", 8);
  std::vector<bool> serial(step.ops.size(), false);
  for (size_t i = 0; i < step.ops.size(); ++i) serial[i] = SerialInAten(step.ops[i]);
  MeasureOptions two = kThreeSteps;
  two.threads = 2;
  Result<StepReplay> r = ReplayCpuStep(step.ops, step.sequence, two, serial);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (size_t i = 0; i < step.ops.size(); ++i)
    EXPECT_GT(r->ops[i].mean.seconds(), 0) << step.ops[i].ToString();
}

// The ops' times are their calls' in the half of the timed steps nearest the median
// (NearestTheMedian): of eight steps, four (no two take the same nanoseconds).
TEST(StepReplayTest, OpsAreTimedInTheStepsNearestTheMedian) {
  Step step = LowerForReplay("mnist_mlp", 8);
  MeasureOptions eight = kThreeSteps;
  eight.min_repeats = 8;
  Result<StepReplay> r = ReplayCpuStep(step.ops, step.sequence, eight);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->step.count, 8);
  std::vector<int> count(step.ops.size(), 0);
  for (int i : step.sequence) ++count[i];
  for (size_t i = 0; i < step.ops.size(); ++i)
    EXPECT_EQ(r->ops[i].count, count[i] * 4) << step.ops[i].ToString();
}

// With warm_operands each oneDNN call's buffers are read just before it, untimed, and a step is
// the sum of its calls: over one timed step, exactly the calls' times. A BLAS product (no
// buffers to warm) runs as without it.
TEST(StepReplayTest, WarmOperandsTimeTheStepAsTheSumOfItsCalls) {
  const std::vector<OpSignature> ops = {
      *OpSignature::Parse("eltwise_fwd dt=f32 alg=tanh n=4096"),
      *OpSignature::Parse("binary dt=f32 alg=mul n=4096"),
      *OpSignature::Parse("ip_fwd dt=f32 aten=1 bias=1 ic=16 mb=8 oc=32")};
  MeasureOptions one = kThreeSteps;
  one.min_repeats = 1;
  Result<StepReplay> r = ReplayCpuStep(ops, {0, 1, 0, 2, 1}, one, {}, /*warm_operands=*/true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->step.count, 1);
  EXPECT_EQ(r->ops[0].count, 2);
  EXPECT_EQ(r->ops[1].count, 2);
  EXPECT_EQ(r->ops[2].count, 1);
  const double calls =
      2 * r->ops[0].mean.seconds() + 2 * r->ops[1].mean.seconds() + r->ops[2].mean.seconds();
  EXPECT_NEAR(r->step.mean.seconds(), calls, 1e-12);
}

TEST(StepReplayTest, AnOpNeverCalledHasNoRuns) {
  const std::vector<OpSignature> ops = {*OpSignature::Parse("eltwise_fwd dt=f32 alg=relu n=64"),
                                        *OpSignature::Parse("eltwise_fwd dt=f32 alg=tanh n=64")};
  Result<StepReplay> r = ReplayCpuStep(ops, {0, 0}, kThreeSteps);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Two calls in each of the steps nearest the median: ceil(n / 2) of the n timed steps, more
  // where two lie as far from it. n is 3 unless a slow step kept the mean from settling (a loaded
  // machine: it failed once, 2026-11-29, under `ctest -j2` when this expected exactly 4).
  const int steps = r->step.count;
  EXPECT_GE(steps, 3);
  EXPECT_EQ(r->ops[0].count % 2, 0);
  EXPECT_GE(r->ops[0].count, 2 * ((steps + 1) / 2));
  EXPECT_LE(r->ops[0].count, 2 * steps);
  EXPECT_EQ(r->ops[1].count, 0);
}

// Each call of an op gets buffers of its own, as a framework's tensors, unless their bytes
// together pass the budget: then every op's instances shrink by the same share, one at least.
TEST(StepReplayTest, EachCallHasItsOwnBuffersWithinABudget) {
  const std::vector<OpSignature> ops = {*OpSignature::Parse("eltwise_fwd dt=f32 alg=relu n=64"),
                                        *OpSignature::Parse("eltwise_fwd dt=f32 alg=tanh n=64"),
                                        *OpSignature::Parse("eltwise_fwd dt=f32 alg=elu n=64")};
  const std::vector<int> sequence = {0, 0, 0, 0, 1, 1};
  const double bytes = ops[0].bytes().value();  // the same for all three
  EXPECT_EQ(ReplayInstances(ops, sequence, kReplayInstanceBytes), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(ReplayInstances(ops, sequence, 6 * bytes), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(ReplayInstances(ops, sequence, 3 * bytes), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(ReplayInstances(ops, sequence, 0), (std::vector<int>{1, 1, 1}));
}

TEST(StepReplayTest, BadStepsAreErrors) {
  Step step = LowerForReplay("mnist_mlp", 8);
  EXPECT_EQ(ReplayCpuStep(step.ops, {}, kThreeSteps).status().message(),
            "the step has no ops to replay");
  const int n = static_cast<int>(step.ops.size());
  EXPECT_EQ(ReplayCpuStep(step.ops, {0, n}, kThreeSteps).status().message(),
            "op index " + std::to_string(n) + " outside the step's " + std::to_string(n) + " ops");
  MeasureOptions no_threads = kThreeSteps;
  no_threads.threads = 0;
  EXPECT_EQ(ReplayCpuStep(step.ops, step.sequence, no_threads).status().message(),
            "threads must be positive, got 0");
  EXPECT_EQ(ReplayCpuStep(step.ops, step.sequence, kThreeSteps, {true}).status().message(),
            "serial flags for 1 ops, the step has " + std::to_string(n) + " ops");
  std::vector<OpSignature> tf32 = {*OpSignature::Parse("eltwise_fwd dt=tf32 alg=relu n=64")};
  EXPECT_EQ(ReplayCpuStep(tf32, {0}, kThreeSteps).status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace epochcost::profiler
