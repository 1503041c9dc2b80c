#include "pricing/schedule.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/csv.h"

namespace epochcost {
// Generated from data/fees/*.csv (scripts/embed_files.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& FeeFiles();
}  // namespace epochcost

namespace epochcost::pricing {
namespace {

// One cron field: "*", "*/S", "A", "A-B", "A-B/S", comma-separated, within [lo, hi].
template <size_t N>
Status ParseField(const std::string& field, int lo, int hi, const char* name, std::bitset<N>* out,
                  bool* any) {
  *any = field == "*";
  std::stringstream items(field);
  std::string item;
  bool some = false;
  while (std::getline(items, item, ',')) {
    some = true;
    const std::string bad = std::string(name) + " field '" + field + "'";
    int step = 1;
    const bool stepped = item.find('/') != std::string::npos;
    if (size_t slash = item.find('/'); slash != std::string::npos) {
      const std::string s = item.substr(slash + 1);
      char* end = nullptr;
      step = static_cast<int>(std::strtol(s.c_str(), &end, 10));
      if (s.empty() || *end != '\0' || step <= 0)
        return Status::InvalidArgument(bad + ": bad step '" + s + "'");
      item = item.substr(0, slash);
    }
    int a = lo, b = hi;
    if (item != "*") {
      const size_t dash = item.find('-');
      auto number = [&](const std::string& s, int* v) {
        char* end = nullptr;
        *v = static_cast<int>(std::strtol(s.c_str(), &end, 10));
        return !s.empty() && *end == '\0' && std::isdigit(static_cast<unsigned char>(s[0]));
      };
      if (!number(item.substr(0, dash), &a) ||
          (dash != std::string::npos && !number(item.substr(dash + 1), &b)))
        return Status::InvalidArgument(bad + ": '" + item + "' is not a number or range");
      if (dash == std::string::npos) b = stepped ? hi : a;
    }
    if (a < lo || b > hi || a > b)
      return Status::InvalidArgument(bad + ": outside " + std::to_string(lo) + "-" +
                                     std::to_string(hi));
    for (int v = a; v <= b; v += step) out->set(v);
  }
  if (!some) return Status::InvalidArgument(std::string(name) + " field is empty");
  return Status::Ok();
}

// Newest row of `item` for `provider` on or before `date`.
Result<std::pair<double, std::string>> Fee(const CsvTable& t, const std::string& provider,
                                           const std::string& item, const std::string& date) {
  const int p = *t.Column("provider"), i = *t.Column("item"), u = *t.Column("usd"),
            d = *t.Column("date");
  const CsvRecord* best = nullptr;
  for (const CsvRecord& r : t.records()) {
    if (r.fields[p] != provider || r.fields[i] != item) continue;
    if (!date.empty() && r.fields[d] > date) continue;
    if (!best || r.fields[d] > best->fields[d]) best = &r;
  }
  if (!best)
    return Status::NotFound("data/fees has no " + item + " fee for " + provider +
                            (date.empty() ? "" : " on or before " + date));
  return std::make_pair(std::strtod(best->fields[u].c_str(), nullptr), best->fields[d]);
}

}  // namespace

Result<Seconds> ParseDuration(const std::string& text, const std::string& what) {
  if (text.empty()) return Status::InvalidArgument(what + " is empty");
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str() + i, &end);
    const size_t at = end - text.c_str();
    if (at == i || at >= text.size())
      return Status::InvalidArgument(what + " '" + text +
                                     "': expected a number and a unit, as 90s, 2m, 4h, 1d");
    if (!std::isfinite(v))  // strtod reads "nan" and "inf"
      return Status::InvalidArgument(what + " '" + text + "': not a number of seconds");
    if (v < 0) return Status::InvalidArgument(what + " '" + text + "' must be positive");
    const char unit = text[at];
    const double scale = unit == 's'   ? 1
                         : unit == 'm' ? 60
                         : unit == 'h' ? 3600
                         : unit == 'd' ? 86400
                                       : -1;
    if (scale < 0)
      return Status::InvalidArgument(what + " '" + text + "': unknown unit '" +
                                     std::string(1, unit) + "' (s, m, h or d)");
    total += v * scale;
    i = at + 1;
  }
  if (total <= 0) return Status::InvalidArgument(what + " '" + text + "' must be positive");
  if (total > kMaxDuration.seconds())  // cron's longest period is a year
    return Status::InvalidArgument(what + " '" + text + "': longer than a year (366d)");
  return Seconds::FromSeconds(total);
}

Result<CronSchedule> CronSchedule::Parse(const std::string& text) {
  std::stringstream in(text);
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  if (f.size() != 5)
    return Status::InvalidArgument("cron '" + text +
                                   "': expected 5 fields (minute hour "
                                   "day-of-month month day-of-week), got " +
                                   std::to_string(f.size()));
  CronSchedule c;
  bool ignored = false;
  Status s = ParseField(f[0], 0, 59, "minute", &c.minute_, &ignored);
  if (s.ok()) s = ParseField(f[1], 0, 23, "hour", &c.hour_, &ignored);
  if (s.ok()) s = ParseField(f[2], 1, 31, "day-of-month", &c.day_, &c.day_any_);
  if (s.ok()) s = ParseField(f[3], 1, 12, "month", &c.month_, &ignored);
  if (s.ok()) {
    std::bitset<8> dow;  // 7 is Sunday too
    s = ParseField(f[4], 0, 7, "day-of-week", &dow, &c.dow_any_);
    for (int d = 0; d < 7; ++d) c.dow_[d] = dow[d];
    if (dow[7]) c.dow_[0] = true;
  }
  if (!s.ok()) return s.WithContext("cron '" + text + "'");
  return c;
}

bool CronSchedule::DayMatches(int day, int month, int dow) const {
  if (!month_[month]) return false;
  if (day_any_ || dow_any_) return day_[day] && dow_[dow];
  return day_[day] || dow_[dow];
}

bool CronSchedule::Matches(int minute, int hour, int day, int month, int dow) const {
  return minute_[minute] && hour_[hour] && DayMatches(day, month, dow);
}

namespace {
constexpr int kDaysInMonth[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
}  // namespace

double CronSchedule::StartsPerMonth() const {
  int64_t starts = 0;
  int dow = 0;  // the year starts on a Sunday; any weekday gives the same average
  for (int month = 1; month <= 12; ++month)
    for (int day = 1; day <= kDaysInMonth[month - 1]; ++day, dow = (dow + 1) % 7)
      if (DayMatches(day, month, dow))
        starts += static_cast<int64_t>(hour_.count() * minute_.count());
  return static_cast<double>(starts) / 12.0;
}

Seconds CronSchedule::ShortestInterval() const {
  int64_t day_start = 0, previous = -1, shortest = -1;  // minutes from the first year's start
  int dow = 0;
  for (int year = 0; year < 2; ++year)
    for (int month = 1; month <= 12; ++month)
      for (int day = 1; day <= kDaysInMonth[month - 1];
           ++day, dow = (dow + 1) % 7, day_start += 24 * 60) {
        if (!DayMatches(day, month, dow)) continue;
        for (int hour = 0; hour < 24; ++hour)
          for (int minute = 0; minute < 60; ++minute) {
            if (!hour_[hour] || !minute_[minute]) continue;
            const int64_t start = day_start + hour * 60 + minute;
            if (previous >= 0 && (shortest < 0 || start - previous < shortest))
              shortest = start - previous;
            previous = start;
          }
      }
  return Seconds::FromSeconds(shortest < 0 ? 0 : shortest * 60.0);
}

Result<ScheduleFees> FeesFor(const std::string& provider, const std::string& date) {
  std::string text;
  for (const auto& [name, body] : FeeFiles())
    if (name == "fees") text = std::string(body);
  Result<CsvTable> t = CsvTable::Parse(text, "data/fees/fees.csv");
  if (!t.ok()) return t.status();
  ScheduleFees f;
  const std::pair<const char*, double*> items[] = {
      {"disk_standard", &f.disk_usd_per_gb_month},
      {"disk_minimum", &f.disk_minimum_gb},
      {"scheduler_job", &f.scheduler_usd_per_job_month},
      {"function_time", &f.function_usd_per_second}};
  for (const auto& [item, value] : items) {
    Result<std::pair<double, std::string>> fee = Fee(*t, provider, item, date);
    if (!fee.ok()) return fee.status();
    *value = fee->first;
    if (f.source.find(fee->second) == std::string::npos)
      f.source += (f.source.empty() ? provider + " rows of " : ", ") + fee->second;
  }
  f.function_usd_per_second *= 10;  // the table prices 100 ms
  return f;
}

Result<ScheduleCost> MonthlyScheduleCost(const ScheduleRequest& r) {
  if (r.starts_per_month <= 0) return Status::InvalidArgument("the schedule never starts the job");
  const Seconds used = r.runtime + r.boot;
  if (r.interval.seconds() > 0 && used > r.interval) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "each run (boot + runtime, %g s) outlasts the %g s between starts: the VM "
                  "would never stop",
                  used.seconds(), r.interval.seconds());
    return Status::InvalidArgument(text);
  }
  ScheduleCost c;
  c.billed_per_run = BilledSeconds(used, r.billing);
  c.vm = Usd::FromDollars(r.starts_per_month * c.billed_per_run.seconds() *
                          r.price.dollars_per_second());
  const double disk_gb = std::max(r.disk_gb, r.fees.disk_minimum_gb);
  c.disk = Usd::FromDollars(disk_gb * r.fees.disk_usd_per_gb_month);
  c.scheduler = Usd::FromDollars(r.scheduler_jobs * r.fees.scheduler_usd_per_job_month);
  c.functions = Usd::FromDollars(r.starts_per_month * r.function_calls * r.function_time.seconds() *
                                 r.fees.function_usd_per_second);
  c.always_on = Usd::FromDollars(kHoursPerMonth * r.price.dollars_per_hour()) + c.disk;
  return c;
}

}  // namespace epochcost::pricing
