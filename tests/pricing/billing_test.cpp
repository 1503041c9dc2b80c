// Billing rules against hand-computed bills.
#include "pricing/billing.h"

#include <gtest/gtest.h>

namespace epochcost::pricing {
namespace {

double Billed(const char* provider, const char* date, double seconds) {
  Result<BillingRule> rule = RuleFor(provider, date);
  EXPECT_TRUE(rule.ok()) << rule.status().message();
  return BilledSeconds(Seconds::FromSeconds(seconds), *rule).seconds();
}

TEST(BillingTest, AwsHourlyBeforeOctober2017) {
  EXPECT_DOUBLE_EQ(Billed("aws", "2016-11-01", 428), 3600);   // p2.xlarge epoch: a full hour
  EXPECT_DOUBLE_EQ(Billed("aws", "2016-11-01", 3779), 7200);  // g2.2xlarge epoch: two hours
  EXPECT_DOUBLE_EQ(Billed("aws", "2017-10-01", 3600), 3600);
}

TEST(BillingTest, AwsPerSecondWithMinuteMinimumFromOctober2017) {
  EXPECT_DOUBLE_EQ(Billed("aws", "2017-10-02", 428), 428);
  EXPECT_DOUBLE_EQ(Billed("aws", "2017-10-02", 12.3), 60);
  EXPECT_DOUBLE_EQ(Billed("aws", "2025-01-01", 61.2), 62);
}

TEST(BillingTest, GcePerMinuteThenPerSecond) {
  EXPECT_DOUBLE_EQ(Billed("gcp", "2017-07-01", 125), 600);  // 10-minute minimum
  EXPECT_DOUBLE_EQ(Billed("gcp", "2017-07-01", 601), 660);  // whole minutes
  EXPECT_DOUBLE_EQ(Billed("gcp", "2017-09-26", 125), 125);
  EXPECT_DOUBLE_EQ(Billed("gcp", "2018-11-01", 30), 60);
}

TEST(BillingTest, CostOfKroutikovsEpochs) {
  // c4.8xlarge, 1404 s at $1.675/h, billed hourly in Nov 2016: 1 h = $1.675 (the post's 65 cents
  // prorates instead).
  Result<BillingRule> hourly = RuleFor("aws", "2016-11-01");
  EXPECT_DOUBLE_EQ(
      BilledCost(Seconds::FromSeconds(1404), UsdPerHour::FromDollarsPerHour(1.675), *hourly)
          .dollars(),
      1.675);
  Result<BillingRule> per_second = RuleFor("aws", "2018-01-01");
  EXPECT_NEAR(
      BilledCost(Seconds::FromSeconds(1404), UsdPerHour::FromDollarsPerHour(1.675), *per_second)
          .dollars(),
      0.65325, 1e-12);
}

TEST(BillingTest, UnknownProviderOrDate) {
  EXPECT_EQ(RuleFor("oracle", "2020-01-01").status().message(),
            "no billing rule for provider 'oracle'");
  EXPECT_EQ(RuleFor("gcp", "2000-01-01").status().message(),
            "no billing rule for gcp on 2000-01-01");
  EXPECT_DOUBLE_EQ(Billed("gcp", "2020-01-01", 0), 0);
}

}  // namespace
}  // namespace epochcost::pricing
