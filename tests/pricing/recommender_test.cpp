// Preemption cost, Pareto front, ranking and the fold of regions.
#include "pricing/recommender.h"

#include <gtest/gtest.h>

#include <cmath>

#include "pricing/regions.h"
#include "pricing/serving.h"

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

TEST(UnknownInterruptionsTest, NeverExcludeOrABand) {
  using Policy = UnknownInterruptions::Policy;
  EXPECT_EQ(ParseUnknownInterruptions("never")->policy, Policy::kNever);
  EXPECT_EQ(ParseUnknownInterruptions("exclude")->policy, Policy::kExclude);
  const Result<UnknownInterruptions> band = ParseUnknownInterruptions(">20%");
  ASSERT_TRUE(band.ok());
  EXPECT_EQ(band->policy, Policy::kAssume);
  EXPECT_EQ(band->band, ">20%");
  for (const char* bad : {"", "30%", "Never", "<5"}) {
    const Result<UnknownInterruptions> r = ParseUnknownInterruptions(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--unknown-interruptions"), std::string::npos);
  }
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

// Offers ranked best first; one row per machine and price kind stays, the first, counting the
// other regions it stands for (a region offered twice, as AWS spot prices by zone, counts once).
TEST(FoldRegionsTest, KeepsTheFirstOfEachMachineAndKindAndCountsOtherRegions) {
  auto offer = [](std::string machine, catalog::PriceKind kind, std::string region) {
    RankedOffer o;
    o.machine = std::move(machine);
    o.offer.kind = kind;
    o.offer.region = std::move(region);
    return o;
  };
  using enum catalog::PriceKind;
  std::vector<RankedOffer> v = {
      offer("azure:T4", kSpot, "eastus2"),   offer("aws:g4dn", kSpot, "us-west-2"),
      offer("azure:T4", kSpot, "westus3"),   offer("azure:T4", kOnDemand, "eastus2"),
      offer("aws:g4dn", kSpot, "us-west-2"), offer("azure:T4", kSpot, "westus3"),
      offer("azure:T4", kSpot, "centralus"), offer("azure:T4", kOnDemand, "westus")};
  FoldRegions(&v);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].machine, "azure:T4");
  EXPECT_EQ(v[0].offer.region, "eastus2");
  EXPECT_EQ(v[0].other_regions, 2);  // westus3 (twice) and centralus
  EXPECT_EQ(v[1].machine, "aws:g4dn");
  EXPECT_EQ(v[1].other_regions, 0);  // us-west-2 again: a zone, not a region
  EXPECT_EQ(v[2].offer.kind, kOnDemand);
  EXPECT_EQ(v[2].other_regions, 1);
}

TEST(FoldRegionsTest, FoldsServingOffersToo) {
  std::vector<ServingOffer> v(3);
  v[0].machine = v[1].machine = "aws:c6a.large";
  v[0].offer.region = "us-east-1";
  v[1].offer.region = "us-west-2";
  v[2].machine = "gcp:n2d-standard-2";
  FoldRegions(&v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].other_regions, 1);
  EXPECT_EQ(v[1].machine, "gcp:n2d-standard-2");
}

}  // namespace
}  // namespace epochcost::pricing
