// An op signature: one library call of a training step (a convolution's forward pass, an inner
// product's weight gradient, an optimizer update over N parameters, ...) as plain data. It prints
// as one line, "conv_bwd_weights dt=f32 mb=32 ic=3 ih=32 iw=32 oc=32 kh=3 kw=3 ...", and parses
// back from that line, so that a measurement can be repeated from its repro line (as with
// oneDNN's benchdnn). The profiler measures signatures; the engine composes their times.
#ifndef EPOCHCOST_ENGINE_OP_SIGNATURE_H_
#define EPOCHCOST_ENGINE_OP_SIGNATURE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engine/tensor.h"
#include "engine/units.h"

namespace epochcost {

enum class OpKind {
  kConvFwd,
  kConvBwdData,
  kConvBwdWeights,
  kInnerProductFwd,
  kInnerProductBwdData,
  kInnerProductBwdWeights,
  kMatMul,  // batched: b x (m x k) . (k x n)
  kPoolFwd,
  kPoolBwd,
  kBatchNormFwd,
  kBatchNormBwd,
  kLayerNormFwd,
  kLayerNormBwd,
  kEltwiseFwd,
  kEltwiseBwd,
  kSoftmaxFwd,
  kSoftmaxBwd,
  kBinary,   // n elements, `ins` inputs
  kConcat,   // n elements written
  kReorder,  // n elements copied (transpose, slice, padding)
  kReduce,   // n elements in, `out` elements out
  kDropoutFwd,
  kDropoutBwd,
  kRnnFwd,
  kRnnBwd,
  kEmbeddingFwd,
  kEmbeddingBwd,
  kLoss,       // forward and gradient of the loss over rows x classes
  kOptimizer,  // one update of n parameters
};

std::string_view OpKindName(OpKind k);
// A backward-data or backward-weights op (what a data-parallel all-reduce can overlap).
bool IsBackward(OpKind k);
// A whole recurrent layer's op, forward or backward (rnn_fwd, rnn_bwd).
inline bool IsRecurrent(OpKind k) { return k == OpKind::kRnnFwd || k == OpKind::kRnnBwd; }
Result<OpKind> ParseOpKind(std::string_view name);

struct OpSignature {
  OpKind kind = OpKind::kConvFwd;
  DType dtype = DType::kFloat32;
  std::string alg;                      // eltwise/pool/rnn/binary/loss/optimizer algorithm
  std::map<std::string, int64_t> dims;  // named sizes; the keys each kind uses are documented
                                        // in docs/op-signatures.md

  int64_t dim(const std::string& key, int64_t fallback = 0) const;
  // The work and memory traffic of one call (op_signature_cost.cpp; docs/op-signatures.md): a
  // multiply-add is 2 FLOPs; bytes count each operand read or written once.
  Flops flops() const;
  Bytes bytes() const;
  // "conv_fwd dt=f32 mb=32 ic=3 ...": kind, dtype, alg (if any), then dims in key order.
  std::string ToString() const;
  static Result<OpSignature> Parse(std::string_view line);
  bool operator==(const OpSignature&) const = default;
  bool operator<(const OpSignature& o) const { return ToString() < o.ToString(); }
};

// Hashes every field operator== compares, without building the text (for hash maps keyed by
// signatures on hot paths).
struct OpSignatureHash {
  size_t operator()(const OpSignature& s) const;
};

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_OP_SIGNATURE_H_
