// ONNX model files (protobuf bytes): import (node checks, constant folding), then analyse and
// lower what imports.
#include "engine/onnx_import.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz::CheckModel(ImportOnnxBytes(bytes, "fuzz.onnx"), "fuzz.onnx");
  return 0;
}
