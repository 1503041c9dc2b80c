#include "engine/tensor.h"

#include <array>

namespace epochcost {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  int size;
};

constexpr std::array<DTypeInfo, 6> kDTypes = {{
    {DType::kFloat32, "fp32", 4},
    {DType::kTFloat32, "tf32", 4},
    {DType::kBFloat16, "bf16", 2},
    {DType::kFloat16, "fp16", 2},
    {DType::kInt32, "int32", 4},
    {DType::kInt64, "int64", 8},
}};

}  // namespace

int DTypeSize(DType t) {
  for (const auto& d : kDTypes)
    if (d.type == t) return d.size;
  return 4;
}

std::string_view DTypeName(DType t) {
  for (const auto& d : kDTypes)
    if (d.type == t) return d.name;
  return "?";
}

Result<DType> ParseDType(std::string_view name) {
  if (name == "float32" || name == "float") return DType::kFloat32;
  if (name == "bfloat16") return DType::kBFloat16;
  if (name == "float16" || name == "half") return DType::kFloat16;
  for (const auto& d : kDTypes)
    if (d.name == name) return d.type;
  return Status::InvalidArgument("unknown precision '" + std::string(name) +
                                 "' (expected fp32, tf32, bf16, fp16, int32 or int64)");
}

bool IsFloat(DType t) { return t != DType::kInt32 && t != DType::kInt64; }

int64_t Shape::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string Shape::ToString() const {
  std::string s = "(None";
  for (int64_t d : dims) s += ", " + std::to_string(d);
  return s + ")";
}

}  // namespace epochcost
