// A whole machine's prediction (engine/machine.h): data-parallel GPUs, the CPU a CPU is scaled
// from, precisions and vector sets a machine lacks, calls on one core, calibrations, the input
// pipeline, and memory.
#include "engine/machine.h"

#include <gtest/gtest.h>

#include "cross_device_util.h"
#include "engine/lowering_options.h"
#include "engine/memory.h"
#include "engine/zoo.h"

namespace epochcost {
namespace {

using test_util::CpuMachine;
using test_util::Device;
using test_util::GpuMachine;
using test_util::MeasuredAt;

// The cache keys a step by every lowering option: the same model lowered with its global average
// pooling as a mean and as a pooling is two steps (a prediction on a measured CPU asks for both,
// cli/prediction.cpp, and must not get the first for the second).
TEST(LoweringCacheTest, EveryOptionIsPartOfTheKey) {
  Result<Model> model = LoadZooModel("imdb_fasttext");
  ASSERT_TRUE(model.ok());
  LoweringCache cache;
  LoweringOptions o{.batch = 32, .optimizer = Optimizer::kAdam, .mean_global_pool = true};
  Result<const LoweredStep*> mean = cache.Get(*model, o);
  o.mean_global_pool = false;
  Result<const LoweredStep*> pooled = cache.Get(*model, o);
  ASSERT_TRUE(mean.ok() && pooled.ok());
  EXPECT_NE(*mean, *pooled);
  auto has = [](const LoweredStep& s, OpKind kind) {
    for (const StepOp& op : s.train.ops)
      if (op.signature.kind == kind) return true;
    return false;
  };
  EXPECT_TRUE(has(**mean, OpKind::kReduce));
  EXPECT_FALSE(has(**mean, OpKind::kPoolFwd));
  EXPECT_TRUE(has(**pooled, OpKind::kPoolFwd));
  EXPECT_EQ(*cache.Get(*model, o), *pooled);  // asked again: the same step, not lowered again
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
  o.optimizer = Optimizer::kAdamw;  // Adam's two moments; the decay keeps no state
  EXPECT_DOUBLE_EQ(MemoryForTraining(*model, o)->optimizer_state.value(), 2 * 669706.0 * 4);
  o.optimizer = Optimizer::kAdam;
  Result<int64_t> largest = LargestBatch(*model, o, m->total());
  ASSERT_TRUE(largest.ok());
  EXPECT_NEAR(static_cast<double>(*largest), 128, 1);
}

// What `models show` prints as training memory: the same terms as MemoryForTraining's, without the
// workspace, which depends on the ops a machine runs.
TEST(MemoryTest, StoredForTrainingIsTrainingMemoryWithoutTheWorkspace) {
  Result<Model> model = LoadZooModel("mnist_mlp");  // 669,706 parameters, all trainable
  LoweringOptions o{.batch = 128, .optimizer = Optimizer::kAdamw};
  Result<ModelReport> report = Analyze(*model, {.batch = 128});
  ASSERT_TRUE(report.ok());
  const TrainingMemory stored = StoredForTraining(*report, o);
  EXPECT_DOUBLE_EQ(stored.weights.value(), 669706.0 * 4);
  EXPECT_DOUBLE_EQ(stored.gradients.value(), 669706.0 * 4);
  EXPECT_DOUBLE_EQ(stored.optimizer_state.value(), 2 * 669706.0 * 4);
  EXPECT_DOUBLE_EQ(stored.activations.value(), report->total.saved_bytes.value());
  EXPECT_DOUBLE_EQ(stored.workspace.value(), 0);
  Result<TrainingMemory> full = MemoryForTraining(*model, o);
  ASSERT_TRUE(full.ok());
  EXPECT_DOUBLE_EQ(full->total().value(), stored.total().value() + full->workspace.value());
  // Autocast: fp32 weights and gradients, and a 16-bit copy of the weights.
  o.amp = true;
  o.precision = DType::kFloat16;
  EXPECT_DOUBLE_EQ(StoredForTraining(*report, o).weights.value(), 669706.0 * (4 + 2));
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
