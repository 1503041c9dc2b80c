// Near misses of names typed on the command line, as the lookup errors name them.
#include "engine/near_names.h"

#include <gtest/gtest.h>

namespace epochcost {
namespace {

using Names = std::vector<std::string>;

TEST(NearNamesTest, CaseHyphensAndUnderscoresDoNotMatter) {
  EXPECT_EQ(NearNames("us-east1", {"eu-west-1", "us-east-1", "us-east-2"}), Names{"us-east-1"});
  EXPECT_EQ(NearNames("Mnist-MLP", {"mnist_cnn", "mnist_mlp"}), Names{"mnist_mlp"});
  EXPECT_EQ(NearNames("v100", {"K80", "V100", "V100-32GB"}), (Names{"V100", "V100-32GB"}));
}

TEST(NearNamesTest, ContainedEitherWayInTheOrderGivenUpToTheLimit) {
  const Names zoo = {"resnet152", "resnet50", "resnet50_v1_5", "vgg16"};
  EXPECT_EQ(NearNames("resnet", zoo), (Names{"resnet152", "resnet50", "resnet50_v1_5"}));
  EXPECT_EQ(NearNames("resnet", zoo, 2), (Names{"resnet152", "resnet50"}));
  EXPECT_EQ(NearNames("vgg16-bn", zoo), Names{"vgg16"});  // the typed name contains it
  EXPECT_TRUE(NearNames("resnet51", zoo).empty());
  EXPECT_TRUE(NearNames("", zoo).empty());
  EXPECT_TRUE(NearNames("-", {"-", "a"}).empty());  // nothing left to compare once folded
}

// A hardware table's row may be named by a part of its name that no other row has.
TEST(NearNamesTest, AbbreviatedNamesOneRowOnly) {
  const Names cpus = {"EPYC Milan (7003)", "EPYC Genoa (9004)", "Graviton3", "Graviton4"};
  EXPECT_EQ(Abbreviated("genoa", cpus), "EPYC Genoa (9004)");
  EXPECT_EQ(Abbreviated("GRAVITON3", cpus), "Graviton3");  // equal folded
  EXPECT_EQ(Abbreviated("epyc", cpus), "");                // two rows
  EXPECT_EQ(Abbreviated("graviton3e", cpus), "");  // a name it contains is not what it names
  EXPECT_EQ(Abbreviated("ge", cpus), "");          // in one row only, but under three characters
  const Names gpus = {"K80", "V100", "V100-32GB", "L4"};
  EXPECT_EQ(Abbreviated("v100", gpus), "V100");  // equal folded, though V100-32GB contains it
  EXPECT_EQ(Abbreviated("l4", gpus), "L4");
  EXPECT_EQ(Abbreviated("32gb", gpus), "V100-32GB");
  EXPECT_EQ(Abbreviated("", gpus), "");
}

TEST(NearNamesTest, DidYouMean) {
  EXPECT_EQ(DidYouMean({"a", "b"}), " (did you mean: a, b?)");
  EXPECT_EQ(DidYouMean({}), "");
}

}  // namespace
}  // namespace epochcost
