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
  FlopsPerSecond fp32;  // vector (CUDA-core or SIMD) rate
  // The rate fp32 convolutions reach where it is below `fp32` (0: fp32's). See GpuRoofline.
  FlopsPerSecond fp32_conv;
  FlopsPerSecond tf32_tensor;  // 0: none
  FlopsPerSecond fp16_tensor;  // 0: none (fp16 then runs at the fp32 rate)
  FlopsPerSecond bf16_tensor;  // 0: none
  BytesPerSecond bandwidth;
  Seconds latency;  // the floor of one op's time
  // A GPU's SMs x boost clock (Hz), 0 where unknown or on a CPU: the rate of the work a
  // memory-bound kernel does besides streaming its bytes (see CarriedWork).
  double sm_clock = 0;

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
//
// An SM of Ampere's GA10x, Ada, Hopper or Blackwell issues up to 128 fp32 FMAs a clock, twice
// Volta's and the A100's 64, and the data sheets' fp32 rate counts all of them; cuDNN's fp32
// convolutions do not reach past the 64-lane rate there (the H100 profile: its fastest fp32
// convolutions 29.1 TFLOP/s, 87% of 64 lanes x 132 SMs x 1.98 GHz = 33.5, while its fp32
// products reach 54 of the sheet's 67; on GA10x and Ada the second half of the lanes also runs
// the integer address arithmetic of implicit-GEMM convolutions). So on those GPUs fp32_conv is
// 2 FLOPs x 64 lanes x SMs x boost clock (docs/cross-device.md).
Roofline GpuRoofline(const GpuSpec& g);
// `cores` physical cores of one CPU family, memory bandwidth `per_core` each up to the sockets'
// total (`sockets` x the family's per-socket figure, where known).
Roofline CpuRoofline(const CpuSpec& c, double cores, BytesPerSecond per_core, int sockets = 1);

// The time beyond the latency that an op of `flops` and `bytes` takes on `to`, where it ran at
// efficiency `e` (bound / (time - latency)) on `from`. In general bound_to / e: the efficiency
// carries. For a memory-bound op (OpClass::kMemory) between two GPUs whose SMs x clock are known,
// the bound carries at full speed and only the time above it is carried, at the ratio of SMs x
// clock: bound_to + (bound_from / e - bound_from) x sm_clock_from / sm_clock_to. Measured on an
// H100 and an H200 (the same SMs and clock, 1.40x the copy bandwidth), batch norm, element-wise
// and binary ops of the same signatures ran 1.03-1.21x faster on the H200 (median by kind and
// precision), where a carried efficiency says 1.40x (docs/cross-device.md, "Memory-bound ops
// between GPUs").
Seconds CarriedWork(const Roofline& from, const Roofline& to, const OpSignature& sig, Flops flops,
                    Bytes bytes, double e);

// Op classes share parallel-scaling and default-efficiency parameters.
enum class OpClass { kGemm, kConv, kRnn, kMemory };
OpClass ClassOf(OpKind kind);
std::string_view OpClassName(OpClass c);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_ROOFLINE_H_
