// The GPU kernels of our own compute what they stand for, checked against a plain CPU loop, so
// that the time the profiler gives them is the time of the real work. Without a GPU the tests
// skip and say why.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "profiler/gpu/kernels.h"

namespace epochcost::profiler::gpu {
namespace {

class GpuKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      cudaGetLastError();
      GTEST_SKIP() << "skipped, no GPU";
    }
  }
  float* Upload(const std::vector<float>& v) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, v.size() * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice),
              cudaSuccess);
    buffers_.push_back(p);
    return static_cast<float*>(p);
  }
  std::vector<float> Download(const float* p, size_t n) {
    std::vector<float> v(n);
    EXPECT_EQ(cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  }
  void TearDown() override {
    for (void* p : buffers_) cudaFree(p);
  }
  std::vector<void*> buffers_;
};

// PyTorch's batch norm (training mode) over NCHW, forward and backward, in fp32, against the
// textbook formulas computed here in double.
TEST_F(GpuKernelsTest, AtenBatchNormMatchesTheFormulas) {
  struct Shape {
    int64_t mb, c, sp;
  };
  for (const Shape s : {Shape{3, 2, 5}, Shape{7, 3, 1000}, Shape{64, 2, 49}}) {
    const int64_t n = s.mb * s.c * s.sp;
    std::vector<float> x(n), dy(n), gamma(s.c), beta(s.c), zeros(s.c, 0.f);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(std::sin(0.37 * i) * 2 + (i % 7) * 0.1);
      dy[i] = static_cast<float>(std::cos(0.11 * i));
    }
    for (int64_t ch = 0; ch < s.c; ++ch) {
      gamma[ch] = 0.5f + ch;
      beta[ch] = 0.25f - ch;
    }
    const std::vector<float> out(n, 0.f);
    float *xin = Upload(x), *dyd = Upload(dy), *g = Upload(gamma), *b = Upload(beta);
    float *y = Upload(out), *dx = Upload(out), *mean = Upload(zeros), *invstd = Upload(zeros);
    float *rm = Upload(zeros), *rv = Upload(zeros), *dg = Upload(zeros), *db = Upload(zeros);
    ASSERT_EQ(
        AtenBatchNormFwd(xin, g, b, y, mean, invstd, rm, rv, s.mb, s.c, s.sp, Elem::kF32, nullptr),
        cudaSuccess);
    ASSERT_EQ(AtenBatchNormBwd(xin, dyd, g, mean, invstd, dx, dg, db, s.mb, s.c, s.sp, Elem::kF32,
                               nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> hy = Download(y, n), hdx = Download(dx, n);
    const std::vector<float> hmean = Download(mean, s.c), hinv = Download(invstd, s.c);
    const std::vector<float> hdg = Download(dg, s.c), hdb = Download(db, s.c);
    const std::vector<float> hrm = Download(rm, s.c);
    const double count = static_cast<double>(s.mb * s.sp);
    for (int64_t ch = 0; ch < s.c; ++ch) {
      auto at = [&](int64_t bi, int64_t i) { return (bi * s.c + ch) * s.sp + i; };
      double sum = 0, sq = 0;
      for (int64_t bi = 0; bi < s.mb; ++bi)
        for (int64_t i = 0; i < s.sp; ++i) sum += x[at(bi, i)];
      const double mu = sum / count;
      for (int64_t bi = 0; bi < s.mb; ++bi)
        for (int64_t i = 0; i < s.sp; ++i) sq += (x[at(bi, i)] - mu) * (x[at(bi, i)] - mu);
      const double r = 1 / std::sqrt(sq / count + 1e-5);
      EXPECT_NEAR(hmean[ch], mu, 1e-4) << ch;
      EXPECT_NEAR(hinv[ch], r, 1e-4 * r) << ch;
      EXPECT_NEAR(hrm[ch], 0.1 * mu, 1e-5) << ch;
      double sdy = 0, dot = 0;
      for (int64_t bi = 0; bi < s.mb; ++bi)
        for (int64_t i = 0; i < s.sp; ++i) {
          const int64_t k = at(bi, i);
          EXPECT_NEAR(hy[k], gamma[ch] * (x[k] - mu) * r + beta[ch], 1e-3) << k;
          sdy += dy[k];
          dot += dy[k] * (x[k] - mu) * r;
        }
      EXPECT_NEAR(hdb[ch], sdy, 1e-3 * (1 + std::abs(sdy))) << ch;
      EXPECT_NEAR(hdg[ch], dot, 1e-3 * (1 + std::abs(dot))) << ch;
      for (int64_t bi = 0; bi < s.mb; ++bi)
        for (int64_t i = 0; i < s.sp; ++i) {
          const int64_t k = at(bi, i);
          const double want = gamma[ch] * r * (dy[k] - sdy / count - (x[k] - mu) * r * dot / count);
          EXPECT_NEAR(hdx[k], want, 1e-3) << k;
        }
    }
  }
}

// The element-wise and binary kernels load 16 bytes a thread (4 fp32 values); lengths that are
// not a multiple of a vector finish value by value.
TEST_F(GpuKernelsTest, VectorizedElementwiseCoversEveryValue) {
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{1003}, int64_t{4096}}) {
    std::vector<float> x(n), dy(n), zeros(n, 0.f);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i % 5) - 2.f;
      dy[i] = 0.5f + static_cast<float>(i % 3);
    }
    float *dx = Upload(x), *ddy = Upload(dy), *relu = Upload(zeros), *grad = Upload(zeros);
    float* sum = Upload(zeros);
    ASSERT_EQ(Eltwise(Act::kRelu, false, dx, nullptr, relu, n, Elem::kF32, nullptr), cudaSuccess);
    ASSERT_EQ(Eltwise(Act::kRelu, true, dx, ddy, grad, n, Elem::kF32, nullptr), cudaSuccess);
    ASSERT_EQ(Binary(BinaryOp::kAdd, dx, ddy, sum, n, Elem::kF32, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> hr = Download(relu, n), hg = Download(grad, n), hs = Download(sum, n);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(hr[i], x[i] > 0 ? x[i] : 0.f) << n << " " << i;
      EXPECT_EQ(hg[i], x[i] > 0 ? dy[i] : 0.f) << n << " " << i;
      EXPECT_EQ(hs[i], x[i] + dy[i]) << n << " " << i;
    }
  }
}

// Autocast's cast (Convert): fp32 -> fp16 -> fp32 gives the values fp16 holds, for every value
// of a length with a tail shorter than a thread's four.
TEST_F(GpuKernelsTest, ConvertCoversEveryValue) {
  const int64_t n = 1000003;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 2048) * 0.5f - 300.f;
  float* src = Upload(x);
  float* back = Upload(std::vector<float>(n, 7.f));
  void* half = nullptr;
  ASSERT_EQ(cudaMalloc(&half, n * 2), cudaSuccess);
  buffers_.push_back(half);
  ASSERT_EQ(Convert(src, Elem::kF32, half, Elem::kF16, n, nullptr), cudaSuccess);
  ASSERT_EQ(Convert(half, Elem::kF16, back, Elem::kF32, n, nullptr), cudaSuccess);
  const std::vector<float> y = Download(back, n);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i]) << i;  // halves of integers below 2048
}

}  // namespace
}  // namespace epochcost::profiler::gpu
