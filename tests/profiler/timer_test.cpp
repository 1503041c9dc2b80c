// The profiler's timer: order statistics, the repeat rule, and what runs untimed before a run.
#include "profiler/timer.h"

#include <gtest/gtest.h>

#include <string>

namespace epochcost::profiler {
namespace {

TEST(TimerTest, PercentilesInterpolateLikeNumpy) {
  // numpy.percentile([1..10], [10, 50, 90]) = 1.9, 5.5, 9.1
  Measurement m = Summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(m.median.seconds(), 5.5);
  EXPECT_NEAR(m.p10.seconds(), 1.9, 1e-12);
  EXPECT_NEAR(m.p90.seconds(), 9.1, 1e-12);
  EXPECT_EQ(m.count, 10);
  EXPECT_DOUBLE_EQ(m.mean.seconds(), 5.5);
  EXPECT_DOUBLE_EQ(Summarize({0.25}).p90.seconds(), 0.25);
  // Bimodal runs (one in five stalls): the median hides the slow mode, the mean carries it.
  Measurement stalls = Summarize({1, 1, 1, 1, 5, 1, 1, 1, 1, 5});
  EXPECT_DOUBLE_EQ(stalls.median.seconds(), 1);
  EXPECT_DOUBLE_EQ(stalls.mean.seconds(), 1.8);
}

TEST(TimerTest, TheMiddleHalfLiesBetweenTheQuartiles) {
  // Eight steps, two of a slow mode and one fast outlier: sorted 0.5 1 1 1.1 1.2 1.3 6 7; the
  // quartiles' ranks 0.25 x 7 = 1.75 and 0.75 x 7 = 5.25 round outwards to 1 and 6, so 1 to 6
  // is in: the fast outlier and the slowest step are out.
  const std::vector<bool> in = InMiddleHalf({1.2, 7, 1, 0.5, 1.1, 6, 1, 1.3});
  EXPECT_EQ(in, (std::vector<bool>{true, false, true, false, true, true, true, true}));
  // Ties at a quartile are all in; up to four steps are all in; none gives none.
  EXPECT_EQ(InMiddleHalf({2, 2, 2, 2, 2, 9}), (std::vector<bool>{1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(InMiddleHalf({3, 1, 9, 2}), (std::vector<bool>{1, 1, 1, 1}));
  EXPECT_EQ(InMiddleHalf({4}), (std::vector<bool>{true}));
  EXPECT_TRUE(InMiddleHalf({}).empty());
}

TEST(TimerTest, RepeatsUntilCountAndTime) {
  int runs = 0;
  Measurement m = TimeRuns([&] { ++runs; },
                           {.warmup = 3, .min_repeats = 7, .min_time = Seconds::FromSeconds(0)});
  EXPECT_EQ(m.count, 7);
  EXPECT_EQ(runs, 10);
}

// By hand: {1,1,1,1,5,1,1,1,1,5} sums to 18, its squares to 58; variance (58 - 18 * 1.8) / 9 =
// 2.8444, standard error sqrt(2.8444 / 10) = 0.5333, 0.2963 of the mean 1.8.
TEST(TimerTest, MeanSettlesWhenItsStandardErrorIsSmallEnough) {
  EXPECT_TRUE(MeanSettled(10, 18, 58, 0.30));
  EXPECT_FALSE(MeanSettled(10, 18, 58, 0.29));
  EXPECT_TRUE(MeanSettled(3, 3, 3, 0.0));   // identical runs: no error at all
  EXPECT_FALSE(MeanSettled(1, 1, 1, 1.0));  // one run says nothing of the spread
  // The same runs four times over: about half the error, 0.1423 of the mean.
  EXPECT_TRUE(MeanSettled(40, 72, 232, 0.15));
  EXPECT_FALSE(MeanSettled(40, 72, 232, 0.14));
}

// With no minimum time there is no time to extend into: the count alone decides, settled or not.
TEST(TimerTest, NoMinimumTimeMeansNoExtension) {
  int runs = 0;
  Measurement m = TimeRuns(
      [&] { ++runs; },
      {.warmup = 0, .min_repeats = 2, .min_time = Seconds::FromSeconds(0), .mean_within = 0.0});
  EXPECT_EQ(m.count, 2);
}

TEST(TimerTest, BeforeRunsUntimedAheadOfEveryRun) {
  std::string order;
  Measurement m = TimeRuns([&] { order += 'r'; },
                           {.warmup = 2, .min_repeats = 3, .min_time = Seconds::FromSeconds(0)},
                           [&] { order += 'b'; });
  EXPECT_EQ(m.count, 3);
  EXPECT_EQ(order, "brbrbrbrbr");
}

}  // namespace
}  // namespace epochcost::profiler
