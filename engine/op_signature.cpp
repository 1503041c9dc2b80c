#include "engine/op_signature.h"

#include <algorithm>
#include <array>
#include <boost/container_hash/hash.hpp>
#include <sstream>
#include <vector>

namespace epochcost {
namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, 29> kOpKinds = {{
    {OpKind::kConvFwd, "conv_fwd"},
    {OpKind::kConvBwdData, "conv_bwd_data"},
    {OpKind::kConvBwdWeights, "conv_bwd_weights"},
    {OpKind::kInnerProductFwd, "ip_fwd"},
    {OpKind::kInnerProductBwdData, "ip_bwd_data"},
    {OpKind::kInnerProductBwdWeights, "ip_bwd_weights"},
    {OpKind::kMatMul, "matmul"},
    {OpKind::kPoolFwd, "pool_fwd"},
    {OpKind::kPoolBwd, "pool_bwd"},
    {OpKind::kBatchNormFwd, "bnorm_fwd"},
    {OpKind::kBatchNormBwd, "bnorm_bwd"},
    {OpKind::kLayerNormFwd, "lnorm_fwd"},
    {OpKind::kLayerNormBwd, "lnorm_bwd"},
    {OpKind::kEltwiseFwd, "eltwise_fwd"},
    {OpKind::kEltwiseBwd, "eltwise_bwd"},
    {OpKind::kSoftmaxFwd, "softmax_fwd"},
    {OpKind::kSoftmaxBwd, "softmax_bwd"},
    {OpKind::kBinary, "binary"},
    {OpKind::kConcat, "concat"},
    {OpKind::kReorder, "reorder"},
    {OpKind::kReduce, "reduce"},
    {OpKind::kDropoutFwd, "dropout_fwd"},
    {OpKind::kDropoutBwd, "dropout_bwd"},
    {OpKind::kRnnFwd, "rnn_fwd"},
    {OpKind::kRnnBwd, "rnn_bwd"},
    {OpKind::kEmbeddingFwd, "embedding_fwd"},
    {OpKind::kEmbeddingBwd, "embedding_bwd"},
    {OpKind::kLoss, "loss"},
    {OpKind::kOptimizer, "optimizer"},
}};

// Short dtype names, as benchdnn writes them.
std::string_view DtName(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "f32";
    case DType::kTFloat32:
      return "tf32";
    case DType::kBFloat16:
      return "bf16";
    case DType::kFloat16:
      return "f16";
    case DType::kInt32:
      return "s32";
    case DType::kInt64:
      return "s64";
  }
  return "?";
}

Result<DType> ParseDt(std::string_view s) {
  for (DType t : {DType::kFloat32, DType::kTFloat32, DType::kBFloat16, DType::kFloat16,
                  DType::kInt32, DType::kInt64})
    if (DtName(t) == s) return t;
  return Status::InvalidArgument("unknown data type '" + std::string(s) + "'");
}

}  // namespace

bool IsBackward(OpKind k) {
  switch (k) {
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
    case OpKind::kPoolBwd:
    case OpKind::kBatchNormBwd:
    case OpKind::kLayerNormBwd:
    case OpKind::kEltwiseBwd:
    case OpKind::kSoftmaxBwd:
    case OpKind::kDropoutBwd:
    case OpKind::kRnnBwd:
    case OpKind::kEmbeddingBwd:
      return true;
    default:
      return false;
  }
}

std::string_view OpKindName(OpKind k) {
  for (const auto& [kind, name] : kOpKinds)
    if (kind == k) return name;
  return "?";
}

Result<OpKind> ParseOpKind(std::string_view name) {
  for (const auto& [kind, n] : kOpKinds)
    if (n == name) return kind;
  return Status::InvalidArgument("unknown op kind '" + std::string(name) + "'");
}

int64_t OpSignature::dim(const std::string& key, int64_t fallback) const {
  auto it = dims.find(key);
  return it == dims.end() ? fallback : it->second;
}

std::string OpSignature::ToString() const {
  std::string s = std::string(OpKindName(kind)) + " dt=" + std::string(DtName(dtype));
  if (!alg.empty()) s += " alg=" + alg;
  for (const auto& [k, v] : dims) s += " " + k + "=" + std::to_string(v);
  return s;
}

namespace {

// The sizes each kind cannot do without, each positive: a line without them would time an empty
// op. Keys with a default where they are read (g, dirs, b, out, a window's h and w: 1) may be
// left out, as docs/op-signatures.md says; a reorder or concat gives n, or a tensor's c.
std::vector<const char*> RequiredSizes(const OpSignature& s) {
  switch (s.kind) {
    case OpKind::kConvFwd:
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
      return {"mb", "ic", "oc"};
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
      return {"mb", "ic", "oc"};
    case OpKind::kMatMul:
      return {"m", "k", "n"};
    case OpKind::kPoolFwd:
    case OpKind::kPoolBwd:
      return {"mb", "c"};
    case OpKind::kBatchNormFwd:
    case OpKind::kBatchNormBwd:
      return {"mb", "c", "sp"};
    case OpKind::kLayerNormFwd:
    case OpKind::kLayerNormBwd:
    case OpKind::kSoftmaxFwd:
    case OpKind::kSoftmaxBwd:
    case OpKind::kLoss:
      return {"rows", "c"};
    case OpKind::kConcat:
    case OpKind::kReorder:
      return {s.dims.contains("c") ? "c" : "n"};
    case OpKind::kReduce:
      return {"n"};
    case OpKind::kRnnFwd:
    case OpKind::kRnnBwd:
      return {"t", "mb", "ic", "hc"};
    case OpKind::kEmbeddingFwd:
    case OpKind::kEmbeddingBwd:
      return {"rows", "dim"};
    case OpKind::kEltwiseFwd:
    case OpKind::kEltwiseBwd:
    case OpKind::kBinary:
    case OpKind::kDropoutFwd:
    case OpKind::kDropoutBwd:
    case OpKind::kOptimizer:
      return {"n"};
  }
  return {};
}

// Every size any op signature has (docs/op-signatures.md): a key outside them is a typing slip
// that would have been measured and stored as a signature of its own (`profile op "ip_fwd ...
// extra=5"` was).
bool KnownSize(std::string_view key) {
  static constexpr std::string_view kSizes[] = {
      "amp", "aten", "b",     "bias", "c",    "dh",  "dim", "dirs", "dw", "dx", "g",     "h",  "hc",
      "ic",  "ih",   "infer", "iw",   "k",    "kh",  "kw",  "m",    "mb", "n",  "nhwc",  "oc", "oh",
      "out", "ow",   "ph",    "pw",   "rows", "seq", "sh",  "sp",   "sw", "t",  "vocab", "w"};
  return std::find(std::begin(kSizes), std::end(kSizes), key) != std::end(kSizes);
}

Status CheckSizes(const OpSignature& s) {
  for (const char* key : RequiredSizes(s)) {
    auto it = s.dims.find(key);
    if (it == s.dims.end())
      return Status::InvalidArgument(std::string(key) + "= is missing (" +
                                     std::string(OpKindName(s.kind)) +
                                     " needs it; docs/op-signatures.md)");
    if (it->second == 0) return Status::InvalidArgument(std::string(key) + "=0: must be positive");
  }
  return Status::Ok();
}

}  // namespace

Result<OpSignature> OpSignature::Parse(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::string word;
  if (!(in >> word)) return Status::InvalidArgument("empty op signature");
  OpSignature sig;
  Result<OpKind> kind = ParseOpKind(word);
  if (!kind.ok()) return kind.status();
  sig.kind = *kind;
  bool have_dt = false;
  while (in >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size())
      return Status::InvalidArgument("'" + word + "' is not KEY=VALUE");
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "dt") {
      Result<DType> dt = ParseDt(value);
      if (!dt.ok()) return dt.status();
      sig.dtype = *dt;
      have_dt = true;
    } else if (key == "alg") {
      sig.alg = value;
    } else {
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (!KnownSize(key))
        return Status::InvalidArgument("'" + key +
                                       "' is not a size of any op signature "
                                       "(docs/op-signatures.md)");
      if (used != value.size() || v < 0)
        return Status::InvalidArgument("'" + word + "': sizes must be non-negative integers");
      if (!sig.dims.emplace(key, v).second)
        return Status::InvalidArgument("'" + key + "' is given twice");
    }
  }
  if (!have_dt) return Status::InvalidArgument("dt= is missing");
  if (Status st = CheckSizes(sig); !st.ok()) return st;
  return sig;
}

size_t OpSignatureHash::operator()(const OpSignature& s) const {
  size_t h = 0;
  boost::hash_combine(h, static_cast<int>(s.kind));
  boost::hash_combine(h, static_cast<int>(s.dtype));
  boost::hash_combine(h, s.alg);
  for (const auto& [key, value] : s.dims) {
    boost::hash_combine(h, key);
    boost::hash_combine(h, value);
  }
  return h;
}

}  // namespace epochcost
