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

TEST(NearNamesTest, DidYouMean) {
  EXPECT_EQ(DidYouMean({"a", "b"}), " (did you mean: a, b?)");
  EXPECT_EQ(DidYouMean({}), "");
}

}  // namespace
}  // namespace epochcost
