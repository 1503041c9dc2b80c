// Error statistics, the calibration fit and its cross-validation, and the report's summaries,
// against hand-computed numbers (the run-log readers: run_log_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/zoo.h"
#include "validation/calibration.h"
#include "validation/report.h"
#include "validation/run_log.h"
#include "validation/statistics.h"

namespace epochcost::validation {
namespace {

TEST(StatisticsTest, MapeAndKendallTau) {
  EXPECT_DOUBLE_EQ(PercentError(90, 100), -10);
  EXPECT_DOUBLE_EQ(Mape({90, 120}, {100, 100}), 15);
  // Pairs of (1,2,3,4) and (1,3,2,4): five concordant, one discordant.
  EXPECT_NEAR(KendallTau({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6.0, 1e-12);
  EXPECT_DOUBLE_EQ(KendallTau({1, 2, 3}, {3, 2, 1}), -1);
  EXPECT_DOUBLE_EQ(KendallTau({1, 1, 1}, {1, 2, 3}), 0);
  // tau-b with a tie in b: pairs (1,2) tie in b; concordant 2, discordant 0; untied 3 and 2.
  EXPECT_NEAR(KendallTau({1, 2, 3}, {1, 1, 2}), 2.0 / std::sqrt(6.0), 1e-12);
}

// By hand: for (1, 2, 4) the weights 1 / x are 1, 0.5 and 0.25 (total 1.75); the first value at
// which they reach half, 0.875, is 1, and c = 1 reads (0 + 0.5 + 0.75) / 3 = 41.7% against 50%
// for c = 2 (the plain median). For (90, 110) c = 90: (0 + 18.2%) / 2 = 9.1% against 10.1% for
// the mean, 100.
TEST(StatisticsTest, BestSingleValueIsTheMedianWeightedByOneOverX) {
  EXPECT_DOUBLE_EQ(BestSingleValue({4, 1, 2}), 1);
  EXPECT_NEAR(Mape({1, 1, 1}, {1, 2, 4}), 100 * (0 + 0.5 + 0.75) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(BestSingleValue({110, 90}), 90);
  EXPECT_LT(Mape({90, 90}, {90, 110}), Mape({100, 100}, {90, 110}));
  EXPECT_DOUBLE_EQ(BestSingleValue({5, 5, 5}), 5);
  EXPECT_DOUBLE_EQ(BestSingleValue({}), 0);
}

PredictionTerms Terms(bool overlaps) {
  PredictionTerms t;
  t.train = {{2, Seconds::FromMicroseconds(100), Bytes::FromBytes(4e6)},
             {10, Seconds::FromMicroseconds(5), Bytes::FromBytes(1e5)}};
  t.eval = {{1, Seconds::FromMicroseconds(50), Bytes::FromBytes(2e6)}};
  t.steps = 100;
  t.eval_steps = 10;
  t.extra_per_step = Seconds::FromMicroseconds(20);
  t.overlaps = overlaps;
  t.overhead = Seconds::FromMicroseconds(1);
  t.bandwidth = BytesPerSecond::FromGBps(10);
  return t;
}

TEST(CalibrationTest, EpochTimeByHand) {
  // CPU, scale 2, overhead 10 us: step = 2(200+10) + 10(10+10) + 20 = 640 us; eval = 110 us.
  const Correction c{2, Seconds::FromMicroseconds(10)};
  EXPECT_NEAR(EpochTime(Terms(false), c).seconds(), 100 * 640e-6 + 10 * 110e-6, 1e-12);
  // GPU: step = 2 max(200,10) + 10 max(10,10) + 20 = 520 us; eval = 100 us.
  EXPECT_NEAR(EpochTime(Terms(true), c).seconds(), 100 * 520e-6 + 10 * 100e-6, 1e-12);
  // Uncalibrated CPU: step = 2(101) + 10(6) + 20 = 282 us; eval = 51 us.
  EXPECT_NEAR(Uncalibrated(Terms(false)).seconds(), 100 * 282e-6 + 10 * 51e-6, 1e-12);
  // A per-step overhead of 300 us is added to each training step, not to validation steps.
  const Correction with_step{2, Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(300)};
  EXPECT_NEAR(EpochTime(Terms(false), with_step).seconds(), 100 * 940e-6 + 10 * 110e-6, 1e-12);
  EXPECT_NEAR(EpochTime(Terms(true), with_step).seconds(), 100 * 820e-6 + 10 * 100e-6, 1e-12);
  // 0.25 memory passes at 10 GB/s, 25 ms per GB: 100 us more for each call of the 4 MB op, 2.5 us
  // for the 100 KB one, 50 us for the 2 MB validation op: CPU step 640 + 2(100) + 10(2.5) = 865
  // us, eval 160 us.
  const Correction with_gb{2, Seconds::FromMicroseconds(10), Seconds(), 0.25};
  EXPECT_NEAR(EpochTime(Terms(false), with_gb).seconds(), 100 * 865e-6 + 10 * 160e-6, 1e-12);
}

// Regression: `calibrate` priced every call of a 2-thread run at the 2-thread dispatch in its
// uncalibrated figure, where `predict` and `validate` price a call PyTorch runs on one thread at
// the 1-thread dispatch (the bi-LSTM's 2-thread run read 5% high there, 20% low in validate).
TEST(CalibrationTest, UncalibratedKeepsEachCallsOwnDispatch) {
  PredictionTerms t = Terms(false);
  t.train[1].dispatch = Seconds::FromMicroseconds(0.5);  // the 10 small calls run serially
  // Uncalibrated: step = 2(100+1) + 10(5+0.5) + 20 = 277 us; eval = 51 us.
  EXPECT_NEAR(Uncalibrated(t).seconds(), 100 * 277e-6 + 10 * 51e-6, 1e-12);
  // A calibration's per-op overhead replaces both dispatches: as EpochTimeByHand, 640 us.
  const Correction c{2, Seconds::FromMicroseconds(10)};
  EXPECT_NEAR(EpochTime(t, c).seconds(), 100 * 640e-6 + 10 * 110e-6, 1e-12);
}

// A CPU correction with a per-op overhead for steps on more than one thread prices a threaded
// run's calls with it and a 1-thread run's with the other.
TEST(CalibrationTest, ThreadedRunsTakeTheirOwnPerOpOverhead) {
  Correction c{2, Seconds::FromMicroseconds(10)};
  c.per_op_overhead_threads = Seconds::FromMicroseconds(30);
  // 1 thread: as EpochTimeByHand, 640 us a step, 110 us an eval step.
  EXPECT_NEAR(EpochTime(Terms(false), c).seconds(), 100 * 640e-6 + 10 * 110e-6, 1e-12);
  // More: step = 2(200+30) + 10(10+30) + 20 = 880 us; eval = 100 + 30 = 130 us.
  PredictionTerms threaded = Terms(false);
  threaded.threaded = true;
  EXPECT_NEAR(EpochTime(threaded, c).seconds(), 100 * 880e-6 + 10 * 130e-6, 1e-12);
}

// The fit recovers a per-op overhead for each kind of run where the runs have both.
TEST(CalibrationTest, FitRecoversAPerOpOverheadPerThreadKind) {
  Correction truth{1.5, Seconds::FromMicroseconds(4)};
  truth.per_op_overhead_threads = Seconds::FromMicroseconds(12);
  std::vector<CalibrationSample> samples;
  for (int i = 0; i < 8; ++i) {
    PredictionTerms t = Terms(false);
    t.bandwidth = BytesPerSecond();  // no memory passes
    t.threaded = i % 2 == 1;
    t.train[1].count = 5 + 7 * i;  // calls that vary apart from the kernel seconds
    t.train[0].kernel = Seconds::FromMicroseconds(50 + 30 * (i % 3));
    samples.push_back({t, EpochTime(t, truth).seconds()});
  }
  std::vector<const CalibrationSample*> ptrs;
  for (const CalibrationSample& s : samples) ptrs.push_back(&s);
  Result<Correction> fit = FitCorrection(ptrs);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_NEAR(fit->kernel_scale, 1.5, 1e-6);
  EXPECT_NEAR(fit->per_op_overhead.seconds(), 4e-6, 1e-11);
  ASSERT_TRUE(fit->per_op_overhead_threads.has_value());
  EXPECT_NEAR(fit->per_op_overhead_threads->seconds(), 12e-6, 1e-11);
  // Runs of one kind only: one overhead for all.
  std::vector<const CalibrationSample*> one_kind;
  for (const CalibrationSample& s : samples)
    if (!s.terms.threaded) one_kind.push_back(&s);
  fit = FitCorrection(one_kind);
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->per_op_overhead_threads.has_value());
  EXPECT_NEAR(fit->per_op_overhead.seconds(), 4e-6, 1e-11);
}

// Runs whose measured times are exactly a known correction's predictions.
std::vector<CalibrationSample> Exact(bool overlaps, const Correction& truth) {
  std::vector<CalibrationSample> out;
  for (int i = 0; i < 6; ++i) {
    PredictionTerms t = Terms(overlaps);
    t.train[0].count = 1 + i;            // vary the kernel share
    t.train[1].count = 5 + 7 * (i % 3);  // and the op count
    // and the bytes apart from both
    t.train[1].bytes = Bytes::FromBytes(1e5 * static_cast<double>(1 + (i * 5) % 6));
    out.push_back({t, EpochTime(t, truth).seconds()});
  }
  return out;
}

std::vector<const CalibrationSample*> Pointers(const std::vector<CalibrationSample>& samples) {
  std::vector<const CalibrationSample*> out;
  for (const auto& s : samples) out.push_back(&s);
  return out;
}

TEST(CalibrationTest, LinearFitRecoversTheCorrection) {
  const Correction truth{1.7, Seconds::FromMicroseconds(12)};
  std::vector<CalibrationSample> samples = Exact(false, truth);
  const std::vector<const CalibrationSample*> ptrs = Pointers(samples);
  Result<Correction> c = FitCorrection(ptrs);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->kernel_scale, 1.7, 1e-9);
  EXPECT_NEAR(c->per_op_overhead.seconds(), 12e-6, 1e-12);
  Result<CrossValidation> cv = CrossValidate(ptrs, 3);
  ASSERT_TRUE(cv.ok());
  EXPECT_EQ(cv->folds, 3);
  EXPECT_LT(cv->mape_after, 1e-6);
  EXPECT_GT(cv->mape_before, 10);
}

TEST(CalibrationTest, GridFitWithOverlapComesClose) {
  const Correction truth{0.8, Seconds::FromMicroseconds(30)};
  std::vector<CalibrationSample> samples = Exact(true, truth);
  const std::vector<const CalibrationSample*> ptrs = Pointers(samples);
  Result<Correction> c = FitCorrection(ptrs);
  ASSERT_TRUE(c.ok());
  for (const auto* s : ptrs)
    EXPECT_NEAR(EpochTime(s->terms, *c).seconds() / s->measured_seconds, 1, 1e-3);
}

// Runs that need all three parameters: the inner cross-validation keeps the per-step overhead and
// the fit recovers it exactly.
TEST(CalibrationTest, LinearFitRecoversAPerStepOverhead) {
  const Correction truth{1.7, Seconds::FromMicroseconds(12), Seconds::FromMicroseconds(400)};
  std::vector<CalibrationSample> samples = Exact(false, truth);
  const std::vector<const CalibrationSample*> ptrs = Pointers(samples);
  Result<Correction> c = FitCorrection(ptrs);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->kernel_scale, 1.7, 1e-9);
  EXPECT_NEAR(c->per_op_overhead.seconds(), 12e-6, 1e-12);
  EXPECT_NEAR(c->per_step_overhead.seconds(), 400e-6, 1e-12);
}

// Runs that need memory passes (no per-step overhead): the inner cross-validation keeps them and
// the fit recovers them exactly.
TEST(CalibrationTest, LinearFitRecoversMemoryPasses) {
  const Correction truth{1.2, Seconds::FromMicroseconds(6), Seconds(), 0.3};
  std::vector<CalibrationSample> samples = Exact(false, truth);
  const std::vector<const CalibrationSample*> ptrs = Pointers(samples);
  Result<Correction> c = FitCorrection(ptrs);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->kernel_scale, 1.2, 1e-9);
  EXPECT_NEAR(c->per_op_overhead.seconds(), 6e-6, 1e-12);
  EXPECT_NEAR(c->per_step_overhead.seconds(), 0, 1e-12);
  EXPECT_NEAR(c->memory_passes, 0.3, 1e-7);
}

TEST(CalibrationTest, GridFitSolvesThePerStepOverhead) {
  const Correction truth{0.8, Seconds::FromMicroseconds(30), Seconds::FromMicroseconds(250)};
  std::vector<CalibrationSample> samples = Exact(true, truth);
  const std::vector<const CalibrationSample*> ptrs = Pointers(samples);
  Result<Correction> c = FitCorrection(ptrs);
  ASSERT_TRUE(c.ok());
  EXPECT_GT(c->per_step_overhead.seconds(), 0);
  for (const auto* s : ptrs)
    EXPECT_NEAR(EpochTime(s->terms, *c).seconds() / s->measured_seconds, 1, 1e-3);
}

// On a GPU an op costs max(kernel, overhead), so a kernel scale below 1 can stand in for a run
// the kernels over-predict. Five kernel-bound runs (100 ops of 1 ms, measured as predicted),
// five host-bound ones (100 ops of 1 us, measured at 30 us an op) and one run measured 3x faster
// than its kernels: fitted free, the scale goes well below 1 and costs the kernel-bound runs;
// the inner cross-validation keeps it at 1, and the overhead fits the host-bound runs.
TEST(CalibrationTest, GridFitKeepsTheKernelScaleWhereFreeItPredictsWorse) {
  std::vector<CalibrationSample> samples;
  auto run = [&](Seconds kernel, double measured_seconds) {
    PredictionTerms t;
    t.train = {{100, kernel}};
    t.steps = 100;
    t.overlaps = true;
    t.overhead = Seconds::FromMicroseconds(4);
    samples.push_back({t, measured_seconds});
  };
  for (int i = 0; i < 5; ++i) {
    run(Seconds::FromMilliseconds(1), 10.0);
    run(Seconds::FromMicroseconds(1), 0.3);
  }
  run(Seconds::FromMilliseconds(1), 10.0 / 3);
  Result<Correction> c = FitCorrection(Pointers(samples));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kernel_scale, 1);
  EXPECT_NEAR(c->per_op_overhead.seconds(), 30e-6, 1e-6);
}

// With three runs there is no inner fold to judge a third parameter by: two are fitted.
TEST(CalibrationTest, ThreeRunsFitNoPerStepOverhead) {
  const Correction truth{1.7, Seconds::FromMicroseconds(12), Seconds::FromMicroseconds(400)};
  std::vector<CalibrationSample> samples = Exact(false, truth);
  std::vector<const CalibrationSample*> three = {&samples[0], &samples[1], &samples[2]};
  Result<Correction> c = FitCorrection(three);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->per_step_overhead.seconds(), 0);
}

// Folds by group: each sample predicted by the fit on the other groups; one group is an error.
TEST(CalibrationTest, GroupFoldsHoldOutWholeGroups) {
  const Correction truth{1.7, Seconds::FromMicroseconds(12)};
  std::vector<CalibrationSample> samples = Exact(false, truth);
  const std::vector<const CalibrationSample*> ptrs = Pointers(samples);
  Result<CrossValidation> cv = CrossValidateFolds(ptrs, {0, 0, 1, 1, 2, 2});
  ASSERT_TRUE(cv.ok()) << cv.status().message();
  EXPECT_EQ(cv->folds, 3);
  EXPECT_LT(cv->mape_after, 1e-6);  // exact runs: any four of them give the truth
  EXPECT_EQ(CrossValidateFolds(ptrs, {0, 0, 0, 0, 0, 0}).status().message(),
            "a cross-validation needs at least 2 folds");
  EXPECT_FALSE(CrossValidateFolds(ptrs, {0, 1}).ok());
}

TEST(CalibrationTest, TooFewRunsOrMixedKindsAreErrors) {
  std::vector<CalibrationSample> samples = Exact(false, {});
  std::vector<const CalibrationSample*> two = {&samples[0], &samples[1]};
  EXPECT_EQ(FitCorrection(two).status().message(), "a calibration needs at least 3 runs, got 2");
  samples[2].terms.overlaps = true;
  std::vector<const CalibrationSample*> mixed = {&samples[0], &samples[1], &samples[2]};
  EXPECT_FALSE(FitCorrection(mixed).ok());
  EXPECT_FALSE(CrossValidate(two, 1).ok());
}

RunResult MakeResult(const std::string& label, double predicted, double measured, double usd) {
  RunResult r;
  r.run.model = "m";
  r.run.framework = "f";
  r.run.label = label;
  r.family = "dense";
  r.device_kind = "cpu";
  r.path = "same device";
  r.predicted_seconds = predicted;
  r.measured_seconds = measured;
  r.error_percent = PercentError(predicted, measured);
  r.predicted_usd = predicted * usd;
  r.measured_usd = measured * usd;
  return r;
}

TEST(ReportTest, SummariesAndCheapestConfiguration) {
  // Costs: a predicted 10 measured 20; b predicted 12 measured 15; c predicted 30 measured 60.
  ValidationReport r = Summarise(
      {MakeResult("a", 10, 20, 1), MakeResult("b", 12, 15, 1), MakeResult("c", 15, 30, 2)});
  EXPECT_NEAR(r.all.mape, (50 + 20 + 50) / 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.all.worst, -50);
  ASSERT_EQ(r.rankings.size(), 1u);
  const Ranking& k = r.rankings[0];
  EXPECT_EQ(k.predicted_cheapest, "a");
  EXPECT_EQ(k.measured_cheapest, "b");
  EXPECT_FALSE(k.hit);
  EXPECT_NEAR(k.miss_percent, 100.0 * (20 - 15) / 15, 1e-9);
  // Predicted (10, 12, 30) and measured (20, 15, 60): pairs ab discordant, ac and bc concordant.
  EXPECT_NEAR(k.tau, 1.0 / 3.0, 1e-12);
}

// Runs without prices are ranked by seconds per epoch, per model, build and precision; they make
// no cost ranking. Regression: the Lambda fp16 runs, where lending bf16 efficiencies on one GPU
// model only put the wrong GPU first without any test noticing (docs/accuracy.md).
TEST(ReportTest, UnpricedRunsAreRankedByTimePerPrecision) {
  auto unpriced = [](const std::string& label, double predicted, double measured,
                     const std::string& precision) {
    RunResult r = MakeResult(label, predicted, measured, 1);
    r.predicted_usd.reset();
    r.measured_usd.reset();
    r.run.precision = precision;
    return r;
  };
  ValidationReport r =
      Summarise({unpriced("h100", 559, 490, "fp16"), unpriced("a100", 529, 810, "fp16"),
                 unpriced("v100", 1237, 1538, "fp16"), unpriced("v100", 4024, 3472, "fp32")});
  EXPECT_TRUE(r.rankings.empty());
  ASSERT_EQ(r.time_rankings.size(), 1u);  // fp32 has one run
  const Ranking& k = r.time_rankings[0];
  EXPECT_EQ(k.group, "m (f) fp16");
  EXPECT_EQ(k.configs, 3);
  EXPECT_EQ(k.predicted_cheapest, "a100");
  EXPECT_EQ(k.measured_cheapest, "h100");
  EXPECT_FALSE(k.hit);
  EXPECT_NEAR(k.miss_percent, 100.0 * (810 - 490) / 490, 1e-9);
  // Predicted (559, 529, 1237), measured (490, 810, 1538): h100-a100 discordant, the rest
  // concordant.
  EXPECT_NEAR(k.tau, 1.0 / 3.0, 1e-12);
}

// A multi-threaded run that measured its parallel passes is near (both below the threshold), far
// (both at or above it) or mixed; a 1-thread run or one without both figures has no placement.
// by_placement keeps the order near, mixed, far and leaves out what has none.
TEST(ReportTest, PlacementByTheParallelPassBeforeAndAfter) {
  auto run = [](int threads, std::optional<double> before, std::optional<double> after,
                double predicted, double measured) {
    RunResult r = MakeResult("vm", predicted, measured, 1);
    r.run.threads = threads;
    r.run.parallel_pass_us_before = before;
    r.run.parallel_pass_us_after = after;
    return r;
  };
  EXPECT_EQ(PlacementOf(run(2, 1.9, 1.99, 1, 1).run, 2.0), "near");
  EXPECT_EQ(PlacementOf(run(2, 2.0, 3.3, 1, 1).run, 2.0), "far");
  EXPECT_EQ(PlacementOf(run(2, 1.1, 3.3, 1, 1).run, 2.0), "mixed");
  EXPECT_EQ(PlacementOf(run(2, 3.3, 1.1, 1, 1).run, 2.0), "mixed");
  EXPECT_EQ(PlacementOf(run(2, 3.3, 1.1, 1, 1).run, 4.0), "near");
  EXPECT_EQ(PlacementOf(run(1, 3.3, 3.3, 1, 1).run, 2.0), "");
  EXPECT_EQ(PlacementOf(run(2, std::nullopt, std::nullopt, 1, 1).run, 2.0), "");
  ValidationReport r = Summarise({run(2, 3.0, 3.1, 50, 100), run(2, 1.0, 1.2, 90, 100),
                                  run(1, 0, 0, 100, 100), run(2, 2.5, 1.0, 110, 100),
                                  run(2, 2.6, 2.7, 75, 100)});
  ASSERT_EQ(r.by_placement.size(), 3u);
  EXPECT_EQ(r.by_placement[0].name, "near");
  EXPECT_EQ(r.by_placement[0].runs, 1);
  EXPECT_NEAR(r.by_placement[0].mape, 10, 1e-9);
  EXPECT_EQ(r.by_placement[1].name, "mixed");
  EXPECT_NEAR(r.by_placement[1].mean_error, 10, 1e-9);
  EXPECT_EQ(r.by_placement[2].name, "far");
  EXPECT_EQ(r.by_placement[2].runs, 2);
  EXPECT_NEAR(r.by_placement[2].mape, (50 + 25) / 2.0, 1e-9);
  EXPECT_NEAR(r.by_placement[2].mean_error, -(50 + 25) / 2.0, 1e-9);
  EXPECT_TRUE(Summarise({run(1, 3.0, 3.0, 50, 100)}).by_placement.empty());
}

// Runs of one configuration measured more than once bound what any prediction can reach on them;
// a configuration run once, or a run on another machine, does not count.
TEST(ReportTest, RepeatedRunsOfAConfigurationGiveTheFloor) {
  auto run = [](const std::string& target, int threads, double predicted, double measured) {
    RunResult r = MakeResult(target, predicted, measured, 1);
    r.run.target = target;
    r.run.threads = threads;
    return r;
  };
  ValidationReport r = Summarise({run("a", 1, 100, 90), run("a", 1, 100, 110), run("a", 2, 50, 60),
                                  run("b", 1, 10, 10), run("a", 1, 100, 100)});
  ASSERT_TRUE(r.repeated.has_value());
  EXPECT_EQ(r.repeated->configs, 1);
  EXPECT_EQ(r.repeated->runs, 3);
  EXPECT_EQ(r.repeated->fewest, 3);
  EXPECT_EQ(r.repeated->most, 3);
  // (90, 110, 100): weights 1/90, 1/110, 1/100 (total 0.03020), half reached at 90 (0.01111 of
  // it) only with 100 (0.02111): c = 100, reading (10/90 + 10/110 + 0) / 3.
  EXPECT_NEAR(r.repeated->floor_mape, 100 * (10.0 / 90 + 10.0 / 110) / 3, 1e-9);
  EXPECT_NEAR(r.repeated->mape, 100 * (10.0 / 90 + 10.0 / 110) / 3, 1e-9);
  EXPECT_FALSE(Summarise({run("a", 1, 100, 90), run("b", 1, 100, 110)}).repeated.has_value());
}

// Each repeated configuration gets its own spread, floor, MAPE and mean signed error, in the
// order its first run came, so that a report shows which of them the predictions miss.
TEST(ReportTest, EachRepeatedConfigurationHasItsOwnFloor) {
  auto run = [](int threads, double predicted, double measured) {
    RunResult r = MakeResult("vm", predicted, measured, 1);
    r.run.target = "vm";
    r.run.threads = threads;
    return r;
  };
  ValidationReport r = Summarise(
      {run(2, 50, 60), run(1, 100, 90), run(1, 100, 110), run(2, 50, 40), run(1, 100, 100)});
  ASSERT_TRUE(r.repeated.has_value());
  ASSERT_EQ(r.repeated->by_config.size(), 2u);
  // 2 threads, measured (60, 40), predicted 50: weights 1/60 and 1/40, 40 alone holds more than
  // half, so c = 40 and the floor reads (|40/60 - 1| + 0) / 2.
  const RepeatedConfig& two = r.repeated->by_config[0];
  EXPECT_EQ(two.run.threads, 2);
  EXPECT_EQ(two.runs, 2);
  EXPECT_DOUBLE_EQ(two.slowest_over_fastest, 1.5);
  EXPECT_NEAR(two.floor_mape, 100 * (20.0 / 60) / 2, 1e-9);
  EXPECT_NEAR(two.mape, 100 * (10.0 / 60 + 10.0 / 40) / 2, 1e-9);
  EXPECT_NEAR(two.mean_error_percent, 100 * (-10.0 / 60 + 10.0 / 40) / 2, 1e-9);
  // 1 thread, measured (90, 110, 100), predicted 100: c = 100, the floor and the MAPE alike.
  const RepeatedConfig& one = r.repeated->by_config[1];
  EXPECT_EQ(one.run.threads, 1);
  EXPECT_EQ(one.runs, 3);
  EXPECT_DOUBLE_EQ(one.slowest_over_fastest, 110.0 / 90);
  EXPECT_NEAR(one.floor_mape, 100 * (10.0 / 90 + 10.0 / 110) / 3, 1e-9);
  EXPECT_NEAR(one.mape, one.floor_mape, 1e-9);
  EXPECT_NEAR(one.mean_error_percent, 100 * (10.0 / 90 - 10.0 / 110) / 3, 1e-9);
  // The whole: the five runs at their configurations' values.
  EXPECT_NEAR(r.repeated->floor_mape, 100 * (20.0 / 60 + 10.0 / 90 + 10.0 / 110) / 5, 1e-9);
}

// Runs are also summed up by the log they were read from (the origin without its line), with
// their mean signed error: logs of one machine taken at different times show how fast it ran.
TEST(ReportTest, RunsAreSummedUpByTheirLog) {
  auto from = [](const std::string& origin, double predicted, double measured) {
    RunResult r = MakeResult("vm", predicted, measured, 1);
    r.run.origin = origin;
    return r;
  };
  ValidationReport r = Summarise({from("@slow-hour:2", 80, 100), from("runs/a:b.csv:3", 110, 100),
                                  from("@slow-hour:3", 90, 100), from("runs/a:b.csv:2", 100, 100)});
  ASSERT_EQ(r.by_log.size(), 2u);
  EXPECT_EQ(r.by_log[0].name, "@slow-hour");
  EXPECT_EQ(r.by_log[0].runs, 2);
  EXPECT_NEAR(r.by_log[0].mape, 15, 1e-9);
  EXPECT_NEAR(r.by_log[0].mean_error, -15, 1e-9);
  EXPECT_NEAR(r.by_log[0].worst, -20, 1e-9);
  // A colon in the file's name stays in the log's name: only the last one precedes the line.
  EXPECT_EQ(r.by_log[1].name, "runs/a:b.csv");
  EXPECT_NEAR(r.by_log[1].mape, 5, 1e-9);
  EXPECT_NEAR(r.by_log[1].mean_error, 5, 1e-9);
  EXPECT_EQ(r.by_log[1].within_10, 2);
  EXPECT_NEAR(r.all.mean_error, -5, 1e-9);
}

// A configuration measured in several logs of one machine is ranked once, at the median of its
// runs. Regression: ranked run by run, the twelve Intel VM logs' 1-thread mnist_mlp was the
// predicted and the measured fastest configuration, and `validate` said "no, +30%": the run it
// predicted fastest, from one log, was slower than the same configuration's run in another.
TEST(ReportTest, RepeatedRunsAreRankedOnceAtTheirMedian) {
  auto unpriced = [](int threads, double predicted, double measured) {
    RunResult r = MakeResult("vm", predicted, measured, 1);
    r.predicted_usd.reset();
    r.measured_usd.reset();
    r.run.target = "device:vm";
    r.run.threads = threads;
    return r;
  };
  // 1 thread: 100, 104, 90 (median 100); 2 threads: 120, 95, 125 (median 120).
  ValidationReport r =
      Summarise({unpriced(1, 95, 100), unpriced(2, 110, 120), unpriced(1, 95, 104),
                 unpriced(2, 110, 95), unpriced(1, 95, 90), unpriced(2, 110, 125)});
  ASSERT_EQ(r.time_rankings.size(), 1u);
  const Ranking& k = r.time_rankings[0];
  EXPECT_EQ(k.configs, 2);
  EXPECT_EQ(k.predicted_cheapest, "vm, 1 thread");
  EXPECT_EQ(k.measured_cheapest, "vm, 1 thread");
  EXPECT_TRUE(k.hit);
  EXPECT_DOUBLE_EQ(k.miss_percent, 0);
  EXPECT_DOUBLE_EQ(k.tau, 1);
}

TEST(StatisticsTest, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({}), 0);
}

TEST(ReportTest, ModelFamilies) {
  const std::pair<const char*, const char*> cases[] = {{"mnist_mlp", "dense"},
                                                       {"mnist_cnn", "convolutional"},
                                                       {"imdb_fasttext", "embedding"},
                                                       {"imdb_bidirectional_lstm", "recurrent"},
                                                       {"bert_base", "transformer"}};
  for (const auto& [name, family] : cases) {
    Result<Model> m = LoadZooModel(name, {});
    ASSERT_TRUE(m.ok()) << name;
    EXPECT_EQ(ModelFamily(*m), family) << name;
  }
}

}  // namespace
}  // namespace epochcost::validation
