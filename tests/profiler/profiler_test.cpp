// The profiler: a run of every op kind the CPU backend supports on small shapes, the ATen-like
// kernels and the BLAS probe (no timing is asserted; the timer: timer_test.cpp; the store:
// profile_store_test.cpp).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <set>

#include "engine/lowering.h"
#include "engine/zoo.h"
#include "profiler/cpu/aten_kernels.h"
#include "profiler/cpu/blas_probe.h"
#include "profiler/cpu/element.h"
#include "profiler/cpu/onednn_backend.h"
#include "profiler/cpu/torch_kernels.h"

namespace epochcost::profiler {
namespace {

// A product follows a parallel element-wise pass (GNU OpenMP's idle threads then spin beside
// OpenBLAS's) only where ATen runs one: more than one thread and an mb x ic input or an mb x oc
// output of 32,768 values or more.
TEST(AtenKernelTest, ProductsFollowAParallelPassOnlyWhereATenRunsOne) {
  const int threads = omp_get_max_threads();
  auto has_before = [](int t, const char* line) {
    omp_set_num_threads(t);
    Result<AtenCall> call = AtenKernel(*OpSignature::Parse(line));
    EXPECT_TRUE(call.ok()) << line;
    return call.ok() && call->before != nullptr;
  };
  for (const char* kind : {"ip_fwd", "ip_bwd_data", "ip_bwd_weights"}) {
    const std::string big = std::string(kind) + " dt=f32 aten=1 bias=1 ic=512 mb=128 oc=256";
    const std::string small = std::string(kind) + " dt=f32 aten=1 bias=1 ic=64 mb=32 oc=256";
    EXPECT_TRUE(has_before(2, big.c_str())) << big;       // 32,768 outputs
    EXPECT_FALSE(has_before(1, big.c_str())) << big;      // no one to spin
    EXPECT_FALSE(has_before(2, small.c_str())) << small;  // 8,192: ATen's pass is serial
    // cifar10_cnn's dense layer: 16,384 outputs, but its input is a dropout over 73,728 values
    // (regression: timed without the pass, it was predicted at a third of PyTorch's time).
    const std::string wide = std::string(kind) + " dt=f32 aten=1 bias=1 ic=2304 mb=32 oc=512";
    EXPECT_TRUE(has_before(2, wide.c_str())) << wide;
  }
  EXPECT_FALSE(has_before(2, "dropout_fwd dt=f32 aten=1 n=40000"));
  omp_set_num_threads(threads);
}

// Other ops are timed beside OpenBLAS's polling workers only where it has workers: more than one
// thread. The call runs a product at most every 20 ms, so a second call right away does nothing.
TEST(AtenKernelTest, BlasWorkersPollOnlyAtMoreThanOneThread) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  EXPECT_EQ(BlasWorkersPolling(), nullptr);
  omp_set_num_threads(2);
  std::function<void()> poll = BlasWorkersPolling();
  ASSERT_NE(poll, nullptr);
  poll();
  poll();
  omp_set_num_threads(threads);
}

TEST(AtenKernelTest, NamesOpenBlasKernelsOlderThanTheCpusIsa) {
  // Debian's OpenBLAS 0.3.21 on the Emerald Rapids VM (family 6, model 207) chose "Prescott".
  EXPECT_TRUE(BlasCoreBelowIsa("Prescott", "avx2 fma avx512f avx512_vnni avx512_bf16"));
  EXPECT_TRUE(BlasCoreBelowIsa("SANDYBRIDGE", "avx2 fma"));
  EXPECT_FALSE(BlasCoreBelowIsa("SkylakeX", "avx2 fma avx512f"));
  EXPECT_FALSE(BlasCoreBelowIsa("Haswell", "avx2 fma avx512f"));
  EXPECT_FALSE(BlasCoreBelowIsa("Zen", "avx2 fma"));
  EXPECT_FALSE(BlasCoreBelowIsa("Prescott", "sse4_2"));  // the CPU has nothing better
  EXPECT_FALSE(BlasCoreBelowIsa("", "avx2 fma"));         // not OpenBLAS
}

TEST(AtenKernelTest, NamesTheSystemBlasKernels) {
  std::string core = SystemBlasCore();
  if (core.empty()) GTEST_SKIP() << "the system BLAS is not OpenBLAS or is not installed";
  EXPECT_EQ(core.find(' '), std::string::npos) << core;  // one kernel-set name
}

// A BLAS product is timed in a fresh epochcost-blas-probe process (blas_probe.h).
TEST(BlasProbeTest, TimesAProductInAFreshProcess) {
  const MeasureOptions three{
      .threads = 1, .warmup = 1, .min_repeats = 3, .min_time = Seconds::FromSeconds(0)};
  for (const char* kind : {"ip_fwd", "ip_bwd_data", "ip_bwd_weights"}) {
    const std::string line = std::string(kind) + " dt=f32 aten=1 bias=1 ic=16 mb=8 oc=4";
    Result<Measurement> m = MeasureInFreshProcess(*OpSignature::Parse(line), three);
    ASSERT_TRUE(m.ok()) << line << ": " << m.status().message();
    EXPECT_EQ(m->count, 3) << line;
    EXPECT_GT(m->median.seconds(), 0) << line;
    EXPECT_LE(m->p10.seconds(), m->median.seconds()) << line;
    EXPECT_LE(m->median.seconds(), m->p90.seconds()) << line;
    EXPECT_GT(m->mean.seconds(), 0) << line;  // the probe's fifth figure
  }
}

TEST(BlasProbeTest, PassesOnWhatTheProbeRefused) {
  Result<Measurement> m = MeasureInFreshProcess(
      *OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=16 mb=8 oc=4"), MeasureOptions{});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("epochcost-blas-probe: ip_fwd dt=f32 bias=1 ic=16 mb=8 "
                                      "oc=4: not an aten=1 inner product"),
            std::string::npos)
      << m.status().message();
}

TEST(BlasProbeTest, NamesAProbeItCannotRun) {
  ASSERT_EQ(setenv("EPOCHCOST_BLAS_PROBE", "/nonexistent/epochcost-blas-probe", 1), 0);
  Result<Measurement> m = MeasureInFreshProcess(
      *OpSignature::Parse("ip_fwd dt=f32 aten=1 bias=1 ic=16 mb=8 oc=4"), MeasureOptions{});
  unsetenv("EPOCHCOST_BLAS_PROBE");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(),
            "cannot run /nonexistent/epochcost-blas-probe (No such file or directory); set "
            "EPOCHCOST_BLAS_PROBE to the program built beside epochcost");
}

TEST(BlasProbeTest, RejectsBadArgumentsBeforeTimingAnything) {
  auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), "epochcost-blas-probe");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return BlasProbeMain(static_cast<int>(argv.size()), argv.data());
  };
  const std::string ip = "ip_fwd dt=f32 aten=1 bias=1 ic=16 mb=8 oc=4";
  EXPECT_EQ(run({"1", "1", "3", "0"}), 1);  // no signature
  EXPECT_EQ(run({"0", "1", "3", "0", ip}), 1);
  EXPECT_EQ(run({"two", "1", "3", "0", ip}), 1);
  EXPECT_EQ(run({"1", "-1", "3", "0", ip}), 1);
  EXPECT_EQ(run({"1", "1", "0", "0", ip}), 1);
  EXPECT_EQ(run({"1", "1", "3", "nan", ip}), 1);
  EXPECT_EQ(run({"1", "1", "3", "0", "ip_fwd dt=f32 aten=1 ic=16"}), 1);  // no mb, oc
  EXPECT_EQ(run({"1", "1", "3", "0", "dropout_fwd dt=f32 aten=1 n=40000"}), 1);
}

TEST(CpuBackendTest, RunsEveryOpOfSmallTrainingSteps) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  const MeasureOptions quick{
      .threads = 1, .warmup = 1, .min_repeats = 1, .min_time = Seconds::FromSeconds(0)};
  std::set<OpKind> kinds;
  for (const char* name : {"mnist_cnn", "text_generator_keras", "imdb_bidirectional_lstm"}) {
    Result<Model> m = LoadZooModel(name);
    // Fused RNNs, to run oneDNN's RNN primitive too.
    Result<StepOps> ops =
        Lower(*m, {.batch = 2, .optimizer = Optimizer::kAdam, .rnn = RnnLowering::kFused});
    ASSERT_TRUE(ops.ok());
    for (const StepOp& op : ops->ops) {
      Result<Measurement> t = cpu->Measure(op.signature, quick);
      ASSERT_TRUE(t.ok()) << t.status().message();
      EXPECT_GT(t->median.seconds(), 0);
      kinds.insert(op.signature.kind);
    }
  }
  EXPECT_GE(kinds.size(), 20u);
}

// Frameworks take the gradients of tanh and sigmoid from the forward's output (PyTorch's
// tanh_backward and sigmoid_backward); oneDNN's default variant recomputes them from the input,
// 12x slower for tanh on the development CPU. Regression test for that choice.
TEST(CpuBackendTest, TanhAndSigmoidGradientsReadTheForwardsOutput) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  const MeasureOptions quick{
      .threads = 1, .warmup = 1, .min_repeats = 1, .min_time = Seconds::FromSeconds(0)};
  for (const char* alg : {"tanh", "sigmoid"}) {
    Result<Measurement> t = cpu->Measure(
        *OpSignature::Parse(std::string("eltwise_bwd dt=f32 alg=") + alg + " n=2048"), quick);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->note.rfind("oneDNN ", 0), 0u) << t->note;
    EXPECT_TRUE(t->note.ends_with(", gradient from the forward's output"))
        << alg << ": " << t->note;
  }
  Result<Measurement> relu =
      cpu->Measure(*OpSignature::Parse("eltwise_bwd dt=f32 alg=relu n=2048"), quick);
  ASSERT_TRUE(relu.ok());
  EXPECT_EQ(relu->note.find("output"), std::string::npos) << relu->note;
}

TEST(CpuBackendTest, RunsPyTorchsOwnKernels) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  const MeasureOptions quick{
      .threads = 2, .warmup = 1, .min_repeats = 1, .min_time = Seconds::FromSeconds(0)};
  for (const char* optimizer : {"sgd", "momentum", "rmsprop", "adam", "adamw", "adadelta"}) {
    Result<Measurement> t = cpu->Measure(
        *OpSignature::Parse(std::string("optimizer dt=f32 alg=") + optimizer + " aten=1 n=100"),
        quick);
    ASSERT_TRUE(t.ok()) << t.status().message();
  }
  for (const char* line :
       {"dropout_fwd dt=f32 aten=1 n=40000", "dropout_bwd dt=f32 aten=1 n=40000",
        "ip_fwd dt=f32 aten=1 bias=1 ic=7 mb=3 oc=5",
        "ip_bwd_data dt=f32 aten=1 bias=1 ic=7 mb=3 oc=5",
        "ip_bwd_weights dt=f32 aten=1 bias=0 ic=7 mb=3 oc=5",
        "pool_fwd dt=f32 alg=max aten=1 c=3 ih=5 iw=5 kh=3 kw=3 mb=2 oh=3 ow=3 ph=1 pw=1 sh=2 sw=2",
        "pool_bwd dt=f32 alg=max aten=1 c=3 ih=5 iw=5 kh=3 kw=3 mb=2 oh=3 ow=3 ph=1 pw=1 sh=2 "
        "sw=2"}) {
    Result<Measurement> t = cpu->Measure(*OpSignature::Parse(line), quick);
    ASSERT_TRUE(t.ok()) << line << ": " << t.status().message();
  }
  EXPECT_EQ(cpu->Measure(*OpSignature::Parse("pool_fwd dt=f32 alg=avg aten=1 c=1 ih=2 iw=2 kh=2 "
                                             "kw=2 mb=1 oh=1 ow=1 ph=0 pw=0 sh=2 sw=2"),
                         quick)
                .status()
                .message(),
            "pool_fwd dt=f32 alg=avg aten=1 c=1 ih=2 iw=2 kh=2 kw=2 mb=1 oh=1 ow=1 ph=0 pw=0 sh=2 "
            "sw=2: aten=1 pooling is max pooling only");
  EXPECT_EQ(cpu->Measure(*OpSignature::Parse("optimizer dt=f16 alg=adam aten=1 n=10"), quick)
                .status()
                .message(),
            "optimizer dt=f16 alg=adam aten=1 n=10: the ATen-like kernels run in f32 and bf16 "
            "only");
  // (Products are timed in the BLAS probe's process, which names itself before the reason.)
  const std::string product =
      cpu->Measure(*OpSignature::Parse("ip_fwd dt=bf16 aten=1 bias=1 ic=7 mb=3 oc=5"), quick)
          .status()
          .message();
  EXPECT_TRUE(product.ends_with(
      "ip_fwd dt=bf16 aten=1 bias=1 ic=7 mb=3 oc=5: aten=1 products are the system BLAS's sgemm, "
      "f32 only"))
      << product;
  EXPECT_EQ(cpu->Measure(*OpSignature::Parse("optimizer dt=f32 alg=lion aten=1 n=10"), quick)
                .status()
                .message(),
            "optimizer dt=f32 alg=lion aten=1 n=10: no such torch.optim update");
}

TEST(CpuBackendTest, BadThreadsAndUnsupportedTypes) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  OpSignature sig = *OpSignature::Parse("optimizer dt=f16 alg=adam n=10");
  EXPECT_EQ(cpu->Measure(sig, {.threads = 0}).status().message(),
            "threads must be positive, got 0");
  EXPECT_EQ(cpu->Measure(sig, {}).status().message(),
            "optimizer dt=f16 alg=adam n=10: the project's own kernels run in f32 and bf16 only");
}

// bf16 training on a CPU (PyTorch with the whole model in bf16): the project's own kernels and
// the ATen-like ones but the products run in bf16 too.
TEST(CpuBackendTest, RunsItsOwnAndATenKernelsInBf16) {
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  const MeasureOptions quick{
      .threads = 1, .warmup = 1, .min_repeats = 1, .min_time = Seconds::FromSeconds(0)};
  for (const char* line :
       {"embedding_fwd dt=bf16 dim=8 rows=10 vocab=50",
        "embedding_bwd dt=bf16 dim=8 rows=10 vocab=50", "dropout_fwd dt=bf16 n=100",
        "dropout_bwd dt=bf16 n=100", "loss dt=bf16 alg=categorical_crossentropy c=10 rows=4",
        "reduce dt=bf16 alg=mean n=64 out=8", "optimizer dt=bf16 alg=sgd n=100",
        "optimizer dt=bf16 alg=momentum n=100", "optimizer dt=bf16 alg=rmsprop n=100",
        "optimizer dt=bf16 alg=adam n=100", "optimizer dt=bf16 alg=adamw n=100",
        "optimizer dt=bf16 alg=adadelta n=100",
        "optimizer dt=bf16 alg=adam aten=1 n=100", "dropout_fwd dt=bf16 aten=1 n=100",
        "dropout_bwd dt=bf16 aten=1 n=100",
        "pool_fwd dt=bf16 alg=max aten=1 c=3 ih=5 iw=5 kh=3 kw=3 mb=2 oh=3 ow=3 ph=1 pw=1 sh=2 "
        "sw=2",
        "pool_bwd dt=bf16 alg=max aten=1 c=3 ih=5 iw=5 kh=3 kw=3 mb=2 oh=3 ow=3 ph=1 pw=1 sh=2 "
        "sw=2"}) {
    Result<Measurement> t = cpu->Measure(*OpSignature::Parse(line), quick);
    ASSERT_TRUE(t.ok()) << line << ": " << t.status().message();
  }
}

// nn.LSTM's and nn.GRU's layer through the module: the backward kernel runs back the graph the
// forward kernel left (inside a replayed step) or, timed alone, one its `before` made; a forward
// pass for evaluation records nothing and needs no readying.
TEST(TorchKernelTest, TimesPyTorchsRecurrentLayerWhole) {
  const std::string dims = " dirs=2 dx=1 hc=8 ic=4 mb=3 seq=0 t=5";
  Result<TorchCall> fwd = TorchKernel(*OpSignature::Parse("rnn_fwd dt=f32 alg=lstm aten=1" + dims));
  if (!fwd.ok()) GTEST_SKIP() << "skipped, no ATen module: " << fwd.status().message();
  Result<TorchCall> bwd = TorchKernel(*OpSignature::Parse("rnn_bwd dt=f32 alg=lstm aten=1" + dims));
  ASSERT_TRUE(bwd.ok()) << bwd.status().message();
  ASSERT_TRUE(fwd->before && bwd->before);
  fwd->run();  // leaves its graph
  bwd->run();  // takes it
  bwd->before();
  bwd->run();
  fwd->run();
  fwd->before();  // drops the graph no backward call took
  for (const char* line :
       {"rnn_fwd dt=f32 alg=gru aten=1 dirs=1 dx=0 hc=8 ic=4 mb=3 seq=1 t=5",
        "rnn_bwd dt=f32 alg=gru aten=1 dirs=1 dx=0 hc=8 ic=4 mb=3 seq=1 t=5",
        "rnn_fwd dt=bf16 alg=lstm aten=1 dirs=1 dx=1 hc=8 ic=4 mb=3 seq=0 t=5",
        // Under CPU autocast (fp32 tensors, the gate products cast call by call).
        "rnn_fwd dt=bf16 alg=lstm amp=1 aten=1 dirs=2 dx=1 hc=8 ic=4 mb=3 seq=0 t=5",
        "rnn_bwd dt=bf16 alg=lstm amp=1 aten=1 dirs=2 dx=1 hc=8 ic=4 mb=3 seq=0 t=5"}) {
    Result<TorchCall> call = TorchKernel(*OpSignature::Parse(line));
    ASSERT_TRUE(call.ok()) << line << ": " << call.status().message();
    if (call->before) call->before();
    call->run();
  }
  Result<TorchCall> infer = TorchKernel(*OpSignature::Parse(
      "rnn_fwd dt=f32 alg=lstm aten=1 dirs=1 hc=8 ic=4 infer=1 mb=3 seq=0 t=5"));
  ASSERT_TRUE(infer.ok()) << infer.status().message();
  EXPECT_FALSE(infer->before);
  infer->run();
  EXPECT_FALSE(
      TorchKernel(*OpSignature::Parse("rnn_bwd dt=f32 alg=lstm aten=1 hc=8 ic=4 infer=1 mb=3 t=5"))
          .ok());
  // The module is not asked for oneDNN's fused layer (no aten=1).
  EXPECT_FALSE(TorchTimes(*OpSignature::Parse("rnn_fwd dt=f32 alg=lstm hc=8 ic=4 mb=3 t=5")));
}

// amp=1 names a recurrent layer under CPU autocast to bf16; on anything else it is a bad
// signature (an error, whether or not the module is built), not one to time as something else.
TEST(TorchKernelTest, AutocastIsARecurrentLayersInBf16) {
  for (const char* line : {"rnn_fwd dt=f32 alg=lstm amp=1 aten=1 dirs=1 dx=0 hc=8 ic=4 mb=3 t=5",
                           "embedding_fwd dt=bf16 amp=1 dim=4 rows=6 vocab=10"}) {
    Result<TorchCall> call = TorchKernel(*OpSignature::Parse(line));
    ASSERT_FALSE(call.ok()) << line;
    EXPECT_EQ(call.status().code(), StatusCode::kInvalidArgument) << line;
    EXPECT_NE(call.status().message().find("amp=1 is a recurrent layer under CPU autocast"),
              std::string::npos)
        << call.status().message();
  }
}

// bf16 is the upper half of an f32, rounded to nearest with ties to even, as c10::BFloat16 and
// oneDNN round.
// The ATen module times what PyTorch runs for embeddings and torch.optim's updates (aten=1), in
// f32 and bf16, and nothing else; the CPU backend then notes "ATen (libtorch VERSION)".
TEST(TorchKernelTest, TimesEmbeddingsAndUpdatesWithATenWhereBuilt) {
  const OpSignature gradient = *OpSignature::Parse("embedding_bwd dt=f32 dim=8 rows=64 vocab=100");
  Result<TorchCall> probe = TorchKernel(gradient);
  if (!probe.ok()) GTEST_SKIP() << "skipped, no ATen module: " << probe.status().message();
  EXPECT_FALSE(TorchTimes(*OpSignature::Parse("optimizer dt=f32 alg=adam n=100")));  // oneDNN's
  EXPECT_FALSE(TorchTimes(*OpSignature::Parse("eltwise_fwd dt=f32 alg=relu n=100")));
  EXPECT_FALSE(TorchKernel(*OpSignature::Parse("eltwise_fwd dt=f32 alg=relu n=100")).ok());
  std::vector<std::string> lines = {"embedding_fwd dt=f32 dim=8 rows=64 vocab=100",
                                    "embedding_bwd dt=bf16 dim=8 rows=64 vocab=100"};
  for (const char* alg : {"sgd", "momentum", "rmsprop", "adam", "adamw", "adadelta"})
    for (const char* dt : {"f32", "bf16"})
      lines.push_back(std::string("optimizer dt=") + dt + " alg=" + alg + " aten=1 n=1000");
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    for (const std::string& line : lines) {
      const OpSignature sig = *OpSignature::Parse(line);
      EXPECT_TRUE(TorchTimes(sig)) << line;
      Result<TorchCall> call = TorchKernel(sig);
      ASSERT_TRUE(call.ok()) << line << ": " << call.status().message();
      EXPECT_FALSE(call->before) << line;  // nothing to ready
      call->run();
      call->run();
      // ATen keeps the thread count the profiler set.
      EXPECT_EQ(omp_get_max_threads(), threads) << line;
    }
  }
  EXPECT_FALSE(TorchKernel(*OpSignature::Parse("optimizer dt=f32 alg=lamb aten=1 n=10")).ok());
  EXPECT_EQ(TorchNote().rfind("ATen (libtorch ", 0), 0u) << TorchNote();
  std::unique_ptr<Backend> cpu = MakeCpuBackend();
  Result<Measurement> m =
      cpu->Measure(gradient, {.threads = 1, .min_time = Seconds::FromMilliseconds(1)});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->note, TorchNote());
}

TEST(ElementTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(FromFloat<BFloat16>(1.0f).bits, 0x3f80);
  EXPECT_EQ(ToFloat(FromFloat<BFloat16>(-2.5f)), -2.5f);
  EXPECT_EQ(ToFloat(BFloat16{0x3f81}), 1.0078125f);  // 1 + 2^-7, the next bf16 above 1
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even one, 1.
  EXPECT_EQ(FromFloat<BFloat16>(1.00390625f).bits, 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
  EXPECT_EQ(FromFloat<BFloat16>(1.01171875f).bits, 0x3f82);
  // The next f32 above the half-way point rounds up.
  EXPECT_EQ(FromFloat<BFloat16>(std::nextafter(1.00390625f, 2.f)).bits, 0x3f81);
  EXPECT_EQ(FromFloat<float>(0.1f), 0.1f);
}

}  // namespace
}  // namespace epochcost::profiler
