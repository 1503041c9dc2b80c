#include "engine/units.h"

#include <gtest/gtest.h>

namespace epochcost {
namespace {

TEST(UnitsTest, FactoriesConvert) {
  EXPECT_DOUBLE_EQ(Seconds::FromMilliseconds(1500).seconds(), 1.5);
  EXPECT_DOUBLE_EQ(Seconds::FromHours(2).seconds(), 7200);
  EXPECT_DOUBLE_EQ(Bytes::FromGiB(1).bytes(), 1073741824.0);
  EXPECT_DOUBLE_EQ(Bytes::FromGB(1).bytes(), 1e9);
  EXPECT_DOUBLE_EQ(Flops::FromMacs(10).flops(), 20);
  EXPECT_DOUBLE_EQ(Usd::FromCents(65).dollars(), 0.65);
}

TEST(UnitsTest, CrossDimensionProducts) {
  // 1 TFLOP at 2 TFLOP/s takes 0.5 s.
  EXPECT_DOUBLE_EQ((Flops::FromFlops(1e12) / FlopsPerSecond::FromTflops(2)).seconds(), 0.5);
  // 240 GB at 240 GB/s takes 1 s.
  EXPECT_DOUBLE_EQ((Bytes::FromGB(240) / BytesPerSecond::FromGBps(240)).seconds(), 1.0);
  // Kroutikov's c4.8xlarge epoch: 1404 s at $1.675/h = $0.65325.
  EXPECT_NEAR((UsdPerHour::FromDollarsPerHour(1.675) * Seconds::FromSeconds(1404)).dollars(),
              0.65325, 1e-12);
}

TEST(UnitsTest, SameDimensionArithmetic) {
  Seconds t = Seconds::FromSeconds(1) + Seconds::FromSeconds(2);
  t += Seconds::FromSeconds(1);
  EXPECT_DOUBLE_EQ(t.seconds(), 4);
  EXPECT_DOUBLE_EQ((t * 2).seconds(), 8);
  EXPECT_DOUBLE_EQ(t / Seconds::FromSeconds(2), 2);
  EXPECT_LT(Seconds::FromSeconds(1), t);
}

}  // namespace
}  // namespace epochcost
