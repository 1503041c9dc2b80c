// Exact shapes, parameters and FLOPs of single layers against hand-computed numbers.
#include "engine/layer_rules.h"

#include <gtest/gtest.h>

namespace epochcost {
namespace {

LayerSpec Layer(LayerKind kind) {
  LayerSpec l;
  l.name = "x";
  l.kind = kind;
  return l;
}

TEST(LayerRulesTest, DenseCountsMultiplyAddAsTwoFlops) {
  LayerSpec l = Layer(LayerKind::kDense);
  l.units = 512;
  const Shape in{{784}};
  Result<Shape> out = InferShape(l, {in});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->dims, (std::vector<int64_t>{512}));
  LayerCounts c = CountLayer(l, {in}, *out);
  EXPECT_EQ(c.trainable_params, 784 * 512 + 512);
  EXPECT_DOUBLE_EQ(c.fwd_flops, 2.0 * 784 * 512 + 512);  // MACs x 2 + bias adds
  EXPECT_DOUBLE_EQ(c.bwd_data_flops, 2.0 * 784 * 512);
  EXPECT_DOUBLE_EQ(c.bwd_weight_flops, 2.0 * 784 * 512 + 512);
  EXPECT_TRUE(c.saves_inputs);
}

TEST(LayerRulesTest, DenseOverSequenceIsTimeDistributed) {
  LayerSpec l = Layer(LayerKind::kDense);
  l.units = 10000;
  const Shape in{{35, 650}};
  Result<Shape> out = InferShape(l, {in});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->dims, (std::vector<int64_t>{35, 10000}));
  LayerCounts c = CountLayer(l, {in}, *out);
  EXPECT_EQ(c.trainable_params, 6510000);
  EXPECT_DOUBLE_EQ(c.fwd_flops, 2.0 * 35 * 650 * 10000 + 35 * 10000);
}

TEST(LayerRulesTest, ConvValidAndSamePadding) {
  LayerSpec l = Layer(LayerKind::kConv2D);
  l.units = 32;
  l.kernel = {3, 3};
  const Shape in{{28, 28, 1}};
  Result<Shape> valid = InferShape(l, {in});
  ASSERT_TRUE(valid.ok());
  EXPECT_EQ(valid->dims, (std::vector<int64_t>{26, 26, 32}));
  l.padding = Padding::kSame;
  l.strides = {2, 2};
  Result<Shape> same = InferShape(l, {in});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->dims, (std::vector<int64_t>{14, 14, 32}));  // ceil(28 / 2)
}

TEST(LayerRulesTest, ConvFlopsAndParams) {
  // mnist_cnn conv2: 3x3x32 -> 64 over 24x24 outputs.
  LayerSpec l = Layer(LayerKind::kConv2D);
  l.units = 64;
  l.kernel = {3, 3};
  const Shape in{{26, 26, 32}};
  Result<Shape> out = InferShape(l, {in});
  ASSERT_TRUE(out.ok());
  LayerCounts c = CountLayer(l, {in}, *out);
  EXPECT_EQ(c.trainable_params, 3 * 3 * 32 * 64 + 64);
  const double macs = 24.0 * 24 * 64 * 3 * 3 * 32;  // 10.6 M, as published-models.md says
  EXPECT_DOUBLE_EQ(c.fwd_flops, 2 * macs + 24.0 * 24 * 64);
  EXPECT_DOUBLE_EQ(c.bwd_data_flops, 2 * macs);
}

TEST(LayerRulesTest, DilationAndExplicitPadding) {
  LayerSpec l = Layer(LayerKind::kConv1D);
  l.units = 8;
  l.kernel = {3};
  l.dilation = {2};
  l.padding = Padding::kExplicit;
  l.pads = {4, 0};  // causal: (k - 1) x d on the left
  Result<Shape> out = InferShape(l, {Shape{{100, 4}}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->dims, (std::vector<int64_t>{100, 8}));
}

TEST(LayerRulesTest, GroupedDepthwiseAndSeparable) {
  LayerSpec g = Layer(LayerKind::kConv2D);
  g.units = 64;
  g.kernel = {3, 3};
  g.groups = 4;
  g.padding = Padding::kSame;
  const Shape in{{8, 8, 32}};
  LayerCounts cg = CountLayer(g, {in}, *InferShape(g, {in}));
  EXPECT_EQ(cg.trainable_params, 3 * 3 * (32 / 4) * 64 + 64);

  LayerSpec d = Layer(LayerKind::kDepthwiseConv2D);
  d.kernel = {3, 3};
  d.padding = Padding::kSame;
  d.use_bias = false;
  d.depth_multiplier = 2;
  Result<Shape> dout = InferShape(d, {in});
  EXPECT_EQ(dout->dims, (std::vector<int64_t>{8, 8, 64}));
  LayerCounts cd = CountLayer(d, {in}, *dout);
  EXPECT_EQ(cd.trainable_params, 3 * 3 * 32 * 2);
  EXPECT_DOUBLE_EQ(cd.fwd_flops, 2.0 * 8 * 8 * 64 * 9);

  LayerSpec s = Layer(LayerKind::kSeparableConv2D);
  s.units = 16;
  s.kernel = {5, 5};
  s.padding = Padding::kSame;
  s.use_bias = false;
  LayerCounts cs = CountLayer(s, {in}, *InferShape(s, {in}));
  EXPECT_EQ(cs.trainable_params, 5 * 5 * 32 + 32 * 16);
  EXPECT_DOUBLE_EQ(cs.fwd_flops, 2.0 * (8 * 8 * 32 * 25 + 8 * 8 * 32 * 16));
}

TEST(LayerRulesTest, KerasLstmAndPyTorchLstmBiases) {
  LayerSpec l = Layer(LayerKind::kLstm);
  l.units = 128;
  const Shape in{{40, 57}};
  Result<Shape> out = InferShape(l, {in});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->dims, (std::vector<int64_t>{128}));
  // Keras: 4 x (128 x (57 + 128) + 128) = 95,232 (published-models.md 2.6).
  EXPECT_EQ(CountLayer(l, {in}, *out).trainable_params, 95232);
  l.bias_sets = 2;  // PyTorch keeps b_ih and b_hh
  EXPECT_EQ(CountLayer(l, {in}, *out).trainable_params, 95232 + 512);
  // Forward: 40 steps x (2 x 4 x 128 x 185 MACs + 512 bias + 24 x 128 cell).
  l.bias_sets = 1;
  EXPECT_DOUBLE_EQ(CountLayer(l, {in}, *out).fwd_flops,
                   40.0 * (2 * 4 * 128 * 185 + 512 + 24 * 128));
}

TEST(LayerRulesTest, BidirectionalSequenceAndGru) {
  LayerSpec l = Layer(LayerKind::kLstm);
  l.units = 64;
  l.bidirectional = true;
  l.rnn_output = RnnOutput::kSequence;
  const Shape in{{100, 128}};
  Result<Shape> out = InferShape(l, {in});
  EXPECT_EQ(out->dims, (std::vector<int64_t>{100, 128}));
  EXPECT_EQ(CountLayer(l, {in}, *out).trainable_params, 98816);  // 2 x 49,408

  LayerSpec g = Layer(LayerKind::kGru);
  g.units = 32;
  const Shape gin{{10, 16}};
  EXPECT_EQ(CountLayer(g, {gin}, *InferShape(g, {gin})).trainable_params, 3 * (32 * 48 + 32));
}

TEST(LayerRulesTest, SelfAttention) {
  LayerSpec l = Layer(LayerKind::kAttention);
  l.heads = 12;
  const Shape in{{128, 768}};
  LayerCounts c = CountLayer(l, {in}, *InferShape(l, {in}));
  EXPECT_EQ(c.trainable_params, 4 * (768 * 768 + 768));
  const double s = 128, d = 768, h = 12;
  EXPECT_DOUBLE_EQ(c.fwd_flops, 8 * s * d * d + 4 * s * s * d + 5 * h * s * s + 4 * s * d);
  l.heads = 5;
  EXPECT_FALSE(InferShape(l, {in}).ok());  // 5 heads do not divide 768
}

TEST(LayerRulesTest, BatchNormCountsMovingStatisticsAsNonTrainable) {
  LayerSpec l = Layer(LayerKind::kBatchNorm);
  const Shape in{{10, 10, 64}};
  LayerCounts c = CountLayer(l, {in}, in);
  EXPECT_EQ(c.trainable_params, 128);
  EXPECT_EQ(c.non_trainable_params, 128);
}

TEST(LayerRulesTest, PoolingDefaultsStridesToWindow) {
  LayerSpec l = Layer(LayerKind::kMaxPool2D);
  l.kernel = {2, 2};
  Result<Shape> out = InferShape(l, {Shape{{24, 24, 64}}});
  EXPECT_EQ(out->dims, (std::vector<int64_t>{12, 12, 64}));
  LayerSpec g = Layer(LayerKind::kGlobalAvgPool2D);
  EXPECT_EQ(InferShape(g, {Shape{{7, 7, 2048}}})->dims, (std::vector<int64_t>{2048}));
}

TEST(LayerRulesTest, ZeroPaddingAndCropping) {
  LayerSpec p = Layer(LayerKind::kZeroPadding2D);
  p.pads = {0, 1, 0, 1};
  EXPECT_EQ(InferShape(p, {Shape{{165, 165, 96}}})->dims, (std::vector<int64_t>{166, 166, 96}));
  LayerSpec c = Layer(LayerKind::kCropping2D);
  c.pads = {1, 0, 1, 0};
  EXPECT_EQ(InferShape(c, {Shape{{166, 166, 96}}})->dims, (std::vector<int64_t>{165, 165, 96}));
}

TEST(LayerRulesTest, ShapeErrorsNameLayerAndShapes) {
  LayerSpec a = Layer(LayerKind::kAdd);
  Result<Shape> r = InferShape(a, {Shape{{8, 8, 64}}, Shape{{8, 8, 32}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "layer 'x' (add): input shapes (None, 8, 8, 64) and (None, 8, 8, 32) do not match");
  LayerSpec c = Layer(LayerKind::kConv2D);
  c.units = 4;
  c.kernel = {3, 3};
  Result<Shape> rc = InferShape(c, {Shape{{784}}});
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.status().message(),
            "layer 'x' (conv2d): expects (height, width, channels), got (None, 784)");
  LayerSpec r2 = Layer(LayerKind::kReshape);
  r2.target_shape = {7, 7};
  EXPECT_EQ(InferShape(r2, {Shape{{50}}}).status().message(),
            "layer 'x' (reshape): cannot reshape (None, 50) to (None, 7, 7)");
}

TEST(LayerRulesTest, ReshapeInfersOneUnknownDimension) {
  LayerSpec r = Layer(LayerKind::kReshape);
  r.target_shape = {-1, 64};
  EXPECT_EQ(InferShape(r, {Shape{{12, 12, 64}}})->dims, (std::vector<int64_t>{144, 64}));
}

TEST(LayerRulesTest, HighwayMatchesKimLargeModel) {
  LayerSpec l = Layer(LayerKind::kHighway);
  const Shape in{{35, 1100}};
  EXPECT_EQ(CountLayer(l, {in}, in).trainable_params, 2 * (1100 * 1100 + 1100));
}

}  // namespace
}  // namespace epochcost
