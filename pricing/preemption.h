// Expected cost of interruptions on spot and preemptible offers (DESIGN.md, "Cost"). An
// interruption rate λ per hour comes from the offer's frequency band (AWS Spot Advisor: the
// band's middle, as a fraction of instances interrupted per month of 730 hours) or from a maximum
// lifetime (GCE preemptible: stopped within 24 h, so at least one interruption per 24 h). With a
// checkpoint written in C seconds every τ seconds, the expected time lost per second of work is
// C/τ + λ(τ/2 + R): the checkpoints, half an interval of work redone per interruption, and the
// restart R. τ is Young/Daly's √(2C/λ) unless given. docs/cross-device.md has the priors.
#ifndef EPOCHCOST_PRICING_PREEMPTION_H_
#define EPOCHCOST_PRICING_PREEMPTION_H_

#include <optional>
#include <string>

#include "catalog/records.h"
#include "engine/units.h"

namespace epochcost::pricing {

// Priors: a checkpoint is written to local disk at this rate, and a replacement instance takes
// this long to start and reload it.
inline constexpr double kCheckpointBytesPerSecond = 200e6;
inline constexpr Seconds kRestart = Seconds::FromSeconds(180);

// Interruptions per hour; 0 for on-demand or where nothing is known.
Result<double> InterruptionsPerHour(const catalog::Interruption& i);

struct PreemptionCost {
  double rate_per_hour = 0;
  Seconds checkpoint_write;
  Seconds interval;    // between checkpoints (0: none)
  double overhead = 0;  // expected extra time per second of work
};

PreemptionCost ExpectedPreemption(double rate_per_hour, Bytes checkpoint,
                                  std::optional<Seconds> interval);

}  // namespace epochcost::pricing

#endif  // EPOCHCOST_PRICING_PREEMPTION_H_
