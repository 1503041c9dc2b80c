#include "pricing/billing.h"

#include <array>
#include <cmath>

namespace epochcost::pricing {
namespace {

struct DatedRule {
  std::string_view provider;
  std::string_view since;  // first day the rule applies
  double increment_s;
  double minimum_s;
  std::string_view description;
  std::string_view source;
};

// Newest last per provider; RuleFor takes the last whose `since` is on or before the date.
constexpr std::array<DatedRule, 6> kRules = {{
    {"aws", "2006-01-01", 3600, 3600, "per hour, partial hours billed as full hours",
     "AWS EC2 pricing before 2017-10-02"},
    {"aws", "2017-10-02", 1, 60, "per second with a 60-second minimum (Linux)",
     "AWS announcement 'Per-Second Billing for EC2 Instances and EBS Volumes', 2017-09-18, "
     "effective 2017-10-02"},
    {"gcp", "2013-01-01", 60, 600, "per minute with a 10-minute minimum",
     "GCE pricing before 2017-09-26"},
    {"gcp", "2017-09-26", 1, 60, "per second with a 1-minute minimum",
     "Google Cloud blog 'Extending per second billing in Google Cloud', 2017-09-26"},
    {"azure", "2010-01-01", 1, 60, "per second with a 1-minute minimum",
     "azure.microsoft.com VM pricing ('pay for compute capacity by the second'); the 1-minute "
     "minimum is from secondary sources, not verified"},
    {"lambda", "2020-01-01", 60, 60, "per minute",
     "Lambda Cloud docs: usage billed in one-minute increments (not verified here)"},
}};

}  // namespace

Result<BillingRule> RuleFor(std::string_view provider, std::string_view date) {
  const DatedRule* found = nullptr;
  bool known = false;
  for (const DatedRule& r : kRules) {
    if (r.provider != provider) continue;
    known = true;
    if (r.since <= date) found = &r;
  }
  if (!known)
    return Status::NotFound("no billing rule for provider '" + std::string(provider) + "'");
  if (!found)
    return Status::NotFound("no billing rule for " + std::string(provider) + " on " +
                            std::string(date));
  return BillingRule{Seconds::FromSeconds(found->increment_s),
                     Seconds::FromSeconds(found->minimum_s), std::string(found->description),
                     std::string(found->source)};
}

Seconds BilledSeconds(Seconds used, const BillingRule& rule) {
  if (used.seconds() <= 0) return Seconds();
  const double inc = rule.increment.seconds();
  const double rounded = std::ceil(used.seconds() / inc - 1e-9) * inc;
  return Seconds::FromSeconds(std::max(rounded, rule.minimum.seconds()));
}

Usd BilledCost(Seconds used, UsdPerHour price, const BillingRule& rule) {
  return price * BilledSeconds(used, rule);
}

}  // namespace epochcost::pricing
