// Cross-device model: roofline, carried efficiency, USL fit, ring all-reduce, machine effects.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/lowering_options.h"
#include "engine/machine.h"
#include "engine/zoo.h"

namespace epochcost {
namespace {

OpSignature Sig(const char* text) { return *OpSignature::Parse(text); }

// An op measured on `r` at `efficiency` of its roofline bound.
MeasuredOp MeasuredAt(const Roofline& r, const char* text, double efficiency) {
  const OpSignature s = Sig(text);
  return MeasuredOp{s, r.Bound(s) / efficiency};
}

Roofline Device(double tflops, double gbps, double latency_us) {
  Roofline r;
  r.kind = DeviceKind::kGpu;
  r.name = "test";
  r.fp32 = FlopsPerSecond::FromTflops(tflops);
  r.bandwidth = BytesPerSecond::FromGBps(gbps);
  r.latency = Seconds::FromMicroseconds(latency_us);
  return r;
}

// Times scaled to a GPU of 5 TFLOP/s and 50 GB/s from "Ref GPU" (roofline `r`), which measured
// `ops`.
ScaledTimes ScaledFromRef(const Roofline& r, std::vector<MeasuredOp> ops) {
  const ReferenceDevice ref{"Ref GPU", "2026-01-02", r, std::move(ops)};
  return ScaledTimes(std::make_shared<const ReferenceEfficiencies>(ref),
                     TargetDevice{Device(5, 50, 0), 1, {}});
}

// A machine of `gpus` GPUs of a data/hardware/gpus.csv row and `vcpus` vCPUs.
Machine GpuMachine(const char* gpu, int gpus, double vcpus) {
  Machine m;
  m.gpu = *FindGpu(gpu);
  m.gpus = gpus;
  m.vcpus = vcpus;
  return m;
}

// A CPU instance of `vcpus` hyperthreaded vCPUs of a family in data/hardware/cpus.csv.
Machine CpuMachine(const char* name, const char* family, double vcpus) {
  Machine m;
  m.name = name;
  m.cpu = *FindCpu(family);
  m.vcpus = vcpus;
  m.smt = true;
  return m;
}

TEST(RooflineTest, BoundIsTheSlowerOfComputeAndMemory) {
  // 1024^3 GEMM: 2^31 FLOPs; 3 x 4 MiB of fp32 operands.
  const OpSignature gemm = Sig("matmul dt=f32 b=1 m=1024 k=1024 n=1024");
  const Roofline r = Device(10, 100, 0);
  EXPECT_NEAR(r.Bound(gemm).seconds(), 2147483648.0 / 10e12, 1e-12);
  const OpSignature add = Sig("binary dt=f32 alg=add n=1000000");  // 12 MB, 1 MFLOP
  EXPECT_NEAR(r.Bound(add).seconds(), add.bytes().value() / 100e9, 1e-12);
}

TEST(RooflineTest, TensorRatesOnlyForGemmLikeOpsAndSupportedPrecisions) {
  Roofline r = Device(10, 100, 0);
  r.bf16_tensor = FlopsPerSecond::FromTflops(100);
  EXPECT_DOUBLE_EQ(r.Peak(Sig("matmul dt=bf16 b=1 m=8 k=8 n=8")).value(), 100e12);
  EXPECT_DOUBLE_EQ(r.Peak(Sig("binary dt=bf16 alg=add n=8")).value(), 10e12);
  EXPECT_TRUE(r.Supports(DType::kBFloat16));
  EXPECT_FALSE(r.Supports(DType::kTFloat32));
  EXPECT_TRUE(r.Supports(DType::kFloat16));  // at the fp32 rate
}

// A GPU whose SMs issue 128 fp32 FMAs a clock (Hopper, Ada, Ampere's GA10x): fp32 convolutions
// peak at the 64-lane rate, 2 x 64 x SMs x clock; products and other precisions keep theirs.
// Volta's 64 lanes and Pascal's 128 (a generation whose lanes convolutions do use) are not capped.
TEST(RooflineTest, Fp32ConvolutionsPeakAtSixtyFourLanesOnDualFp32Generations) {
  GpuSpec hopper{.name = "H",
                 .architecture = "Hopper",
                 .fp32 = FlopsPerSecond::FromTflops(67),
                 .bf16_tensor = FlopsPerSecond::FromTflops(989),
                 .sm_count = 132,
                 .boost_clock_mhz = 1830};
  const Roofline h = GpuRoofline(hopper);
  const double lanes64 = 2 * 64 * 132 * 1830e6;  // 30.92 TFLOP/s
  const OpSignature conv =
      Sig("conv_fwd dt=f32 dh=1 dw=1 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=32 oc=64 oh=56 ow=56 "
          "ph=1 pw=1 sh=1 sw=1");
  EXPECT_DOUBLE_EQ(h.Peak(conv).value(), lanes64);
  EXPECT_DOUBLE_EQ(h.Peak(Sig("ip_fwd dt=f32 bias=0 ic=768 mb=8192 oc=768")).value(), 67e12);
  EXPECT_DOUBLE_EQ(
      h.Peak(Sig("conv_fwd dt=bf16 dh=1 dw=1 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=32 oc=64 oh=56 "
                 "ow=56 ph=1 pw=1 sh=1 sw=1"))
          .value(),
      989e12);
  GpuSpec volta{.name = "V",
                .architecture = "Volta",
                .fp32 = FlopsPerSecond::FromTflops(15.7),
                .sm_count = 80,
                .boost_clock_mhz = 1530};
  EXPECT_DOUBLE_EQ(GpuRoofline(volta).Peak(conv).value(), 15.7e12);
  GpuSpec pascal{.name = "P",
                 .architecture = "Pascal",
                 .fp32 = FlopsPerSecond::FromTflops(5.5),
                 .sm_count = 20,
                 .boost_clock_mhz = 1063};
  EXPECT_DOUBLE_EQ(GpuRoofline(pascal).Peak(conv).value(), 5.5e12);
}

// Between two GPUs, a memory-bound op's bound carries at full speed and its time above the
// bound at the ratio of SMs x clock; other op classes, and GPUs whose SMs x clock are unknown,
// carry the efficiency. A ReLU of 1e6 fp32 values moves 8e6 bytes: 80 us at 100 GB/s, 40 us at
// 200 GB/s; at efficiency 0.5 it took 160 us, 80 us above its bound.
TEST(RooflineTest, MemoryBoundOpsCarryTheirBoundAndTheRestAtTheSmRate) {
  Roofline from = Device(10, 100, 0), to = Device(10, 200, 0);
  from.sm_clock = 100e9;
  to.sm_clock = 50e9;
  const OpSignature relu = Sig("eltwise_fwd dt=f32 alg=relu n=1000000");
  auto carried = [&](const OpSignature& s, double e) {
    return CarriedWork(from, to, s, s.flops(), s.bytes(), e).seconds();
  };
  EXPECT_NEAR(carried(relu, 0.5), 40e-6 + 80e-6 * 2, 1e-12);
  EXPECT_NEAR(carried(relu, 1.0), 40e-6, 1e-12);
  // 2e9 FLOPs at 10 TFLOP/s on both: 200 us, 400 us at efficiency 0.5 whatever the SMs.
  const OpSignature ip = Sig("ip_fwd dt=f32 bias=0 ic=1000 mb=1000 oc=1000");
  EXPECT_NEAR(carried(ip, 0.5), 400e-6, 1e-12);
  to.sm_clock = 0;
  EXPECT_NEAR(carried(relu, 0.5), 80e-6, 1e-12);
}

TEST(ScaledTimesTest, SameDeviceGivesTheMeasurementAndFasterDeviceScales) {
  const OpSignature gemm = Sig("matmul dt=f32 b=1 m=1024 k=1024 n=1024");
  const ReferenceDevice ref{
      "Ref GPU", "2026-01-02", Device(10, 100, 5), {{gemm, Seconds::FromMicroseconds(435)}}};
  auto lent = std::make_shared<const ReferenceEfficiencies>(ref);
  // Bound 214.7 us; work 430 us; efficiency 0.4994.
  TargetDevice same{ref.roofline, 1, {}};
  const ScaledTimes here(lent, same);
  EXPECT_NEAR(here.Find(gemm, 1)->median.seconds(), 435e-6, 1e-12);
  TargetDevice twice{Device(20, 200, 5), 1, {}};
  const ScaledTimes there(lent, twice);
  // 5 us + 430 us / 2.
  EXPECT_NEAR(there.Find(gemm, 1)->median.seconds(), 220e-6, 1e-12);
  EXPECT_EQ(there.Find(gemm, 1)->source, "scaled from Ref GPU (2026-01-02)");
  // An unmeasured GEMM borrows the nearest one's efficiency; another kind the default.
  const OpSignature other = Sig("matmul dt=f32 b=1 m=512 k=1024 n=1024");
  EXPECT_EQ(there.EfficiencyFor(other).how, "nearest");
  EXPECT_EQ(there.EfficiencyFor(Sig("binary dt=f32 alg=add n=10")).how, "analytic");
  EXPECT_DOUBLE_EQ(there.EfficiencyFor(Sig("binary dt=f32 alg=add n=10")).efficiency,
                   DefaultEfficiency(DeviceKind::kGpu, OpClass::kMemory));
}

// A precision the reference measured nothing in borrows its stand-in's efficiency: fp16 bf16's
// (all ops), tf32 bf16's for the tensor-core ops and fp32's for the others. A precision it did
// measure keeps its own, and a stand-in it did not measure lends nothing.
TEST(ScaledTimesTest, UnmeasuredPrecisionBorrowsItsStandIns) {
  Roofline r = Device(10, 100, 0);
  r.fp16_tensor = r.bf16_tensor = FlopsPerSecond::FromTflops(80);
  r.tf32_tensor = FlopsPerSecond::FromTflops(40);
  const char* conv_bf16 =
      "conv_fwd dt=bf16 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=32 oc=64 oh=56 ow=56";
  const char* relu_bf16 = "eltwise_fwd dt=bf16 alg=relu n=1000000";
  const char* relu_f32 = "eltwise_fwd dt=f32 alg=relu n=1000000";
  const ScaledTimes there = ScaledFromRef(
      r,
      {MeasuredAt(r, conv_bf16, 0.3), MeasuredAt(r, relu_bf16, 0.8), MeasuredAt(r, relu_f32, 0.4)});
  const auto& conv16 = there.EfficiencyFor(
      Sig("conv_fwd dt=f16 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=32 oc=64 oh=56 ow=56"));
  EXPECT_NEAR(conv16.efficiency, 0.3, 1e-12);
  EXPECT_EQ(conv16.how, "measured");
  EXPECT_EQ(conv16.source, "scaled from Ref GPU (2026-01-02), as in bf16");
  EXPECT_NEAR(there.EfficiencyFor(Sig("eltwise_fwd dt=f16 alg=relu n=1000000")).efficiency, 0.8,
              1e-12);
  const auto& conv32 = there.EfficiencyFor(
      Sig("conv_fwd dt=tf32 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=32 oc=64 oh=56 ow=56"));
  EXPECT_NEAR(conv32.efficiency, 0.3, 1e-12);
  // Its FLOPs and bytes are its own: fp32 storage moves twice bf16's bytes.
  EXPECT_DOUBLE_EQ(conv32.bytes.value(), 2 * there.EfficiencyFor(Sig(conv_bf16)).bytes.value());
  const auto& relu32 = there.EfficiencyFor(Sig("eltwise_fwd dt=tf32 alg=relu n=1000000"));
  EXPECT_NEAR(relu32.efficiency, 0.4, 1e-12);
  EXPECT_EQ(relu32.source, "scaled from Ref GPU (2026-01-02), as in fp32");

  // A reference with fp16 ops of its own lends those, and none lends to fp16 without bf16.
  const ScaledTimes own = ScaledFromRef(
      r, {MeasuredAt(r, conv_bf16, 0.3),
          MeasuredAt(r, "conv_fwd dt=f16 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=32 oc=64 oh=56 ow=56",
                     0.5)});
  EXPECT_NEAR(own.EfficiencyFor(Sig("conv_fwd dt=f16 g=1 ic=64 ih=56 iw=56 kh=3 kw=3 mb=64 "
                                    "oc=64 oh=56 ow=56"))
                  .efficiency,
              0.5, 1e-12);
  const ScaledTimes fp32_only = ScaledFromRef(r, {MeasuredAt(r, relu_f32, 0.4)});
  EXPECT_EQ(fp32_only.EfficiencyFor(Sig("eltwise_fwd dt=f16 alg=relu n=1000000")).how, "analytic");
}

// Two measured GPUs pooled: the first one's ops as measured; an op only the second measured is
// carried to the first one's roofline at the efficiency it reached there and names its device.
// A: 10 TFLOP/s, 100 GB/s, 2 us floor; B: 20 TFLOP/s, 400 GB/s, 5 us floor. B ran a ReLU over
// 10^6 fp32 values (8 MB read and written) in 45 us: efficiency 20 us / 40 us = 0.5; on A that is
// 2 us + 80 us / 0.5 = 162 us.
TEST(ScaledTimesTest, PooledReferencesCarryEachOpsEfficiency) {
  const Roofline a = Device(10, 100, 2), b = Device(20, 400, 5);
  const char* add = "binary dt=f32 alg=add n=1000000";
  const char* relu = "eltwise_fwd dt=f32 alg=relu n=1000000";
  ASSERT_DOUBLE_EQ(Sig(relu).bytes().value(), 8e6);
  const ReferenceDevice first{
      "A GPU", "2026-01-02", a, {{Sig(add), Seconds::FromMicroseconds(200)}}};
  const ReferenceDevice second{
      "B GPU",
      "2026-02-03",
      b,
      {{Sig(add), Seconds::FromMicroseconds(50)}, {Sig(relu), Seconds::FromMicroseconds(45)}}};
  const ReferenceDevice pool = PoolReferences({first, second});
  EXPECT_EQ(pool.name, "A GPU");
  ASSERT_EQ(pool.ops.size(), 2u);
  EXPECT_NEAR(pool.ops[0].median.seconds(), 200e-6, 1e-15);  // A's own add, not B's
  EXPECT_EQ(pool.ops[0].origin, "");
  EXPECT_NEAR(pool.ops[1].median.seconds(), 162e-6, 1e-12);
  EXPECT_EQ(pool.ops[1].origin, "B GPU (2026-02-03)");
  const ScaledTimes there(std::make_shared<const ReferenceEfficiencies>(pool),
                          TargetDevice{Device(5, 50, 0), 1, {}});
  const auto& lent = there.EfficiencyFor(Sig(relu));
  EXPECT_NEAR(lent.efficiency, 0.5, 1e-12);
  EXPECT_EQ(lent.source, "scaled from B GPU (2026-02-03)");
  EXPECT_EQ(there.EfficiencyFor(Sig(add)).source, "scaled from A GPU (2026-01-02)");
  // A ReLU of another size borrows the nearest measured op's device too.
  EXPECT_EQ(there.EfficiencyFor(Sig("eltwise_fwd dt=f32 alg=relu n=3000000")).source,
            "scaled from B GPU (2026-02-03), nearest op's efficiency");
}

// A GPU call's measured host time (its library's API and launches) is the host's, not the GPU's:
// a call scaled to another GPU carries the very signature's host time; a call lent another op's
// efficiency carries none, and neither does a CPU target. In a pool, an op the lead GPU measured
// without a host time takes another GPU's.
TEST(ScaledTimesTest, AScaledGpuCallCarriesItsMeasuredHostTime) {
  const Roofline a = Device(10, 100, 2), b = Device(20, 400, 5);
  const char* add = "binary dt=f32 alg=add n=1000000";
  const char* relu = "eltwise_fwd dt=f32 alg=relu n=1000000";
  const ReferenceDevice first{"A GPU",
                              "2026-01-02",
                              a,
                              {{.signature = Sig(add), .median = Seconds::FromMicroseconds(200)}}};
  const ReferenceDevice second{"B GPU",
                               "2026-02-03",
                               b,
                               {{.signature = Sig(add),
                                 .median = Seconds::FromMicroseconds(50),
                                 .host = Seconds::FromMicroseconds(7)},
                                {.signature = Sig(relu),
                                 .median = Seconds::FromMicroseconds(45),
                                 .host = Seconds::FromMicroseconds(9)}}};
  const ReferenceDevice pool = PoolReferences({first, second});
  ASSERT_EQ(pool.ops.size(), 2u);
  EXPECT_NEAR(pool.ops[0].median.seconds(), 200e-6, 1e-15);  // A's time, B's host time
  EXPECT_NEAR(pool.ops[0].host.seconds(), 7e-6, 1e-15);
  EXPECT_NEAR(pool.ops[1].host.seconds(), 9e-6, 1e-15);
  auto lent = std::make_shared<const ReferenceEfficiencies>(pool);
  const ScaledTimes gpu(lent, TargetDevice{Device(5, 50, 0), 1, {}});
  EXPECT_NEAR(gpu.Find(Sig(relu), 1)->host.seconds(), 9e-6, 1e-15);
  EXPECT_NEAR(gpu.Find(Sig(add), 1)->host.seconds(), 7e-6, 1e-15);
  // Another size lends the ReLU's efficiency, not its host time.
  EXPECT_EQ(gpu.Find(Sig("eltwise_fwd dt=f32 alg=relu n=3000000"), 1)->host.seconds(), 0);
  Roofline cpu = Device(5, 50, 0);
  cpu.kind = DeviceKind::kCpu;
  const ScaledTimes on_cpu(lent, TargetDevice{cpu, 1, {}});
  EXPECT_EQ(on_cpu.Find(Sig(relu), 1)->host.seconds(), 0);
}

// Batch norm's efficiency may fall as its batch grows (cuDNN's did on the H200): the same layer
// measured at batch 32 (efficiency 0.5) sets no floor under it at batch 256, which takes the
// nearest op's 0.1 (a wider layer at batch 32, nearest in bytes); a max pooling layer in the same
// place is held at its batch-32 efficiency.
TEST(ScaledTimesTest, BatchNormEfficiencyMayFallWithTheBatch) {
  const Roofline r = Device(10, 100, 0);
  const ScaledTimes there = ScaledFromRef(
      r, {MeasuredAt(r, "bnorm_fwd dt=f32 c=64 mb=32 sp=3136", 0.5),
          MeasuredAt(r, "bnorm_fwd dt=f32 c=64 mb=32 sp=12544", 0.1),
          MeasuredAt(r,
                     "pool_fwd dt=f32 alg=max c=64 ih=56 iw=56 kh=2 kw=2 mb=32 oh=28 ow=28 "
                     "ph=0 pw=0 sh=2 sw=2",
                     0.5),
          MeasuredAt(r,
                     "pool_fwd dt=f32 alg=max c=64 ih=112 iw=112 kh=2 kw=2 mb=32 oh=56 ow=56 "
                     "ph=0 pw=0 sh=2 sw=2",
                     0.1)});
  const auto& bn = there.EfficiencyFor(Sig("bnorm_fwd dt=f32 c=64 mb=256 sp=3136"));
  EXPECT_NEAR(bn.efficiency, 0.1, 1e-12);
  EXPECT_EQ(bn.how, "nearest");
  const auto& pool =
      there.EfficiencyFor(Sig("pool_fwd dt=f32 alg=max c=64 ih=56 iw=56 kh=2 kw=2 "
                              "mb=256 oh=28 ow=28 ph=0 pw=0 sh=2 sw=2"));
  EXPECT_NEAR(pool.efficiency, 0.5, 1e-12);
  EXPECT_EQ(pool.how, "bounded");
}

// A recurrent layer larger than any measured one: the nearest layer's efficiency (0.1) times
// the efficiency of a product of its per-step shape (0.6) over that of the measured layer's (0.2).
TEST(ScaledTimesTest, RecurrentLayerScalesWithItsPerStepProduct) {
  const Roofline r = Device(10, 100, 0);
  auto at = [&](const char* text, double efficiency) { return MeasuredAt(r, text, efficiency); };
  const ReferenceDevice ref{"Ref GPU",
                            "2026-01-02",
                            r,
                            {at("rnn_fwd dt=f32 alg=lstm dirs=1 hc=128 ic=57 mb=128 t=40", 0.1),
                             at("ip_fwd dt=f32 bias=0 ic=185 mb=128 oc=512", 0.2),
                             at("ip_fwd dt=f32 bias=0 ic=1750 mb=100 oc=2600", 0.6)}};
  auto lent = std::make_shared<const ReferenceEfficiencies>(ref);
  const ScaledTimes there(lent, TargetDevice{Device(5, 50, 0), 1, {}});
  const ReferenceEfficiencies::Lent& big =
      there.EfficiencyFor(Sig("rnn_fwd dt=f32 alg=lstm dirs=1 hc=650 ic=1100 mb=100 t=35"));
  EXPECT_EQ(big.how, "nearest rnn");
  EXPECT_NEAR(big.efficiency, 0.1 * 0.6 / 0.2, 1e-9);
  EXPECT_EQ(big.source,
            "scaled from Ref GPU (2026-01-02), nearest op's efficiency scaled to its "
            "step's product");
  // The measured layer keeps its own.
  EXPECT_NEAR(there.EfficiencyFor(Sig("rnn_fwd dt=f32 alg=lstm dirs=1 hc=128 ic=57 mb=128 t=40"))
                  .efficiency,
              0.1, 1e-9);
}

// Regression: a 7x7 global average pool at batch 8 borrowed, by FLOPs and bytes, the efficiency
// of a 400-wide pool (fastText's, slow in cuDNN) and took 3.6 ms on a V100. The same layer
// measured at another batch within 4x lends its efficiency first; beyond 4x the nearest op does,
// within the bounds the same layer sets (SameLayerFarOffBoundsTheNearestOp).
TEST(ScaledTimesTest, SameLayerAtAnotherBatchLendsFirst) {
  const Roofline r = Device(10, 100, 0);
  auto at = [&](const char* text, double efficiency) { return MeasuredAt(r, text, efficiency); };
  const ReferenceDevice ref{
      "Ref GPU",
      "2026-01-02",
      r,
      {at("pool_bwd dt=f32 alg=avg c=2048 ih=7 iw=7 kh=7 kw=7 mb=32 oh=1 ow=1 ph=0 pw=0 sh=1 sw=1",
          0.5),
       at("pool_bwd dt=f32 alg=avg c=50 ih=1 iw=400 kh=1 kw=400 mb=32 oh=1 ow=1 ph=0 pw=0 sh=1 "
          "sw=1",
          0.01)}};
  auto lent = std::make_shared<const ReferenceEfficiencies>(ref);
  const ScaledTimes there(lent, TargetDevice{Device(5, 50, 0), 1, {}});
  const ReferenceEfficiencies::Lent& eight = there.EfficiencyFor(
      Sig("pool_bwd dt=f32 alg=avg c=2048 ih=7 iw=7 kh=7 kw=7 mb=8 oh=1 ow=1 ph=0 pw=0 sh=1 sw=1"));
  EXPECT_EQ(eight.how, "same layer");
  EXPECT_NEAR(eight.efficiency, 0.5, 1e-9);
  EXPECT_EQ(eight.source,
            "scaled from Ref GPU (2026-01-02), the same layer's efficiency at another batch");
  // Batch 2 is 16x from 32: the nearest op in FLOPs and bytes lends instead (fastText's pool,
  // 0.01), raised so that batch 2 takes no longer than batch 8, the window's edge, at the same
  // layer's 0.5: 0.5 x bound(batch 2) / bound(batch 8).
  const OpSignature two =
      Sig("pool_bwd dt=f32 alg=avg c=2048 ih=7 iw=7 kh=7 kw=7 mb=2 oh=1 ow=1 ph=0 pw=0 sh=1 sw=1");
  const OpSignature edge =
      Sig("pool_bwd dt=f32 alg=avg c=2048 ih=7 iw=7 kh=7 kw=7 mb=8 oh=1 ow=1 ph=0 pw=0 sh=1 sw=1");
  const ReferenceEfficiencies::Lent& lent_two = there.EfficiencyFor(two);
  EXPECT_EQ(lent_two.how, "bounded");
  EXPECT_NEAR(lent_two.efficiency, 0.5 * (r.Bound(two) / r.Bound(edge)), 1e-9);
}

// Regression: GPT-2's LM head (768 -> 50257, a width no tensor-core tile divides) ran at a fifth
// of the aligned products' rate on the H100 at batch 8; at batch 1 (8x off, beyond the same-layer
// window) the nearest op, an aligned product, lent it 5x its efficiency, so one A100 at batch 1
// per GPU ran a step faster than an eighth of batch 8's (8 GPUs faster than 8x one). The same
// layer still bounds the nearest op's efficiency: from above when it was measured at a larger
// batch, from below when at a smaller one.
TEST(ScaledTimesTest, SameLayerFarOffBoundsTheNearestOp) {
  const Roofline r = Device(10, 100, 0);
  auto at = [&](const char* text, double efficiency) { return MeasuredAt(r, text, efficiency); };
  // Without the LM head measured, batch 1's head borrows the efficiency of a product of nearly its
  // size whose width a tile divides (50176 = 392 x 128): 0.5.
  const MeasuredOp aligned = at("ip_fwd dt=bf16 bias=0 ic=768 mb=1024 oc=50176", 0.5);
  const ScaledTimes before = ScaledFromRef(r, {aligned});
  const char* head_at_1 = "ip_fwd dt=bf16 bias=0 ic=768 mb=1024 oc=50257";
  EXPECT_EQ(before.EfficiencyFor(Sig(head_at_1)).how, "nearest");
  EXPECT_NEAR(before.EfficiencyFor(Sig(head_at_1)).efficiency, 0.5, 1e-9);
  // With it measured at batch 8 (0.1, 8x off), batch 1's is capped there.
  const ScaledTimes after =
      ScaledFromRef(r, {aligned, at("ip_fwd dt=bf16 bias=0 ic=768 mb=8192 oc=50257", 0.1)});
  const ReferenceEfficiencies::Lent& one = after.EfficiencyFor(Sig(head_at_1));
  EXPECT_EQ(one.how, "bounded");
  EXPECT_NEAR(one.efficiency, 0.1, 1e-9);
  EXPECT_EQ(one.source,
            "scaled from Ref GPU (2026-01-02), bounded by the same layer at other batches");
  // Measured at a smaller batch, the same layer raises a lower nearest efficiency: the aligned
  // layer at batch 1 (0.5) lifts its batch-64 self over a 0.05 op measured nearer in size.
  const ScaledTimes raised =
      ScaledFromRef(r, {at("ip_fwd dt=bf16 bias=1 ic=768 mb=1024 oc=3072", 0.5),
                        at("ip_fwd dt=bf16 bias=1 ic=1024 mb=65536 oc=4096", 0.05)});
  const ReferenceEfficiencies::Lent& big =
      raised.EfficiencyFor(Sig("ip_fwd dt=bf16 bias=1 ic=768 mb=65536 oc=3072"));
  EXPECT_EQ(big.how, "bounded");
  EXPECT_NEAR(big.efficiency, 0.5, 1e-9);
}

// A layer measured at a smaller and a larger batch: between them its time is interpolated, log
// time against log batch (BERT's 768 x 768 products were measured at batch 32 x 1 token and 8 x
// 128 tokens; ViT's batch 1, 197 tokens, had borrowed the nearest op's efficiency instead).
TEST(ScaledTimesTest, SameLayerOnBothSidesIsInterpolated) {
  const Roofline r = Device(10, 100, 0);
  const OpSignature small = Sig("ip_fwd dt=f32 bias=1 ic=768 mb=32 oc=768");
  const OpSignature large = Sig("ip_fwd dt=f32 bias=1 ic=768 mb=4096 oc=768");
  const ScaledTimes there = ScaledFromRef(r, {MeasuredOp{small, Seconds::FromMicroseconds(40)},
                                              MeasuredOp{large, Seconds::FromMicroseconds(1000)}});
  // mb 362 is about halfway in log batch (32 x 11.3 = 4096 / 11.3): about sqrt(40 x 1000) us.
  const OpSignature mid = Sig("ip_fwd dt=f32 bias=1 ic=768 mb=362 oc=768");
  const ReferenceEfficiencies::Lent& l = there.EfficiencyFor(mid);
  EXPECT_EQ(l.how, "interpolated");
  const double w = std::log(362.0 / 32) / std::log(4096.0 / 32);
  const double t = std::exp((1 - w) * std::log(40e-6) + w * std::log(1000e-6));
  EXPECT_NEAR(l.efficiency, r.Bound(mid).seconds() / (t - r.latency.seconds()), 1e-9);
  EXPECT_EQ(l.source,
            "scaled from Ref GPU (2026-01-02), interpolated between the same layer at a smaller "
            "and a larger batch");
}

// Ops without a batch dimension are bounded by the same op at other sizes too: a softmax over
// more rows neither runs faster nor less efficiently than over fewer (BERT's attention softmax at
// batch 2 had borrowed a slower op's efficiency than at batch 4, and its step shrank).
TEST(ScaledTimesTest, RowOpsAreBoundedByTheSameOpAtOtherSizes) {
  const Roofline r = Device(10, 100, 0);
  auto at = [&](const char* text, double efficiency) { return MeasuredAt(r, text, efficiency); };
  const ScaledTimes there = ScaledFromRef(r, {at("softmax_fwd dt=f32 c=128 rows=1024", 0.4),
                                              at("softmax_fwd dt=f32 c=197 rows=2000", 0.05)});
  // rows 1900 is nearest to the 0.05 op in FLOPs and bytes, but the same op over 1024 rows ran at
  // 0.4: at least that.
  const ReferenceEfficiencies::Lent& l =
      there.EfficiencyFor(Sig("softmax_fwd dt=f32 c=128 rows=1900"));
  EXPECT_EQ(l.how, "bounded");
  EXPECT_NEAR(l.efficiency, 0.4, 1e-9);
}

// Regression: ViT's classifier head at batch 1 (768 -> 1000, one row) borrowed a tiny op's
// efficiency and took 126 us on the H100 and 1.37 ms on an L4, while ResNet50's larger head
// (2048 -> 1000, 32 rows) was measured in 22 us. A product no larger in any size than a measured
// one of its kind takes no longer.
TEST(ScaledTimesTest, AProductNoLargerThanAMeasuredOneTakesNoLonger) {
  const Roofline r = Device(10, 100, 0);
  const OpSignature big = Sig("ip_fwd dt=f32 bias=1 ic=2048 mb=32 oc=1000");
  const ScaledTimes there =
      ScaledFromRef(r, {MeasuredOp{big, r.Bound(big) / 0.5},
                        MeasuredAt(r, "ip_fwd dt=f32 bias=1 ic=512 mb=2 oc=128", 0.001)});
  const OpSignature head = Sig("ip_fwd dt=f32 bias=1 ic=768 mb=1 oc=1000");
  const ReferenceEfficiencies::Lent& l = there.EfficiencyFor(head);
  EXPECT_EQ(l.how, "bounded");
  // As long as the big one took on the reference: its bound over 0.5.
  EXPECT_NEAR(l.efficiency, r.Bound(head) / (r.Bound(big) / 0.5), 1e-9);
  // One that differs in a dimension that is not a size (no bias) is not bounded by it.
  EXPECT_EQ(there.EfficiencyFor(Sig("ip_fwd dt=f32 bias=0 ic=768 mb=1 oc=1000")).how, "nearest");
}

// A call the framework runs on one thread (StepOp::serial; Find with 1 thread) takes one core's
// roofline and no parallel speedup; any other call, the whole CPU's divided by the USL's
// speedup(n)/n. A 2,048-value mul (24,576 bytes) measured at half the reference's 100 GB/s
// bound: on one core of 25 GB/s 0.98304 / 0.5 = 1.96608 us beyond the 1 us latency, on 4 cores
// of 100 GB/s (alpha 0.1: speedup(4) = 4 / 1.3) 0.24576 / 0.5 x 1.3 = 0.638976 us.
TEST(ScaledTimesTest, ACallOnOneThreadTakesOneCore) {
  Roofline ref = Device(1, 100, 0);
  ref.kind = DeviceKind::kCpu;
  const OpSignature mul = Sig("binary dt=f32 alg=mul n=2048");
  ASSERT_EQ(mul.bytes().value(), 24576);
  auto lent = std::make_shared<const ReferenceEfficiencies>(ReferenceDevice{
      "Ref CPU", "2026-01-02", ref, {MeasuredAt(ref, "binary dt=f32 alg=mul n=2048", 0.5)}});
  TargetDevice cpu{Device(4, 100, 1), 4, {}};
  cpu.roofline.kind = DeviceKind::kCpu;
  for (Usl& u : cpu.usl) u.alpha = 0.1;
  cpu.one_core = Device(1, 25, 1);
  cpu.one_core->kind = DeviceKind::kCpu;
  const ScaledTimes there(lent, cpu);
  EXPECT_NEAR(there.Find(mul, 1)->mean.seconds(), 1e-6 + 1.96608e-6, 1e-15);
  EXPECT_NEAR(there.Find(mul, 4)->mean.seconds(), 1e-6 + 0.638976e-6, 1e-15);
  // Without a core of its own, a 1-thread call is priced as every other.
  cpu.one_core.reset();
  const ScaledTimes whole(lent, cpu);
  EXPECT_EQ(whole.Find(mul, 1)->mean, whole.Find(mul, 4)->mean);
}

// A CPU op timed inside the replayed step faster than its memory bound (its operands in the caches
// the step left them in) carries that speed: at 100 GB/s `mul n=2048` (24,576 bytes) is bound at
// 0.24576 us and took half that, efficiency 2; on a CPU of half the bandwidth it takes
// 0.49152 us / 2. The same time measured alone (its operands warm from its own last call) is held
// to the bound there, as is a GPU's, and so is what the row lends to another op.
TEST(ScaledTimesTest, ACpuOpTimedInTheStepMayRunPastItsMemoryBound) {
  Roofline ref = Device(1, 100, 0);
  ref.kind = DeviceKind::kCpu;
  const OpSignature mul = Sig("binary dt=f32 alg=mul n=2048");
  const OpSignature add = Sig("binary dt=f32 alg=add n=2048");
  MeasuredOp in_step = MeasuredAt(ref, "binary dt=f32 alg=mul n=2048", 2);
  in_step.in_step = true;
  ASSERT_NEAR(in_step.median.seconds(), 0.12288e-6, 1e-18);
  const MeasuredOp alone = MeasuredAt(ref, "binary dt=f32 alg=add n=2048", 2);
  TargetDevice cpu{Device(1, 50, 0), 1, {}};
  cpu.roofline.kind = DeviceKind::kCpu;
  const ScaledTimes there(std::make_shared<const ReferenceEfficiencies>(
                              ReferenceDevice{"Ref CPU", "2026-01-02", ref, {in_step, alone}}),
                          cpu);
  EXPECT_NEAR(there.Find(mul, 1)->median.seconds(), 0.24576e-6, 1e-18);
  EXPECT_NEAR(there.Find(add, 1)->median.seconds(), 0.49152e-6, 1e-18);
  // It lends no more than its roofline: another op's operands may not be in the caches.
  const ReferenceEfficiencies::Lent& bigger =
      there.EfficiencyFor(Sig("binary dt=f32 alg=mul n=65536"));
  EXPECT_EQ(bigger.how, "nearest");
  EXPECT_DOUBLE_EQ(bigger.efficiency, 1.0);
  // On a GPU the flag changes nothing.
  Roofline gpu = Device(1, 100, 0);
  const ScaledTimes on_gpu(std::make_shared<const ReferenceEfficiencies>(
                               ReferenceDevice{"Ref GPU", "2026-01-02", gpu, {in_step}}),
                           TargetDevice{Device(1, 50, 0), 1, {}});
  EXPECT_NEAR(on_gpu.Find(mul, 1)->median.seconds(), 0.49152e-6, 1e-18);
}

TEST(UslTest, FitsAlphaAndBetaExactlyFromThreePoints) {
  const Usl truth{0.05, 0.001, ""};
  std::vector<SpeedupPoint> pts;
  for (double n : {2.0, 4.0, 8.0}) pts.push_back({n, truth.Speedup(n)});
  const Usl fit = FitUsl(pts, UslPrior());
  EXPECT_NEAR(fit.alpha, 0.05, 1e-9);
  EXPECT_NEAR(fit.beta, 0.001, 1e-9);
  EXPECT_EQ(fit.how, "fitted from threads 1,2,4,8");
  // One thread count: alpha from it, beta at the prior. speedup(2) = 2 / (1 + a + 2b).
  const Usl one = FitUsl({{2, 1.9}}, UslPrior());
  EXPECT_NEAR(one.alpha, 2 / 1.9 - 1 - 2 * UslPrior().beta, 1e-12);
  EXPECT_DOUBLE_EQ(one.beta, UslPrior().beta);
  EXPECT_DOUBLE_EQ((Usl{0, 0, ""}).Speedup(16), 16);
  // Beyond its evidence the speedup holds: the fit's 8 threads, the prior's 40 effective cores
  // (64 hyperthreaded vCPUs). At 40: 40 / (1 + 0.127 x 39 + 0.00205 x 40 x 39) = 40 / 9.151.
  EXPECT_EQ(fit.max_n, 8);
  EXPECT_DOUBLE_EQ(fit.Speedup(64), fit.Speedup(8));
  EXPECT_EQ(one.max_n, 40);
  EXPECT_NEAR(UslPrior().Speedup(192), 40 / 9.151, 1e-9);
  EXPECT_LT(UslPrior().Speedup(40), UslPrior().Speedup(21));  // retrograde within the evidence
}

TEST(ParallelTest, RingAllReduceFormula) {
  // 100 MB over 4 GPUs at 10 GB/s, 10 us per hop: 2*3/4 * 0.01 s + 6 * 10 us.
  EXPECT_NEAR(RingAllReduce(Bytes::FromBytes(100e6), 4, BytesPerSecond::FromGBps(10),
                            Seconds::FromMicroseconds(10))
                  .seconds(),
              0.015 + 60e-6, 1e-12);
  EXPECT_EQ(
      RingAllReduce(Bytes::FromBytes(1e9), 1, BytesPerSecond::FromGBps(1), Seconds()).seconds(), 0);
}

TEST(MachineTest, SmallModelOnSeveralGpusIsNoFasterThanOnOne) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(model.ok());
  Machine m;
  m.gpu = *FindGpu("V100");
  m.vcpus = 8;
  LoweringOptions o{.batch = 128,
                    .rnn = RnnLowering::kFused,
                    .framework_reorders = false,
                    .separate_conv_bias = true};
  const MachineSettings s{.samples = 60000};
  m.gpus = 1;
  Result<MachinePrediction> one = PredictOnMachine(*model, o, m, {}, s);
  m.gpus = 4;
  Result<MachinePrediction> four = PredictOnMachine(*model, o, m, {}, s);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_EQ(four->device_batch, 32);
  EXPECT_GT(four->allreduce.seconds(), 0);
  EXPECT_GE(four->epoch.epoch.seconds(), 0.9 * one->epoch.epoch.seconds());
  EXPECT_EQ(one->epoch.steps_per_epoch, 469);
  EXPECT_EQ(four->epoch.steps_per_epoch, 469);
}

// `recommend` and `serve` predict without per-op rows (op_rows = false, 4x faster over the
// shipped catalog); the totals, backward time, all-reduce and source must not change.
TEST(MachineTest, PredictionWithoutOpRowsIsTheSame) {
  Result<Model> model = LoadZooModel("cifar10_cnn");
  ASSERT_TRUE(model.ok());
  const Machine m = GpuMachine("V100", 2, 16);
  const LoweringOptions o{.batch = 64, .rnn = RnnLowering::kFused};
  MachineSettings s{.samples = 50000, .val_samples = 10000};
  Result<MachinePrediction> rows = PredictOnMachine(*model, o, m, {}, s);
  s.op_rows = false;
  Result<MachinePrediction> bare = PredictOnMachine(*model, o, m, {}, s);
  ASSERT_TRUE(rows.ok() && bare.ok());
  EXPECT_FALSE(rows->epoch.ops.empty());
  EXPECT_TRUE(bare->epoch.ops.empty());
  EXPECT_TRUE(bare->epoch.eval_ops.empty());
  EXPECT_EQ(bare->epoch.epoch, rows->epoch.epoch);
  EXPECT_EQ(bare->epoch.eval_step, rows->epoch.eval_step);
  EXPECT_EQ(bare->exposed_allreduce, rows->exposed_allreduce);
  EXPECT_EQ(bare->source, rows->source);
  Seconds backward;
  for (const OpTiming& t : rows->epoch.ops)
    if (IsBackward(t.signature.kind)) backward += t.total;
  EXPECT_GT(backward.seconds(), 0);
  EXPECT_NEAR(bare->epoch.backward.seconds(), backward.seconds(), 1e-12 * backward.seconds());
  // The source of the most expensive op leads the summary.
  EXPECT_EQ(rows->source.rfind(rows->epoch.ops.front().source, 0), 0u) << rows->source;
}

// A CPU target is scaled from a measured CPU of its own maker where there is one (the one measured
// most at the precision among them), else from the CPU measured most: a Skylake from the Intel
// profile, a Genoa from the AMD one, a Graviton (AWS) from the AMD one, measured more.
TEST(MachineTest, ACpuIsScaledFromAMeasuredCpuOfItsMaker) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(model.ok());
  auto reference = [](const char* name, const char* dtype = "f32") {
    Roofline r = Device(0.1, 10, 1);
    r.kind = DeviceKind::kCpu;
    const std::string ip = std::string("ip_fwd dt=") + dtype + " bias=1 ic=784 mb=128 oc=512";
    return CpuReference{std::make_shared<const ReferenceEfficiencies>(ReferenceDevice{
                            name, "2026-01-02", r, {MeasuredAt(r, ip.c_str(), 0.5)}}),
                        {},
                        BytesPerSecond::FromGBps(10),
                        Seconds::FromMicroseconds(1),
                        Seconds()};
  };
  References refs;
  refs.cpu = reference("Ref AMD");
  refs.cpu_by_dtype.emplace(DType::kFloat32, *refs.cpu);
  refs.cpu_by_vendor["AMD"].emplace(DType::kFloat32, *refs.cpu);
  refs.cpu_by_vendor["Intel"].emplace(DType::kFloat32, reference("Ref Intel"));
  auto source = [&](const char* family) {
    Result<MachinePrediction> p = PredictOnMachine(
        *model, {.batch = 128}, CpuMachine("cpu:x", family, 8), refs, {.samples = 60000});
    return p.ok() ? p->epoch.ops.front().source : p.status().message();
  };
  EXPECT_EQ(source("Skylake-SP (Xeon Scalable 1st gen)").rfind("scaled from Ref Intel", 0), 0u);
  EXPECT_EQ(source("EPYC Genoa (9004)").rfind("scaled from Ref AMD", 0), 0u);
  EXPECT_EQ(source("Graviton3").rfind("scaled from Ref AMD", 0), 0u);
  // bf16: the Intel CPU measured none, so a Sapphire Rapids takes the CPU measured most in it.
  refs.cpu_by_dtype.emplace(DType::kBFloat16, reference("Ref AMD bf16", "bf16"));
  Result<MachinePrediction> bf16 = PredictOnMachine(
      *model, {.batch = 128, .precision = DType::kBFloat16},
      CpuMachine("cpu:x", "Sapphire Rapids (Xeon Scalable 4th gen)", 8), refs, {.samples = 60000});
  ASSERT_TRUE(bf16.ok()) << bf16.status().message();
  EXPECT_EQ(bf16->epoch.ops.front().source.rfind("scaled from Ref AMD bf16", 0), 0u)
      << bf16->epoch.ops.front().source;
}

// A call scaled to an unmeasured GPU pays what its library took the measured GPU's host beyond a
// plain launch: the reference's call took 10 us on the GPU and 60 us on the host, its plain
// launch 4 us, so on a V100 of the same roofline it costs max(10 us, 4 us + 56 us) = 60 us.
TEST(MachineTest, AScaledGpuCallPaysItsLibrarysHostTimeBeyondTheLaunch) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(model.ok());
  const Machine m = GpuMachine("V100", 1, 8);
  const LoweringOptions o{.batch = 128, .rnn = RnnLowering::kFused};
  const MachineSettings s{.samples = 128};
  Result<MachinePrediction> analytic = PredictOnMachine(*model, o, m, {}, s);
  ASSERT_TRUE(analytic.ok()) << analytic.status().message();
  const OpSignature sig = analytic->epoch.ops.front().signature;
  Roofline r = GpuRoofline(*m.gpu);
  r.latency = Seconds::FromMicroseconds(3);
  const ReferenceDevice ref{"Ref GPU",
                            "2026-01-02",
                            r,
                            {{.signature = sig,
                              .median = Seconds::FromMicroseconds(10),
                              .host = Seconds::FromMicroseconds(60)}}};
  References refs;
  refs.gpu = GpuReference{std::make_shared<const ReferenceEfficiencies>(ref),
                          Seconds::FromMicroseconds(4)};
  Result<MachinePrediction> p = PredictOnMachine(*model, o, m, refs, s);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const OpTiming* t = nullptr;
  for (const OpTiming& x : p->epoch.ops)
    if (x.signature == sig) t = &x;
  ASSERT_NE(t, nullptr);
  EXPECT_NEAR(t->each.seconds(), 10e-6, 1e-12);
  EXPECT_NEAR(t->host_extra.seconds(), 56e-6, 1e-12);
  EXPECT_NEAR(t->total.seconds(), t->count * 60e-6, 1e-12);
}

TEST(MachineTest, PrecisionTheGpuLacksIsRefused) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  Machine m;
  m.name = "gpu:T4";
  m.gpu = *FindGpu("T4");
  m.gpus = 1;
  LoweringOptions o{.batch = 128, .precision = DType::kBFloat16};
  Result<MachinePrediction> p = PredictOnMachine(*model, o, m, {}, {.samples = 100});
  EXPECT_EQ(p.status().message(), "gpu:T4: the T4 has no bf16 arithmetic");
}

// bf16 training on a CPU is predicted only where the family has bf16 arithmetic (AVX512_BF16 or
// AMX); elsewhere PyTorch falls back to emulated or reference kernels no profile measures.
TEST(MachineTest, Bf16OnlyOnCpusWithBf16Arithmetic) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(model.ok());
  Machine m = CpuMachine("cpu:x", "Skylake-SP (Xeon Scalable 1st gen)", 8);
  const LoweringOptions o{.batch = 128, .precision = DType::kBFloat16};
  EXPECT_EQ(PredictOnMachine(*model, o, m, {}, {.samples = 100}).status().message(),
            "cpu:x: the Skylake-SP (Xeon Scalable 1st gen) has no bf16 arithmetic (AVX512_BF16 or "
            "AMX); its bf16 runs are not modelled");
  m.cpu = *FindCpu("Graviton3");
  EXPECT_EQ(PredictOnMachine(*model, o, m, {}, {.samples = 100}).status().message(),
            "cpu:x: the Graviton3's bf16 arithmetic is not known (data/hardware/cpus.csv); its "
            "bf16 runs are not modelled");
  m.cpu = *FindCpu("EPYC Genoa (9004)");
  EXPECT_TRUE(PredictOnMachine(*model, o, m, {}, {.samples = 100}).ok());
}

// A framework built for SSE2 on an AVX-512 Cascade Lake: the compute-bound ops take 64/8 = 8x as
// long beyond the latency floor, the memory-bound ones the same.
TEST(MachineTest, OlderVectorSetSlowsOnlyTheArithmetic) {
  Result<Model> model = LoadZooModel("mnist_cnn");
  ASSERT_TRUE(model.ok());
  Machine m = CpuMachine("cpu:cascadelake", "Cascade Lake (Xeon Scalable 2nd gen)", 8);
  const LoweringOptions o{.batch = 128};
  MachineSettings s{.samples = 60000};
  Result<MachinePrediction> native = PredictOnMachine(*model, o, m, {}, s);
  s.isa = VectorIsa::kSse2;
  Result<MachinePrediction> sse2 = PredictOnMachine(*model, o, m, {}, s);
  ASSERT_TRUE(native.ok() && sse2.ok()) << sse2.status().message();
  EXPECT_EQ(sse2->flop_per_cycle, 8);
  EXPECT_EQ(sse2->native_flop_per_cycle, 64);
  const Seconds floor = DefaultLatency(DeviceKind::kCpu);
  int compared = 0, arithmetic = 0, memory = 0;
  for (const OpTiming& a : native->epoch.ops)
    for (const OpTiming& b : sse2->epoch.ops) {
      if (!(a.signature == b.signature)) continue;
      ++compared;
      const double ratio = (b.each - floor) / (a.each - floor);
      // The 32 -> 64 channel convolution is bound by arithmetic at both peaks (the first one,
      // from 1 channel, by memory at the SSE2 peak).
      if (a.signature.kind == OpKind::kConvFwd && a.signature.dim("ic") == 32) {
        EXPECT_NEAR(ratio, 8, 1e-9) << a.signature.ToString();
        ++arithmetic;
      }
      if (a.signature.kind == OpKind::kEltwiseFwd) {
        EXPECT_NEAR(ratio, 1, 1e-9) << a.signature.ToString();
        ++memory;
      }
    }
  EXPECT_EQ(compared, static_cast<int>(native->epoch.ops.size()));
  EXPECT_EQ(arithmetic, 1);
  EXPECT_GT(memory, 0);
  s.isa = VectorIsa::kAvx512;
  m.cpu = *FindCpu("Haswell (Xeon E5-2666 v3)");
  EXPECT_EQ(PredictOnMachine(*model, o, m, {}, s).status().message(),
            "cpu:cascadelake: Haswell (Xeon E5-2666 v3) has no avx512 instructions");
}

// PyTorch on a CPU runs an element-wise call over fewer than 32,768 values on one thread
// (SerialInAten): on a machine it has not measured, such a call takes the same time on 8 vCPUs
// as on 32, while the step's input projection (3,200 rows) gets faster with the cores.
TEST(MachineTest, SerialCallsTakeOneCoreOnAnyMachine) {
  Result<Model> model = LoadZooModel("imdb_bidirectional_lstm");
  ASSERT_TRUE(model.ok());
  const LoweringOptions o{.batch = 32, .aten_kernels = true};
  const MachineSettings s{.samples = 25000};
  Result<MachinePrediction> eight =
      PredictOnMachine(*model, o, CpuMachine("cpu:genoa", "EPYC Genoa (9004)", 8), {}, s);
  Result<MachinePrediction> more =
      PredictOnMachine(*model, o, CpuMachine("cpu:genoa", "EPYC Genoa (9004)", 32), {}, s);
  ASSERT_TRUE(eight.ok() && more.ok());
  int serial = 0, parallel = 0;
  for (const OpTiming& a : eight->epoch.ops)
    for (const OpTiming& b : more->epoch.ops) {
      if (!(a.signature == b.signature)) continue;
      if (SerialInAten(a.signature)) {
        EXPECT_EQ(a.each, b.each) << a.signature.ToString();
        EXPECT_NE(b.source.find("(run serially)"), std::string::npos) << b.source;
        ++serial;
      } else if (a.signature.kind == OpKind::kInnerProductFwd && a.signature.dim("mb") == 3200) {
        EXPECT_LT(b.each, a.each) << a.signature.ToString();
        ++parallel;
      }
    }
  EXPECT_GT(serial, 0);
  EXPECT_GT(parallel, 0);
}

// A calibration with a per-op overhead per thread count: a 1-vCPU machine takes the 1-thread
// one, a machine with more cores the other.
TEST(MachineTest, ACalibrationsPerOpOverheadFollowsTheCores) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(model.ok());
  const LoweringOptions o{.batch = 128};
  MachineSettings s{.samples = 1280};
  KernelCorrection c{.per_op_overhead = Seconds::FromMicroseconds(3)};
  c.per_op_overhead_threads = Seconds::FromMicroseconds(9);
  s.Apply(c);
  Result<MachinePrediction> one =
      PredictOnMachine(*model, o, CpuMachine("cpu:genoa", "EPYC Genoa (9004)", 1), {}, s);
  Result<MachinePrediction> eight =
      PredictOnMachine(*model, o, CpuMachine("cpu:genoa", "EPYC Genoa (9004)", 8), {}, s);
  ASSERT_TRUE(one.ok() && eight.ok());
  EXPECT_DOUBLE_EQ(one->per_op_overhead.seconds(), 3e-6);
  EXPECT_DOUBLE_EQ(eight->per_op_overhead.seconds(), 9e-6);
}

// An input pipeline of 1 ms of CPU a sample, batch 128: 128 ms of CPU a step. On a V100 with 4
// vCPUs it runs on the 3 beside the dispatching one, overlapping the GPU's far shorter step, so
// the step is (128 ms + the batch's 401,408 bytes at 10 GB/s) / 3 + the PCIe copy: host-bound.
// On 8 Genoa vCPUs (4 cores + 4 x 0.25 of a hyperthread = 5 effective cores) it shares the
// cores: +128 / 5 = 25.6 ms a step.
TEST(MachineTest, InputPipelineOverlapsOnAGpuHostAndSharesACpusCores) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(model.ok());
  const LoweringOptions o{.batch = 128, .rnn = RnnLowering::kFused};
  Machine gpu;
  gpu.name = "gpu:V100";
  gpu.gpu = *FindGpu("V100");
  gpu.gpus = 1;
  gpu.vcpus = 4;
  MachineSettings s{.samples = 60000};
  Result<MachinePrediction> plain = PredictOnMachine(*model, o, gpu, {}, s);
  s.input_per_sample = Seconds::FromMilliseconds(1);
  Result<MachinePrediction> fed = PredictOnMachine(*model, o, gpu, {}, s);
  ASSERT_TRUE(plain.ok() && fed.ok());
  EXPECT_FALSE(plain->input_bound);
  EXPECT_TRUE(fed->input_bound);
  EXPECT_DOUBLE_EQ(fed->input_pipeline.seconds(), 0.128);
  const double bytes_prep = 128 * 784 * 4 / 10e9;
  const double copy = plain->input_step.seconds() - bytes_prep;
  EXPECT_NEAR(fed->epoch.step.seconds(), (0.128 + bytes_prep) / 3 + copy, 1e-12);
  EXPECT_NEAR(
      fed->epoch.epoch.seconds(),
      fed->epoch.step.seconds() * 469 + fed->epoch.eval_step.seconds() * fed->epoch.eval_steps,
      1e-9);

  const Machine cpu = CpuMachine("cpu:genoa", "EPYC Genoa (9004)", 8);
  s.input_per_sample = Seconds();
  Result<MachinePrediction> cpu_plain = PredictOnMachine(*model, o, cpu, {}, s);
  s.input_per_sample = Seconds::FromMilliseconds(1);
  Result<MachinePrediction> cpu_fed = PredictOnMachine(*model, o, cpu, {}, s);
  ASSERT_TRUE(cpu_plain.ok() && cpu_fed.ok());
  EXPECT_DOUBLE_EQ(cpu_fed->threads, 5);
  EXPECT_NEAR(cpu_fed->epoch.step.seconds() - cpu_plain->epoch.step.seconds(), 0.0256, 1e-12);
  EXPECT_FALSE(cpu_fed->input_bound);
}

TEST(MemoryTest, OptimizerStateAndLargestBatch) {
  Result<Model> model = LoadZooModel("mnist_mlp");  // 669,706 parameters
  LoweringOptions o{.batch = 128, .optimizer = Optimizer::kAdam};
  Result<TrainingMemory> m = MemoryForTraining(*model, o);
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->weights.value(), 669706.0 * 4);
  EXPECT_DOUBLE_EQ(m->optimizer_state.value(), 2 * 669706.0 * 4);
  Result<int64_t> largest = LargestBatch(*model, o, m->total());
  ASSERT_TRUE(largest.ok());
  EXPECT_NEAR(static_cast<double>(*largest), 128, 1);
}

TEST(MemoryTest, InferenceHoldsWeightsAndTheLargestLayer) {
  Result<Model> model = LoadZooModel("mnist_mlp");
  // At batch 32 the largest layer is dense_1: its input (32 x 784) and output (32 x 512), fp32.
  Result<Bytes> m = MemoryForInference(*model, {.batch = 32});
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->value(), 669706.0 * 4 + (32 * 784 + 32 * 512) * 4.0);
}

}  // namespace
}  // namespace epochcost
