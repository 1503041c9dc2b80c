// Every zoo model's parameter count against the implementation it reproduces.
#include "engine/zoo.h"

#include <gtest/gtest.h>

#include "engine/analysis.h"

namespace epochcost {
namespace {

struct Expected {
  const char* model;
  int64_t params;
  const char* reference;
};

// Counts as the reference implementation reports them (Keras counts batch-norm moving statistics;
// Hugging Face and torchvision count parameters only, and these models have no batch norm).
constexpr Expected kZoo[] = {
    {"mnist_mlp", 669706, "Keras examples mnist_mlp.py (published-models.md 2.1)"},
    {"mnist_cnn", 1199882, "Keras examples mnist_cnn.py (2.2)"},
    {"cifar10_cnn", 1250858, "Keras examples cifar10_cnn.py (2.3)"},
    {"imdb_fasttext", 20000 * 50 + 51, "Keras examples imdb_fasttext.py, Embedding(20000, 50)"},
    {"imdb_bidirectional_lstm", 2658945, "Keras examples imdb_bidirectional_lstm.py (2.5)"},
    {"lstm_text_generation", 102585, "Keras examples lstm_text_generation.py (2.6)"},
    {"text_generator_keras", 458430, "minimaxir text_generator_keras.py (2.7)"},
    {"lstm_char_cnn", 19367965, "mkroutikov/tf-lstm-char-cnn LSTM-Char-Large, width 21 (3)"},
    {"vgg16", 138357544, "keras.applications.VGG16 summary()"},
    {"resnet50", 25636712, "keras.applications.ResNet50 summary()"},
    // torchvision counts 25,557,032 parameters; epochcost adds the 53,120 batch-norm running
    // statistics (buffers there), as Keras counts them.
    {"resnet50_v1_5", 25557032 + 53120, "torchvision resnet50() parameters + BN statistics"},
    {"resnet152", 60419944, "keras.applications.ResNet152 summary()"},
    {"mobilenet_v2", 3538984, "keras.applications.MobileNetV2 summary()"},
    {"nasnet_mobile", 5326716, "keras.applications.NASNetMobile summary()"},
    {"nasnet_large", 88949818, "keras.applications.NASNetLarge summary()"},
    {"bert_base", 109482240, "transformers BertModel('bert-base-uncased').num_parameters()"},
    {"bert_large", 335141888, "transformers BertModel('bert-large-uncased').num_parameters()"},
    {"gpt2_small", 124439808, "transformers GPT2LMHeadModel('gpt2').num_parameters()"},
    {"gpt2_medium", 354823168, "transformers GPT2LMHeadModel('gpt2-medium').num_parameters()"},
    {"gpt2_large", 774030080, "transformers GPT2LMHeadModel('gpt2-large').num_parameters()"},
    {"gpt2_xl", 1557611200, "transformers GPT2LMHeadModel('gpt2-xl').num_parameters()"},
    {"vit_b16", 86567656, "torchvision vit_b_16() parameter count"},
    {"vit_l16", 304326632, "torchvision vit_l_16() parameter count"},
};

class ZooTest : public testing::TestWithParam<Expected> {};

TEST_P(ZooTest, ParameterCountMatchesReference) {
  const Expected& e = GetParam();
  Result<Model> m = LoadZooModel(e.model);
  ASSERT_TRUE(m.ok()) << m.status().message();
  Result<ModelReport> r = Analyze(*m, {.batch = 1});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->total.params(), e.params) << e.reference;
  EXPECT_FALSE(m->info().source.empty());
}

INSTANTIATE_TEST_SUITE_P(AllModels, ZooTest, testing::ValuesIn(kZoo),
                         [](const auto& info) { return std::string(info.param.model); });

TEST(ZooListTest, EveryZooModelIsTested) {
  std::vector<std::string> tested;
  for (const Expected& e : kZoo) tested.push_back(e.model);
  std::sort(tested.begin(), tested.end());
  EXPECT_EQ(ZooNames(), tested);
}

TEST(ZooParamsTest, KerasBatchNormSplitsTrainable) {
  // Keras applications' ResNet50: 25,583,592 trainable, 53,120 non-trainable.
  Result<ModelReport> r = Analyze(*LoadZooModel("resnet50"), {.batch = 1});
  EXPECT_EQ(r->total.trainable_params, 25583592);
  EXPECT_EQ(r->total.non_trainable_params, 53120);
}

TEST(ZooParamsTest, FasttextVocabularyIsAParameter) {
  Result<Model> m = LoadZooModel("imdb_fasttext", {{"max_features", 1200000}});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Analyze(*m, {.batch = 1})->total.params(), 1200000 * 50 + 51);
  // The model keeps what it declares, at the values it was built with (a run log's unstated
  // column names these).
  EXPECT_EQ(m->info().parameters,
            (std::map<std::string, int64_t>{{"max_features", 1200000}, {"maxlen", 400}}));
  EXPECT_TRUE(LoadZooModel("mnist_mlp")->info().parameters.empty());
}

TEST(ZooParamsTest, PublishedForwardMacs) {
  // published-models.md: forward MACs per sample of the benchmark models.
  auto macs = [](const char* model) {
    return Analyze(*LoadZooModel(model), {.batch = 1})->total.fwd.flops() / 2;
  };
  EXPECT_NEAR(macs("mnist_mlp") / 0.669e6, 1, 0.01);
  EXPECT_NEAR(macs("mnist_cnn") / 11.99e6, 1, 0.01);
  EXPECT_NEAR(macs("cifar10_cnn") / 20.74e6, 1, 0.01);
  EXPECT_NEAR(macs("imdb_bidirectional_lstm") / 9.83e6, 1, 0.02);
  EXPECT_NEAR(macs("lstm_text_generation") / 3.80e6, 1, 0.02);
  EXPECT_NEAR(macs("lstm_char_cnn") / 35 / 20.55e6, 1, 0.02);  // per token
}

TEST(ZooTest, UnknownNameSaysWhatItIsNot) {
  EXPECT_EQ(LoadZooModel("resnet51").status().message(),
            "'resnet51' is neither a zoo model (see `epochcost models list`) nor a file");
  EXPECT_EQ(LoadZooModel("Mnist-MLP").status().message(),
            "'Mnist-MLP' is neither a zoo model (did you mean: mnist_mlp?) (see `epochcost models "
            "list`) nor a file");
  EXPECT_EQ(LoadZooModel("resnet").status().message(),
            "'resnet' is neither a zoo model (did you mean: resnet152, resnet50, resnet50_v1_5?) "
            "(see `epochcost models list`) nor a file");
}

}  // namespace
}  // namespace epochcost
