// FLOPs and bytes of one op call, from its signature alone: what a roofline needs to place the
// op on a device it was not measured on. The conventions follow layer_rules.h.
#include "engine/eager_optimizer.h"
#include "engine/layer.h"
#include "engine/layer_rules.h"
#include "engine/op_signature.h"

namespace epochcost {
namespace {

double Window(const OpSignature& s) { return double(s.dim("kh", 1)) * double(s.dim("kw", 1)); }
double InMap(const OpSignature& s) { return double(s.dim("ih", 1)) * double(s.dim("iw", 1)); }
double OutMap(const OpSignature& s) { return double(s.dim("oh", 1)) * double(s.dim("ow", 1)); }

double ConvMacs(const OpSignature& s) {
  return double(s.dim("mb")) * double(s.dim("oc")) * OutMap(s) * Window(s) * double(s.dim("ic")) /
         double(s.dim("g", 1));
}

double RnnMacs(const OpSignature& s) {
  const double gates = s.alg == "lstm" ? 4 : 3;
  return double(s.dim("dirs", 1)) * double(s.dim("t")) * double(s.dim("mb")) * gates *
         double(s.dim("hc")) * double(s.dim("ic") + s.dim("hc"));
}

// Arrays an optimizer streams per parameter (weights read and written, gradient, state).
double OptimizerArrays(const std::string& alg) {
  if (alg == "sgd") return 3;
  if (alg == "momentum" || alg == "rmsprop") return 5;
  return 7;  // adam, adamw, adadelta: two state arrays
}

// Bytes of a cast's source value, from its alg (from_fp32, from_fp16, from_bf16).
double SourceSize(const std::string& alg) {
  Result<DType> t = ParseDType(std::string_view(alg).substr(5));
  return t.ok() ? DTypeSize(*t) : 4;
}

double OptimizerFlops(const std::string& alg) {
  if (alg == "sgd") return 2;
  if (alg == "momentum") return 4;
  if (alg == "rmsprop") return 6;
  if (alg == "adam") return 10;
  if (alg == "adamw") return 11;  // and the decay's multiply
  return 12;  // adadelta
}

double EltwiseFlops(const OpSignature& s, bool backward) {
  Result<Activation> a = ParseActivation(s.alg);
  if (!a.ok()) return 1;  // ONNX element-wise ops: one operation per element
  return backward ? ActivationBackwardFlops(*a) : ActivationFlops(*a);
}

}  // namespace

Flops OpSignature::flops() const {
  const double n = static_cast<double>(dim("n"));
  const double rows_c = double(dim("rows")) * double(dim("c"));
  double f = 0;
  switch (kind) {
    case OpKind::kConvFwd:
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
      f = 2 * ConvMacs(*this);
      break;
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdWeights:
      f = 2.0 * double(dim("mb")) * double(dim("ic")) * double(dim("oc")) +
          (dim("bias", 1) ? double(dim("mb")) * double(dim("oc")) : 0);
      break;
    case OpKind::kInnerProductBwdData:
      f = 2.0 * double(dim("mb")) * double(dim("ic")) * double(dim("oc"));
      break;
    case OpKind::kMatMul:
      f = 2.0 * double(dim("b", 1)) * double(dim("m")) * double(dim("k")) * double(dim("n"));
      break;
    case OpKind::kPoolFwd:
      f = double(dim("mb")) * double(dim("c")) * OutMap(*this) * Window(*this);
      break;
    case OpKind::kPoolBwd:
      f = double(dim("mb")) * double(dim("c")) * OutMap(*this) * (alg == "max" ? 1 : Window(*this));
      break;
    case OpKind::kBatchNormFwd:
      f = 4.0 * double(dim("mb")) * double(dim("c")) * double(dim("sp"));
      break;
    case OpKind::kBatchNormBwd:
      f = 8.0 * double(dim("mb")) * double(dim("c")) * double(dim("sp"));
      break;
    case OpKind::kLayerNormFwd:
      f = 4 * rows_c;
      break;
    case OpKind::kLayerNormBwd:
      f = 8 * rows_c;
      break;
    case OpKind::kEltwiseFwd:
      f = EltwiseFlops(*this, false) * n;
      break;
    case OpKind::kEltwiseBwd:
      f = EltwiseFlops(*this, true) * n;
      break;
    case OpKind::kSoftmaxFwd:
      f = 5 * rows_c;
      break;
    case OpKind::kSoftmaxBwd:
      f = 4 * rows_c;
      break;
    case OpKind::kBinary:
    case OpKind::kReduce:
    case OpKind::kDropoutFwd:
    case OpKind::kDropoutBwd:
      f = n;
      break;
    case OpKind::kConcat:
    case OpKind::kReorder:
    case OpKind::kEmbeddingFwd:
      f = 0;
      break;
    case OpKind::kEmbeddingBwd:
      f = double(dim("rows")) * double(dim("dim"));
      break;
    case OpKind::kRnnFwd:
      f = 2 * RnnMacs(*this);
      break;
    case OpKind::kRnnBwd:
      f = 4 * RnnMacs(*this);
      break;
    case OpKind::kLoss:
      f = 7 * rows_c;
      break;
    case OpKind::kOptimizer:
      f = OptimizerFlops(alg) * n;
      break;
  }
  return Flops::FromFlops(f);
}

Bytes OpSignature::bytes() const {
  const double e = DTypeSize(dtype);
  // A reorder of a whole tensor names its shape instead of its size.
  const double n = dims.contains("c") ? double(dim("mb", 1)) * double(dim("c")) *
                                            double(dim("h", 1)) * double(dim("w", 1))
                                      : static_cast<double>(dim("n"));
  const double rows_c = double(dim("rows")) * double(dim("c"));
  const double mb = static_cast<double>(dim("mb"));
  const bool aten = dim("aten") != 0;  // timed as PyTorch's own kernel (lowering.h)
  double b = 0;
  switch (kind) {
    case OpKind::kConvFwd:
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
      b = e * (mb * double(dim("ic")) * InMap(*this) +
               double(dim("oc")) * double(dim("ic")) / double(dim("g", 1)) * Window(*this) +
               mb * double(dim("oc")) * OutMap(*this));
      break;
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
      b = e *
          (mb * double(dim("ic")) + double(dim("ic")) * double(dim("oc")) + mb * double(dim("oc")));
      break;
    case OpKind::kMatMul:
      b = e * double(dim("b", 1)) *
          (double(dim("m")) * double(dim("k")) + double(dim("k")) * double(dim("n")) +
           double(dim("m")) * double(dim("n")));
      break;
    case OpKind::kPoolFwd:
    case OpKind::kPoolBwd:
      b = e * mb * double(dim("c")) * (InMap(*this) + OutMap(*this));
      // ATen's max pooling also writes (forward) or reads (backward) an int64 index per output,
      // and its backward zeroes the input gradient before scattering into it.
      if (aten)
        b += mb * double(dim("c")) *
             (8 * OutMap(*this) + (kind == OpKind::kPoolBwd ? e * InMap(*this) : 0));
      break;
    // PyTorch's own kernels (aten=1, on a GPU) read x twice: the forward once for the
    // statistics and once to normalise, the backward x and dy once to reduce and again for dx.
    case OpKind::kBatchNormFwd:
      b = (aten ? 3 : 2) * e * mb * double(dim("c")) * double(dim("sp"));
      break;
    case OpKind::kBatchNormBwd:
      b = (aten ? 5 : 3) * e * mb * double(dim("c")) * double(dim("sp"));
      break;
    case OpKind::kLayerNormFwd:
    case OpKind::kSoftmaxFwd:
      b = 2 * e * rows_c;
      break;
    case OpKind::kLayerNormBwd:
    case OpKind::kSoftmaxBwd:
      b = 3 * e * rows_c;
      break;
    case OpKind::kEltwiseFwd:
    case OpKind::kConcat:
      b = 2 * e * n;
      break;
    case OpKind::kReorder:
      // A cast (alg=from_TYPE) reads the source type and writes this one.
      b = (e + (alg.starts_with("from_") ? SourceSize(alg) : e)) * n;
      break;
    case OpKind::kEltwiseBwd:
    case OpKind::kBinary:
      b = 3 * e * n;
      break;
    case OpKind::kReduce:
      b = e * (n + double(dim("out", 1)));
      break;
    case OpKind::kDropoutFwd:
    case OpKind::kDropoutBwd:
      if (!aten) {
        b = 2 * e * n + n;  // and a one-byte mask
      } else {
        // Forward: write the mask, scale it in place, multiply it with x into y; backward: one
        // multiplication by the mask.
        b = e * n * (kind == OpKind::kDropoutFwd ? 1 + 2 + 3 : 3);
      }
      break;
    case OpKind::kEmbeddingFwd:
      b = 2 * e * double(dim("rows")) * double(dim("dim")) + 4.0 * double(dim("rows"));
      break;
    case OpKind::kEmbeddingBwd:
      b = e * double(dim("vocab")) * double(dim("dim")) +
          2 * e * double(dim("rows")) * double(dim("dim"));
      break;
    case OpKind::kRnnFwd:
    case OpKind::kRnnBwd: {
      const double gates = alg == "lstm" ? 4 : 3, dirs = double(dim("dirs", 1));
      const double t = double(dim("t")), hc = double(dim("hc")), ic = double(dim("ic"));
      const double once = e * (dirs * gates * hc * (ic + hc) + t * mb * ic + t * mb * dirs * hc +
                               t * mb * dirs * gates * hc);
      b = kind == OpKind::kRnnFwd ? once : 2 * once;
      break;
    }
    case OpKind::kLoss:
      b = 2 * e * rows_c;
      break;
    case OpKind::kOptimizer:
      if (!aten) {
        b = OptimizerArrays(alg) * e * n;
      } else {
        for (const EagerPass& pass : EagerOptimizerPasses(alg)) b += (pass.reads() + 1) * e * n;
      }
      break;
  }
  return Bytes::FromBytes(b);
}

}  // namespace epochcost
