#include "pricing/preemption.h"

#include <cmath>

namespace epochcost::pricing {

Result<double> InterruptionsPerHour(const catalog::Interruption& i) {
  double rate = 0;
  const std::string& b = i.frequency_band;
  if (!b.empty()) {
    double fraction;
    if (b == "<5%")
      fraction = 0.025;
    else if (b == "5-10%")
      fraction = 0.075;
    else if (b == "10-15%")
      fraction = 0.125;
    else if (b == "15-20%")
      fraction = 0.175;
    else if (b == ">20%")
      fraction = 0.25;
    else
      return Status::InvalidArgument("interruption band '" + b + "' is not one of <5%, 5-10%, "
                                     "10-15%, 15-20%, >20%");
    rate = -std::log(1 - fraction) / 730.0;
  }
  if (i.max_lifetime_hours > 0) rate = std::max(rate, 1.0 / i.max_lifetime_hours);
  return rate;
}

PreemptionCost ExpectedPreemption(double rate_per_hour, Bytes checkpoint,
                                  std::optional<Seconds> interval) {
  PreemptionCost c;
  c.rate_per_hour = rate_per_hour;
  if (rate_per_hour <= 0) return c;
  const double lambda = rate_per_hour / 3600.0;  // per second
  c.checkpoint_write = Seconds::FromSeconds(checkpoint.value() / kCheckpointBytesPerSecond);
  const double write = c.checkpoint_write.seconds();
  c.interval = interval ? *interval : Seconds::FromSeconds(std::sqrt(2 * write / lambda));
  const double tau = c.interval.seconds();
  c.overhead = (tau > 0 ? write / tau : 0) + lambda * (tau / 2 + kRestart.seconds());
  return c;
}

}  // namespace epochcost::pricing
