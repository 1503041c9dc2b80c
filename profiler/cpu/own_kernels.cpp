#include "profiler/cpu/own_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace epochcost::profiler {
namespace {

using Buffer = std::shared_ptr<std::vector<float>>;

Buffer Make(int64_t n, float value) { return std::make_shared<std::vector<float>>(n, value); }

std::function<void()> Embedding(const OpSignature& s, bool backward) {
  const int64_t rows = s.dim("rows"), dim = s.dim("dim"), vocab = s.dim("vocab");
  auto table = Make(vocab * dim, 0.01f);
  auto rows_buf = Make(rows * dim, 0.01f);
  auto ids = std::make_shared<std::vector<int32_t>>(rows);
  std::mt19937 rng(42);
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(vocab - 1));
  for (auto& id : *ids) id = pick(rng);
  if (!backward)
    return [=] {
#pragma omp parallel for
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(rows_buf->data() + r * dim, table->data() + (*ids)[r] * dim,
                    dim * sizeof(float));
    };
  return [=] {  // dense gradient: zero the table-sized gradient, then add each row's gradient
    float* g = table->data();
#pragma omp parallel for
    for (int64_t i = 0; i < vocab * dim; ++i) g[i] = 0.f;
    for (int64_t r = 0; r < rows; ++r) {
      float* dst = g + (*ids)[r] * dim;
      const float* src = rows_buf->data() + r * dim;
      for (int64_t k = 0; k < dim; ++k) dst[k] += src[k];
    }
  };
}

std::function<void()> Dropout(const OpSignature& s, bool backward) {
  const int64_t n = s.dim("n");
  auto x = Make(n, 0.5f), y = Make(n, 0.f);
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
          (*y)[i] = m[i] ? (*x)[i] * 1.25f : 0.f;
        }
      }
    };
  return [=] {
    const uint8_t* m = mask->data();
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) (*y)[i] = m[i] ? (*x)[i] * 1.25f : 0.f;
  };
}

// Softmax cross-entropy over rows x c (or sigmoid/MSE for one column): loss and gradient.
std::function<void()> Loss(const OpSignature& s) {
  const int64_t rows = s.dim("rows"), c = s.dim("c");
  auto x = Make(rows * c, 0.1f), grad = Make(rows * c, 0.f), loss = Make(rows, 0.f);
  return [=] {
#pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
      const float* in = x->data() + r * c;
      float* g = grad->data() + r * c;
      float mx = in[0];
      for (int64_t k = 1; k < c; ++k) mx = std::max(mx, in[k]);
      float sum = 0;
      for (int64_t k = 0; k < c; ++k) sum += (g[k] = std::exp(in[k] - mx));
      const float inv = 1.f / sum;
      for (int64_t k = 0; k < c; ++k) g[k] *= inv;
      (*loss)[r] = -std::log(g[0] + 1e-12f);
      g[0] -= 1.f;
    }
  };
}

std::function<void()> Optimizer(const OpSignature& s) {
  const int64_t n = s.dim("n");
  const std::string alg = s.alg;
  auto w = Make(n, 0.01f), g = Make(n, 0.001f), a = Make(n, 0.f), b = Make(n, 0.f);
  const float lr = 0.001f, rho = 0.9f, beta2 = 0.999f, eps = 1e-7f;
  if (alg == "sgd")
    return [=] {
#pragma omp parallel for
      for (int64_t i = 0; i < n; ++i) (*w)[i] -= lr * (*g)[i];
    };
  if (alg == "momentum")
    return [=] {
#pragma omp parallel for
      for (int64_t i = 0; i < n; ++i) {
        (*a)[i] = rho * (*a)[i] + (*g)[i];
        (*w)[i] -= lr * (*a)[i];
      }
    };
  if (alg == "rmsprop")
    return [=] {
#pragma omp parallel for
      for (int64_t i = 0; i < n; ++i) {
        const float gi = (*g)[i];
        (*a)[i] = rho * (*a)[i] + (1 - rho) * gi * gi;
        (*w)[i] -= lr * gi / (std::sqrt((*a)[i]) + eps);
      }
    };
  if (alg == "adam")
    return [=] {
#pragma omp parallel for
      for (int64_t i = 0; i < n; ++i) {
        const float gi = (*g)[i];
        (*a)[i] = rho * (*a)[i] + (1 - rho) * gi;
        (*b)[i] = beta2 * (*b)[i] + (1 - beta2) * gi * gi;
        (*w)[i] -= lr * (*a)[i] / (std::sqrt((*b)[i]) + eps);
      }
    };
  return [=] {  // adadelta
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) {
      const float gi = (*g)[i];
      (*a)[i] = 0.95f * (*a)[i] + 0.05f * gi * gi;
      const float step = std::sqrt((*b)[i] + eps) / std::sqrt((*a)[i] + eps) * gi;
      (*b)[i] = 0.95f * (*b)[i] + 0.05f * step * step;
      (*w)[i] -= step;
    }
  };
}

// The sum (or mean) of a rows x out matrix over its rows, as the frameworks' own reductions run
// it (ATen's vectorized sum over a dimension, Eigen's in TensorFlow): each thread accumulates its
// share of the rows into `out` sums of its own, then adds them to the result. oneDNN 2.6 has a
// reduction primitive, but for these shapes it takes its reference implementation (`ref:any`,
// about 9 ns a value on the development CPU: 9.8 ms for 1M values where PyTorch's sum over the
// rows takes 0.08 ms), which no framework calls for a bias gradient or a mean.
std::function<void()> Reduce(const OpSignature& s) {
  const int64_t out = std::max<int64_t>(s.dim("out", 1), 1);
  const int64_t rows = std::max<int64_t>(s.dim("n") / out, 1);
  const bool mean = s.alg == "mean";
  auto x = Make(rows * out, 0.01f), y = Make(out, 0.f);
  return [=] {
    const float* src = x->data();
    float* dst = y->data();
    std::fill(dst, dst + out, 0.f);
#pragma omp parallel if (rows * out >= 32768)
    {
      std::vector<float> partial(out, 0.f);
      float* __restrict sums = partial.data();
#pragma omp for nowait
      for (int64_t r = 0; r < rows; ++r) {
        const float* __restrict row = src + r * out;
#pragma omp simd
        for (int64_t j = 0; j < out; ++j) sums[j] += row[j];
      }
#pragma omp critical
      for (int64_t j = 0; j < out; ++j) dst[j] += sums[j];
    }
    if (mean)
      for (int64_t j = 0; j < out; ++j) dst[j] /= static_cast<float>(rows);
  };
}

}  // namespace

Result<std::function<void()>> OwnKernel(const OpSignature& sig) {
  if (sig.dtype != DType::kFloat32)
    return Status::Unsupported(sig.ToString() + ": the project's own kernels run in f32 only");
  switch (sig.kind) {
    case OpKind::kEmbeddingFwd:
      return Embedding(sig, false);
    case OpKind::kEmbeddingBwd:
      return Embedding(sig, true);
    case OpKind::kDropoutFwd:
      return Dropout(sig, false);
    case OpKind::kDropoutBwd:
      return Dropout(sig, true);
    case OpKind::kLoss:
      return Loss(sig);
    case OpKind::kOptimizer:
      return Optimizer(sig);
    case OpKind::kReduce:
      return Reduce(sig);
    default:
      return Status::Internal(sig.ToString() + ": not an own-kernel op");
  }
}

}  // namespace epochcost::profiler
