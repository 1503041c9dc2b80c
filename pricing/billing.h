// Billing rules: how a provider turns seconds of use into billed seconds, by price kind and date.
// Sources are in docs/billing.md. A rule is plain data; BilledSeconds() applies one.
#ifndef EPOCHCOST_PRICING_BILLING_H_
#define EPOCHCOST_PRICING_BILLING_H_

#include <string>
#include <string_view>

#include "engine/status.h"
#include "engine/units.h"

namespace epochcost::pricing {

struct BillingRule {
  Seconds increment;  // usage is rounded up to a multiple of this
  Seconds minimum;    // and billed at least this much
  std::string description;
  std::string source;
};

// The rule in force for `provider` (aws, gcp, azure, lambda) on `date` (YYYY-MM-DD).
Result<BillingRule> RuleFor(std::string_view provider, std::string_view date);

Seconds BilledSeconds(Seconds used, const BillingRule& rule);
Usd BilledCost(Seconds used, UsdPerHour price, const BillingRule& rule);

}  // namespace epochcost::pricing

#endif  // EPOCHCOST_PRICING_BILLING_H_
