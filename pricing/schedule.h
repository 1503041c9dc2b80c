// A recurring job on a VM that a scheduler starts, that runs, and that is stopped
// (docs/schedule.md): its monthly cost against keeping the same VM always on. Durations and cron
// expressions are parsed here; the fees a job pays beside the VM come from data/fees (by provider
// and date).
#ifndef EPOCHCOST_PRICING_SCHEDULE_H_
#define EPOCHCOST_PRICING_SCHEDULE_H_

#include <array>
#include <bitset>
#include <optional>
#include <string>
#include <vector>

#include "engine/status.h"
#include "engine/units.h"
#include "pricing/billing.h"

namespace epochcost::pricing {

// The longest duration ParseDuration takes: a year (cron's longest period), leap day included.
inline constexpr Seconds kMaxDuration = Seconds::FromSeconds(366 * 86400.0);

// "90s", "2m", "4h", "1d", "1h30m": a positive, finite duration of at most kMaxDuration. Errors
// name `what`.
Result<Seconds> ParseDuration(const std::string& text, const std::string& what);

// A five-field cron expression (minute hour day-of-month month day-of-week) with *, lists, ranges
// and steps; day names and month names are not accepted. As cron does, when both day fields are
// restricted a day matches if either does.
class CronSchedule {
 public:
  static Result<CronSchedule> Parse(const std::string& text);
  // Whether the job starts at this minute (month 1-12, dow 0 = Sunday).
  bool Matches(int minute, int hour, int day, int month, int dow) const;
  // Starts in an average month: the starts in a non-leap year, over 12.
  double StartsPerMonth() const;
  // The least time from one start to the next (over two non-leap years, the first starting on a
  // Sunday, so that the year's last start is followed by the next year's first); zero for a
  // schedule that starts fewer than twice in them.
  Seconds ShortestInterval() const;

 private:
  bool DayMatches(int day, int month, int dow) const;

  std::bitset<60> minute_;
  std::bitset<24> hour_;
  std::bitset<32> day_;
  std::bitset<13> month_;
  std::bitset<7> dow_;
  bool day_any_ = true, dow_any_ = true;
};

// Hours in the providers' billing month (365 x 24 / 12).
inline constexpr double kHoursPerMonth = 730;

struct ScheduleFees {
  double disk_usd_per_gb_month = 0;
  double disk_minimum_gb = 0;
  double scheduler_usd_per_job_month = 0;
  double function_usd_per_second = 0;
  std::string source;  // the rows used
};
// The newest fees of `provider` on or before `date` (empty: the newest); an error naming what is
// missing when data/fees has no row for an item.
Result<ScheduleFees> FeesFor(const std::string& provider, const std::string& date);

struct ScheduleRequest {
  double starts_per_month = 0;
  Seconds interval;  // between starts (cron: the shortest); a run must end before the next starts
  Seconds runtime;   // the job's own work
  Seconds boot;      // VM boot before the job starts (billed)
  UsdPerHour price;  // the VM
  BillingRule billing;
  double disk_gb = 10;
  int scheduler_jobs = 2;                            // a start rule and a stop rule
  int function_calls = 2;                            // per run: start and stop
  Seconds function_time = Seconds::FromSeconds(60);  // per call
  ScheduleFees fees;
};

struct ScheduleCost {
  Seconds billed_per_run;
  Usd vm, disk, scheduler, functions;
  Usd total() const { return vm + disk + scheduler + functions; }
  Usd always_on;  // the VM for the whole month, plus its disk
};

Result<ScheduleCost> MonthlyScheduleCost(const ScheduleRequest& r);

}  // namespace epochcost::pricing

#endif  // EPOCHCOST_PRICING_SCHEDULE_H_
