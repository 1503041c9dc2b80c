// Run logs (docs/run-logs.md), strictly and with --skip-bad, and Keras CSVLogger files.
#include "fuzz/fuzz_check.h"
#include "validation/run_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::CheckResult(validation::ParseRunLog(text, "fuzz.csv", false), "fuzz.csv");
  fuzz::CheckResult(validation::ParseRunLog(text, "fuzz.csv", true), "fuzz.csv");
  fuzz::CheckResult(validation::ParseKerasLog(text, "fuzz.csv", ""), "fuzz.csv");
  return 0;
}
