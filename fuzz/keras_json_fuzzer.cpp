// Keras `model.to_json()` files: import, then analyse and lower what imports.
#include "engine/analysis.h"
#include "engine/keras_import.h"
#include "engine/lowering.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<Model> model = ImportKerasJson(text, "fuzz.json");
  fuzz::CheckResult(model, "fuzz.json");
  if (!model.ok()) return 0;
  (void)Analyze(*model, {.batch = 2});
  (void)Lower(*model, {.batch = 2});
  return 0;
}
