// The profiler: order statistics against hand-computed values, and a run of every op kind the
// CPU backend supports on small shapes (no timing is asserted).
#include <gtest/gtest.h>

#include <set>

#include "engine/lowering.h"
#include "engine/zoo.h"
#include "profiler/cpu/onednn_backend.h"
#include "profiler/timer.h"

namespace epochcost::profiler {
namespace {

TEST(TimerTest, PercentilesInterpolateLikeNumpy) {
  // numpy.percentile([1..10], [10, 50, 90]) = 1.9, 5.5, 9.1
  Measurement m = Summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(m.median.seconds(), 5.5);
  EXPECT_NEAR(m.p10.seconds(), 1.9, 1e-12);
  EXPECT_NEAR(m.p90.seconds(), 9.1, 1e-12);
  EXPECT_EQ(m.count, 10);
  EXPECT_DOUBLE_EQ(Summarize({0.25}).p90.seconds(), 0.25);
}

TEST(TimerTest, RepeatsUntilCountAndTime) {
  int runs = 0;
  Measurement m = TimeRuns([&] { ++runs; },
                           {.warmup = 3, .min_repeats = 7, .min_time = Seconds::FromSeconds(0)});
  EXPECT_EQ(m.count, 7);
  EXPECT_EQ(runs, 10);
}

TEST(CpuBackendTest, RunsEveryOpOfSmallTrainingSteps) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  const MeasureOptions quick{
      .threads = 1, .warmup = 1, .min_repeats = 1, .min_time = Seconds::FromSeconds(0)};
  std::set<OpKind> kinds;
  for (const char* name : {"mnist_cnn", "text_generator_keras", "imdb_bidirectional_lstm"}) {
    Result<Model> m = LoadZooModel(name);
    Result<StepOps> ops = Lower(*m, {.batch = 2, .optimizer = Optimizer::kAdam});
    ASSERT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops) {
      Result<Measurement> t = cpu->Measure(op.signature, quick);
      ASSERT_TRUE(t.ok()) << t.status().message();
      EXPECT_GT(t->median.seconds(), 0);
      kinds.insert(op.signature.kind);
    }
  }
  EXPECT_GE(kinds.size(), 20u);
}

TEST(CpuBackendTest, BadThreadsAndUnsupportedTypes) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  OpSignature sig = *OpSignature::Parse("optimizer dt=bf16 alg=adam n=10");
  EXPECT_EQ(cpu->Measure(sig, {.threads = 0}).status().message(),
            "threads must be positive, got 0");
  EXPECT_EQ(cpu->Measure(sig, {}).status().message(),
            "optimizer dt=bf16 alg=adam n=10: the project's own kernels run in f32 only");
}

}  // namespace
}  // namespace epochcost::profiler
