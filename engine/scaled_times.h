// Op times on a device that was not measured, from one that was (DESIGN.md, "Scaling to an
// unmeasured device"). An op measured on the reference in time t has efficiency
// e = bound_ref / (t − latency_ref), its roofline time there over the time it took beyond the
// device's latency floor; on the target it takes latency_tgt + bound_tgt / e. An op the reference
// did not measure borrows the efficiency of the reference's nearest measured op of the same kind
// and precision (FLOPs and bytes closest in log scale), else the median efficiency of its op
// class there, else a documented default (analytic). A precision the reference measured nothing
// in borrows its stand-in's efficiencies there: fp16 bf16's (the same tensor-core rate and bytes
// per value wherever both exist), tf32 bf16's for the tensor-core ops (products, convolutions,
// recurrent layers) and fp32's for every other op (TF32 is a math mode of those ops only). On a CPU
// target with n cores the time is further divided by the Universal Scalability Law's speedup(n)/n
// for the op's class. Same-kind devices only: a GPU is scaled from a GPU, a CPU from a CPU. Every
// time names its source.
#ifndef EPOCHCOST_ENGINE_SCALED_TIMES_H_
#define EPOCHCOST_ENGINE_SCALED_TIMES_H_

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/parallel.h"
#include "engine/roofline.h"
#include "engine/step_time.h"

namespace epochcost {

struct MeasuredOp {
  OpSignature signature;
  Seconds median;
  // "NAME (DATE)" of the device that measured it, where that is not the reference itself (an op
  // pooled from another measured device, PoolReferences); empty otherwise.
  std::string origin;
  // A GPU call's host seconds (its library's API and launches, OpTime::host); 0: not measured.
  // The host's and the libraries', not the GPU's: a scaled GPU call carries it (ScaledTimes).
  Seconds host;
  // A CPU op timed inside the replayed step (profile --in-step): where it ran faster than its
  // memory bound (its operands in the caches the step left them in), it carries that speed to
  // another CPU: its efficiency may exceed 1. A row timed alone found its operands warm from
  // its own previous call, as a step does not, and is held to its roofline.
  bool in_step = false;
};

// A measured device: its roofline at the thread count its times were taken with (one thread on a
// CPU), and those times.
struct ReferenceDevice {
  std::string name;  // fingerprint model, "NVIDIA H100 80GB HBM3"
  std::string date;  // when it was measured
  Roofline roofline;
  std::vector<MeasuredOp> ops;
};

// Several measured devices of one kind as one reference (docs/cross-device.md, "Several measured
// GPUs"): the first device's ops as measured, then every op of the others (in their order) whose
// signature the pool lacks, its time carried to the first device's roofline at the efficiency it
// reached where it was measured (t' = latency_first + bound_first / e), naming that device. Each
// device's roofline latency must be set.
ReferenceDevice PoolReferences(const std::vector<ReferenceDevice>& devices);

struct TargetDevice {
  Roofline roofline;       // at the cores it uses (CPU) or the whole device (GPU)
  double cores = 1;        // effective cores (CPU; hyperthreads count part of a core), 1 on a GPU
  std::array<Usl, 4> usl;  // per OpClass (CPU)
  // CPU: one of its cores (rate and memory bandwidth of one core, the same latency), where a call
  // the framework runs on one thread takes its time (StepOp::serial). Unset: `roofline`.
  std::optional<Roofline> one_core;
};

// Efficiencies used when a reference has nothing to lend (docs/cross-device.md).
double DefaultEfficiency(DeviceKind kind, OpClass c);
Seconds DefaultLatency(DeviceKind kind);

// What a reference lends: its ops indexed by signature and by kind, and the median efficiency
// of each op class. Built once per reference; every target scaled from it shares it.
class ReferenceEfficiencies {
 public:
  explicit ReferenceEfficiencies(ReferenceDevice reference);
  const ReferenceDevice& device() const { return ref_; }

  // The efficiency lent to `sig` and where it came from ("measured", "nearest", "nearest rnn":
  // a recurrent layer's nearest, scaled by its per-step product's, "class", "analytic": the
  // default for a target of `kind`), with the source line a time scaled with it
  // carries and the signature's FLOPs and bytes.
  struct Lent {
    double efficiency = 0;
    std::string how;
    std::string source;  // "scaled from NAME (DATE)[, HOW op's efficiency]", "analytic (...)"
    Flops flops;
    Bytes bytes;
    // The host seconds of the reference's call of this very signature (MeasuredOp::host); 0
    // where it lends another op's efficiency.
    Seconds host;
  };
  Lent For(const OpSignature& sig, DeviceKind kind) const;
  // For(), remembered: it depends on the signature and the target's kind only, and `recommend`
  // asks it again for every machine it scales to. Thread-safe.
  const Lent& Remembered(const OpSignature& sig, DeviceKind kind) const;

 private:
  double EfficiencyOf(const MeasuredOp& m) const;
  // "NAME (DATE)" of the device that measured ref_.ops[i].
  std::string Origin(size_t i) const;

  struct Indexed {  // per reference op, computed once
    double log_flops = 0;
    double log_bytes = 0;
    double efficiency = 0;
    size_t op = 0;  // into ref_.ops
  };
  // The measured op of the same kind and precision nearest in log FLOPs and bytes, or null.
  const Indexed* Nearest(const OpSignature& sig) const;
  // The same layer (every dimension but the batch `mb` equal) measured at the batch nearest to
  // sig's, or null; `within` tells whether that batch is within kSameLayerBatchRatio of sig's.
  const Indexed* SameLayer(const OpSignature& sig, bool* within) const;
  // The efficiency at which sig takes the time interpolated (log time against log batch) between
  // the same layer measured at the nearest smaller and the nearest larger batch; 0 where one of
  // them is missing, or the larger batch was measured faster.
  double Interpolated(const OpSignature& sig) const;
  // Keeps a lent efficiency within what the same op measured at other sizes allows (a layer at
  // other batches; a batched product, row op or element-wise op at other sizes): an op's
  // efficiency does not fall (batch norm's may), and its time does not shrink, as its size grows.
  void Bracket(const OpSignature& sig, Lent* lent) const;
  // Keeps an op made only of sizes (a product, a row or element-wise op) no slower than a
  // measured op of the same kind that is at least as large in every size, and no faster than one
  // at most as large in every size.
  void Dominate(const OpSignature& sig, Lent* lent) const;
  // The efficiency at which sig would take `t` on the reference (1 where `t` is within its
  // latency).
  double AsLongAs(const OpSignature& sig, Seconds t) const;
  // Sets a lent efficiency a bound moved (unchanged: nothing), marking it "bounded".
  static void SetBounded(Lent* lent, double efficiency);
  static constexpr double kSameLayerBatchRatio = 4;
  ReferenceDevice ref_;
  std::set<DType> measured_dtypes_;  // the precisions the reference has any op of
  std::vector<Indexed> index_;
  std::map<std::string, size_t> by_signature_;
  std::map<std::string, std::vector<size_t>> by_kind_;  // "kind dtype" -> ops
  // Signature without its size (a layer's mb, ...) -> ops: the same op at other sizes.
  std::map<std::string, std::vector<size_t>> by_size_;
  std::map<std::string, double> class_median_;  // "class dtype" -> efficiency
  mutable std::mutex remembered_mutex_;
  // For() per target kind (CPU, GPU), by signature.
  mutable std::array<std::unordered_map<OpSignature, Lent, OpSignatureHash>, 2> remembered_;
};

class ScaledTimes : public OpTimeSource {
 public:
  // `reference` may hold no ops (then every time is analytic).
  ScaledTimes(std::shared_ptr<const ReferenceEfficiencies> reference, TargetDevice target);
  // `threads`: 1 is a call run on one thread, priced on the target's one core (where set: no
  // parallel speedup, one core's rate and bandwidth); any other count, on all its cores.
  std::optional<OpTime> Find(const OpSignature& sig, int threads) const override;

  const ReferenceEfficiencies::Lent& EfficiencyFor(const OpSignature& sig) const {
    return ref_->Remembered(sig, target_.roofline.kind);
  }

 private:
  std::shared_ptr<const ReferenceEfficiencies> ref_;
  TargetDevice target_;
};

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_SCALED_TIMES_H_
