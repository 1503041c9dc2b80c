// Keras `model.to_json()` files: import, then analyse and lower what imports.
#include "engine/keras_import.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::CheckModel(ImportKerasJson(text, "fuzz.json"), "fuzz.json");
  return 0;
}
