// Device specs from the shipped, sourced tables data/hardware/gpus.csv and cpus.csv (compiled
// into epochcost): what the cross-device model reads to place an op on an unmeasured device's
// roofline. Every value is the table's; a missing one stays 0 and means "not known".
#ifndef EPOCHCOST_ENGINE_DEVICE_SPECS_H_
#define EPOCHCOST_ENGINE_DEVICE_SPECS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "engine/units.h"

namespace epochcost {

struct GpuSpec {
  std::string name;        // "Tesla K80 (one GK210 die)"
  std::string short_name;  // SkyPilot's accelerator name, "K80"; empty for board-level rows
  std::string architecture;
  Bytes memory;
  BytesPerSecond memory_bandwidth;
  FlopsPerSecond fp32;
  FlopsPerSecond tf32_tensor;  // 0 where the GPU has no tensor cores
  FlopsPerSecond fp16_tensor;
  FlopsPerSecond bf16_tensor;
  int sm_count = 0;
  double boost_clock_mhz = 0;
  // One direction of the GPU's host link (PCIe generation x16: 8 x 2^(gen-3) GT/s x 16 lanes x
  // 128/130 / 8 bits), and of its NVLink (the table's bidirectional figure / 2); 0 where unknown.
  BytesPerSecond pcie;
  BytesPerSecond nvlink;
  std::string source;
};

// The x86 vector instructions a framework's CPU kernels were compiled for. Libraries that choose
// at run time (oneDNN's JIT, OpenBLAS's dynamic kernels) use the best the CPU has: kNative. A
// build for an older set runs at that set's rate on a newer CPU, e.g. a TensorFlow 1.2 pip wheel
// (SSE2 only) on an AVX-512 Skylake.
enum class VectorIsa { kNative, kSse2, kAvx, kAvx2, kAvx512 };
// "native", "sse2", "avx", "avx2" (AVX2 with FMA), "avx512"; an error lists them.
Result<VectorIsa> ParseVectorIsa(std::string_view name);
std::string_view VectorIsaName(VectorIsa isa);

struct CpuSpec {
  std::string family;  // "Skylake-SP (Xeon Scalable 1st gen)"
  std::string vendor;
  std::string core_uarch;
  bool avx512 = false;
  // bf16 arithmetic (AVX512_BF16 or AMX): yes, no, or unknown (an empty cell). epochcost predicts
  // bf16 training only where it is yes: elsewhere PyTorch falls back to emulated or reference
  // kernels that no profile measures.
  std::optional<bool> bf16;
  int simd_fma_units_per_core = 0;
  int simd_width_bits = 0;
  double fp32_flop_per_cycle_per_core = 0;
  double all_core_ghz = 0;
  BytesPerSecond memory_bandwidth_per_socket;
  std::string source;

  // Peak fp32 FLOP/s of `cores` cores at the all-core clock.
  FlopsPerSecond PeakFp32(int cores) const;
  // fp32 FLOPs per cycle per core of code compiled for `isa`: each SIMD unit issues one
  // instruction per cycle on min(the set's width, the unit's) bits of 32-bit lanes, two FLOPs
  // per lane with FMA (AVX2, AVX-512), one without (a multiply or an add: SSE2, AVX); never more
  // than the table's figure. kNative is the table's figure. An error for a set the CPU lacks
  // (AVX-512 on Broadwell, any x86 set on an Arm CPU) or a row without SIMD unit counts.
  Result<double> Fp32FlopPerCycle(VectorIsa isa) const;
};

// The tables, parsed once; an error names the file, line and column.
Result<std::vector<GpuSpec>> Gpus();
Result<std::vector<CpuSpec>> Cpus();

// By short name ("K80", "A100-80GB") or full name; by family.
Result<GpuSpec> FindGpu(std::string_view name);
Result<CpuSpec> FindCpu(std::string_view family);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_DEVICE_SPECS_H_
