#include "catalog/records.h"

#include <chrono>

namespace epochcost::catalog {

std::string_view PriceKindName(PriceKind k) {
  switch (k) {
    case PriceKind::kOnDemand:
      return "on_demand";
    case PriceKind::kPreemptible:
      return "preemptible";
    case PriceKind::kSpot:
      return "spot";
  }
  return "?";
}

Result<PriceKind> ParsePriceKind(std::string_view name) {
  if (name == "on_demand" || name == "on-demand" || name == "ondemand") return PriceKind::kOnDemand;
  if (name == "preemptible") return PriceKind::kPreemptible;
  if (name == "spot") return PriceKind::kSpot;
  return Status::InvalidArgument("unknown price kind '" + std::string(name) +
                                 "' (expected on_demand, preemptible or spot)");
}

Result<std::chrono::sys_days> DayOf(std::string_view date) {
  auto digits = [&](size_t from, size_t n) {
    for (size_t i = from; i < from + n; ++i)
      if (i >= date.size() || date[i] < '0' || date[i] > '9') return false;
    return true;
  };
  if (date.size() != 10 || !digits(0, 4) || date[4] != '-' || !digits(5, 2) || date[7] != '-' ||
      !digits(8, 2))
    return Status::InvalidArgument("date '" + std::string(date) + "' is not YYYY-MM-DD");
  const std::chrono::year_month_day ymd{
      std::chrono::year{std::stoi(std::string(date.substr(0, 4)))},
      std::chrono::month{static_cast<unsigned>(std::stoi(std::string(date.substr(5, 2))))},
      std::chrono::day{static_cast<unsigned>(std::stoi(std::string(date.substr(8, 2))))}};
  if (!ymd.ok()) return Status::InvalidArgument("date '" + std::string(date) + "' does not exist");
  return std::chrono::sys_days(ymd);
}

Status CheckDate(std::string_view date) {
  Result<std::chrono::sys_days> day = DayOf(date);
  return day.ok() ? Status::Ok() : day.status();
}

}  // namespace epochcost::catalog
