#include "engine/roofline.h"

#include <algorithm>

namespace epochcost {

OpClass ClassOf(OpKind kind) {
  switch (kind) {
    case OpKind::kConvFwd:
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
      return OpClass::kConv;
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
    case OpKind::kMatMul:
      return OpClass::kGemm;
    case OpKind::kRnnFwd:
    case OpKind::kRnnBwd:
      return OpClass::kRnn;
    default:
      return OpClass::kMemory;
  }
}

std::string_view OpClassName(OpClass c) {
  switch (c) {
    case OpClass::kGemm:
      return "gemm";
    case OpClass::kConv:
      return "conv";
    case OpClass::kRnn:
      return "rnn";
    case OpClass::kMemory:
      return "memory";
  }
  return "?";
}

FlopsPerSecond Roofline::Peak(const OpSignature& sig) const {
  const OpClass c = ClassOf(sig.kind);
  if (c == OpClass::kMemory) return fp32;
  if (c == OpClass::kConv && sig.dtype == DType::kFloat32 && fp32_conv.value() > 0)
    return fp32_conv;
  FlopsPerSecond tensor;
  switch (sig.dtype) {
    case DType::kTFloat32:
      tensor = tf32_tensor;
      break;
    case DType::kBFloat16:
      tensor = bf16_tensor;
      break;
    case DType::kFloat16:
      tensor = fp16_tensor;
      break;
    default:
      break;
  }
  return std::max(tensor, fp32);
}

bool Roofline::Supports(DType precision) const {
  if (kind == DeviceKind::kCpu) return precision != DType::kTFloat32;
  if (precision == DType::kTFloat32) return tf32_tensor.value() > 0;
  if (precision == DType::kBFloat16) return bf16_tensor.value() > 0;
  return true;
}

Seconds Roofline::Bound(const OpSignature& sig) const {
  return Bound(sig, sig.flops(), sig.bytes());
}

Seconds Roofline::Bound(const OpSignature& sig, Flops flops, Bytes bytes) const {
  return std::max(flops / Peak(sig), bytes / bandwidth);
}

Roofline GpuRoofline(const GpuSpec& g) {
  Roofline r;
  r.kind = DeviceKind::kGpu;
  r.name = g.short_name.empty() ? g.name : g.short_name;
  r.fp32 = g.fp32;
  r.tf32_tensor = g.tf32_tensor;
  r.fp16_tensor = g.fp16_tensor;
  r.bf16_tensor = g.bf16_tensor;
  r.bandwidth = g.memory_bandwidth;
  const bool dual_fp32_generation = g.architecture == "Ampere" ||
                                    g.architecture == "Ada Lovelace" ||
                                    g.architecture == "Hopper" || g.architecture == "Blackwell";
  constexpr double kConvLanes = 64;
  const double lane_rate = 2 * g.sm_count * g.boost_clock_mhz * 1e6;  // FLOP/s per lane
  if (dual_fp32_generation && lane_rate > 0 && g.fp32.value() / lane_rate > 1.5 * kConvLanes)
    r.fp32_conv = FlopsPerSecond::FromFlopsPerSecond(kConvLanes * lane_rate);
  r.sm_clock = g.sm_count * g.boost_clock_mhz * 1e6;
  return r;
}

Seconds CarriedWork(const Roofline& from, const Roofline& to, const OpSignature& sig, Flops flops,
                    Bytes bytes, double e) {
  const Seconds bound_to = to.Bound(sig, flops, bytes);
  if (ClassOf(sig.kind) != OpClass::kMemory || from.kind != DeviceKind::kGpu ||
      to.kind != DeviceKind::kGpu || from.sm_clock <= 0 || to.sm_clock <= 0)
    return bound_to / e;
  const Seconds bound_from = from.Bound(sig, flops, bytes);
  return bound_to + (bound_from / e - bound_from) * (from.sm_clock / to.sm_clock);
}

Roofline CpuRoofline(const CpuSpec& c, double cores, BytesPerSecond per_core, int sockets) {
  Roofline r;
  r.kind = DeviceKind::kCpu;
  r.name = c.family;
  r.fp32 = FlopsPerSecond::FromGflops(c.fp32_flop_per_cycle_per_core * c.all_core_ghz * cores);
  r.bandwidth = per_core * cores;
  const BytesPerSecond total = c.memory_bandwidth_per_socket * sockets;
  if (total.value() > 0) r.bandwidth = std::min(r.bandwidth, total);
  return r;
}

}  // namespace epochcost
