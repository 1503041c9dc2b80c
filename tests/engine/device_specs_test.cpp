// The shipped hardware tables parse, and hold the devices of the published benchmarks.
#include "engine/device_specs.h"

#include <gtest/gtest.h>

namespace epochcost {
namespace {

TEST(DeviceSpecsTest, GpusOfThePublishedBenchmarks) {
  Result<std::vector<GpuSpec>> gpus = Gpus();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  EXPECT_GE(gpus->size(), 20u);
  // "K80" in the clouds is one GK210 die: half the board's 8.74 TFLOPS and 480 GB/s.
  Result<GpuSpec> k80 = FindGpu("K80");
  ASSERT_TRUE(k80.ok());
  EXPECT_DOUBLE_EQ(k80->fp32.tflops(), 4.37);
  EXPECT_DOUBLE_EQ(k80->memory_bandwidth.gbps(), 240);
  EXPECT_DOUBLE_EQ(k80->memory.bytes(), 12e9);
  EXPECT_DOUBLE_EQ(k80->tf32_tensor.tflops(), 0);  // no tensor cores
  Result<GpuSpec> k520 = FindGpu("K520");
  ASSERT_TRUE(k520.ok());
  EXPECT_DOUBLE_EQ(k520->memory_bandwidth.gbps(), 160);
  EXPECT_TRUE(FindGpu("P100").ok());
  // SkyPilot's name for the GPUs of GCE A3 Mega machines: the H100 SXM of A3 machines.
  Result<GpuSpec> mega = FindGpu("H100-MEGA");
  ASSERT_TRUE(mega.ok());
  EXPECT_EQ(mega->name, "H100 SXM5 80GB");
  // Lambda's GH200 (96 GB): the H100's compute with 4 TB/s of HBM3 (the row's sources).
  Result<GpuSpec> gh200 = FindGpu("GH200");
  ASSERT_TRUE(gh200.ok());
  EXPECT_DOUBLE_EQ(gh200->memory_bandwidth.gbps(), 4000);
  EXPECT_DOUBLE_EQ(gh200->memory.bytes(), 96e9);
  EXPECT_DOUBLE_EQ(gh200->bf16_tensor.tflops(), mega->bf16_tensor.tflops());
  EXPECT_EQ(gh200->sm_count, mega->sm_count);
  // AWS's p6-b300 (SkyPilot: "B300"): dense rates of the HGX B300, and a clock the row derives
  // from them: 75 TFLOPS = 2 x 160 SMs x 128 lanes x 1831 MHz (to 0.01%).
  Result<GpuSpec> b300 = FindGpu("B300");
  ASSERT_TRUE(b300.ok());
  EXPECT_DOUBLE_EQ(b300->fp32.tflops(), 75);
  EXPECT_DOUBLE_EQ(b300->tf32_tensor.tflops(), 1125);
  EXPECT_DOUBLE_EQ(b300->bf16_tensor.tflops(), 2250);
  EXPECT_DOUBLE_EQ(b300->memory.bytes(), 288e9);
  EXPECT_NEAR(2 * b300->sm_count * 128 * b300->boost_clock_mhz * 1e6, 75e12, 75e12 * 1e-4);
  EXPECT_EQ(FindGpu("Voodoo2").status().message(),
            "no GPU named 'Voodoo2' in data/hardware/gpus.csv");
  for (const GpuSpec& g : *gpus) EXPECT_FALSE(g.source.empty()) << g.name;
}

TEST(DeviceSpecsTest, CpusAndPeakRates) {
  Result<std::vector<CpuSpec>> cpus = Cpus();
  ASSERT_TRUE(cpus.ok()) << cpus.status().message();
  Result<CpuSpec> haswell = FindCpu("Haswell (Xeon E5-2666 v3)");
  ASSERT_TRUE(haswell.ok());
  // c4.8xlarge: 18 cores x 32 FLOP/cycle x 2.9 GHz = 1,670.4 GFLOP/s.
  EXPECT_NEAR(haswell->PeakFp32(18).flops_per_second(), 1670.4e9, 1e3);
  Result<CpuSpec> skylake = FindCpu("Skylake-SP (Xeon Scalable 1st gen)");
  ASSERT_TRUE(skylake.ok());
  EXPECT_TRUE(skylake->avx512);
  EXPECT_DOUBLE_EQ(skylake->fp32_flop_per_cycle_per_core, 64);
  EXPECT_EQ(skylake->bf16, false);
  EXPECT_EQ(FindCpu("Sapphire Rapids (Xeon Scalable 4th gen)")->bf16, true);
  EXPECT_EQ(FindCpu("EPYC Genoa (9004)")->bf16, true);
  EXPECT_FALSE(FindCpu("Graviton3")->bf16.has_value());  // an empty cell: not known
  EXPECT_FALSE(FindCpu("Pentium 4").ok());
}

// FLOPs per cycle of code built for an older vector set: 2 SIMD units x lanes x (2 with FMA).
TEST(DeviceSpecsTest, FlopsPerCycleOfAFrameworkBuild) {
  Result<CpuSpec> skylake = FindCpu("Skylake-SP (Xeon Scalable 1st gen)");
  ASSERT_TRUE(skylake.ok());
  auto per_cycle = [&](const CpuSpec& c, const char* isa) {
    Result<VectorIsa> v = ParseVectorIsa(isa);
    EXPECT_TRUE(v.ok()) << isa;
    Result<double> f = c.Fp32FlopPerCycle(*v);
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f.ok() ? *f : -1;
  };
  EXPECT_DOUBLE_EQ(per_cycle(*skylake, "sse2"), 8);     // 2 x 4 x 1
  EXPECT_DOUBLE_EQ(per_cycle(*skylake, "avx"), 16);     // 2 x 8 x 1
  EXPECT_DOUBLE_EQ(per_cycle(*skylake, "avx2"), 32);    // 2 x 8 x 2
  EXPECT_DOUBLE_EQ(per_cycle(*skylake, "avx512"), 64);  // 2 x 16 x 2
  EXPECT_DOUBLE_EQ(per_cycle(*skylake, "native"), 64);
  Result<CpuSpec> rome = FindCpu("EPYC Rome (7002)");
  ASSERT_TRUE(rome.ok());
  EXPECT_DOUBLE_EQ(per_cycle(*rome, "avx2"), 32);
  EXPECT_EQ(rome->Fp32FlopPerCycle(VectorIsa::kAvx512).status().message(),
            "EPYC Rome (7002) has no avx512 instructions");
  Result<CpuSpec> graviton = FindCpu("Graviton2");
  ASSERT_TRUE(graviton.ok());
  EXPECT_EQ(graviton->Fp32FlopPerCycle(VectorIsa::kSse2).status().message(),
            "Graviton2 is not an x86 CPU: it runs no sse2 code");
  EXPECT_EQ(ParseVectorIsa("avx3").status().message(),
            "vector instruction set 'avx3' is not native, sse2, avx, avx2 or avx512");
  EXPECT_EQ(VectorIsaName(VectorIsa::kAvx2), "avx2");
}

}  // namespace
}  // namespace epochcost
