// The serving model's formulas against hand-computed numbers (docs/serving.md).
#include <gtest/gtest.h>

#include "pricing/serving.h"

namespace epochcost::pricing {
namespace {

TEST(ServingTest, ReplicaLoadWithDynamicBatching) {
  // Batches of 8 served in 40 ms: capacity 200/s; at 100 arrivals/s the batch fills in 70 ms,
  // and a request may wait for the batch in service, then its own: p95 = 70 + 2 x 40 ms.
  const ReplicaLoad l = LoadOf(8, Seconds::FromMilliseconds(40), 100);
  EXPECT_DOUBLE_EQ(l.capacity, 200);
  EXPECT_DOUBLE_EQ(l.utilisation, 0.5);
  EXPECT_NEAR(l.p95.milliseconds(), 150, 1e-9);
  // Batch 1 waits for nothing but the request in service.
  EXPECT_NEAR(LoadOf(1, Seconds::FromMilliseconds(5), 10).p95.milliseconds(), 10, 1e-9);
}

TEST(ServingTest, NodesAddLessThanANodeEach) {
  EXPECT_DOUBLE_EQ(EffectiveNodes(1, 0.8), 1);
  EXPECT_DOUBLE_EQ(EffectiveNodes(4, 0.8), 3.4);
  EXPECT_DOUBLE_EQ(EffectiveNodes(4, 1.0), 4);
}

TEST(ServingTest, BadRequestsAreErrors) {
  ServeRequest r;
  r.qps = 0;
  EXPECT_EQ(PlanServing(r, {}, {}, nullptr).status().message(), "--qps must be positive");
  r.qps = 10;
  r.node_efficiency = 1.5;
  EXPECT_FALSE(PlanServing(r, {}, {}, nullptr).ok());
  r.node_efficiency = 0.8;
  r.p95 = Seconds::FromSeconds(-1);
  EXPECT_FALSE(PlanServing(r, {}, {}, nullptr).ok());
}

}  // namespace
}  // namespace epochcost::pricing
