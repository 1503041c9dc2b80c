// Keras model.to_json() files in the layouts of Keras 2.0 and tf.keras 2.x.
#include "engine/keras_import.h"

#include <gtest/gtest.h>

#include "engine/analysis.h"
#include "engine/model_source.h"

namespace epochcost {
namespace {

const std::string kDir = std::string(EPOCHCOST_FIXTURES) + "/keras/";

int64_t Params(const std::string& file) {
  Result<Model> m = LoadModel(kDir + file);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return -1;
  return Analyze(*m, {.batch = 1})->total.params();
}

TEST(KerasImportTest, SequentialKeras20) { EXPECT_EQ(Params("mnist_mlp_keras20.json"), 669706); }

TEST(KerasImportTest, FunctionalWithTwoHeads) {
  EXPECT_EQ(Params("text_generator_functional.json"), 458430);
  Result<Model> m = LoadModel(kDir + "text_generator_functional.json");
  const int lstm = *m->Find("rnn");
  EXPECT_EQ(m->consumers(lstm).size(), 2u);
}

TEST(KerasImportTest, TfKerasBidirectionalLstm) {
  EXPECT_EQ(Params("bilstm_tfkeras2.json"), 2658945);
}

TEST(KerasImportTest, TfKerasCnnMatchesZoo) {
  EXPECT_EQ(Params("cifar10_cnn_tfkeras2.json"), 1250858);
}

TEST(KerasImportTest, ListsEveryUnsupportedLayer) {
  Result<Model> m = LoadModel(kDir + "unsupported_layers.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(),
            kDir +
                "unsupported_layers.json: unsupported Keras layers: 'scale_by_two' (Lambda), "
                "'custom' (MyCustomLayer)");
}

TEST(KerasImportTest, MalformedInputs) {
  EXPECT_EQ(ImportKerasJson("{\"class_name\": ", "k.json").status().message(),
            "k.json: malformed JSON at line 1, column 16");
  EXPECT_EQ(ImportKerasJson("[1, 2]", "k.json").status().message(),
            "k.json: not a Keras model (no class_name and config at the top)");
  EXPECT_EQ(ImportKerasJson(R"({"class_name": "Sequential", "config": {"layers": [
      {"class_name": "Dense", "config": {"name": "d", "units": 3}}]}})",
                            "k.json")
                .status()
                .message(),
            "k.json: layers[0]: the first layer has no batch_input_shape, so the input shape is "
            "unknown");
  EXPECT_EQ(ImportKerasJson(R"({"class_name": "Sequential", "config": {"layers": [
      {"class_name": "Dense", "config": {"name": "d", "units": "three",
       "batch_input_shape": [null, 4]}}]}})",
                            "k.json")
                .status()
                .message(),
            "k.json: layers[0] ('d').config.units: expected an integer");
}

}  // namespace
}  // namespace epochcost
