#include "profiler/cpu/own_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "profiler/cpu/element.h"

namespace epochcost::profiler {
namespace {

template <typename T>
using Buffer = std::shared_ptr<std::vector<T>>;

template <typename T>
Buffer<T> Make(int64_t n, float value) {
  return std::make_shared<std::vector<T>>(n, FromFloat<T>(value));
}

template <typename T>
std::function<void()> Embedding(const OpSignature& s, bool backward) {
  const int64_t rows = s.dim("rows"), dim = s.dim("dim"), vocab = s.dim("vocab");
  auto table = Make<T>(vocab * dim, 0.01f);
  auto rows_buf = Make<T>(rows * dim, 0.01f);
  auto ids = std::make_shared<std::vector<int32_t>>(rows);
  std::mt19937 rng(42);
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(vocab - 1));
  for (auto& id : *ids) id = pick(rng);
  if (!backward)
    return [=] {
#pragma omp parallel for
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(rows_buf->data() + r * dim, table->data() + (*ids)[r] * dim, dim * sizeof(T));
    };
  return [=] {  // dense gradient: zero the table-sized gradient, then add each row's gradient
    T* g = table->data();
#pragma omp parallel for
    for (int64_t i = 0; i < vocab * dim; ++i) g[i] = T{};
    for (int64_t r = 0; r < rows; ++r) {
      T* dst = g + (*ids)[r] * dim;
      const T* src = rows_buf->data() + r * dim;
      for (int64_t k = 0; k < dim; ++k) dst[k] = FromFloat<T>(ToFloat(dst[k]) + ToFloat(src[k]));
    }
  };
}

template <typename T>
std::function<void()> Dropout(const OpSignature& s, bool backward) {
  const int64_t n = s.dim("n");
  auto x = Make<T>(n, 0.5f), y = Make<T>(n, 0.f);
  auto mask = std::make_shared<std::vector<uint8_t>>(n);
  if (!backward)
    return [=] {
      uint8_t* m = mask->data();
#pragma omp parallel
      {
        std::minstd_rand rng(12345);
#pragma omp for
        for (int64_t i = 0; i < n; ++i) {
          m[i] = (rng() & 0xff) > 51;  // keep with p = 0.8
          (*y)[i] = FromFloat<T>(m[i] ? ToFloat((*x)[i]) * 1.25f : 0.f);
        }
      }
    };
  return [=] {
    const uint8_t* m = mask->data();
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) (*y)[i] = FromFloat<T>(m[i] ? ToFloat((*x)[i]) * 1.25f : 0.f);
  };
}

// Softmax cross-entropy over rows x c (or sigmoid/MSE for one column): loss and gradient.
// Computed in f32 over T inputs (exp values kept in a row buffer), gradient and loss stored as T.
template <typename T>
std::function<void()> Loss(const OpSignature& s) {
  const int64_t rows = s.dim("rows"), c = s.dim("c");
  auto x = Make<T>(rows * c, 0.1f), grad = Make<T>(rows * c, 0.f), loss = Make<T>(rows, 0.f);
  return [=] {
#pragma omp parallel
    {
      std::vector<float> e(c);
#pragma omp for
      for (int64_t r = 0; r < rows; ++r) {
        const T* in = x->data() + r * c;
        T* g = grad->data() + r * c;
        float mx = ToFloat(in[0]);
        for (int64_t k = 1; k < c; ++k) mx = std::max(mx, ToFloat(in[k]));
        float sum = 0;
        for (int64_t k = 0; k < c; ++k) sum += (e[k] = std::exp(ToFloat(in[k]) - mx));
        const float inv = 1.f / sum;
        for (int64_t k = 0; k < c; ++k) g[k] = FromFloat<T>(e[k] * inv - (k == 0 ? 1.f : 0.f));
        (*loss)[r] = FromFloat<T>(-std::log(e[0] * inv + 1e-12f));
      }
    }
  };
}

// Runs update(w, g, a, b) over n elements in f32, loading and storing the parameter, reading the
// gradient, and touching only the first kStates state tensors: the traffic of a fused update.
template <typename T, int kStates, typename Update>
std::function<void()> EachElement(int64_t n, Update update) {
  auto w = Make<T>(n, 0.01f), g = Make<T>(n, 0.001f);
  auto a = Make<T>(kStates >= 1 ? n : 0, 0.f), b = Make<T>(kStates >= 2 ? n : 0, 0.f);
  return [=] {
    T* pw = w->data();
    const T* pg = g->data();
    T* pa = a->data();
    T* pb = b->data();
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) {
      float wi = ToFloat(pw[i]), ai = 0.f, bi = 0.f;
      if constexpr (kStates >= 1) ai = ToFloat(pa[i]);
      if constexpr (kStates >= 2) bi = ToFloat(pb[i]);
      update(wi, ToFloat(pg[i]), ai, bi);
      pw[i] = FromFloat<T>(wi);
      if constexpr (kStates >= 1) pa[i] = FromFloat<T>(ai);
      if constexpr (kStates >= 2) pb[i] = FromFloat<T>(bi);
    }
  };
}

template <typename T>
std::function<void()> Optimizer(const OpSignature& s) {
  const int64_t n = s.dim("n");
  const std::string& alg = s.alg;
  constexpr float lr = 0.001f, rho = 0.9f, beta2 = 0.999f, eps = 1e-7f;
  if (alg == "sgd")
    return EachElement<T, 0>(n, [](float& w, float g, float&, float&) { w -= lr * g; });
  if (alg == "momentum")
    return EachElement<T, 1>(n, [](float& w, float g, float& a, float&) {
      a = rho * a + g;
      w -= lr * a;
    });
  if (alg == "rmsprop")
    return EachElement<T, 1>(n, [](float& w, float g, float& a, float&) {
      a = rho * a + (1 - rho) * g * g;
      w -= lr * g / (std::sqrt(a) + eps);
    });
  if (alg == "adam" || alg == "adamw") {
    const float decay = alg == "adamw" ? 1 - lr * 0.01f : 1;  // AdamW's decoupled weight decay
    return EachElement<T, 2>(n, [decay](float& w, float g, float& a, float& b) {
      a = rho * a + (1 - rho) * g;
      b = beta2 * b + (1 - beta2) * g * g;
      w = decay * w - lr * a / (std::sqrt(b) + eps);
    });
  }
  return EachElement<T, 2>(n, [](float& w, float g, float& a, float& b) {  // adadelta
    a = 0.95f * a + 0.05f * g * g;
    const float step = std::sqrt(b + eps) / std::sqrt(a + eps) * g;
    b = 0.95f * b + 0.05f * step * step;
    w -= step;
  });
}

// The sum (or mean) of a rows x out matrix over its rows, as the frameworks' own reductions run
// it (ATen's vectorized sum over a dimension, Eigen's in TensorFlow): each thread accumulates its
// share of the rows into `out` sums of its own, then adds them to the result. oneDNN 2.6 has a
// reduction primitive, but for these shapes it takes its reference implementation (`ref:any`,
// about 9 ns a value on the development CPU: 9.8 ms for 1M values where PyTorch's sum over the
// rows takes 0.08 ms), which no framework calls for a bias gradient or a mean.
template <typename T>
std::function<void()> Reduce(const OpSignature& s) {
  const int64_t out = std::max<int64_t>(s.dim("out", 1), 1);
  const int64_t rows = std::max<int64_t>(s.dim("n") / out, 1);
  const bool mean = s.alg == "mean";
  auto x = Make<T>(rows * out, 0.01f), y = Make<T>(out, 0.f);
  auto total = Make<float>(out, 0.f);
  return [=] {
    const T* src = x->data();
    float* dst = total->data();
    std::fill(dst, dst + out, 0.f);
#pragma omp parallel if (rows * out >= 32768)
    {
      std::vector<float> partial(out, 0.f);
      float* __restrict sums = partial.data();
#pragma omp for nowait
      for (int64_t r = 0; r < rows; ++r) {
        const T* __restrict row = src + r * out;
#pragma omp simd
        for (int64_t j = 0; j < out; ++j) sums[j] += ToFloat(row[j]);
      }
#pragma omp critical
      for (int64_t j = 0; j < out; ++j) dst[j] += sums[j];
    }
    const float scale = mean ? 1.f / static_cast<float>(rows) : 1.f;
    for (int64_t j = 0; j < out; ++j) (*y)[j] = FromFloat<T>(dst[j] * scale);
  };
}

template <typename T>
Result<std::function<void()>> OwnKernelOf(const OpSignature& sig) {
  switch (sig.kind) {
    case OpKind::kEmbeddingFwd:
      return Embedding<T>(sig, false);
    case OpKind::kEmbeddingBwd:
      return Embedding<T>(sig, true);
    case OpKind::kDropoutFwd:
      return Dropout<T>(sig, false);
    case OpKind::kDropoutBwd:
      return Dropout<T>(sig, true);
    case OpKind::kLoss:
      return Loss<T>(sig);
    case OpKind::kOptimizer:
      return Optimizer<T>(sig);
    case OpKind::kReduce:
      return Reduce<T>(sig);
    default:
      return Status::Internal(sig.ToString() + ": not an own-kernel op");
  }
}

}  // namespace

Result<std::function<void()>> OwnKernel(const OpSignature& sig) {
  switch (sig.dtype) {
    case DType::kFloat32:
      return OwnKernelOf<float>(sig);
    case DType::kBFloat16:
      return OwnKernelOf<BFloat16>(sig);
    default:
      return Status::Unsupported(sig.ToString() +
                                 ": the project's own kernels run in f32 and bf16 only");
  }
}

}  // namespace epochcost::profiler
