// ONNX model files (protobuf bytes): import, then analyse and lower what imports.
#include "engine/analysis.h"
#include "engine/lowering.h"
#include "engine/onnx_import.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Result<Model> model = ImportOnnxBytes(bytes, "fuzz.onnx");
  fuzz::CheckResult(model, "fuzz.onnx");
  if (!model.ok()) return 0;
  (void)Analyze(*model, {.batch = 2});
  (void)Lower(*model, {.batch = 2});
  return 0;
}
