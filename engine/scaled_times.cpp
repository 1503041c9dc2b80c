#include "engine/scaled_times.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

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
int64_t CeilDiv(int64_t a, double b) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(a) / b)));
}

// The dimension an op's work grows with as the batch does: a layer's `mb`; else a batched
// product's `b` (batch x heads), a row op's `rows` (softmax, layer norm), or the `n` of an op with
// no other dimension (element-wise work, reorders, optimizer updates); "" where there is none.
std::string SizeDim(const OpSignature& s) {
  if (s.dims.count("mb")) return "mb";
  if (s.kind == OpKind::kMatMul) return s.dims.count("b") ? "b" : "";
  if (s.dims.count("rows")) return "rows";
  for (const auto& [name, value] : s.dims)
    if (name != "n" && name != "aten") return "";
  return s.dims.count("n") ? "n" : "";
}
// The same op at any size: every dimension but SizeDim's (for a layer, the same layer at any
// batch: the kind, precision, algorithm and every dimension but `mb`).
std::string SizeKey(const OpSignature& s) {
  OpSignature op = s;
  op.dims.erase(SizeDim(s));
  return op.ToString();
}
double LogFlops(const OpSignature& s) { return std::log(s.flops().flops() + 1); }
double LogBytes(const OpSignature& s) { return std::log(s.bytes().value() + 1); }

// A recurrent layer is, step after step, one product of its input and hidden state with the gate
// weights: mb x (ic + hc) by (ic + hc) x gates*hc, both directions at once. Its efficiency grows
// with that product's size as a product's does, which the few recurrent layers a reference
// measured cannot show (Kroutikov's char-CNN LSTM on a K80: batch 20 -> 100 cut the epoch 2.5x;
// lent unchanged from the nearest measured layer, the predicted epoch stayed).
OpSignature StepGemm(const OpSignature& rnn) {
  const int64_t gates = rnn.alg == "gru" ? 3 : rnn.alg == "lstm" ? 4 : 1;
  OpSignature g;
  g.kind = OpKind::kInnerProductFwd;
  g.dtype = rnn.dtype;
  g.dims = {{"bias", 0},
            {"ic", rnn.dim("ic") + rnn.dim("hc")},
            {"mb", rnn.dim("mb") * rnn.dim("dirs", 1)},
            {"oc", gates * rnn.dim("hc")}};
  return g;
}

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
    if (!SizeDim(s).empty()) by_size_[SizeKey(s)].push_back(i);
    index_.push_back({LogFlops(s), LogBytes(s), EfficiencyOf(ref_.ops[i]), i});
    per_class[ClassKey(ClassOf(s.kind), s.dtype)].push_back(index_.back().efficiency);
    measured_dtypes_.insert(s.dtype);
  }
  for (auto& [key, v] : per_class) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    class_median_[key] = v[v.size() / 2];
  }
}

namespace {

// Whether an op's efficiency can fall as its batch grows, so that the same op measured at a
// smaller batch sets no floor under it. cuDNN's batch norm (spatial mode, NCHW) does: on the H200,
// from batch 32 to 256, `bnorm_fwd dt=bf16 c=128 sp=784` took 26.8x as long and its backward
// 30.7x, `c=64 sp=3136` 12.6-15.1x; in fp32 from 32 to 128, 6.2-8.3x (docs/accuracy.md).
bool EfficiencyMayFall(const OpSignature& s) {
  return s.kind == OpKind::kBatchNormFwd || s.kind == OpKind::kBatchNormBwd;
}

// e = bound / (t - latency) on `r`, within [1e-4, 1] (1 where t is within the latency), and not
// capped at 1 for a CPU op timed inside a step (MeasuredOp::in_step): docs/cross-device.md.
double Efficiency(const Roofline& r, const MeasuredOp& m) {
  const Seconds work = m.median - r.latency;
  if (work.seconds() <= 0) return 1.0;
  const double e = std::max(r.Bound(m.signature) / work, 1e-4);
  return m.in_step && r.kind == DeviceKind::kCpu ? e : std::min(e, 1.0);
}

}  // namespace

ReferenceDevice PoolReferences(const std::vector<ReferenceDevice>& devices) {
  if (devices.empty()) return {};
  ReferenceDevice pool = devices.front();
  std::map<std::string, size_t> have;  // signature -> its op in the pool
  for (size_t i = 0; i < pool.ops.size(); ++i) have.emplace(pool.ops[i].signature.ToString(), i);
  for (size_t d = 1; d < devices.size(); ++d) {
    const ReferenceDevice& other = devices[d];
    for (const MeasuredOp& m : other.ops) {
      const auto [it, added] = have.emplace(m.signature.ToString(), pool.ops.size());
      if (!added) {
        // A call the pool has without a host time takes another GPU's: the host time is the
        // host's and the libraries', as the profile store lends it (ProfileStore::Find).
        MeasuredOp& own = pool.ops[it->second];
        if (own.host.seconds() <= 0) own.host = m.host;
        continue;
      }
      const double e = Efficiency(other.roofline, m);
      pool.ops.push_back(
          {m.signature,
           pool.roofline.latency + CarriedWork(other.roofline, pool.roofline, m.signature,
                                               m.signature.flops(), m.signature.bytes(), e),
           other.name + " (" + other.date + ")", m.host});
    }
  }
  return pool;
}

double ReferenceEfficiencies::EfficiencyOf(const MeasuredOp& m) const {
  return Efficiency(ref_.roofline, m);
}

std::string ReferenceEfficiencies::Origin(size_t i) const {
  const std::string& o = ref_.ops[i].origin;
  return o.empty() ? ref_.name + " (" + ref_.date + ")" : o;
}

const ReferenceEfficiencies::Indexed* ReferenceEfficiencies::SameLayer(const OpSignature& sig,
                                                                       bool* within) const {
  *within = false;
  const int64_t mb = sig.dim("mb");
  if (mb <= 0) return nullptr;
  auto it = by_size_.find(SizeKey(sig));
  if (it == by_size_.end()) return nullptr;
  const Indexed* best = nullptr;
  double best_d = 0;
  for (size_t i : it->second) {
    const int64_t at = ref_.ops[i].signature.dim("mb");
    if (at <= 0) continue;
    const double d = std::abs(std::log(static_cast<double>(mb) / static_cast<double>(at)));
    if (!best || d < best_d) best = &index_[i], best_d = d;
  }
  *within = best && best_d <= std::log(kSameLayerBatchRatio) + 1e-9;
  return best;
}

const ReferenceEfficiencies::Indexed* ReferenceEfficiencies::Nearest(const OpSignature& sig) const {
  auto it = by_kind_.find(KindKey(sig));
  if (it == by_kind_.end()) return nullptr;
  const double f = LogFlops(sig), b = LogBytes(sig);
  const Indexed* best = nullptr;
  double best_d = 0;
  for (size_t i : it->second) {
    const Indexed& x = index_[i];
    const double d = std::abs(f - x.log_flops) + std::abs(b - x.log_bytes);
    if (!best || d < best_d) best = &x, best_d = d;
  }
  return best;
}

double ReferenceEfficiencies::Interpolated(const OpSignature& sig) const {
  const int64_t mb = sig.dim("mb");
  auto it = by_size_.find(SizeKey(sig));
  if (mb <= 0 || it == by_size_.end()) return 0;
  const MeasuredOp* below = nullptr;
  const MeasuredOp* above = nullptr;
  for (size_t i : it->second) {
    const MeasuredOp& m = ref_.ops[i];
    const int64_t at = m.signature.dim("mb");
    if (at <= 0) continue;
    if (at < mb && (!below || at > below->signature.dim("mb"))) below = &m;
    if (at > mb && (!above || at < above->signature.dim("mb"))) above = &m;
  }
  if (!below || !above || below->median > above->median) return 0;
  const double x0 = std::log(static_cast<double>(below->signature.dim("mb")));
  const double x1 = std::log(static_cast<double>(above->signature.dim("mb")));
  const double w = (std::log(static_cast<double>(mb)) - x0) / (x1 - x0);
  const double t =
      std::exp((1 - w) * std::log(below->median.seconds()) + w * std::log(above->median.seconds()));
  return std::clamp(AsLongAs(sig, Seconds::FromSeconds(t)), 1e-4, 1.0);
}

double ReferenceEfficiencies::AsLongAs(const OpSignature& sig, Seconds t) const {
  const double work = (t - ref_.roofline.latency).seconds();
  return work > 0 ? ref_.roofline.Bound(sig).seconds() / work : 1;
}

void ReferenceEfficiencies::SetBounded(Lent* lent, double efficiency) {
  if (efficiency == lent->efficiency) return;
  lent->efficiency = std::clamp(efficiency, 1e-4, 1.0);
  lent->how = "bounded";
}

void ReferenceEfficiencies::Bracket(const OpSignature& sig, Lent* lent) const {
  const std::string dim = SizeDim(sig);
  const int64_t mb = dim.empty() ? 0 : sig.dim(dim);
  auto it = by_size_.find(SizeKey(sig));
  if (mb <= 0 || it == by_size_.end()) return;
  double lo = 0, hi = 1, time_lo = 0, time_hi = 1;
  for (size_t i : it->second) {
    const int64_t at = ref_.ops[i].signature.dim(dim);
    const double e = index_[i].efficiency;
    const double as_long = AsLongAs(sig, ref_.ops[i].median);
    if (at < mb) {
      if (!EfficiencyMayFall(sig)) lo = std::max(lo, e);
      hi = std::min(hi, as_long), time_hi = std::min(time_hi, as_long);
    } else if (at > mb) {
      hi = std::min(hi, e);
      lo = std::max(lo, as_long), time_lo = std::max(time_lo, as_long);
    }
  }
  // Measurements that contradict each other (noise) leave the time bounds alone, and those too
  // when they do.
  if (lo > hi) lo = time_lo, hi = time_hi;
  if (lo <= hi) SetBounded(lent, std::clamp(lent->efficiency, lo, hi));
}

namespace {

// Dimensions that only count work (a product's sizes, a row op's rows and width, an element-wise
// op's values): more of each is more work of the same shape.
bool IsSizeDim(const std::string& name) {
  static const char* const kSizes[] = {"mb", "ic", "oc", "b", "m", "n", "k", "c", "rows"};
  for (const char* d : kSizes)
    if (name == d) return true;
  return false;
}

// +1 where every size of `a` is at least `b`'s (and the rest equal), -1 where at most, 0 where
// neither (or some dimension that is not a size differs, or one of them has one the other lacks).
int Dominates(const OpSignature& a, const OpSignature& b) {
  if (a.kind != b.kind || a.dtype != b.dtype || a.alg != b.alg || a.dims.size() != b.dims.size())
    return 0;
  bool ge = true, le = true;
  for (const auto& [name, value] : a.dims) {
    auto it = b.dims.find(name);
    if (it == b.dims.end()) return 0;
    if (!IsSizeDim(name)) {
      if (value != it->second) return 0;
      continue;
    }
    ge = ge && value >= it->second;
    le = le && value <= it->second;
  }
  return ge ? 1 : le ? -1 : 0;
}

}  // namespace

void ReferenceEfficiencies::Dominate(const OpSignature& sig, Lent* lent) const {
  for (const auto& [name, value] : sig.dims)
    if (!IsSizeDim(name) && name != "bias" && name != "aten") return;  // a shape, not sizes
  auto it = by_kind_.find(KindKey(sig));
  if (it == by_kind_.end()) return;
  double lo = 0, hi = 1;
  for (size_t i : it->second) {
    const int d = Dominates(ref_.ops[i].signature, sig);
    if (d == 0) continue;
    const double as_long = AsLongAs(sig, ref_.ops[i].median);
    if (d > 0) lo = std::max(lo, as_long);  // that op does at least sig's work: no faster
    if (d < 0) hi = std::min(hi, as_long);  // at most sig's work: no slower
  }
  // Measurements out of order (noise) set no bound.
  if (lo <= hi) SetBounded(lent, std::clamp(lent->efficiency, lo, hi));
}

namespace {

// The precision whose efficiencies stand in for `sig`'s where a reference measured none of its
// own (see scaled_times.h); nullopt for the others.
std::optional<DType> StandIn(const OpSignature& sig) {
  switch (sig.dtype) {
    case DType::kFloat16:
      return DType::kBFloat16;
    case DType::kTFloat32:
      return ClassOf(sig.kind) == OpClass::kMemory ? DType::kFloat32 : DType::kBFloat16;
    default:
      return std::nullopt;
  }
}

}  // namespace

ReferenceEfficiencies::Lent ReferenceEfficiencies::For(const OpSignature& sig,
                                                       DeviceKind kind) const {
  if (const std::optional<DType> stand_in = StandIn(sig);
      stand_in && !measured_dtypes_.contains(sig.dtype) && measured_dtypes_.contains(*stand_in)) {
    OpSignature as = sig;
    as.dtype = *stand_in;
    Lent lent = For(as, kind);
    lent.flops = sig.flops();
    lent.bytes = sig.bytes();
    lent.source += ", as in " + std::string(DTypeName(*stand_in));
    lent.host = Seconds();  // another call's
    return lent;
  }
  Lent lent{.flops = sig.flops(), .bytes = sig.bytes()};
  std::optional<size_t> lender;  // the measured op whose device the source names
  const bool rnn = IsRecurrent(sig.kind);
  bool within = false;
  const Indexed* same_layer = rnn ? nullptr : SameLayer(sig, &within);
  if (auto it = by_signature_.find(sig.ToString()); it != by_signature_.end()) {
    lent.efficiency = index_[it->second].efficiency;
    lent.how = "measured";
    lender = it->second;
    lent.host = ref_.ops[it->second].host;
  } else if (double e = rnn ? 0 : Interpolated(sig); e > 0) {
    lent.efficiency = e;
    lent.how = "interpolated";
    if (same_layer) lender = same_layer->op;
  } else if (same_layer && within) {
    lent.efficiency = same_layer->efficiency;
    lent.how = "same layer";
    lender = same_layer->op;
  } else if (const Indexed* near = Nearest(sig)) {
    lent.efficiency = near->efficiency;
    lent.how = "nearest";
    lender = near->op;
    // The same layer measured at a batch B too far off to lend its efficiency still bounds it,
    // as a layer's efficiency does not fall and its time does not shrink as its batch grows. Below
    // B/4: at most the efficiency at B, and no slower than the window's edge, B/4 at that
    // efficiency (else a batch just outside the window ran slower than one just inside it: a
    // ResNet50 bf16 step on the H100 took 9.4 ms at batch 4 and 6.2 ms at batch 8). Above 4B,
    // the other way round. (GPT-2's LM head, 50257 outputs that no tensor-core tile divides, ran
    // at 96 TFLOP/s on the H100 at batch 8, against 471 for the same blocks' aligned products; at
    // batch 1 the nearest op had lent it the latter.)
    if (same_layer) {
      const OpSignature& at = ref_.ops[same_layer->op].signature;
      const bool below = at.dim("mb") > sig.dim("mb");
      OpSignature edge = sig;
      edge.dims["mb"] = below ? CeilDiv(at.dim("mb"), kSameLayerBatchRatio)
                              : at.dim("mb") * static_cast<int64_t>(kSameLayerBatchRatio);
      // The efficiency at which sig takes as long as the edge at the same layer's efficiency.
      const double at_edge =
          same_layer->efficiency * (ref_.roofline.Bound(sig) / ref_.roofline.Bound(edge));
      const double lo = below ? at_edge : (EfficiencyMayFall(sig) ? 1e-4 : same_layer->efficiency);
      const double hi = below ? same_layer->efficiency : at_edge;
      double bounded = std::clamp(lent.efficiency, std::min(lo, hi), hi);
      // And in order along the batches out there: no slower than at twice the batch (below), no
      // faster than at half of it (above), each lent the same way, up to the edge.
      OpSignature next = sig;
      next.dims["mb"] = below ? sig.dim("mb") * 2 : sig.dim("mb") / 2;
      if (below ? next.dim("mb") < edge.dim("mb") : next.dim("mb") > edge.dim("mb")) {
        const double ratio = ref_.roofline.Bound(sig) / ref_.roofline.Bound(next);
        const double in_order = For(next, kind).efficiency * ratio;  // as long as `next` takes
        bounded = below ? std::max(bounded, in_order) : std::min(bounded, in_order);
      }
      SetBounded(&lent, bounded);
    }
    // A recurrent layer: the nearest measured layer's efficiency, times how much more (or less)
    // efficient a product of this layer's per-step shape is than one of that layer's.
    if (rnn) {
      const Indexed* here = Nearest(StepGemm(sig));
      const Indexed* there = Nearest(StepGemm(ref_.ops[near->op].signature));
      if (here && there) {
        lent.efficiency =
            std::clamp(near->efficiency * here->efficiency / there->efficiency, 1e-4, 1.0);
        lent.how = "nearest rnn";
      }
    }
  } else if (auto cit = class_median_.find(ClassKey(ClassOf(sig.kind), sig.dtype));
             cit != class_median_.end()) {
    lent.efficiency = cit->second;
    lent.how = "class";
  } else {
    lent.efficiency = DefaultEfficiency(kind, ClassOf(sig.kind));
    lent.how = "analytic";
  }
  // Only an op's own row timed in the step runs past its bound: another op's operands, of
  // another size, may not be in the caches where that one's were.
  if (lent.how != "measured") lent.efficiency = std::min(lent.efficiency, 1.0);
  if (lent.how != "measured" && lent.how != "interpolated" && !rnn) {
    Bracket(sig, &lent);
    Dominate(sig, &lent);
  }
  const std::string from =
      "scaled from " + (lender ? Origin(*lender) : ref_.name + " (" + ref_.date + ")");
  char eff[32];
  std::snprintf(eff, sizeof eff, "%.2f", lent.efficiency);
  if (lent.how == "analytic")
    lent.source = "analytic (efficiency " + std::string(eff) + ")";
  else if (lent.how == "measured")
    lent.source = from;
  else if (lent.how == "nearest rnn")
    lent.source = from + ", nearest op's efficiency scaled to its step's product";
  else if (lent.how == "same layer")
    lent.source = from + ", the same layer's efficiency at another batch";
  else if (lent.how == "interpolated")
    lent.source = from + ", interpolated between the same layer at a smaller and a larger batch";
  else if (lent.how == "bounded")
    lent.source = from + ", bounded by the same layer at other batches";
  else
    lent.source = from + ", " + lent.how + " op's efficiency";
  return lent;
}

const ReferenceEfficiencies::Lent& ReferenceEfficiencies::Remembered(const OpSignature& sig,
                                                                     DeviceKind kind) const {
  auto& remembered = remembered_[kind == DeviceKind::kGpu ? 1 : 0];
  std::lock_guard<std::mutex> lock(remembered_mutex_);
  auto it = remembered.find(sig);
  if (it == remembered.end()) it = remembered.emplace(sig, For(sig, kind)).first;
  return it->second;  // elements of an unordered_map stay where they are
}

ScaledTimes::ScaledTimes(std::shared_ptr<const ReferenceEfficiencies> reference,
                         TargetDevice target)
    : ref_(std::move(reference)), target_(std::move(target)) {}

std::optional<OpTime> ScaledTimes::Find(const OpSignature& sig, int threads) const {
  if (!target_.roofline.Supports(sig.dtype)) return std::nullopt;
  const ReferenceEfficiencies::Lent& lent = EfficiencyFor(sig);
  const bool one_core = threads == 1 && target_.one_core.has_value();
  const Roofline& on = one_core ? *target_.one_core : target_.roofline;
  Seconds work =
      CarriedWork(ref_->device().roofline, on, sig, lent.flops, lent.bytes, lent.efficiency);
  if (!one_core && target_.roofline.kind == DeviceKind::kCpu && target_.cores > 1) {
    const Usl& usl = target_.usl[static_cast<int>(ClassOf(sig.kind))];
    work = work * (target_.cores / usl.Speedup(target_.cores));
  }
  const Seconds t = on.latency + work;
  // A GPU call's host time is its host's and its libraries', carried as measured (none on a CPU,
  // whose dispatch is in the per-op overhead).
  const Seconds host = target_.roofline.kind == DeviceKind::kGpu ? lent.host : Seconds();
  return OpTime{t, t, t, t, lent.source, host};
}

}  // namespace epochcost
