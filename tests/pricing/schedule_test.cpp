// Recurring jobs: durations, cron expressions and the monthly cost, against the published
// late-2018 example (a 2-minute task on a preemptible n1-standard-1).
#include "pricing/schedule.h"

#include <gtest/gtest.h>

namespace epochcost::pricing {
namespace {

TEST(ScheduleTest, Durations) {
  EXPECT_DOUBLE_EQ(ParseDuration("90s", "x")->seconds(), 90);
  EXPECT_DOUBLE_EQ(ParseDuration("2m", "x")->seconds(), 120);
  EXPECT_DOUBLE_EQ(ParseDuration("1h30m", "x")->seconds(), 5400);
  EXPECT_DOUBLE_EQ(ParseDuration("1.5d", "x")->seconds(), 129600);
  EXPECT_EQ(ParseDuration("2", "--runtime").status().message(),
            "--runtime '2': expected a number and a unit, as 90s, 2m, 4h, 1d");
  EXPECT_EQ(ParseDuration("2w", "--every").status().message(),
            "--every '2w': unknown unit 'w' (s, m, h or d)");
  EXPECT_FALSE(ParseDuration("0s", "x").ok());
  EXPECT_FALSE(ParseDuration("-3m", "x").ok());
  // strtod reads these as numbers; they were taken, and priced a run at nan s (regression).
  EXPECT_EQ(ParseDuration("nans", "--runtime").status().message(),
            "--runtime 'nans': not a number of seconds");
  EXPECT_FALSE(ParseDuration("infm", "x").ok());
  EXPECT_DOUBLE_EQ(ParseDuration("366d", "x")->seconds(), 366 * 86400);
  EXPECT_EQ(ParseDuration("366d1s", "--every").status().message(),
            "--every '366d1s': longer than a year (366d)");
  EXPECT_FALSE(ParseDuration("1e300d", "x").ok());
}

// A run longer than this never lets the VM stop: it was checked for --every only (regression).
TEST(ScheduleTest, CronShortestInterval) {
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 */4 * * *")->ShortestInterval().seconds(), 4 * 3600);
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 9,10 * * *")->ShortestInterval().seconds(), 3600);
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 0 * * 1-5")->ShortestInterval().seconds(), 86400);
  // The 31st: Jul 31 to Aug 31 is the shortest gap, 31 days.
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 0 31 * *")->ShortestInterval().seconds(), 31 * 86400);
  // Yearly: the year's start to the next year's.
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 0 1 1 *")->ShortestInterval().seconds(), 365 * 86400);
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 0 29 2 *")->ShortestInterval().seconds(), 0);
}

TEST(ScheduleTest, CronStartsPerMonth) {
  // Every 4 hours: 6 a day, 365 days, over 12 months.
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 */4 * * *")->StartsPerMonth(), 6 * 365 / 12.0);
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("*/15 9-17 * * *")->StartsPerMonth(), 4 * 9 * 365 / 12.0);
  // Weekdays at 02:30: 52 weeks x 5 (the 365th day is a Sunday again).
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("30 2 * * 1-5")->StartsPerMonth(), 260 / 12.0);
  // Both day fields restricted: the 1st of each month or any Sunday (53 Sundays; 2 are 1sts).
  EXPECT_DOUBLE_EQ(CronSchedule::Parse("0 0 1 * 0")->StartsPerMonth(), (12 + 53 - 2) / 12.0);
  EXPECT_TRUE(CronSchedule::Parse("0 0 * * 7")->Matches(0, 0, 5, 3, 0));  // 7 is Sunday
  EXPECT_EQ(CronSchedule::Parse("0 */4 * *").status().message(),
            "cron '0 */4 * *': expected 5 fields (minute hour day-of-month month day-of-week), "
            "got 4");
  EXPECT_EQ(CronSchedule::Parse("61 * * * *").status().message(),
            "cron '61 * * * *': minute field '61': outside 0-59");
  EXPECT_FALSE(CronSchedule::Parse("0 */0 * * *").ok());
  EXPECT_FALSE(CronSchedule::Parse("0 x * * *").ok());
  EXPECT_FALSE(CronSchedule::Parse("0 5-2 * * *").ok());
}

ScheduleRequest Published(double runs) {
  ScheduleRequest r;
  r.starts_per_month = runs;
  r.runtime = Seconds::FromSeconds(120);
  r.price = UsdPerHour::FromDollarsPerHour(0.01);  // preemptible n1-standard-1, Nov 2018
  r.billing = *RuleFor("gcp", "2018-11-15");
  r.fees = *FeesFor("gcp", "2018-11-15");
  return r;
}

// The published effect: about $0.76 a month every 4 hours (VM $0.06, disk $0.40, scheduler
// $0.20, functions $0.10) and about $1.24 every hour. epochcost's month is 730 hours, the post's
// 30 days, hence the cent.
TEST(ScheduleTest, PublishedScheduledTask) {
  Result<ScheduleCost> every4 = MonthlyScheduleCost(Published(730 / 4.0));
  ASSERT_TRUE(every4.ok()) << every4.status().message();
  EXPECT_DOUBLE_EQ(every4->billed_per_run.seconds(), 120);
  EXPECT_NEAR(every4->vm.dollars(), 182.5 * 120 * 0.01 / 3600, 1e-12);  // $0.061
  EXPECT_NEAR(every4->disk.dollars(), 0.40, 1e-12);
  EXPECT_NEAR(every4->scheduler.dollars(), 0.20, 1e-12);
  EXPECT_NEAR(every4->functions.dollars(), 182.5 * 2 * 60 * 4.63e-6, 1e-12);  // $0.101
  EXPECT_NEAR(every4->total().dollars(), 0.76, 0.01);
  Result<ScheduleCost> hourly = MonthlyScheduleCost(Published(730));
  ASSERT_TRUE(hourly.ok());
  EXPECT_NEAR(hourly->total().dollars(), 1.24, 0.015);
  EXPECT_NEAR(hourly->always_on.dollars(), 7.30 + 0.40, 1e-9);
}

TEST(ScheduleTest, BillingMinimumAndOverlap) {
  ScheduleRequest r = Published(100);
  r.runtime = Seconds::FromSeconds(20);  // billed the 60-second minimum
  EXPECT_DOUBLE_EQ(MonthlyScheduleCost(r)->billed_per_run.seconds(), 60);
  r.billing = *RuleFor("gcp", "2017-01-01");  // before per-second billing: 10-minute minimum
  EXPECT_DOUBLE_EQ(MonthlyScheduleCost(r)->billed_per_run.seconds(), 600);
  r.interval = Seconds::FromSeconds(60);
  r.runtime = Seconds::FromSeconds(90);
  EXPECT_FALSE(MonthlyScheduleCost(r).ok());
  EXPECT_EQ(FeesFor("aws", "").status().message(), "data/fees has no disk_standard fee for aws");
  EXPECT_FALSE(FeesFor("gcp", "2017-01-01").ok());
}

}  // namespace
}  // namespace epochcost::pricing
