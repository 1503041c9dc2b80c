// Values typed on the command line that get their own parser: op-signature repro lines
// (`profile op`), durations and cron expressions (`schedule`). The first byte picks the parser.
#include "engine/op_signature.h"
#include "fuzz/fuzz_check.h"
#include "pricing/schedule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      Result<OpSignature> sig = OpSignature::Parse(text);
      if (sig.ok()) {
        (void)sig->flops();
        (void)sig->bytes();
        // A repro line measures the same op again: printing and parsing is the identity.
        Result<OpSignature> again = OpSignature::Parse(sig->ToString());
        if (!again.ok() || !(*again == *sig)) {
          std::fprintf(stderr, "repro line does not round-trip: [%s]\n", sig->ToString().c_str());
          std::abort();
        }
      }
      break;
    }
    case 1: {
      Result<Seconds> d = pricing::ParseDuration(text, "--runtime");
      fuzz::CheckResult(d, "--runtime");
      // A duration taken is one that prices: finite, positive, at most a year.
      if (d.ok() && !(d->seconds() > 0 && d->seconds() <= pricing::kMaxDuration.seconds())) {
        std::fprintf(stderr, "duration out of range taken: [%s]\n", text.c_str());
        std::abort();
      }
      break;
    }
    case 2: {
      Result<pricing::CronSchedule> cron = pricing::CronSchedule::Parse(text);
      if (cron.ok()) (void)cron->StartsPerMonth();
      break;
    }
  }
  return 0;
}
