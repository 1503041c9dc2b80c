// The GPU backend: every op kind the lowering emits runs and gives ordered statistics, in each
// precision. Without a GPU (or without the backend in this build) the tests skip and say why.
#include <gtest/gtest.h>

#include "profiler/gpu/gpu_backend.h"
#include "profiler/gpu/rnn_algo.h"

namespace epochcost::profiler {
namespace {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Backend>> b = MakeGpuBackend();
    if (!b.ok()) GTEST_SKIP() << "skipped, no GPU: " << b.status().message();
    backend_ = std::move(*b);
  }
  void ExpectRuns(const std::string& line) {
    Result<OpSignature> sig = OpSignature::Parse(line);
    ASSERT_TRUE(sig.ok()) << sig.status().message();
    Result<Measurement> m = backend_->Measure(
        *sig, {.warmup = 1, .min_repeats = 3, .min_time = Seconds::FromMilliseconds(1)});
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_GT(m->median.seconds(), 0) << line;
    EXPECT_LE(m->p10.seconds(), m->median.seconds()) << line;
    EXPECT_LE(m->median.seconds(), m->p90.seconds()) << line;
    EXPECT_GE(m->count, 3) << line;
    // The host's time to enqueue one call: measured, and below a second.
    EXPECT_GT(m->host.seconds(), 0) << line;
    EXPECT_LT(m->host.seconds(), 1) << line;
  }
  std::unique_ptr<Backend> backend_;
};

// PyTorch's get_algo (aten/src/ATen/native/cudnn/RNN.cpp), case by case; runs without a GPU.
TEST(RnnAlgoTest, PicksWhatPyTorchPicks) {
  const GpuArch h100{9, 0, 132}, a100{8, 0, 108}, a10{8, 6, 72}, t4{7, 5, 40}, v100{7, 0, 80};
  // The zoo's LSTMs: the bi-LSTM (32 x 64, t = 100) and lstm_text_generation (128 x 128, t = 40).
  const RnnLayer bilstm{.hidden = 64, .input = 128, .directions = 2, .batch = 32, .steps = 100};
  const RnnLayer textgen{.hidden = 128, .input = 57, .batch = 128, .steps = 40};
  for (bool forward : {true, false}) {
    EXPECT_EQ(PyTorchRnnAlgo(bilstm, h100, forward), RnnAlgo::kPersistStaticSmallH);
    EXPECT_EQ(PyTorchRnnAlgo(textgen, t4, forward), RnnAlgo::kPersistStaticSmallH);
  }
  // Hidden 160: small-hidden forward (<= 192), not backward (<= 128).
  const RnnLayer h160{.hidden = 160, .input = 64, .batch = 32, .steps = 50};
  EXPECT_EQ(PyTorchRnnAlgo(h160, h100, true), RnnAlgo::kPersistStaticSmallH);
  EXPECT_EQ(PyTorchRnnAlgo(h160, h100, false), RnnAlgo::kStandard);
  // Larger fp16 LSTMs: persistent where the shape and the GPU allow it.
  RnnLayer big{.hidden = 256, .input = 256, .batch = 64, .steps = 40, .fp16 = true};
  EXPECT_EQ(PyTorchRnnAlgo(big, a100, false), RnnAlgo::kPersistStatic);
  EXPECT_EQ(PyTorchRnnAlgo(big, h100, true), RnnAlgo::kPersistStatic);
  EXPECT_EQ(PyTorchRnnAlgo(big, v100, true), RnnAlgo::kPersistStatic);
  EXPECT_EQ(PyTorchRnnAlgo(big, a10, true), RnnAlgo::kStandard);  // sm_86 excluded
  EXPECT_EQ(PyTorchRnnAlgo(big, t4, true), RnnAlgo::kStandard);   // Turing excluded
  RnnLayer other = big;
  other.fp16 = false;  // fp32 and bf16: standard
  EXPECT_EQ(PyTorchRnnAlgo(other, a100, true), RnnAlgo::kStandard);
  other = big;
  other.gru = true;  // persistent GRUs only on Volta
  EXPECT_EQ(PyTorchRnnAlgo(other, a100, true), RnnAlgo::kStandard);
  EXPECT_EQ(PyTorchRnnAlgo(other, v100, true), RnnAlgo::kPersistStatic);
  other = big;
  other.directions = 2;
  EXPECT_EQ(PyTorchRnnAlgo(other, a100, true), RnnAlgo::kStandard);
  other = big;
  other.batch = 136;  // over 128
  EXPECT_EQ(PyTorchRnnAlgo(other, a100, true), RnnAlgo::kStandard);
  other.batch = 80;  // Volta's excluded batch
  EXPECT_EQ(PyTorchRnnAlgo(other, v100, true), RnnAlgo::kStandard);
  EXPECT_EQ(PyTorchRnnAlgo(other, a100, true), RnnAlgo::kPersistStatic);
  other = big;
  other.input = 200;  // not a multiple of 128
  EXPECT_EQ(PyTorchRnnAlgo(other, a100, true), RnnAlgo::kStandard);
}

TEST(GpuBackendTest, WithoutDeviceSaysWhyInOneLine) {
  Result<std::unique_ptr<Backend>> b = MakeGpuBackend();
  if (b.ok()) GTEST_SKIP() << "skipped: this machine has a GPU";
  EXPECT_EQ(b.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(b.status().message().find('\n'), std::string::npos);
  EXPECT_FALSE(LocalGpu().ok());
}

TEST_F(GpuTest, EveryOpKindRunsInEveryPrecision) {
  const char* kinds[] = {
      "conv_fwd mb=8 g=1 ic=16 oc=32 ih=14 iw=14 oh=14 ow=14 kh=3 kw=3 ph=1 pw=1 sh=1 sw=1",
      "conv_bwd_data mb=8 g=1 ic=16 oc=32 ih=14 iw=14 oh=14 ow=14 kh=3 kw=3 ph=1 pw=1 sh=1 sw=1",
      "conv_bwd_weights mb=8 g=1 ic=16 oc=32 ih=14 iw=14 oh=14 ow=14 kh=3 kw=3 ph=1 pw=1",
      "conv_fwd mb=4 g=1 ic=8 oc=8 iw=100 ow=98 kw=3 pw=0 sw=1",
      "ip_fwd bias=1 ic=256 mb=64 oc=128",
      "ip_bwd_data bias=1 ic=256 mb=64 oc=128",
      "ip_bwd_weights bias=1 ic=256 mb=64 oc=128",
      "matmul b=12 k=64 m=128 n=128",
      "pool_fwd alg=max mb=8 c=16 ih=28 iw=28 oh=14 ow=14 kh=2 kw=2 sh=2 sw=2 ph=0 pw=0",
      "pool_bwd alg=avg mb=8 c=16 ih=28 iw=28 oh=14 ow=14 kh=2 kw=2 sh=2 sw=2 ph=0 pw=0",
      "bnorm_fwd c=16 mb=8 sp=196",
      "bnorm_bwd c=16 mb=8 sp=196",
      "bnorm_fwd aten=1 c=16 mb=8 sp=196",
      "bnorm_fwd c=64 mb=8 nhwc=1 sp=196",  // channels-last: cuDNN's persistent NHWC mode
      "bnorm_bwd c=64 mb=8 nhwc=1 sp=196",
      "conv_fwd mb=8 g=1 ic=64 oc=64 ih=14 iw=14 oh=14 ow=14 kh=3 kw=3 ph=1 pw=1 sh=1 sw=1 nhwc=1",
      "conv_bwd_data mb=8 g=1 ic=64 oc=64 ih=14 iw=14 oh=14 ow=14 kh=3 kw=3 ph=1 pw=1 nhwc=1",
      "conv_bwd_weights mb=8 g=1 ic=64 oc=64 ih=14 iw=14 oh=14 ow=14 kh=3 kw=3 ph=1 pw=1 nhwc=1",
      "pool_bwd alg=max mb=8 c=64 ih=28 iw=28 oh=14 ow=14 kh=3 kw=3 sh=2 sw=2 ph=1 pw=1 nhwc=1",
      "bnorm_bwd aten=1 c=16 mb=8 sp=196",
      "lnorm_fwd c=768 rows=256",
      "lnorm_bwd c=768 rows=256",
      "eltwise_fwd alg=gelu n=100000",
      "eltwise_bwd alg=relu n=100000",
      "eltwise_fwd alg=scale n=1000",
      "softmax_fwd c=128 rows=512",
      "softmax_bwd c=128 rows=512",
      "binary alg=add n=100000",
      "concat n=100000",
      "reorder n=100000",
      "reorder alg=from_fp32 n=100001",  // autocast's cast
      "reduce alg=mean n=100000 out=100",
      "dropout_fwd n=100000",
      "dropout_bwd n=100000",
      "rnn_fwd alg=lstm dirs=2 hc=64 ic=32 mb=16 t=20",
      "rnn_bwd alg=lstm dirs=2 hc=64 ic=32 mb=16 t=20",
      "rnn_bwd alg=gru dirs=1 hc=64 ic=32 mb=16 t=20",
      // PyTorch's other algorithm picks (rnn_algo.h): persistent static for fp16; small-hidden
      // forward but standard backward at hidden 160.
      "rnn_fwd alg=lstm dirs=1 hc=256 ic=256 mb=64 t=40",
      "rnn_bwd alg=lstm dirs=1 hc=256 ic=256 mb=64 t=40",
      "rnn_bwd alg=lstm dirs=1 hc=160 ic=64 mb=32 t=50",
      "embedding_fwd dim=64 rows=512 vocab=1000",
      "embedding_bwd dim=64 rows=512 vocab=1000",
      "loss alg=softmax_cross_entropy c=10 rows=128",
      "loss alg=binary_crossentropy c=1 rows=128",
      "optimizer alg=adam n=100000",
      "optimizer alg=adamw n=100000",
      "optimizer alg=adadelta n=100000",
  };
  for (const char* dt : {"f32", "tf32", "bf16", "f16"})
    for (const char* k : kinds) {
      std::string line(k);
      line.insert(line.find(' '), std::string(" dt=") + dt);
      if (std::string(dt) == "bf16" && line.rfind("rnn_", 0) == 0) continue;  // below
      // cuDNN's persistent NHWC batch norm takes fp32 and fp16 (PyTorch's channels-last recipes).
      if (std::string(dt) == "bf16" && line.find("bnorm") == 0 &&
          line.find("nhwc") != std::string::npos)
        continue;
      ExpectRuns(line);
    }
}

TEST_F(GpuTest, Bf16RnnRunsOrSaysUnsupported) {
  Result<Measurement> m = backend_->Measure(
      *OpSignature::Parse("rnn_fwd dt=bf16 alg=lstm dirs=1 hc=64 ic=32 mb=16 t=20"),
      {.warmup = 1, .min_repeats = 3, .min_time = Seconds::FromMilliseconds(1)});
  if (!m.ok()) {
    EXPECT_EQ(m.status().code(), StatusCode::kUnsupported) << m.status().message();
  }
}

TEST_F(GpuTest, FingerprintAndMicrobenchmarks) {
  Result<Fingerprint> f = LocalGpu();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kind, "gpu");
  EXPECT_GT(f->cores, 0);
  EXPECT_NE(f->library.find("cuDNN"), std::string::npos);
  Result<std::vector<Microbenchmark>> bs = RunGpuMicrobenchmarks("2026-01-01");
  ASSERT_TRUE(bs.ok()) << bs.status().message();
  for (const char* name : {"peak_gemm_flops", "peak_gemm_flops_bf16", "copy_bytes_per_second",
                           "h2d_bytes_per_second", "dispatch_seconds"}) {
    bool found = false;
    for (const auto& b : *bs) found = found || (b.name == name && b.value > 0);
    EXPECT_TRUE(found) << name;
  }
}

TEST_F(GpuTest, UnknownLossIsUnsupported) {
  Result<Measurement> m =
      backend_->Measure(*OpSignature::Parse("loss dt=f32 alg=hinge c=10 rows=8"), {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace epochcost::profiler
