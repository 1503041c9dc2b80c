// What the GPU kernels of our own share (kernels.cu, batch_norm_kernels.cu): the element types'
// loads and stores in float, grid sizes, the launch dispatch on the element type and a block-wide
// sum. Included by .cu files only.
#ifndef EPOCHCOST_PROFILER_GPU_KERNEL_UTIL_CUH_
#define EPOCHCOST_PROFILER_GPU_KERNEL_UTIL_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "profiler/gpu/kernels.h"

namespace epochcost::profiler::gpu {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n items: enough to fill any current GPU, no more.
inline unsigned Blocks(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

template <typename T>
__device__ float Load(const T* p, int64_t i);
template <>
__device__ inline float Load(const float* p, int64_t i) { return p[i]; }
template <>
__device__ inline float Load(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
template <>
__device__ inline float Load(const __half* p, int64_t i) { return __half2float(p[i]); }

__device__ inline void Store(float* p, int64_t i, float v) { p[i] = v; }
__device__ inline void Store(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16(v); }
__device__ inline void Store(__half* p, int64_t i, float v) { p[i] = __float2half(v); }

// Sum of v over the block (1-D or 2-D, at most 1024 threads); every thread gets it. Uses
// shared[32].
__device__ inline float BlockSum(float v, float* shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffU, v, o);
  const int tid = threadIdx.x + threadIdx.y * blockDim.x, lane = tid & 31, warp = tid >> 5;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x * blockDim.y + 31) >> 5;
  v = lane < warps ? shared[lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffU, v, o);
  return v;
}

}  // namespace epochcost::profiler::gpu

#define GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < (n); i += int64_t{blockDim.x} * gridDim.x)

// Runs the statements with T the element type of t, then returns the launch's error.
#define DISPATCH(t, ...)                \
  switch (t) {                          \
    case Elem::kBF16: {                 \
      using T = __nv_bfloat16;          \
      __VA_ARGS__;                      \
      break;                            \
    }                                   \
    case Elem::kF16: {                  \
      using T = __half;                 \
      __VA_ARGS__;                      \
      break;                            \
    }                                   \
    default: {                          \
      using T = float;                  \
      __VA_ARGS__;                      \
    }                                   \
  }                                     \
  return cudaGetLastError()

#endif  // EPOCHCOST_PROFILER_GPU_KERNEL_UTIL_CUH_
