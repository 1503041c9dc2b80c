// Building model graphs: order, edges and the errors a malformed graph gets.
#include "engine/model.h"

#include <gtest/gtest.h>

namespace epochcost {
namespace {

LayerSpec Input(const std::string& name, std::vector<int64_t> shape) {
  LayerSpec l;
  l.name = name;
  l.kind = LayerKind::kInput;
  l.shape = std::move(shape);
  return l;
}

LayerSpec Dense(const std::string& name, std::vector<std::string> inputs, int64_t units) {
  LayerSpec l;
  l.name = name;
  l.kind = LayerKind::kDense;
  l.inputs = std::move(inputs);
  l.units = units;
  return l;
}

ModelInfo Info() {
  ModelInfo info;
  info.name = "m";
  return info;
}

TEST(ModelTest, KeepsDeclaredOrderWhenValid) {
  LayerSpec add;
  add.name = "sum";
  add.kind = LayerKind::kAdd;
  add.inputs = {"a", "b"};
  Result<Model> m =
      Model::Build(Info(), {Input("x", {4}), Dense("a", {"x"}, 3), Dense("b", {"x"}, 3), add});
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->size(), 4);
  EXPECT_EQ(m->layer(3).name, "sum");
  EXPECT_EQ(m->inputs(3), (std::vector<int>{1, 2}));
  EXPECT_EQ(m->consumers(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(m->output_shape(3).dims, (std::vector<int64_t>{3}));
}

TEST(ModelTest, SortsLayersDeclaredBeforeTheirInputs) {
  Result<Model> m = Model::Build(Info(), {Dense("late", {"x"}, 2), Input("x", {4})});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->layer(0).name, "x");
}

TEST(ModelTest, RejectsCycles) {
  Result<Model> m =
      Model::Build(Info(), {Input("x", {4}), Dense("a", {"b"}, 4), Dense("b", {"a"}, 4)});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("has a cycle through layers"), std::string::npos);
}

TEST(ModelTest, RejectsUnknownInputsAndDuplicateNames) {
  Result<Model> unknown = Model::Build(Info(), {Input("x", {4}), Dense("a", {"y"}, 4)});
  EXPECT_EQ(unknown.status().message(),
            "model 'm': layer 'a' reads 'y', which is not a layer of the model");
  Result<Model> dup = Model::Build(Info(), {Input("x", {4}), Dense("x", {"x"}, 4)});
  EXPECT_EQ(dup.status().message(), "model 'm': two layers are named 'x'");
}

TEST(ModelTest, RejectsNonPositiveDimensions) {
  Result<Model> m = Model::Build(Info(), {Input("x", {28, 0})});
  EXPECT_EQ(m.status().message(), "model 'm': layer 'x' (input): dimension 0 must be positive");
}

TEST(ModelTest, ShapeMismatchNamesLayerAndShapes) {
  LayerSpec add;
  add.name = "sum";
  add.kind = LayerKind::kAdd;
  add.inputs = {"a", "b"};
  Result<Model> m =
      Model::Build(Info(), {Input("x", {4}), Dense("a", {"x"}, 3), Dense("b", {"x"}, 5), add});
  EXPECT_EQ(m.status().message(),
            "model 'm': layer 'sum' (add): input shapes (None, 3) and (None, 5) do not match");
}

}  // namespace
}  // namespace epochcost
