// The project's model JSON (docs/model-format.md): parse, then analyse and lower what parses, as
// `epochcost models show` and `predict` would.
#include "engine/model_json.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::CheckModel(ParseModelJson(text, "fuzz.json"), "fuzz.json");
  return 0;
}
