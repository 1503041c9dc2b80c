// Cross-device model: roofline, carried efficiency, USL fit, ring all-reduce (machine effects:
// machine_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "cross_device_util.h"
#include "engine/machine.h"

namespace epochcost {
namespace {

using test_util::Device;
using test_util::MeasuredAt;
using test_util::Sig;

// Times scaled to a GPU of 5 TFLOP/s and 50 GB/s from "Ref GPU" (roofline `r`), which measured
// `ops`.
ScaledTimes ScaledFromRef(const Roofline& r, std::vector<MeasuredOp> ops) {
  const ReferenceDevice ref{"Ref GPU", "2026-01-02", r, std::move(ops)};
  return ScaledTimes(std::make_shared<const ReferenceEfficiencies>(ref),
                     TargetDevice{Device(5, 50, 0), 1, {}});
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

}  // namespace
}  // namespace epochcost
