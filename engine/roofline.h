// A device as the roofline model sees it: peak rates per precision, memory bandwidth, and the
// shortest time any op takes there (kernel or primitive latency). An op's roofline time is
// max(FLOPs / peak, bytes / bandwidth); the ratio of that to a measured time is the op's
// efficiency, which cross-device prediction carries from a measured device to an unmeasured one
// (engine/scaled_times.h).
#ifndef EPOCHCOST_ENGINE_ROOFLINE_H_
#define EPOCHCOST_ENGINE_ROOFLINE_H_

#include <string>

#include "engine/device_specs.h"
#include "engine/op_signature.h"

namespace epochcost {

enum class DeviceKind { kCpu, kGpu };

struct Roofline {
  DeviceKind kind = DeviceKind::kCpu;
  std::string name;
  FlopsPerSecond fp32;         // vector (CUDA-core or SIMD) rate
  FlopsPerSecond tf32_tensor;  // 0: none
  FlopsPerSecond fp16_tensor;  // 0: none (fp16 then runs at the fp32 rate)
  FlopsPerSecond bf16_tensor;  // 0: none
  BytesPerSecond bandwidth;
  Seconds latency;  // the floor of one op's time

  // The rate an op of this kind and precision can reach: tensor-core rates for the GEMM-like ops
  // (convolution, inner product, matmul, RNN) where the device has them, else the fp32 rate.
  FlopsPerSecond Peak(const OpSignature& sig) const;
  // Whether the device runs this precision at all (bf16 and tf32 need tensor cores on a GPU).
  bool Supports(DType precision) const;
  // max(FLOPs / Peak, bytes / bandwidth).
  Seconds Bound(const OpSignature& sig) const;
  // The same with the signature's FLOPs and bytes already counted.
  Seconds Bound(const OpSignature& sig, Flops flops, Bytes bytes) const;
};

// From the spec tables. A GPU's latency is left 0 for the caller to set (launch and kernel floor
// are measured, not in data sheets).
Roofline GpuRoofline(const GpuSpec& g);
// `cores` physical cores of one CPU family, memory bandwidth `per_core` each up to the sockets'
// total (`sockets` x the family's per-socket figure, where known).
Roofline CpuRoofline(const CpuSpec& c, double cores, BytesPerSecond per_core, int sockets = 1);

// Op classes share parallel-scaling and default-efficiency parameters.
enum class OpClass { kGemm, kConv, kRnn, kMemory };
OpClass ClassOf(OpKind kind);
std::string_view OpClassName(OpClass c);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_ROOFLINE_H_
