// Serving capacity (docs/serving.md): for each catalog offer, the smallest cluster of its nodes
// that serves a request rate within a p95 latency, from forward-only op times (measured or scaled,
// as for training), with dynamic batching, replicas sharing a node, and nodes adding less than a
// whole node's throughput each. Ranked by monthly cost.
#ifndef EPOCHCOST_PRICING_SERVING_H_
#define EPOCHCOST_PRICING_SERVING_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/records.h"
#include "engine/machine.h"

namespace epochcost::pricing {

struct ServeRequest {
  const Model* model = nullptr;
  LoweringOptions cpu_lowering, gpu_lowering;  // batch is set per candidate
  double qps = 0;
  std::optional<Seconds> p95;  // latency target
  int64_t max_batch = 32;      // dynamic batching up to this (powers of two)
  int replicas_per_node = 0;   // sharing the node's vCPUs or GPUs; 0: one per GPU, one per CPU node
  double node_efficiency = 0.8;   // each node after the first adds this fraction of one
  double max_utilisation = 0.8;   // a replica is kept below this share of its capacity
  int max_nodes = 1000;
  std::optional<Seconds> per_op_overhead;
  VectorIsa isa = VectorIsa::kNative;  // CPU offers: the framework build's vector set
  Corrections corrections;  // a framework's calibration (docs/calibration.md)
  bool every_region = false;  // false: one offer per machine and price kind (pricing/regions.h)
};

// The latency and capacity of one replica serving batches of `batch`, each taking `service`
// (with the contention of replicas sharing a GPU), at `arrivals` requests per second:
//   capacity = batch / service;  p95 = (batch - 1) / arrivals + 2 x service
// (the last request of a batch arrives (batch - 1) / arrivals after the first; a request may wait
// for the batch in service, then its own).
struct ReplicaLoad {
  double capacity = 0;      // requests per second
  double utilisation = 0;   // arrivals / capacity
  Seconds p95;
};
ReplicaLoad LoadOf(int64_t batch, Seconds service, double arrivals);

// Effective nodes of an n-node cluster: 1 + efficiency x (n - 1).
double EffectiveNodes(int nodes, double efficiency);

struct ServingOffer {
  catalog::Offer offer;
  std::string machine;       // provider:instance
  std::string accelerators;  // "1 x K80", "8 vCPU Skylake-SP"
  int gpus = 0;
  int nodes = 0;
  int replicas = 0;  // per node, serving at once
  int64_t batch = 0;
  Seconds service;   // one batch's forward pass on a replica
  Seconds p95;
  double capacity = 0;  // requests per second of the cluster at full utilisation
  Usd monthly;          // nodes x price x 730 h
  double usd_per_million = 0;
  std::string source;
  int other_regions = 0;  // other regions offering this machine and kind, folded into this row
};

struct ServingPlan {
  std::vector<ServingOffer> ranked;          // by monthly cost
  size_t offers = 0;                         // offers ranked, before the fold of regions
  std::map<std::string, std::string> dropped;  // machine -> why it cannot serve
};

Result<ServingPlan> PlanServing(
    const ServeRequest& r, const std::vector<catalog::Offer>& offers, const References& refs,
    const std::function<Result<Machine>(const catalog::InstanceType&)>& machine_of);

}  // namespace epochcost::pricing

#endif  // EPOCHCOST_PRICING_SERVING_H_
