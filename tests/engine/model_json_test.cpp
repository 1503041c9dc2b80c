// The project's model format: parameters, defaults, and one-line errors naming the field.
#include "engine/model_json.h"

#include <gtest/gtest.h>

namespace epochcost {
namespace {

constexpr const char* kTiny = R"({
  "format": "epochcost-model", "version": 1, "name": "tiny",
  "parameters": {"vocab": 100},
  "layers": [
    {"name": "ids", "kind": "input", "shape": [8], "dtype": "int32"},
    {"name": "emb", "kind": "embedding", "vocab": "$vocab", "units": 4},
    {"name": "pool", "kind": "global_avg_pool1d"},
    {"name": "out", "kind": "dense", "units": 1, "activation": "sigmoid"}
  ]
})";

TEST(ModelJsonTest, ParametersAndOverrides) {
  Result<Model> m = ParseModelJson(kTiny, "tiny.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->layer(1).vocab, 100);
  EXPECT_EQ(m->layer(2).inputs, (std::vector<std::string>{"emb"}));  // defaults to previous
  Result<Model> big = ParseModelJson(kTiny, "tiny.json", {{"vocab", 5000}});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->layer(1).vocab, 5000);
  EXPECT_EQ(ParseModelJson(kTiny, "tiny.json", {{"width", 5}}).status().message(),
            "tiny.json: parameter 'width' is not declared by the model (it declares: vocab)");
}

TEST(ModelJsonTest, MalformedJsonNamesLineAndColumn) {
  Result<Model> m = ParseModelJson("{\n  \"format\": \"epochcost-model\",\n  oops\n}", "bad.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "bad.json: malformed JSON at line 3, column 3");
}

TEST(ModelJsonTest, FieldErrorsNameTheLayerAndField) {
  std::string text = kTiny;
  text.replace(text.find("\"units\": 4"), 10, "\"units\": \"four\"");
  EXPECT_EQ(ParseModelJson(text, "t.json").status().message(),
            "t.json: layers[1] ('emb').units: expected an integer or a \"$parameter\" reference");
  text = kTiny;
  text.replace(text.find("\"global_avg_pool1d\""), 19, "\"global_avg_pol\"");
  EXPECT_NE(ParseModelJson(text, "t.json")
                .status()
                .message()
                .find("t.json: layers[2] ('pool').kind: unknown layer kind 'global_avg_pol'"),
            std::string::npos);
  text = kTiny;
  text.replace(text.find("\"units\": 1,"), 11, "\"unit\": 1,");
  EXPECT_EQ(ParseModelJson(text, "t.json").status().message(),
            "t.json: layers[3] ('out').unit: unknown field");
}

// The training block: the authors' settings, the learning rate among them (the reference harness
// trains with it); a misspelt field is an error, as in a layer.
TEST(ModelJsonTest, TrainingBlockIsReadAndChecked) {
  std::string text = kTiny;
  const std::string training =
      R"("training": {"optimizer": "rmsprop", "batch": 32, "learning_rate": 0.0001},)";
  text.insert(text.find("\"parameters\""), training);
  Result<Model> m = ParseModelJson(text, "t.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->info().training.optimizer, "rmsprop");
  EXPECT_EQ(m->info().training.batch, 32);
  EXPECT_DOUBLE_EQ(m->info().training.learning_rate, 0.0001);
  EXPECT_DOUBLE_EQ(ParseModelJson(kTiny, "t.json")->info().training.learning_rate, 0);
  std::string zero = text;
  zero.replace(zero.find("0.0001"), 6, "0");
  EXPECT_EQ(ParseModelJson(zero, "t.json").status().message(),
            "t.json: training.learning_rate: must be positive");
  std::string typo = text;
  typo.replace(typo.find("learning_rate"), 13, "learning_rat");
  EXPECT_EQ(ParseModelJson(typo, "t.json").status().message(),
            "t.json: training.learning_rat: unknown field");
}

TEST(ModelJsonTest, RejectsOtherFormatsAndVersions) {
  EXPECT_EQ(ParseModelJson(R"({"layers": []})", "x.json").status().message(),
            "x.json: format: expected \"epochcost-model\"");
  EXPECT_EQ(
      ParseModelJson(R"({"format": "epochcost-model", "version": 2})", "x.json").status().message(),
      "x.json: version: only version 1 of the model format is known");
}

}  // namespace
}  // namespace epochcost
