// Profile JSON (docs/profiles.md), imported into an in-memory profile store as `profile import`
// does; what imports is read back.
#include <cstdlib>

#include "fuzz/fuzz_check.h"
#include "profiler/profile_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  using namespace epochcost::profiler;
  static ProfileStore* store = [] {
    Result<std::unique_ptr<ProfileStore>> s = ProfileStore::Open(":memory:");
    if (!s.ok()) std::abort();
    return s->release();
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<int> n = store->ImportJson(text, "fuzz.json");
  fuzz::CheckResult(n, "fuzz.json");
  if (n.ok()) (void)store->Devices();
  return 0;
}
