#include "engine/onnx_fold.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace epochcost::onnx_import {
namespace {

constexpr int64_t kMaxFoldedElements = 1 << 16;

template <typename T>
void ReadRaw(const std::string& raw, std::vector<double>* out) {
  const size_t n = raw.size() / sizeof(T);
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    (*out)[i] = static_cast<double>(v);
  }
}

Status Bad(const onnx::NodeProto& n, const std::string& what) {
  return Status::Unsupported("node '" + n.name() + "' (" + n.op_type() + "): " + what);
}

Constant Scalar(double v, bool integer) {
  Constant c;
  c.data = {v};
  c.is_batch = {false};
  c.integer = integer;
  return c;
}

bool IsIntegerType(int data_type) {
  using TP = onnx::TensorProto;
  return data_type == TP::INT64 || data_type == TP::INT32 || data_type == TP::INT16 ||
         data_type == TP::INT8 || data_type == TP::UINT8 || data_type == TP::UINT16 ||
         data_type == TP::UINT32 || data_type == TP::UINT64 || data_type == TP::BOOL;
}

// Element-wise arithmetic with numpy broadcasting of a scalar or an equal-shaped operand.
Result<Constant> Arithmetic(const onnx::NodeProto& n, const Constant& a, const Constant& b) {
  if (!a.has_data() || !b.has_data()) {
    // A stripped weight (a mask buffer exported without its values): the result's shape, by
    // numpy broadcasting, without values.
    Constant out;
    out.dims = a.dims.size() >= b.dims.size() ? a.dims : b.dims;
    const std::vector<int64_t>& other = a.dims.size() >= b.dims.size() ? b.dims : a.dims;
    const size_t shift = out.dims.size() - other.size();
    for (size_t i = 0; i < other.size(); ++i) {
      int64_t& d = out.dims[shift + i];
      if (d == 1)
        d = other[i];
      else if (other[i] != 1 && other[i] != d)
        return Bad(n, "cannot broadcast constant operands");
    }
    out.learned = (a.learned || b.learned) && n.op_type() != "Equal";  // a mask is not learned
    return out;
  }
  const Constant& big = a.data.size() >= b.data.size() ? a : b;
  if (a.data.size() != b.data.size() && a.data.size() != 1 && b.data.size() != 1)
    return Bad(n, "cannot broadcast constant operands");
  Constant out;
  out.dims = big.dims;
  out.integer = a.integer && b.integer;
  const std::string& op = n.op_type();
  for (size_t i = 0; i < big.data.size(); ++i) {
    const size_t ia = a.data.size() == 1 ? 0 : i;
    const size_t ib = b.data.size() == 1 ? 0 : i;
    const double x = a.data[ia], y = b.data[ib];
    const bool batch = a.is_batch[ia] || b.is_batch[ib];
    if (a.is_batch[ia] && b.is_batch[ib] && op != "Equal")
      return Bad(n, "arithmetic between two batch sizes");
    double r = 0;
    if (op == "Add")
      r = x + y;
    else if (op == "Sub")
      r = x - y;
    else if (op == "Mul")
      r = x * y;
    else if (op == "Div")
      r = y == 0 ? 0 : out.integer ? std::trunc(x / y) : x / y;
    else if (op == "Equal")  // the batch size compares as 0: never a size the graph tests for
      r = (a.is_batch[ia] ? 0 : x) == (b.is_batch[ib] ? 0 : y);
    else if (op == "Pow")
      r = std::pow(x, y);
    // A batch-size element holds its multiple of the batch: multiplying by a positive integer
    // (either side) or dividing it by one that leaves an integer keeps it a multiple. Other
    // arithmetic on it yields an unknown value unless it is the identity.
    const double other = a.is_batch[ia] ? y : x;
    const bool multiple = (op == "Mul" && other >= 1 && other == std::floor(other)) ||
                          (op == "Div" && a.is_batch[ia] && r >= 1 && r == std::floor(r));
    const bool identity = (op == "Add" || op == "Sub") && other == 0;
    if (batch && !identity && !multiple && op != "Equal")
      return Bad(n, "arithmetic on the batch size");
    if (batch && identity) r = a.is_batch[ia] ? x : y;
    out.data.push_back(r);
    out.is_batch.push_back(batch && op != "Equal");
  }
  return out;
}

// A folded value used as a size, index or axis: an integer of at most 2^53 in magnitude (beyond
// that a double is not an integer, and casting it would be undefined).
Result<int64_t> ToInt(const onnx::NodeProto& n, double d) {
  if (!(std::abs(d) <= 9007199254740992.0))
    return Bad(n, "value " + std::to_string(d) + " is not a usable integer");
  return static_cast<int64_t>(d);
}

Result<std::vector<int64_t>> AsInts(const onnx::NodeProto& n, const Constant& c) {
  std::vector<int64_t> v;
  for (double d : c.data) {
    Result<int64_t> i = ToInt(n, d);
    if (!i.ok()) return i.status();
    v.push_back(*i);
  }
  return v;
}

// The inputs each folded op reads without checking: a missing one is an error, not a crash.
std::vector<size_t> RequiredInputs(const std::string& op) {
  if (op == "Identity" || op == "Cast" || op == "Sqrt" || op == "Unsqueeze" || op == "Squeeze" ||
      op == "ConstantOfShape" || op == "Shape")
    return {0};
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal" || op == "Pow" ||
      op == "Expand" || op == "Reshape" || op == "Gather")
    return {0, 1};
  if (op == "Slice" || op == "Range" || op == "Where") return {0, 1, 2};
  return {};
}

// Slice of a constant of rank > 1 (a causal mask cut to the sequence, mask[:, :, :T, :T]): the
// result's dims, and its values where the source has them. Steps of 1 only.
Result<Constant> SliceTensor(const onnx::NodeProto& n, const std::vector<const Constant*>& in) {
  auto input = [&](size_t i) -> const Constant* { return i < in.size() ? in[i] : nullptr; };
  const Constant& data = *input(0);
  const Constant *starts = input(1), *ends = input(2), *axes = input(3), *steps = input(4);
  if (!starts || !ends || !starts->has_data() || !ends->has_data() ||
      starts->data.size() != ends->data.size() ||
      (axes && (!axes->has_data() || axes->data.size() != starts->data.size())))
    return Bad(n, "slice bounds are not constant");
  if (steps && steps->has_data())
    for (double d : steps->data)
      if (d != 1) return Bad(n, "slice steps other than 1");
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  std::vector<int64_t> begin(rank, 0), dims = data.dims;
  const auto bound = [](double d) { return static_cast<int64_t>(std::clamp(d, -1e15, 1e15)); };
  for (size_t k = 0; k < starts->data.size(); ++k) {
    int64_t axis = axes ? bound(axes->data[k]) : static_cast<int64_t>(k);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return Bad(n, "slice axis out of range");
    const int64_t size = data.dims[axis];
    int64_t start = bound(starts->data[k]), end = bound(ends->data[k]);
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    begin[axis] = start;
    dims[axis] = end - start;
  }
  Constant c;
  c.dims = dims;
  c.learned = data.learned;
  c.integer = data.integer;
  if (data.data.empty() || c.elements() > kMaxFoldedElements) return c;
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < c.elements(); ++flat) {
    int64_t source = 0;
    for (int64_t a = 0; a < rank; ++a) source = source * data.dims[a] + begin[a] + index[a];
    c.data.push_back(data.data[source]);
    c.is_batch.push_back(false);
    for (int64_t a = rank - 1; a >= 0 && ++index[a] == dims[a]; --a) index[a] = 0;
  }
  return c;
}

}  // namespace

int64_t Constant::elements() const {
  // Saturating: dimensions read from a file can multiply past 64 bits.
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(d);
  return n >= 0x1p62 ? int64_t{1} << 62 : static_cast<int64_t>(n);
}

Result<Constant> FromTensor(const onnx::TensorProto& t) {
  Constant c;
  c.dims.assign(t.dims().begin(), t.dims().end());
  for (int64_t d : c.dims)
    if (d < 0) return Status::InvalidArgument("tensor '" + t.name() + "' has a negative dimension");
  using TP = onnx::TensorProto;
  const bool is_float = t.data_type() == TP::FLOAT || t.data_type() == TP::DOUBLE ||
                        t.data_type() == TP::FLOAT16 || t.data_type() == TP::BFLOAT16;
  c.learned = is_float && c.elements() > 1;
  if (is_float && c.elements() > kMaxFoldedElements) return c;  // weights: dims are enough
  switch (t.data_type()) {
    case TP::INT64:
      if (t.has_raw_data())
        ReadRaw<int64_t>(t.raw_data(), &c.data);
      else
        c.data.assign(t.int64_data().begin(), t.int64_data().end());
      break;
    case TP::INT32:
      if (t.has_raw_data())
        ReadRaw<int32_t>(t.raw_data(), &c.data);
      else
        c.data.assign(t.int32_data().begin(), t.int32_data().end());
      break;
    case TP::FLOAT:
      if (t.has_raw_data())
        ReadRaw<float>(t.raw_data(), &c.data);
      else
        c.data.assign(t.float_data().begin(), t.float_data().end());
      break;
    case TP::DOUBLE:
      if (t.has_raw_data())
        ReadRaw<double>(t.raw_data(), &c.data);
      else
        c.data.assign(t.double_data().begin(), t.double_data().end());
      break;
    case TP::BOOL:
      if (t.has_raw_data())
        ReadRaw<uint8_t>(t.raw_data(), &c.data);
      else
        c.data.assign(t.int32_data().begin(), t.int32_data().end());
      break;
    default:
      break;
  }
  if (!c.data.empty() && static_cast<int64_t>(c.data.size()) != c.elements())
    return Status::InvalidArgument("tensor '" + t.name() + "' holds " +
                                   std::to_string(c.data.size()) + " values for " +
                                   std::to_string(c.elements()) + " elements");
  c.is_batch.assign(c.data.size(), false);
  c.integer = IsIntegerType(t.data_type());
  return c;
}

Constant ShapeOf(const std::vector<int64_t>& dims, int batch_axis, int64_t factor) {
  Constant c;
  c.dims = {static_cast<int64_t>(dims.size())};
  c.integer = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool batch = static_cast<int>(i) == batch_axis;
    c.data.push_back(batch ? static_cast<double>(factor) : static_cast<double>(dims[i]));
    c.is_batch.push_back(batch);
  }
  return c;
}

bool Foldable(const std::string& op) {
  static const char* kOps[] = {"Constant",
                               "Gather",
                               "Unsqueeze",
                               "Squeeze",
                               "Concat",
                               "Cast",
                               "Add",
                               "Sub",
                               "Mul",
                               "Div",
                               "Equal",
                               "Pow",
                               "ConstantOfShape",
                               "Slice",
                               "Range",
                               "Where",
                               "Expand",
                               "Identity",
                               "Reshape",
                               "Sqrt",
                               "Shape"};
  for (const char* o : kOps)
    if (op == o) return true;
  return false;
}

Result<Constant> Fold(const onnx::NodeProto& n, const std::vector<const Constant*>& in) {
  const std::string& op = n.op_type();
  auto input = [&](size_t i) -> const Constant* { return i < in.size() ? in[i] : nullptr; };
  for (size_t i : RequiredInputs(op))
    if (!input(i)) return Bad(n, "input " + std::to_string(i) + " is not a constant");
  if (op == "Constant") {
    for (const auto& a : n.attribute()) {
      if (a.name() == "value") return FromTensor(a.t());
      if (a.name() == "value_int") return Scalar(static_cast<double>(a.i()), true);
      if (a.name() == "value_float") return Scalar(a.f(), false);
      if (a.name() == "value_ints") {
        Constant c;
        c.integer = true;
        c.dims = {a.ints_size()};
        for (int64_t v : a.ints()) c.data.push_back(static_cast<double>(v));
        c.is_batch.assign(c.data.size(), false);
        return c;
      }
    }
    return Bad(n, "Constant without a supported value attribute");
  }
  if (op == "Identity") return *input(0);
  // Of a constant, which has no batch axis (Shape of an activation is the converter's).
  if (op == "Shape") return ShapeOf(input(0)->dims, -1);
  if (op == "Cast") {
    Constant c = *input(0);
    c.integer = IsIntegerType(static_cast<int>(IntAttr(n, "to", 0)));
    if (c.integer)
      for (double& d : c.data) d = std::trunc(d);
    return c;
  }
  if (op == "Sqrt") {
    Constant c = *input(0);
    c.integer = false;
    for (double& d : c.data) d = std::sqrt(d);
    return c;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal" || op == "Pow")
    return Arithmetic(n, *input(0), *input(1));
  if (op == "ConstantOfShape" || op == "Expand") {
    const Constant* shape = op == "Expand" ? input(1) : input(0);
    if (!shape || !shape->has_data()) return Bad(n, "shape is not constant");
    Constant c;
    for (size_t i = 0; i < shape->data.size(); ++i) {
      Result<int64_t> d = ToInt(n, shape->data[i]);
      if (!d.ok()) return d.status();
      if (*d < 0) return Bad(n, "negative dimension " + std::to_string(*d));
      c.dims.push_back(shape->is_batch[i] ? 1 : *d);
      c.batched = c.batched || shape->is_batch[i];
    }
    if (op == "Expand") {
      c.learned = input(0)->learned;
      // Expand broadcasts: a target dim of 1 keeps the source dim.
      const Constant& src = *input(0);
      for (size_t i = 0; i < c.dims.size(); ++i) {
        const int k = static_cast<int>(i) - static_cast<int>(c.dims.size() - src.dims.size());
        if (k >= 0 && c.dims[i] == 1) c.dims[i] = src.dims[k];
      }
    }
    if (!c.batched && c.elements() <= kMaxFoldedElements) {
      // Expand: the source's first value (a constant expanded to a shape); ConstantOfShape: its
      // `value` attribute (a one-element tensor), 0 without one.
      double v = op == "Expand" && input(0)->has_data() && !input(0)->data.empty()
                     ? input(0)->data[0]
                     : 0.0;
      if (op == "ConstantOfShape")
        for (const auto& a : n.attribute())
          if (a.name() == "value") {
            Result<Constant> value = FromTensor(a.t());
            if (!value.ok()) return value.status();
            if (!value->data.empty()) v = value->data[0];
            c.integer = value->integer;
          }
      c.data.assign(c.elements(), v);
      c.is_batch.assign(c.data.size(), false);
    }
    return c;
  }
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape") {
    Constant c = *input(0);
    if (op == "Reshape") {
      if (!input(1) || !input(1)->has_data()) return Bad(n, "shape is not constant");
      Result<std::vector<int64_t>> dims = AsInts(n, *input(1));
      if (!dims.ok()) return dims.status();
      c.dims = std::move(*dims);
      double known = 1;
      int unknown = -1;
      for (size_t i = 0; i < c.dims.size(); ++i) {
        if (c.dims[i] == 0) {
          if (i >= input(0)->dims.size()) return Bad(n, "a 0 (copy) dimension beyond the rank");
          c.dims[i] = input(0)->dims[i];
        }
        if (c.dims[i] < -1) return Bad(n, "negative dimension " + std::to_string(c.dims[i]));
        if (c.dims[i] == -1)
          unknown = static_cast<int>(i);
        else
          known *= static_cast<double>(c.dims[i]);
      }
      if (known >= 0x1p62) return Bad(n, "a shape of more than 2^62 values");
      if (unknown >= 0)
        c.dims[unknown] = known > 0 ? input(0)->elements() / static_cast<int64_t>(known) : 0;
      return c;
    }
    std::vector<int64_t> axes = IntsAttr(n, "axes");
    if (input(1) && input(1)->has_data()) {
      Result<std::vector<int64_t>> given = AsInts(n, *input(1));
      if (!given.ok()) return given.status();
      axes = std::move(*given);
    }
    if (op == "Unsqueeze") {
      const int64_t rank = static_cast<int64_t>(c.dims.size() + axes.size());
      for (int64_t& a : axes) {
        a = a < 0 ? a + rank : a;
        if (a < 0 || a >= rank) return Bad(n, "axis out of range");
      }
      std::sort(axes.begin(), axes.end());
      for (int64_t a : axes) c.dims.insert(c.dims.begin() + std::min<int64_t>(a, c.dims.size()), 1);
    } else {
      std::vector<int64_t> kept;
      const int64_t rank = static_cast<int64_t>(c.dims.size());
      for (int64_t i = 0; i < rank; ++i) {
        bool drop = axes.empty() ? c.dims[i] == 1 : false;
        for (int64_t a : axes) drop = drop || (a < 0 ? a + rank : a) == i;
        if (!drop) kept.push_back(c.dims[i]);
      }
      c.dims = kept;
    }
    return c;
  }
  if (op == "Concat") {
    Constant c;
    c.dims = {0};
    c.integer = true;
    for (const Constant* p : in) {
      if (!p) continue;
      c.integer = c.integer && p->integer;
      if (p->dims.size() > 1) return Bad(n, "concatenating constants of rank > 1");
      if (!p->has_data()) return Bad(n, "concatenating constants without data");
      c.data.insert(c.data.end(), p->data.begin(), p->data.end());
      c.is_batch.insert(c.is_batch.end(), p->is_batch.begin(), p->is_batch.end());
    }
    c.dims = {static_cast<int64_t>(c.data.size())};
    return c;
  }
  if (op == "Gather") {
    const Constant& data = *input(0);
    const Constant& idx = *input(1);
    // Rows of a learned table at constant indices (GPT-2's position embedding, wpe(arange(T))):
    // a learned constant of the rows' shape, added to the activations downstream. Its layer
    // counts the T rows as parameters, the table's where the export ran at the full context.
    if (data.learned && data.dims.size() == 2 && IntAttr(n, "axis", 0) == 0 && idx.has_data()) {
      Constant c;
      c.dims = idx.dims;
      c.dims.push_back(data.dims[1]);
      c.learned = true;
      for (double d : idx.data)
        if (!(d >= -static_cast<double>(data.dims[0]) && d < static_cast<double>(data.dims[0])))
          return Bad(n, "index out of range");
      return c;
    }
    if (!data.has_data() || !idx.has_data() || data.dims.size() > 1)
      return Bad(n, "only gathers from constant vectors fold");
    Constant c;
    c.dims = idx.dims;
    c.integer = data.integer;
    for (double d : idx.data) {
      Result<int64_t> index = ToInt(n, d);
      if (!index.ok()) return index.status();
      int64_t i = *index;
      if (i < 0) i += static_cast<int64_t>(data.data.size());
      if (i < 0 || i >= static_cast<int64_t>(data.data.size())) return Bad(n, "index out of range");
      c.data.push_back(data.data[i]);
      c.is_batch.push_back(data.is_batch[i]);
    }
    return c;
  }
  if (op == "Slice" && input(0)->dims.size() > 1) return SliceTensor(n, in);
  if (op == "Slice") {
    const Constant& data = *input(0);
    if (!data.has_data() || data.dims.size() != 1 || !input(1) || !input(2))
      return Bad(n, "only slices of constant vectors fold");
    const int64_t size = static_cast<int64_t>(data.data.size());
    if (!input(1)->has_data() || !input(2)->has_data() || input(1)->data.empty() ||
        input(2)->data.empty())
      return Bad(n, "slice bounds are not constant");
    // Bounds beyond the vector clamp to it, as ONNX says (INT64_MAX means "to the end").
    const auto bound = [](double d) { return std::clamp(d, -1e15, 1e15); };
    int64_t start = static_cast<int64_t>(bound(input(1)->data[0]));
    int64_t end = static_cast<int64_t>(bound(input(2)->data[0]));
    const bool stepped = input(4) && input(4)->has_data() && !input(4)->data.empty();
    if (stepped && input(4)->data[0] != 1) return Bad(n, "slice steps other than 1");
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, 0, size);
    Constant c;
    c.integer = data.integer;
    for (int64_t i = start; i < end; ++i) {
      c.data.push_back(data.data[i]);
      c.is_batch.push_back(data.is_batch[i]);
    }
    c.dims = {static_cast<int64_t>(c.data.size())};
    return c;
  }
  if (op == "Range") {
    for (size_t i = 0; i < 3; ++i)
      if (input(i)->data.empty()) return Bad(n, "Range bounds are not constant");
    const double start = input(0)->data[0], limit = input(1)->data[0], delta = input(2)->data[0];
    if (delta == 0) return Bad(n, "Range with delta 0");
    if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta) ||
        (limit - start) / delta > kMaxFoldedElements)
      return Bad(n, "Range of more values than a shape computation has");
    Constant c;
    c.integer = input(0)->integer && input(1)->integer && input(2)->integer;
    for (double v = start; delta > 0 ? v < limit : v > limit; v += delta) c.data.push_back(v);
    c.dims = {static_cast<int64_t>(c.data.size())};
    c.is_batch.assign(c.data.size(), false);
    return c;
  }
  if (op == "Where") {
    const Constant &cond = *input(0), &x = *input(1), &y = *input(2);
    if (!cond.has_data() || !x.has_data() || !y.has_data()) return Bad(n, "operands have no data");
    Constant c = cond.data.size() >= x.data.size() ? cond : x;
    c.data.clear();
    c.is_batch.clear();
    const size_t size = std::max({cond.data.size(), x.data.size(), y.data.size()});
    for (const Constant* operand : {&cond, &x, &y})
      if (operand->data.size() != 1 && operand->data.size() != size)
        return Bad(n, "operands of different sizes");
    for (size_t i = 0; i < size; ++i) {
      const bool take_x = cond.data[cond.data.size() == 1 ? 0 : i] != 0;
      const Constant& s = take_x ? x : y;
      const size_t k = s.data.size() == 1 ? 0 : i;
      c.data.push_back(s.data[k]);
      c.is_batch.push_back(s.is_batch[k]);
    }
    return c;
  }
  return Bad(n, "cannot fold this op");
}

int64_t IntAttr(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

double FloatAttr(const onnx::NodeProto& n, const std::string& name, double fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.f();
  return fallback;
}

std::string StringAttr(const onnx::NodeProto& n, const std::string& name,
                       const std::string& fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.s();
  return fallback;
}

std::vector<int64_t> IntsAttr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return {};
}

bool HasAttr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return true;
  return false;
}

}  // namespace epochcost::onnx_import
