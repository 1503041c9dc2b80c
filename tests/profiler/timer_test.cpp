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

TEST(TimerTest, TheHalfNearestTheMedianKeepsItsMode) {
  // Ten steps, four of a slow mode: sorted 1 1 1 1.25 1.25 1.5 5 5 5 5.5, median 1.375. The
  // fifth-nearest lies 0.375 away, so the six fast steps are in (the three 1s tie) and every slow
  // one is out, where the quartiles' ranks 2 and 7 (0.25 x 9 = 2.25 and 0.75 x 9 = 6.75, rounded
  // outwards) would have taken in a 5.
  const std::vector<bool> in = NearestTheMedian({1, 1.25, 1, 5, 1.5, 5, 5.5, 1, 5, 1.25});
  EXPECT_EQ(in, (std::vector<bool>{1, 1, 1, 0, 1, 0, 0, 1, 0, 1}));
  // Odd counts: of five, the median and the two nearest; of one, itself; none gives none.
  EXPECT_EQ(NearestTheMedian({4, 1, 2, 3, 9}), (std::vector<bool>{1, 0, 1, 1, 0}));
  EXPECT_EQ(NearestTheMedian({4}), (std::vector<bool>{true}));
  EXPECT_TRUE(NearestTheMedian({}).empty());
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
