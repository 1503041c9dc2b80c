#include "profiler/cpu/aten_kernels.h"

#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/eager_optimizer.h"
#include "profiler/cpu/element.h"

namespace epochcost::profiler {
namespace {

template <typename T>
using Buffer = std::shared_ptr<std::vector<T>>;

template <typename T = float>
Buffer<T> Make(int64_t n, float value) {
  return std::make_shared<std::vector<T>>(n, FromFloat<T>(value));
}

// ATen splits element-wise work across threads only from this many elements on
// (at::internal::GRAIN_SIZE); smaller tensors run on the calling thread.
constexpr int64_t kGrainSize = 32768;

// MT19937 with 32-bit state words, as ATen's at::mt19937 keeps them (std::mt19937 keeps them in
// uint_fast32_t, 64 bits on x86-64, and runs at half the speed).
using Mt19937 = std::mersenne_twister_engine<uint32_t, 32, 624, 397, 31, 0x9908b0df, 11, 0xffffffff,
                                             7, 0x9d2c5680, 15, 0xefc60000, 18, 1812433253>;

// aten/src/ATen/native/cpu/MaxPoolKernel.cpp cpu_max_pool (contiguous NCHW): threads split the
// mb x c planes; per output one scalar pass over its window, keeping the first maximum (or a NaN)
// and its flat index in the plane.
template <typename T>
std::function<void()> MaxPool(const OpSignature& s, bool backward) {
  const int64_t planes = s.dim("mb") * s.dim("c");
  const int64_t ih = s.dim("ih"), iw = s.dim("iw"), oh = s.dim("oh"), ow = s.dim("ow");
  const int64_t kh = s.dim("kh"), kw = s.dim("kw"), sh = s.dim("sh", 1), sw = s.dim("sw", 1);
  const int64_t ph = s.dim("ph"), pw = s.dim("pw");
  auto in = Make<T>(planes * ih * iw, 0.f), out = Make<T>(planes * oh * ow, 0.f);
  auto index = std::make_shared<std::vector<int64_t>>(planes * oh * ow);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  for (T& v : *in) v = FromFloat<T>(value(rng));
  auto forward = [=] {
#pragma omp parallel for
    for (int64_t p = 0; p < planes; ++p) {
      const T* src = in->data() + p * ih * iw;
      T* dst = out->data() + p * oh * ow;
      int64_t* idx = index->data() + p * oh * ow;
      for (int64_t y = 0; y < oh; ++y) {
        int64_t y0 = y * sh - ph;
        const int64_t y1 = std::min(y0 + kh, ih);
        while (y0 < 0) ++y0;
        for (int64_t x = 0; x < ow; ++x) {
          int64_t x0 = x * sw - pw;
          const int64_t x1 = std::min(x0 + kw, iw);
          while (x0 < 0) ++x0;
          int64_t best = y0 * iw + x0;
          float max = -std::numeric_limits<float>::infinity();
          for (int64_t r = y0; r < y1; ++r)
            for (int64_t q = x0; q < x1; ++q) {
              const int64_t at = r * iw + q;
              const float v = ToFloat(src[at]);
              if (v > max || std::isnan(v)) {
                max = v;
                best = at;
              }
            }
          dst[y * ow + x] = FromFloat<T>(max);
          idx[y * ow + x] = best;
        }
      }
    }
  };
  if (!backward) return forward;
  forward();  // the indices the backward pass scatters by
  auto grad_in = Make<T>(planes * ih * iw, 0.f);
  // max_pool2d_with_indices_backward: zero_() the input gradient, then cpu_max_pool_backward.
  return [=] {
    T* gi = grad_in->data();
    const int64_t n = planes * ih * iw;
#pragma omp parallel for simd if (n >= kGrainSize)
    for (int64_t i = 0; i < n; ++i) gi[i] = T{};
#pragma omp parallel for
    for (int64_t p = 0; p < planes; ++p) {
      T* dst = gi + p * ih * iw;
      const T* go = out->data() + p * oh * ow;
      const int64_t* idx = index->data() + p * oh * ow;
      for (int64_t k = 0; k < oh * ow; ++k)
        dst[idx[k]] = FromFloat<T>(ToFloat(dst[idx[k]]) + ToFloat(go[k]));
    }
  };
}

// aten/src/ATen/native/Dropout.cpp _dropout_impl (no fused kernel on a CPU):
// noise = empty_like(x).bernoulli_(1 - p); noise.div_(1 - p); return x * noise. bernoulli_ of a
// float tensor without MKL is templates::cpu::bernoulli_kernel: serial, under the generator's
// lock, one uniform double per value from two 32-bit mt19937 draws. The backward pass
// (MulBackward0) multiplies the gradient by the noise.
template <typename T>
std::function<void()> Dropout(const OpSignature& s, bool backward) {
  const int64_t n = s.dim("n");
  auto x = Make<T>(n, 0.5f), noise = Make<T>(n, 0.f), y = Make<T>(n, 0.f);
  const double keep = 0.75;  // the timing does not depend on it
  auto multiply = [=] {
    const T* a = x->data();
    const T* b = noise->data();
    T* c = y->data();
#pragma omp parallel for simd if (n >= kGrainSize)
    for (int64_t i = 0; i < n; ++i) c[i] = FromFloat<T>(ToFloat(a[i]) * ToFloat(b[i]));
  };
  if (backward) return multiply;
  auto rng = std::make_shared<Mt19937>(67280421);
  return [=] {
    T* m = noise->data();
    Mt19937& engine = *rng;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t hi = engine(), lo = engine();
      const uint64_t bits = (hi << 32) | lo;
      const double u = static_cast<double>(bits & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53;
      // The draw is converted to f32 before it is stored, in bf16 as in f32: PyTorch converts
      // bernoulli's int for either type, and its loop takes the same time for both (10.2 and
      // 10.3 ms over 1,179,648 values here). Left visible to the optimizer, the bf16 store
      // became a select between two constants and the loop took 6.0 ms against f32's 10.0.
      float value = static_cast<float>(u < keep);
      asm volatile("" : "+x"(value));
      m[i] = FromFloat<T>(value);
    }
    const float divisor = static_cast<float>(keep);
#pragma omp parallel for simd if (n >= kGrainSize)
    for (int64_t i = 0; i < n; ++i) m[i] = FromFloat<T>(ToFloat(m[i]) / divisor);
    multiply();
  };
}

// One pass of torch.optim's for-loop update (engine/eager_optimizer.h), in f32 over T values.
// Each case is its own loop: a loop body behind a lambda did not vectorize (4x slower in f32).
template <typename T>
void RunPass(const EagerPass& pass, const std::array<T*, kEagerTensors>& t, int64_t n) {
  T* d = t[static_cast<int>(pass.dst)];
  const T* a = t[static_cast<int>(pass.a)];
  const T* b = t[static_cast<int>(pass.b)];
  const float c = 0.9f;
  // clang-format off
#define EPOCHCOST_EACH(value)                                  \
  _Pragma("omp parallel for simd if (n >= kGrainSize)")        \
  for (int64_t i = 0; i < n; ++i) d[i] = FromFloat<T>(value);  \
  return
  // clang-format on
  switch (pass.op) {
    case EagerOp::kZero:
      EPOCHCOST_EACH(0.f);
    case EagerOp::kAdd:
      EPOCHCOST_EACH(ToFloat(a[i]) + ToFloat(b[i]));
    case EagerOp::kScale:
      EPOCHCOST_EACH(ToFloat(a[i]) * c);
    case EagerOp::kAddScalar:
      EPOCHCOST_EACH(ToFloat(a[i]) + 1e-7f);
    case EagerOp::kAxpy:
      EPOCHCOST_EACH(ToFloat(d[i]) + c * ToFloat(a[i]));
    case EagerOp::kAddcmul:
      EPOCHCOST_EACH(ToFloat(d[i]) + c * ToFloat(a[i]) * ToFloat(b[i]));
    case EagerOp::kAddcdiv:
      EPOCHCOST_EACH(ToFloat(d[i]) + c * ToFloat(a[i]) / ToFloat(b[i]));
    case EagerOp::kSqrt:
      EPOCHCOST_EACH(std::sqrt(ToFloat(a[i])));
    case EagerOp::kMul:
      EPOCHCOST_EACH(ToFloat(a[i]) * ToFloat(b[i]));
    case EagerOp::kDiv:
      EPOCHCOST_EACH(ToFloat(a[i]) / ToFloat(b[i]));
  }
#undef EPOCHCOST_EACH
}

template <typename T>
Result<std::function<void()>> Optimizer(const OpSignature& s) {
  const std::span<const EagerPass> passes = EagerOptimizerPasses(s.alg);
  if (passes.empty()) return Status::Unsupported(s.ToString() + ": no such torch.optim update");
  const int64_t n = s.dim("n");
  auto tensors = std::make_shared<std::vector<std::vector<T>>>(
      kEagerTensors, std::vector<T>(n, FromFloat<T>(0.5f)));
  return std::function<void()>([=] {
    std::array<T*, kEagerTensors> t{};
    for (int k = 0; k < kEagerTensors; ++k) t[k] = (*tensors)[k].data();
    for (const EagerPass& pass : passes) RunPass<T>(pass, t, n);
  });
}

// The system BLAS (libblas.so.3, the alternative Debian's PyTorch links), opened the first time a
// product is profiled instead of linked: OpenBLAS starts its thread pool when loaded, and the
// idle workers spin in sched_yield, which took 18% of the CPU samples of `recommend resnet50`, a
// run that multiplies nothing (perf, development CPU, 2026-11-23).
struct SystemBlas {
  decltype(&::cblas_sgemm) sgemm = nullptr;
  void (*set_threads)(int) = nullptr;  // openblas_set_num_threads; null for another BLAS
  char* (*core_name)() = nullptr;      // openblas_get_corename; null for another BLAS
};

Result<const SystemBlas*> LoadSystemBlas() {
  static SystemBlas blas;
  static Status loaded = [] {
    void* lib = nullptr;
    std::string why = "not found";
    for (const char* path : {"libblas.so.3", EPOCHCOST_BLAS_PATH}) {
      if (*path == '\0') continue;
      lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      if (const char* e = dlerror()) why = e;
    }
    if (!lib) return Status::Unsupported("cannot load the system BLAS (libblas.so.3): " + why);
    blas.sgemm = reinterpret_cast<decltype(blas.sgemm)>(dlsym(lib, "cblas_sgemm"));
    blas.set_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));
    blas.core_name = reinterpret_cast<char* (*)()>(dlsym(lib, "openblas_get_corename"));
    if (!blas.sgemm) return Status::Unsupported("the system BLAS (libblas.so.3) lacks cblas_sgemm");
    return Status::Ok();
  }();  // thread-safe once: a static's initialiser
  if (!loaded.ok()) return loaded;
  return &blas;
}

}  // namespace

std::string SystemBlasCore() {
  Result<const SystemBlas*> blas = LoadSystemBlas();
  if (!blas.ok() || !(*blas)->core_name) return "";
  const char* name = (*blas)->core_name();
  return name ? name : "";
}

bool BlasCoreBelowIsa(const std::string& core, const std::string& isa) {
  std::istringstream words(isa);
  std::string word;
  bool avx2 = false;
  while (words >> word) avx2 = avx2 || word == "avx2";
  if (!avx2 || core.empty()) return false;
  std::string lower = core;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // OpenBLAS's x86-64 kernel sets that use AVX2 (kernel/x86_64/KERNEL.*), oldest first.
  for (const char* avx2_core : {"haswell", "excavator", "zen", "skylakex", "cooperlake",
                                "sapphirerapids"})
    if (lower == avx2_core) return false;
  return true;
}

namespace {

// OpenBLAS starts a thread per core unless told otherwise, and PyTorch's set_num_threads does not
// reach it; the measured thread count is OpenMP's here, so OpenBLAS gets the same. Another BLAS
// (the reference one) has no threads to set. It is called inside each timed call: so timed, the
// 2-thread addmm matches PyTorch's 4.0 ms on the development CPU; set once before timing it takes
// 1.0 ms (docs/accuracy.md: PyTorch pays it through its OpenMP and OpenBLAS thread pools, see
// ElementwiseBefore).
void SetBlasThreads(const SystemBlas& blas) {
  if (blas.set_threads) blas.set_threads(omp_get_max_threads());
}

// In a training step every product follows element-wise work that ATen spread over its OpenMP
// threads (the activation's or dropout's gradient, the bias copy). After a parallel region GNU
// OpenMP's idle threads spin for a while (GOMP_SPINCOUNT) before they sleep, and OpenBLAS's own
// worker threads (the pthread build Debian's PyTorch gets) must then share the cores with them.
// Measured with PyTorch 1.13 on the later development VM (2 vCPUs, 2 threads), a 128x512 by
// 512x512 product took 1.50 ms repeated alone and 2.84 ms right after an OpenMP relu over 65,536
// values, still 2.9-4.8 ms with 0.1-3 ms of serial Python work between them, and 1.27-1.47 ms
// in every case with OMP_WAIT_POLICY=passive (docs/accuracy.md). So the products are timed after
// such a pass, as the framework runs them; at one thread there is no one to spin, and no pass.
// The passes next to a layer's products in the step are over its mb x ic input (the previous
// layer's activation or dropout, and their gradients after it) and its mb x oc output or output
// gradient (the bias copy, the activation and its gradient); ATen runs a pass in parallel only
// from kGrainSize values on, and the penalty outlasts the few milliseconds between a layer's
// products and either pass, so the product is timed after a pass over the larger of the two. The
// step products of a small recurrent cell (32 x 64 input, 32 x 256 gates) follow serial work and
// are timed without it. cifar10_cnn's 32 x 2304 by 2304 x 512 product, whose input is a dropout
// over 73,728 values, took 0.48 ms repeated alone and 0.98-2.99 ms after an OpenMP relu with 0-3
// ms between them in PyTorch 1.13 (medians; 2 threads, a Zen 4 VM), and its three products
// averaged 1.7-3.7 ms a call in 40 of its training steps (torch.profiler; docs/accuracy.md,
// "Products after their input's parallel pass").
std::function<void()> ElementwiseBefore(int64_t n) {
  if (n < kGrainSize || omp_get_max_threads() == 1) return nullptr;
  auto values = Make(n, 0.5f);
  return [values, n] {
    float* v = values->data();
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) v[i] = std::max(v[i], 0.f);
  };
}

// at::native addmm/mm on fp32 CPU tensors: cpublas::gemm, i.e. the system BLAS's sgemm. A dense
// layer y = x W^T + b is addmm: the bias broadcast into y (a copy), then sgemm accumulating into
// it; its data gradient dx = dy W and weight gradient dW = dy^T x are mm, the bias gradient
// dy.sum(0) a reduction.
AtenCall InnerProduct(const OpSignature& s, const SystemBlas& blas) {
  const int64_t mb = s.dim("mb"), ic = s.dim("ic"), oc = s.dim("oc");
  const bool bias = s.dim("bias") != 0;
  auto x = Make(mb * ic, 0.01f), w = Make(oc * ic, 0.01f), y = Make(mb * oc, 0.f);
  auto b = Make(oc, 0.5f);
  const int m = static_cast<int>(mb), k = static_cast<int>(ic), n = static_cast<int>(oc);
  // In a training step the layer's forward product always runs before its gradients, and
  // OpenBLAS's speed on a product depends on the products the process ran before (which pages of
  // its packing buffer are resident, blas_probe.h): on the later development VM (AVX2 EPYC) the
  // data gradient 128x512 by 512x128 took 1.62 ms in a process whose first sgemm it was, 0.50 ms
  // after one forward product of the layer, and PyTorch's 0.44 ms. So a gradient is run after
  // one untimed forward product; the profiler also times every product in a fresh process after
  // all three of the layer's (MeasureInFreshProcess), which this keeps self-contained for callers
  // that time a product in their own process.
  // y = x W^T + beta y.
  auto forward_product = [=](float beta) {
    blas.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.f, x->data(), k, w->data(), k,
               beta, y->data(), n);
  };
  if (s.kind != OpKind::kInnerProductFwd) {
    SetBlasThreads(blas);
    forward_product(0.f);
  }
  std::function<void()> run;
  switch (s.kind) {
    case OpKind::kInnerProductFwd:
      run = [=] {
        SetBlasThreads(blas);
        float* out = y->data();
        if (bias) {
#pragma omp parallel for if (mb * oc >= kGrainSize)
          for (int64_t r = 0; r < mb; ++r) std::memcpy(out + r * oc, b->data(), oc * sizeof(float));
        }
        forward_product(bias ? 1.f : 0.f);
      };
      break;
    case OpKind::kInnerProductBwdData:
      run = [=] {
        SetBlasThreads(blas);
        blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, k, n, 1.f, y->data(), n, w->data(),
                   k, 0.f, x->data(), k);
      };
      break;
    default:
      run = [=] {
        SetBlasThreads(blas);
        blas.sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, k, m, 1.f, y->data(), n, x->data(),
                   k, 0.f, w->data(), k);
        if (!bias) return;
        float* db = b->data();
        const float* dy = y->data();
        for (int64_t c = 0; c < oc; ++c) db[c] = 0.f;
        for (int64_t r = 0; r < mb; ++r)
#pragma omp simd
          for (int64_t c = 0; c < oc; ++c) db[c] += dy[r * oc + c];
      };
  }
  return {run, ElementwiseBefore(std::max(mb * ic, mb * oc))};
}

}  // namespace

// A product every 20 ms keeps OpenBLAS's workers polling (they give up after ~0.1 s) while most
// runs start some milliseconds after the last product, as most ops of a convolutional step do.
// A product right before every run is the harsher context of an unrolled recurrent cell (an op
// every few microseconds, each next to a product); it was tried and is not what this measures
// (docs/accuracy.md, "The step sums means").
constexpr auto kBlasPollingPeriod = std::chrono::milliseconds(20);

std::function<void()> BlasWorkersPolling() {
  if (omp_get_max_threads() == 1) return nullptr;  // no workers; and no need to load the BLAS
  Result<const SystemBlas*> blas = LoadSystemBlas();
  if (!blas.ok()) return nullptr;
  const SystemBlas* b = *blas;
  // 64 x 128 by 128 x 64: above OpenBLAS's size for splitting a product over its threads
  // (m n k > 262,144), and about 20 us at 2 threads on the development CPU.
  constexpr int kM = 64, kK = 128, kN = 64;
  auto x = Make(kM * kK, 0.01f), w = Make(kK * kN, 0.01f), y = Make(kM * kN, 0.f);
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();  // none yet
  return [=] {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < kBlasPollingPeriod) return;
    *last = now;
    SetBlasThreads(*b);
    b->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kM, kN, kK, 1.f, x->data(), kK, w->data(),
             kN, 0.f, y->data(), kN);
  };
}

namespace {

// The element-wise ATen kernels in T (f32 or bf16).
template <typename T>
Result<AtenCall> ElementwiseAtenKernel(const OpSignature& sig) {
  switch (sig.kind) {
    case OpKind::kPoolFwd:
    case OpKind::kPoolBwd:
      if (sig.alg != "max")
        return Status::Unsupported(sig.ToString() + ": aten=1 pooling is max pooling only");
      return AtenCall{MaxPool<T>(sig, sig.kind == OpKind::kPoolBwd), nullptr};
    case OpKind::kDropoutFwd:
    case OpKind::kDropoutBwd:
      return AtenCall{Dropout<T>(sig, sig.kind == OpKind::kDropoutBwd), nullptr};
    case OpKind::kOptimizer: {
      Result<std::function<void()>> run = Optimizer<T>(sig);
      if (!run.ok()) return run.status();
      return AtenCall{*run, nullptr};
    }
    default:
      return Status::Unsupported(sig.ToString() +
                                 ": aten=1 is for inner products, max pooling, "
                                 "dropout and optimizer updates");
  }
}

}  // namespace

Result<AtenCall> AtenKernel(const OpSignature& sig) {
  switch (sig.kind) {
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights: {
      if (sig.dtype != DType::kFloat32)
        return Status::Unsupported(sig.ToString() +
                                   ": aten=1 products are the system BLAS's sgemm, f32 only");
      if (sig.dim("mb") > INT32_MAX || sig.dim("ic") > INT32_MAX || sig.dim("oc") > INT32_MAX)
        return Status::Unsupported(sig.ToString() + ": BLAS sizes are 32-bit");
      Result<const SystemBlas*> blas = LoadSystemBlas();
      if (!blas.ok()) return blas.status().WithContext(sig.ToString());
      return InnerProduct(sig, **blas);
    }
    default:
      break;
  }
  switch (sig.dtype) {
    case DType::kFloat32:
      return ElementwiseAtenKernel<float>(sig);
    case DType::kBFloat16:
      return ElementwiseAtenKernel<BFloat16>(sig);
    default:
      return Status::Unsupported(sig.ToString() +
                                 ": the ATen-like kernels run in f32 and bf16 only");
  }
}

}  // namespace epochcost::profiler
