// Tensor element types and per-sample shapes. Every shape in epochcost leaves the batch dimension
// out: batch size is a parameter of an analysis, never part of a model. A Keras shape
// (None, 26, 26, 32) is the Shape {26, 26, 32}.
#ifndef EPOCHCOST_ENGINE_TENSOR_H_
#define EPOCHCOST_ENGINE_TENSOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "engine/units.h"

namespace epochcost {

// kTFloat32 is fp32 storage computed on tensor cores at TF32 precision (a GPU math mode).
enum class DType { kFloat32, kTFloat32, kBFloat16, kFloat16, kInt32, kInt64 };

int DTypeSize(DType t);
std::string_view DTypeName(DType t);
// Accepts fp32/float32, bf16/bfloat16, fp16/float16/half, int32, int64.
Result<DType> ParseDType(std::string_view name);
bool IsFloat(DType t);

struct Shape {
  std::vector<int64_t> dims;

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t elements() const;
  int64_t operator[](int i) const { return dims[i]; }
  bool operator==(const Shape&) const = default;
  // "(None, 26, 26, 32)", as Keras prints it.
  std::string ToString() const;
};

// Bytes of `elements` values of type `t`.
inline Bytes BytesOf(double elements, DType t) { return Bytes::FromBytes(elements * DTypeSize(t)); }

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_TENSOR_H_
