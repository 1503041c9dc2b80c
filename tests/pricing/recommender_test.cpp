// Preemption cost, Pareto front and ranking.
#include <gtest/gtest.h>

#include <cmath>

#include "pricing/recommender.h"

namespace epochcost::pricing {
namespace {

TEST(PreemptionTest, BandsAndLifetimesToHourlyRates) {
  catalog::Interruption spot;
  spot.frequency_band = "5-10%";
  EXPECT_NEAR(*InterruptionsPerHour(spot), -std::log(1 - 0.075) / 730, 1e-15);
  catalog::Interruption gce;
  gce.max_lifetime_hours = 24;
  EXPECT_DOUBLE_EQ(*InterruptionsPerHour(gce), 1.0 / 24);
  spot.frequency_band = "often";
  EXPECT_FALSE(InterruptionsPerHour(spot).ok());
}

TEST(PreemptionTest, YoungDalyIntervalAndOverhead) {
  // 1 GB checkpoint at 200 MB/s = 5 s; 1 interruption per hour: tau = sqrt(2*5*3600) = 189.7 s.
  const PreemptionCost c = ExpectedPreemption(1.0, Bytes::FromBytes(1e9), std::nullopt);
  EXPECT_DOUBLE_EQ(c.checkpoint_write.seconds(), 5);
  EXPECT_NEAR(c.interval.seconds(), std::sqrt(36000.0), 1e-9);
  const double tau = std::sqrt(36000.0);
  EXPECT_NEAR(c.overhead, 5 / tau + (tau / 2 + kRestart.seconds()) / 3600, 1e-12);
  EXPECT_EQ(ExpectedPreemption(0, Bytes::FromBytes(1e9), std::nullopt).overhead, 0);
}

TEST(ParetoTest, OnlyUnbeatenOffersAreMarked) {
  auto offer = [](double hours, double usd) {
    RankedOffer o;
    o.total_time = Seconds::FromHours(hours);
    o.total_usd = Usd::FromDollars(usd);
    return o;
  };
  std::vector<RankedOffer> v = {offer(1, 10), offer(2, 5), offer(2, 6), offer(3, 5),
                                offer(0.5, 20)};
  MarkPareto(&v);
  EXPECT_TRUE(v[0].pareto);
  EXPECT_TRUE(v[1].pareto);
  EXPECT_FALSE(v[2].pareto);  // beaten by (2, 5)
  EXPECT_FALSE(v[3].pareto);  // beaten by (2, 5)
  EXPECT_TRUE(v[4].pareto);
}

}  // namespace
}  // namespace epochcost::pricing
