// The element types the profiler's own CPU kernels (own_kernels.h, aten_kernels.h) store: f32,
// and bf16 kept as the upper half of an f32, rounded to nearest even as c10::BFloat16 and oneDNN
// round. A bf16 kernel loads each value into an f32, computes in f32 and stores bf16, as ATen's
// Vectorized<BFloat16> does, so it moves half the bytes of its f32 counterpart.
#ifndef EPOCHCOST_PROFILER_CPU_ELEMENT_H_
#define EPOCHCOST_PROFILER_CPU_ELEMENT_H_

#include <bit>
#include <cstdint>

namespace epochcost::profiler {

struct BFloat16 {
  uint16_t bits = 0;
};

inline float ToFloat(float v) { return v; }
inline float ToFloat(BFloat16 v) { return std::bit_cast<float>(uint32_t{v.bits} << 16); }

template <typename T>
T FromFloat(float v);
template <>
inline float FromFloat<float>(float v) {
  return v;
}
template <>
inline BFloat16 FromFloat<BFloat16>(float v) {
  uint32_t u = std::bit_cast<uint32_t>(v);
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even (no NaNs are stored)
  return BFloat16{static_cast<uint16_t>(u >> 16)};
}

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_ELEMENT_H_
