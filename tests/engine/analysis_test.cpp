// Per-step totals: batch scaling, bytes by precision, activation memory kept for backward.
#include "engine/analysis.h"

#include <gtest/gtest.h>

#include "engine/zoo.h"

namespace epochcost {
namespace {

TEST(AnalysisTest, MnistMlpByHand) {
  Result<Model> m = LoadZooModel("mnist_mlp");
  ASSERT_TRUE(m.ok());
  Result<ModelReport> r = Analyze(*m, {.batch = 128, .precision = DType::kFloat32});
  ASSERT_TRUE(r.ok());
  const double b = 128;
  const double macs = 784.0 * 512 + 512.0 * 512 + 512.0 * 10;
  // Forward: 2 x MACs + bias adds + relu (1/elem) x 1024 + softmax (5/elem) x 10 + dropout
  // (1/elem) x 1024 + loss (3/elem) x 10, per sample.
  const double fwd = 2 * macs + (512 + 512 + 10) + 1024 + 50 + 1024 + 30;
  EXPECT_DOUBLE_EQ(r->total.fwd.flops(), b * fwd);
  EXPECT_EQ(r->total.params(), 669706);
  EXPECT_DOUBLE_EQ(r->total.weight_bytes.bytes(), 669706.0 * 4);
  // Kept for backward, per sample: the input (784, read by dense_1's weight gradient), each relu
  // output (512 x 2, read by the relu backward), each dropout output (512 x 2, read by the next
  // dense), both dropout masks (1 byte x 1024) and the softmax output (10). In bytes:
  const double saved = 4 * (784 + 1024 + 1024 + 10) + 1024;
  EXPECT_DOUBLE_EQ(r->total.saved_bytes.bytes(), b * saved);
}

TEST(AnalysisTest, HalfPrecisionHalvesFloatBytes) {
  Result<Model> m = LoadZooModel("mnist_cnn");
  ASSERT_TRUE(m.ok());
  Result<ModelReport> fp32 = Analyze(*m, {.batch = 32, .precision = DType::kFloat32});
  Result<ModelReport> bf16 = Analyze(*m, {.batch = 32, .precision = DType::kBFloat16});
  EXPECT_DOUBLE_EQ(bf16->total.weight_bytes.bytes() * 2, fp32->total.weight_bytes.bytes());
  EXPECT_DOUBLE_EQ(bf16->total.fwd.flops(), fp32->total.fwd.flops());
}

TEST(AnalysisTest, FlopsScaleLinearlyWithBatch) {
  Result<Model> m = LoadZooModel("cifar10_cnn");
  ASSERT_TRUE(m.ok());
  Result<ModelReport> one = Analyze(*m, {.batch = 1});
  Result<ModelReport> many = Analyze(*m, {.batch = 32});
  EXPECT_DOUBLE_EQ(many->total.fwd.flops(), 32 * one->total.fwd.flops());
  EXPECT_DOUBLE_EQ(many->total.weight_bytes.bytes(), one->total.weight_bytes.bytes());
}

TEST(AnalysisTest, FlattenIsAViewSoItsInputIsKept) {
  Result<Model> m = LoadZooModel("mnist_cnn");
  ASSERT_TRUE(m.ok());
  Result<ModelReport> r = Analyze(*m, {.batch = 1});
  const auto& layers = r->layers;
  auto find = [&](const std::string& name) {
    for (const auto& l : layers)
      if (l.name == name) return l;
    return LayerReport{};
  };
  EXPECT_DOUBLE_EQ(find("flatten_1").saved_bytes.bytes(), 0);
  EXPECT_DOUBLE_EQ(find("flatten_1").output_bytes.bytes(), 0);
  // dropout_1's output (12x12x64 floats) is what dense_1 reads through the flatten view; its
  // 1-byte mask is kept too.
  EXPECT_DOUBLE_EQ(find("dropout_1").saved_bytes.bytes(), 9216.0 * 4 + 9216);
}

TEST(AnalysisTest, RejectsBadBatchAndIntegerPrecision) {
  Result<Model> m = LoadZooModel("mnist_mlp");
  EXPECT_EQ(Analyze(*m, {.batch = 0}).status().message(),
            "batch must be from 1 to 16777216, got 0");
  // An absurd batch is refused, not overflowed (found by giving --batch 100000000000).
  EXPECT_EQ(Analyze(*m, {.batch = kMaxBatch + 1}).status().message(),
            "batch must be from 1 to 16777216, got 16777217");
  EXPECT_FALSE(Analyze(*m, {.batch = 1, .precision = DType::kInt32}).ok());
}

}  // namespace
}  // namespace epochcost
