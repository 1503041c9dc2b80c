// PyTorch's own batch norm (AtenBatchNormFwd, AtenBatchNormBwd in kernels.h).
#include <algorithm>

#include "profiler/gpu/kernel_util.cuh"
#include "profiler/gpu/kernels.h"

namespace epochcost::profiler::gpu {
namespace {

// PyTorch's own batch norm over NCHW tensors (mb, c, sp), as ATen's Normalization.cuh runs it
// on a GPU where cuDNN's is not used (16-bit weights): one block per channel, (tx, ty) threads with
// tx covering the spatial positions (AtenBnThreads) and ty = 512 / tx stepping over the batch. The
// forward collects the channel's mean and variance in one Welford pass, updates the running
// statistics in a kernel of its own, then normalises in a second pass; the backward reduces
// sum(dy) and sum(dy * (x - mean)) per channel and writes dx in the same kernel.
constexpr int kAtenBnBlock = 512;

// The smallest of 32, 64, ..., 512 threads that covers n values, else 512.
int AtenBnThreads(int64_t n) {
  for (int t = 32; t < kAtenBnBlock; t *= 2)
    if (n <= t) return t;
  return kAtenBnBlock;
}

// Merges the Welford state (count, mean, m2) of another part of the data into this one.
__device__ void WelfordMerge(float* n, float* mean, float* m2, float on, float omean, float om2) {
  const float total = *n + on;
  if (total == 0.f) return;
  const float d = omean - *mean;
  *mean += d * on / total;
  *m2 += om2 + d * d * *n * on / total;
  *n = total;
}

// The block's combined Welford state, for 2-D blocks of at most 1024 threads; every thread gets it.
__device__ void BlockWelford(float* n, float* mean, float* m2) {
  __shared__ float part[3][32];
  for (int o = 16; o > 0; o >>= 1)
    WelfordMerge(n, mean, m2, __shfl_xor_sync(0xffffffffU, *n, o),
                 __shfl_xor_sync(0xffffffffU, *mean, o), __shfl_xor_sync(0xffffffffU, *m2, o));
  const int tid = threadIdx.x + threadIdx.y * blockDim.x, lane = tid & 31, warp = tid >> 5;
  const int warps = (blockDim.x * blockDim.y + 31) >> 5;
  if (lane == 0) {
    part[0][warp] = *n;
    part[1][warp] = *mean;
    part[2][warp] = *m2;
  }
  __syncthreads();
  *n = lane < warps ? part[0][lane] : 0.f;
  *mean = lane < warps ? part[1][lane] : 0.f;
  *m2 = lane < warps ? part[2][lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1)
    WelfordMerge(n, mean, m2, __shfl_xor_sync(0xffffffffU, *n, o),
                 __shfl_xor_sync(0xffffffffU, *mean, o), __shfl_xor_sync(0xffffffffU, *m2, o));
}

template <typename T>
__global__ void AtenBnStatsKernel(const T* x, float* mean, float* invstd, int64_t mb, int64_t c,
                                  int64_t sp) {
  const int64_t ch = blockIdx.x;
  float n = 0.f, mu = 0.f, m2 = 0.f;
  for (int64_t b = threadIdx.y; b < mb; b += blockDim.y) {
    const T* row = x + (b * c + ch) * sp;
    for (int64_t i = threadIdx.x; i < sp; i += blockDim.x) {
      const float v = Load(row, i), d = v - mu;
      n += 1.f;
      mu += d / n;
      m2 += d * (v - mu);
    }
  }
  BlockWelford(&n, &mu, &m2);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    mean[ch] = mu;
    invstd[ch] = rsqrtf(m2 / n + 1e-5f);
  }
}

// running = 0.9 running + 0.1 batch statistic (the variance unbiased), per channel.
template <typename T>
__global__ void AtenBnRunningStatsKernel(const float* mean, const float* invstd, T* run_mean,
                                         T* run_var, int64_t c, float count) {
  GRID_STRIDE(i, c) {
    const float var = 1.f / (invstd[i] * invstd[i]) - 1e-5f;
    Store(run_mean, i, 0.9f * Load(run_mean, i) + 0.1f * mean[i]);
    Store(run_var, i, 0.9f * Load(run_var, i) + 0.1f * var * count / fmaxf(count - 1.f, 1.f));
  }
}

template <typename T>
__global__ void AtenBnTransformKernel(const T* x, T* y, const float* mean, const float* invstd,
                                      const T* gamma, const T* beta, int64_t mb, int64_t c,
                                      int64_t sp) {
  const int64_t ch = blockIdx.x;
  const float mu = mean[ch], r = invstd[ch], g = Load(gamma, ch), h = Load(beta, ch);
  for (int64_t b = threadIdx.y + blockIdx.y * int64_t{blockDim.y}; b < mb;
       b += int64_t{blockDim.y} * gridDim.y) {
    const int64_t base = (b * c + ch) * sp;
    for (int64_t i = threadIdx.x; i < sp; i += blockDim.x)
      Store(y, base + i, g * (Load(x, base + i) - mu) * r + h);
  }
}

template <typename T>
__global__ void AtenBnBwdKernel(const T* x, const T* dy, const T* gamma, const float* mean,
                                const float* invstd, T* dx, T* dgamma, T* dbeta, int64_t mb,
                                int64_t c, int64_t sp) {
  const int64_t ch = blockIdx.x;
  const float mu = mean[ch], r = invstd[ch];
  float sum_dy = 0.f, dot = 0.f;  // sum(dy), sum(dy * (x - mean))
  for (int64_t b = threadIdx.y; b < mb; b += blockDim.y) {
    const int64_t base = (b * c + ch) * sp;
    for (int64_t i = threadIdx.x; i < sp; i += blockDim.x) {
      const float g = Load(dy, base + i);
      sum_dy += g;
      dot += g * (Load(x, base + i) - mu);
    }
  }
  __shared__ float shared[32];
  sum_dy = BlockSum(sum_dy, shared);
  dot = BlockSum(dot, shared);
  const float norm = 1.f / static_cast<float>(mb * sp);
  const float grad_mean = sum_dy * norm, proj = dot * norm * r * r, scale = r * Load(gamma, ch);
  for (int64_t b = threadIdx.y; b < mb; b += blockDim.y) {
    const int64_t base = (b * c + ch) * sp;
    for (int64_t i = threadIdx.x; i < sp; i += blockDim.x)
      Store(dx, base + i,
            (Load(dy, base + i) - (Load(x, base + i) - mu) * proj - grad_mean) * scale);
  }
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    Store(dgamma, ch, dot * r);
    Store(dbeta, ch, sum_dy);
  }
}

}  // namespace

cudaError_t AtenBatchNormFwd(const void* x, const void* gamma, const void* beta, void* y,
                             float* mean, float* invstd, void* run_mean, void* run_var, int64_t mb,
                             int64_t c, int64_t sp, Elem t, cudaStream_t stream) {
  const int tx = AtenBnThreads(sp);
  const dim3 stats_block(tx, std::max(1, kAtenBnBlock / tx));
  // The normalising pass: at least 64 threads across the map where it has that many (a quarter
  // of the map's threads where more), the rest of 64 over the batch, and grid rows over the batch
  // up to 256 Ki blocks in all.
  const int nx = std::max(AtenBnThreads(sp / 4), std::min(AtenBnThreads(sp), 64));
  const int ny = std::max(1, 64 / nx);
  const int64_t rows =
      std::clamp<int64_t>(std::min<int64_t>((256 * 1024) / c, (mb + ny - 1) / ny), 1, 65535);
  const dim3 grid(static_cast<unsigned>(c), static_cast<unsigned>(rows));
  DISPATCH(t, {
    AtenBnStatsKernel<<<static_cast<unsigned>(c), stats_block, 0, stream>>>(
        static_cast<const T*>(x), mean, invstd, mb, c, sp);
    AtenBnRunningStatsKernel<<<Blocks(c), kThreads, 0, stream>>>(
        mean, invstd, static_cast<T*>(run_mean), static_cast<T*>(run_var), c,
        static_cast<float>(mb * sp));
    AtenBnTransformKernel<<<grid, dim3(nx, ny), 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), mean, invstd, static_cast<const T*>(gamma),
        static_cast<const T*>(beta), mb, c, sp);
  });
}

cudaError_t AtenBatchNormBwd(const void* x, const void* dy, const void* gamma, const float* mean,
                             const float* invstd, void* dx, void* dgamma, void* dbeta, int64_t mb,
                             int64_t c, int64_t sp, Elem t, cudaStream_t stream) {
  const int tx = AtenBnThreads(sp);
  const dim3 block(tx, std::max(1, kAtenBnBlock / tx));
  DISPATCH(t, {
    AtenBnBwdKernel<<<static_cast<unsigned>(c), block, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<const T*>(gamma), mean,
        invstd, static_cast<T*>(dx), static_cast<T*>(dgamma), static_cast<T*>(dbeta), mb, c, sp);
  });
}

}  // namespace epochcost::profiler::gpu
