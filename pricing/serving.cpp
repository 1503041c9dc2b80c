#include "pricing/serving.h"

#include <algorithm>
#include <cmath>

#include "engine/memory.h"
#include "pricing/recommender.h"
#include "pricing/regions.h"
#include "pricing/schedule.h"

namespace epochcost::pricing {
namespace {

// One replica's forward time at each batch size tried, or why the machine cannot serve.
struct ReplicaTimes {
  Status status;
  int replicas = 0;       // serving at once on a node
  double contention = 1;  // replicas per GPU beyond one share it in turn
  std::vector<std::pair<int64_t, Seconds>> forward;
  std::string source;
};

ReplicaTimes TimeReplica(const ServeRequest& r, const Machine& node, const References& refs,
                         LoweringCache* cache) {
  ReplicaTimes out;
  Machine replica = node;
  const int wanted = r.replicas_per_node > 0 ? r.replicas_per_node : std::max(1, node.gpus);
  if (node.gpus > 0) {
    // One replica per GPU at most; more share the GPUs in turn.
    out.replicas = std::min(wanted, node.gpus);
    out.contention = std::max(1.0, static_cast<double>(wanted) / node.gpus);
    replica.gpus = 1;
    replica.vcpus = node.vcpus / node.gpus;
  } else {
    if (node.vcpus < wanted) {
      out.status = Status::InvalidArgument("fewer vCPUs than replicas");
      return out;
    }
    out.replicas = wanted;
    replica.vcpus = node.vcpus / wanted;
    replica.host_memory = node.host_memory * (1.0 / wanted);
  }
  // What one replica may hold: its share of a GPU (replicas beyond one per GPU share it), or of
  // the node's memory; unknown memory (0) is not checked.
  const Bytes room = node.gpus > 0 && node.gpu
                         ? node.gpu->memory * (1.0 / std::ceil(out.contention))
                         : replica.host_memory;
  for (int64_t b = 1; b <= r.max_batch; b *= 2) {
    LoweringOptions lowering = node.gpus > 0 ? r.gpu_lowering : r.cpu_lowering;
    lowering.batch = b;
    Result<Bytes> memory = MemoryForInference(*r.model, lowering);
    if (!memory.ok()) {
      out.status = memory.status();
      return out;
    }
    if (room.value() > 0 && *memory > room) {
      if (b == 1)
        out.status = Status::InvalidArgument(
            "needs " + std::to_string(memory->value() / 1e9).substr(0, 5) +
            " GB per replica, has " + std::to_string(room.value() / 1e9).substr(0, 5) + " GB");
      break;  // larger batches need more
    }
    MachineSettings settings{.samples = b,
                             .val_samples = b,
                             .per_op_overhead = r.per_op_overhead,
                             .isa = r.isa,
                             .cache = cache,
                             .op_rows = false};
    settings.Apply(r.corrections.For(node.gpus > 0));
    Result<MachinePrediction> p = PredictOnMachine(*r.model, lowering, replica, refs, settings);
    if (!p.ok()) {
      out.status = p.status();
      return out;
    }
    out.forward.push_back({b, p->epoch.eval_step * out.contention});
    out.source = p->source;
  }
  return out;
}

}  // namespace

ReplicaLoad LoadOf(int64_t batch, Seconds service, double arrivals) {
  ReplicaLoad l;
  l.capacity = static_cast<double>(batch) / service.seconds();
  l.utilisation = arrivals / l.capacity;
  l.p95 = Seconds::FromSeconds(static_cast<double>(batch - 1) / arrivals) + service * 2.0;
  return l;
}

double EffectiveNodes(int nodes, double efficiency) { return 1 + efficiency * (nodes - 1); }

Result<ServingPlan> PlanServing(
    const ServeRequest& r, const std::vector<catalog::Offer>& offers, const References& refs,
    const std::function<Result<Machine>(const catalog::InstanceType&)>& machine_of) {
  if (r.qps <= 0) return Status::InvalidArgument("--qps must be positive");
  if (r.p95 && r.p95->seconds() <= 0) return Status::InvalidArgument("--p95-ms must be positive");
  if (r.max_batch < 1) return Status::InvalidArgument("--max-batch must be positive");
  if (r.replicas_per_node < 0)
    return Status::InvalidArgument("--replicas-per-node must be positive");
  if (r.node_efficiency <= 0 || r.node_efficiency > 1)
    return Status::InvalidArgument("--node-efficiency must be in (0, 1]");
  ServingPlan plan;
  std::map<std::string, ReplicaTimes> cache;
  LoweringCache lowerings;
  for (const catalog::Offer& offer : offers) {
    const std::string name = offer.instance.provider + ":" + offer.instance.name;
    Result<Machine> machine = machine_of(offer.instance);
    if (!machine.ok()) {
      plan.dropped.emplace(name, machine.status().message());
      continue;
    }
    const std::string key = MachineKey(*machine);
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache.emplace(key, TimeReplica(r, *machine, refs, &lowerings)).first;
    const ReplicaTimes& t = it->second;
    if (!t.status.ok()) {
      plan.dropped.emplace(name, t.status.message());
      continue;
    }
    // The fewest nodes, then the batch with the lowest p95, that carry the rate.
    std::optional<ServingOffer> best;
    for (int n = 1; n <= r.max_nodes && !best; ++n) {
      const double replicas = EffectiveNodes(n, r.node_efficiency) * t.replicas;
      const double arrivals = r.qps / replicas;
      for (const auto& [batch, service] : t.forward) {
        const ReplicaLoad load = LoadOf(batch, service, arrivals);
        if (load.utilisation > r.max_utilisation) continue;
        if (r.p95 && load.p95 > *r.p95) continue;
        if (best && load.p95 >= best->p95) continue;
        ServingOffer s;
        s.nodes = n;
        s.batch = batch;
        s.service = service;
        s.p95 = load.p95;
        s.capacity = load.capacity * replicas;
        best = s;
      }
    }
    if (!best) {
      // A request's own p95 (batch 1, no queue) is the least any number of nodes gives.
      const Seconds alone = LoadOf(1, t.forward.front().second, r.qps).p95;
      plan.dropped.emplace(name, r.p95 && alone > *r.p95
                                     ? "a request alone takes longer than --p95-ms: more nodes "
                                       "do not shorten it"
                                     : "cannot meet the rate and latency with " +
                                           std::to_string(r.max_nodes) + " nodes");
      continue;
    }
    best->offer = offer;
    best->machine = name;
    best->accelerators = Accelerators(*machine);
    best->gpus = machine->gpus;
    best->replicas = t.replicas;
    best->source = t.source;
    best->monthly = Usd::FromDollars(best->nodes * offer.price.dollars_per_hour() * kHoursPerMonth);
    best->usd_per_million = best->monthly.dollars() / (r.qps * 3600 * kHoursPerMonth / 1e6);
    plan.ranked.push_back(std::move(*best));
  }
  std::stable_sort(plan.ranked.begin(), plan.ranked.end(),
                   [](const ServingOffer& a, const ServingOffer& b) {
                     if (a.monthly != b.monthly) return a.monthly < b.monthly;
                     return a.p95 < b.p95;
                   });
  plan.offers = plan.ranked.size();
  if (!r.every_region) FoldRegions(&plan.ranked);
  return plan;
}

}  // namespace epochcost::pricing
