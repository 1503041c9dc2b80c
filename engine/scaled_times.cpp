#include "engine/scaled_times.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace epochcost {
namespace {

// PyTorch's own CPU kernels (aten=1) lend efficiencies only to each other.
std::string KindKey(const OpSignature& s) {
  return std::string(OpKindName(s.kind)) + " " + std::string(DTypeName(s.dtype)) +
         (s.dim("aten") != 0 ? " aten" : "");
}
std::string ClassKey(OpClass c, DType t) {
  return std::string(OpClassName(c)) + " " + std::string(DTypeName(t));
}
double LogFlops(const OpSignature& s) { return std::log(s.flops().flops() + 1); }
double LogBytes(const OpSignature& s) { return std::log(s.bytes().value() + 1); }

}  // namespace

double DefaultEfficiency(DeviceKind kind, OpClass c) {
  // Typical fractions of the roofline frameworks' kernels reach on large shapes (the H100 and
  // development-CPU profiles' class medians are of this order; docs/cross-device.md).
  const bool gpu = kind == DeviceKind::kGpu;
  switch (c) {
    case OpClass::kGemm:
      return gpu ? 0.6 : 0.7;
    case OpClass::kConv:
      return 0.5;
    case OpClass::kRnn:
      return 0.2;
    case OpClass::kMemory:
      return gpu ? 0.6 : 0.5;
  }
  return 0.5;
}

Seconds DefaultLatency(DeviceKind kind) {
  return kind == DeviceKind::kGpu ? Seconds::FromMicroseconds(3) : Seconds::FromMicroseconds(1);
}

ReferenceEfficiencies::ReferenceEfficiencies(ReferenceDevice reference)
    : ref_(std::move(reference)) {
  std::map<std::string, std::vector<double>> per_class;
  for (size_t i = 0; i < ref_.ops.size(); ++i) {
    const OpSignature& s = ref_.ops[i].signature;
    by_signature_[s.ToString()] = i;
    by_kind_[KindKey(s)].push_back(i);
    index_.push_back({LogFlops(s), LogBytes(s), EfficiencyOf(ref_.ops[i])});
    per_class[ClassKey(ClassOf(s.kind), s.dtype)].push_back(index_.back().efficiency);
  }
  for (auto& [key, v] : per_class) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    class_median_[key] = v[v.size() / 2];
  }
}

double ReferenceEfficiencies::EfficiencyOf(const MeasuredOp& m) const {
  const Seconds work = m.median - ref_.roofline.latency;
  const Seconds bound = ref_.roofline.Bound(m.signature);
  if (work.seconds() <= 0) return 1.0;
  return std::clamp(bound / work, 1e-4, 1.0);
}

ReferenceEfficiencies::Lent ReferenceEfficiencies::For(const OpSignature& sig,
                                                       DeviceKind kind) const {
  if (auto it = by_signature_.find(sig.ToString()); it != by_signature_.end())
    return {index_[it->second].efficiency, "measured"};
  if (auto it = by_kind_.find(KindKey(sig)); it != by_kind_.end()) {
    const double f = LogFlops(sig), b = LogBytes(sig);
    const Indexed* best = nullptr;
    double best_d = 0;
    for (size_t i : it->second) {
      const Indexed& x = index_[i];
      const double d = std::abs(f - x.log_flops) + std::abs(b - x.log_bytes);
      if (!best || d < best_d) best = &x, best_d = d;
    }
    return {best->efficiency, "nearest"};
  }
  if (auto it = class_median_.find(ClassKey(ClassOf(sig.kind), sig.dtype));
      it != class_median_.end())
    return {it->second, "class"};
  return {DefaultEfficiency(kind, ClassOf(sig.kind)), "analytic"};
}

ScaledTimes::ScaledTimes(std::shared_ptr<const ReferenceEfficiencies> reference,
                         TargetDevice target)
    : ref_(std::move(reference)), target_(std::move(target)) {}

std::optional<OpTime> ScaledTimes::Find(const OpSignature& sig, int) const {
  if (!target_.roofline.Supports(sig.dtype)) return std::nullopt;
  const ReferenceEfficiencies::Lent lent = EfficiencyFor(sig);
  Seconds work = target_.roofline.Bound(sig) / lent.efficiency;
  if (target_.roofline.kind == DeviceKind::kCpu && target_.cores > 1) {
    const Usl& usl = target_.usl[static_cast<int>(ClassOf(sig.kind))];
    work = work * (target_.cores / usl.Speedup(target_.cores));
  }
  const Seconds t = target_.roofline.latency + work;
  std::string source;
  char eff[32];
  std::snprintf(eff, sizeof eff, "%.2f", lent.efficiency);
  if (lent.how == "analytic")
    source = "analytic (efficiency " + std::string(eff) + ")";
  else
    source = "scaled from " + ref_->device().name + " (" + ref_->device().date + ")" +
             (lent.how == "measured" ? "" : ", " + lent.how + " op's efficiency");
  return OpTime{t, t, t, source};
}

}  // namespace epochcost
