// The GPU kernels of our own but batch norm (kernels.h; batch_norm_kernels.cu).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "profiler/gpu/kernel_util.cuh"
#include "profiler/gpu/kernels.h"

namespace epochcost::profiler::gpu {
namespace {

__device__ uint32_t Hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

template <typename T>
__global__ void FillKernel(T* p, int64_t n, uint32_t seed, float scale) {
  GRID_STRIDE(i, n) {
    const uint32_t h = Hash(static_cast<uint32_t>(i) * 2654435761U ^ seed);
    Store(p, i, scale * (static_cast<float>(h) * (2.f / 4294967296.f) - 1.f));
  }
}

__global__ void FillIndicesKernel(int32_t* p, int64_t n, int32_t bound, uint32_t seed) {
  GRID_STRIDE(i, n) p[i] = static_cast<int32_t>(Hash(static_cast<uint32_t>(i) ^ seed) % bound);
}

__device__ float Activate(Act a, float x) {
  switch (a) {
    case Act::kRelu: return x > 0.f ? x : 0.f;
    case Act::kRelu6: return fminf(fmaxf(x, 0.f), 6.f);
    case Act::kTanh: return tanhf(x);
    case Act::kSigmoid: return 1.f / (1.f + __expf(-x));
    case Act::kGelu: return 0.5f * x * (1.f + erff(x * 0.70710678f));
    case Act::kSwish: return x / (1.f + __expf(-x));
    case Act::kHardSigmoid: return fminf(fmaxf(0.2f * x + 0.5f, 0.f), 1.f);
    case Act::kSqrt: return sqrtf(fabsf(x));
    case Act::kExp: return __expf(x);
    case Act::kLog: return __logf(fabsf(x) + 1e-6f);
    default: return x;
  }
}

__device__ float Derivative(Act a, float x) {
  switch (a) {
    case Act::kRelu: return x > 0.f ? 1.f : 0.f;
    case Act::kRelu6: return x > 0.f && x < 6.f ? 1.f : 0.f;
    case Act::kTanh: { const float t = tanhf(x); return 1.f - t * t; }
    case Act::kSigmoid: { const float s = 1.f / (1.f + __expf(-x)); return s * (1.f - s); }
    case Act::kGelu:
      return 0.5f * (1.f + erff(x * 0.70710678f)) + x * 0.39894228f * __expf(-0.5f * x * x);
    case Act::kSwish: { const float s = 1.f / (1.f + __expf(-x)); return s * (1.f + x * (1.f - s)); }
    case Act::kHardSigmoid: return x > -2.5f && x < 2.5f ? 0.2f : 0.f;
    case Act::kSqrt: return 0.5f / sqrtf(fabsf(x) + 1e-6f);
    case Act::kExp: return __expf(x);
    case Act::kLog: return 1.f / (fabsf(x) + 1e-6f);
    default: return 1.f;
  }
}

// Element-wise and binary ops as PyTorch's vectorized_elementwise_kernel runs them: each thread
// loads 16 bytes of every operand at once (4 fp32 or 8 bf16/fp16 values), 128 threads a block,
// one block per 128 vectors; the last thread finishes a tail shorter than a vector value by value.
// (With one value a thread, 16-bit ReLUs took about twice PyTorch's time: on an H200, ResNet50
// v1.5 fp16 batch 512, 10.4 ms a step forward and 12.1 backward against its 4.9 and 6.7.)
constexpr int kVecThreads = 128;

template <typename T>
struct alignas(16) Vec {
  static constexpr int kLen = 16 / sizeof(T);
  T v[kLen];
};

template <typename T>
unsigned VecBlocks(int64_t n) {
  const int64_t per_block = int64_t{kVecThreads} * Vec<T>::kLen;
  const int64_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : b);
}

// The first element of this thread's vector.
template <typename T>
__device__ int64_t VecFirst() {
  return (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) * Vec<T>::kLen;
}

// What the vectorized kernels apply to each value x, with y the second operand's value where
// kBinary (else 0).
struct ActivateFn {
  static constexpr bool kBinary = false;
  Act a;
  __device__ float operator()(float x, float) const { return Activate(a, x); }
};

struct DerivativeFn {  // y: the output gradient
  static constexpr bool kBinary = true;
  Act a;
  __device__ float operator()(float x, float y) const { return Derivative(a, x) * y; }
};

struct BinaryFn {
  static constexpr bool kBinary = true;
  BinaryOp op;
  __device__ float operator()(float x, float y) const {
    return op == BinaryOp::kAdd ? x + y : op == BinaryOp::kSub ? x - y
           : op == BinaryOp::kMul ? x * y : x / (y + 1e-3f);
  }
};

// out = f(a) or f(a, b), one vector of each operand a thread.
template <typename T, typename F>
__global__ void VecMapKernel(F f, const T* a, const T* b, T* out, int64_t n) {
  const int64_t i0 = VecFirst<T>();
  if (i0 + Vec<T>::kLen <= n) {
    const Vec<T> va = *reinterpret_cast<const Vec<T>*>(a + i0);
    Vec<T> vb, vo;
    if constexpr (F::kBinary) vb = *reinterpret_cast<const Vec<T>*>(b + i0);
    for (int k = 0; k < Vec<T>::kLen; ++k) {
      float y = 0.f;
      if constexpr (F::kBinary) y = Load(vb.v, k);
      Store(vo.v, k, f(Load(va.v, k), y));
    }
    *reinterpret_cast<Vec<T>*>(out + i0) = vo;
  } else {
    for (int64_t i = i0; i < n; ++i) {
      float y = 0.f;
      if constexpr (F::kBinary) y = Load(b, i);
      Store(out, i, f(Load(a, i), y));
    }
  }
}

__device__ float BlockMax(float v, float* shared) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffU, v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  v = lane < warps ? shared[lane] : -INFINITY;
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffU, v, o));
  return v;
}

// Each output value sums a group of `len` contiguous inputs; a group is split over blocks of
// up to kReduceChunk values (so that a few large groups still fill the GPU), whose partial sums
// are added into the float output (zeroed first).
constexpr int64_t kReduceChunk = 16384;

template <typename T>
__global__ void ReduceKernel(float scale, const T* x, float* y, int64_t len) {
  __shared__ float shared[32];
  const int64_t begin = blockIdx.y * kReduceChunk;
  const int64_t end = begin + kReduceChunk < len ? begin + kReduceChunk : len;
  const T* in = x + blockIdx.x * len;
  float s = 0.f;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) s += Load(in, i);
  s = BlockSum(s, shared);
  if (threadIdx.x == 0) atomicAdd(y + blockIdx.x, s * scale);
}

// Column sums of a rows x cols matrix in tiles of 32 columns x kRowsPerTile rows: the threads
// of a warp read 32 adjacent columns, the 8 warps of a block share the tile's rows, and each
// tile adds its partial sums into the float output (zeroed first).
constexpr int kRowsPerTile = 256;

dim3 ColumnTiles(int64_t rows, int64_t cols) {
  return dim3(static_cast<unsigned>((cols + 31) / 32),
              static_cast<unsigned>((rows + kRowsPerTile - 1) / kRowsPerTile));
}

template <typename T>
__global__ void ColumnSumKernel(const T* dy, float* db, int64_t rows, int64_t cols) {
  __shared__ float part[8][33];
  const int64_t c = blockIdx.x * 32 + threadIdx.x;
  const int64_t r0 = blockIdx.y * int64_t{kRowsPerTile};
  const int64_t r1 = r0 + kRowsPerTile < rows ? r0 + kRowsPerTile : rows;
  float s = 0.f;
  if (c < cols)
    for (int64_t r = r0 + threadIdx.y; r < r1; r += 8) s += Load(dy, r * cols + c);
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    for (int k = 1; k < 8; ++k) s += part[k][threadIdx.x];
    atomicAdd(db + c, s);
  }
}

// Softmax over rows of c values, one block per row, as PyTorch's own softmax kernels do it:
// the row's maximum, the sum of exponentials, then the output.
// The block's row maximum m and the sum of exp(x - m) over the row, both block-wide.
template <typename T>
__device__ void RowMaxAndExpSum(const T* in, int64_t c, float* shared, float* m, float* s) {
  float mx = -INFINITY;
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) mx = fmaxf(mx, Load(in, i));
  mx = BlockMax(mx, shared);
  float sum = 0.f;
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) sum += __expf(Load(in, i) - mx);
  *m = mx;
  *s = BlockSum(sum, shared);
}

template <typename T>
__global__ void SoftmaxFwdKernel(const T* x, T* y, int64_t c) {
  __shared__ float shared[32];
  const int64_t row = blockIdx.x;
  const T* in = x + row * c;
  float m, s;
  RowMaxAndExpSum(in, c, shared, &m, &s);
  const float inv = 1.f / s;
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x)
    Store(y, row * c + i, __expf(Load(in, i) - m) * inv);
}

// dx = y * (dy - sum(dy * y)) per row.
template <typename T>
__global__ void SoftmaxBwdKernel(const T* y, const T* dy, T* dx, int64_t c) {
  __shared__ float shared[32];
  const int64_t base = blockIdx.x * c;
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) s += Load(y, base + i) * Load(dy, base + i);
  s = BlockSum(s, shared);
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x)
    Store(dx, base + i, Load(y, base + i) * (Load(dy, base + i) - s));
}

// Dropout with keep probability 0.8: the forward draws the mask from a hash of the index and a
// seed and writes it (one byte a value) with the scaled output; the backward applies it.
template <typename T>
__global__ void DropoutFwdKernel(const T* x, T* y, uint8_t* mask, int64_t n, uint32_t seed) {
  GRID_STRIDE(i, n) {
    const uint8_t keep = (Hash(static_cast<uint32_t>(i) ^ seed) & 0xffU) > 51U;
    mask[i] = keep;
    Store(y, i, keep ? Load(x, i) * 1.25f : 0.f);
  }
}

template <typename T>
__global__ void DropoutBwdKernel(const T* dy, const uint8_t* mask, T* dx, int64_t n) {
  GRID_STRIDE(i, n) Store(dx, i, mask[i] ? Load(dy, i) * 1.25f : 0.f);
}

template <typename T>
__global__ void LayerNormFwdKernel(const T* x, const T* gamma, const T* beta, T* y, float* mean,
                                   float* rstd, int64_t c) {
  __shared__ float shared[32];
  const int64_t row = blockIdx.x;
  const T* in = x + row * c;
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) s += Load(in, i);
  const float mu = BlockSum(s, shared) / static_cast<float>(c);
  float v = 0.f;
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) {
    const float d = Load(in, i) - mu;
    v += d * d;
  }
  const float r = rsqrtf(BlockSum(v, shared) / static_cast<float>(c) + 1e-5f);
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x)
    Store(y, row * c + i, (Load(in, i) - mu) * r * Load(gamma, i) + Load(beta, i));
  if (threadIdx.x == 0) {
    mean[row] = mu;
    rstd[row] = r;
  }
}

template <typename T>
__global__ void LayerNormBwdDataKernel(const T* x, const T* dy, const T* gamma, const float* mean,
                                       const float* rstd, T* dx, int64_t c) {
  __shared__ float shared[32];
  const int64_t row = blockIdx.x;
  const float mu = mean[row], r = rstd[row];
  float a = 0.f, b = 0.f;  // sum(g * dy), sum(g * dy * xhat)
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) {
    const float g = Load(gamma, i) * Load(dy, row * c + i);
    a += g;
    b += g * (Load(x, row * c + i) - mu) * r;
  }
  a = BlockSum(a, shared) / static_cast<float>(c);
  b = BlockSum(b, shared) / static_cast<float>(c);
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x) {
    const float g = Load(gamma, i) * Load(dy, row * c + i);
    const float xhat = (Load(x, row * c + i) - mu) * r;
    Store(dx, row * c + i, r * (g - a - xhat * b));
  }
}

// The gradients of gamma and beta: column sums of dy * xhat and dy, tiled as ColumnSumKernel.
template <typename T>
__global__ void LayerNormBwdParamsKernel(const T* x, const T* dy, const float* mean,
                                         const float* rstd, float* dgamma, float* dbeta,
                                         int64_t rows, int64_t c) {
  __shared__ float part[2][8][33];
  const int64_t i = blockIdx.x * 32 + threadIdx.x;
  const int64_t r0 = blockIdx.y * int64_t{kRowsPerTile};
  const int64_t r1 = r0 + kRowsPerTile < rows ? r0 + kRowsPerTile : rows;
  float dg = 0.f, db = 0.f;
  if (i < c)
    for (int64_t r = r0 + threadIdx.y; r < r1; r += 8) {
      const float d = Load(dy, r * c + i);
      dg += d * (Load(x, r * c + i) - mean[r]) * rstd[r];
      db += d;
    }
  part[0][threadIdx.y][threadIdx.x] = dg;
  part[1][threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y == 0 && i < c) {
    for (int k = 1; k < 8; ++k) {
      dg += part[0][k][threadIdx.x];
      db += part[1][k][threadIdx.x];
    }
    atomicAdd(dgamma + i, dg);
    atomicAdd(dbeta + i, db);
  }
}

template <typename T>
__global__ void EmbeddingFwdKernel(const int32_t* ids, const T* table, T* out, int64_t rows,
                                   int64_t dim) {
  GRID_STRIDE(i, rows * dim) out[i] = table[int64_t{ids[i / dim]} * dim + i % dim];
}

template <typename T>
__global__ void EmbeddingBwdKernel(const int32_t* ids, const T* dout, float* dtable, int64_t rows,
                                   int64_t dim) {
  GRID_STRIDE(i, rows * dim) atomicAdd(dtable + int64_t{ids[i / dim]} * dim + i % dim, Load(dout, i));
}

// One block per row: softmax, the cross-entropy of the label, and the gradient softmax - onehot.
template <typename T>
__global__ void SoftmaxXentKernel(const T* x, const int32_t* labels, T* grad, float* loss,
                                  int64_t c) {
  __shared__ float shared[32];
  const int64_t row = blockIdx.x;
  const T* in = x + row * c;
  float m, s;
  RowMaxAndExpSum(in, c, shared, &m, &s);
  const int32_t label = labels[row];
  for (int64_t i = threadIdx.x; i < c; i += blockDim.x)
    Store(grad, row * c + i, __expf(Load(in, i) - m) / s - (i == label ? 1.f : 0.f));
  if (threadIdx.x == 0) loss[row] = __logf(s) + m - Load(in, label);
}

template <typename T>
__global__ void PointwiseLossKernel(bool bce, const T* x, const T* target, T* grad, float* loss,
                                    int64_t n) {
  GRID_STRIDE(i, n) {
    const float p = Load(x, i), y = Load(target, i);
    if (bce) {
      const float q = fminf(fmaxf(1.f / (1.f + __expf(-p)), 1e-7f), 1.f - 1e-7f);
      Store(grad, i, q - y);
      atomicAdd(loss, -(y * __logf(q) + (1.f - y) * __logf(1.f - q)));
    } else {
      Store(grad, i, 2.f * (p - y));
      atomicAdd(loss, (p - y) * (p - y));
    }
  }
}

template <typename T>
__global__ void OptimizerKernel(OptimizerKind kind, T* w, const T* g, T* s1, T* s2, int64_t n) {
  const float lr = 1e-3f, rho = 0.9f, beta2 = 0.999f, eps = 1e-7f;
  GRID_STRIDE(i, n) {
    float wi = Load(w, i);
    const float gi = Load(g, i);
    switch (kind) {
      case OptimizerKind::kSgd:
        wi -= lr * gi;
        break;
      case OptimizerKind::kMomentum: {
        const float v = rho * Load(s1, i) + gi;
        Store(s1, i, v);
        wi -= lr * v;
        break;
      }
      case OptimizerKind::kRmsprop: {
        const float v = rho * Load(s1, i) + (1.f - rho) * gi * gi;
        Store(s1, i, v);
        wi -= lr * gi / (sqrtf(v) + eps);
        break;
      }
      case OptimizerKind::kAdam:
      case OptimizerKind::kAdamw: {
        if (kind == OptimizerKind::kAdamw) wi *= 1.f - lr * 0.01f;  // decoupled weight decay
        const float m = rho * Load(s1, i) + (1.f - rho) * gi;
        const float v = beta2 * Load(s2, i) + (1.f - beta2) * gi * gi;
        Store(s1, i, m);
        Store(s2, i, v);
        wi -= lr * m / (sqrtf(v) + eps);
        break;
      }
      case OptimizerKind::kAdadelta: {
        const float a = rho * Load(s1, i) + (1.f - rho) * gi * gi;
        const float d = sqrtf(Load(s2, i) + eps) / sqrtf(a + eps) * gi;
        Store(s1, i, a);
        Store(s2, i, rho * Load(s2, i) + (1.f - rho) * d * d);
        wi -= d;
        break;
      }
    }
    Store(w, i, wi);
  }
}

// A dtype conversion as PyTorch's copy kernel runs it (autocast's casts): four values a thread,
// 128 threads a block (vectorized_elementwise_kernel<4> in torch.profiler).
constexpr int kConvertPerThread = 4;

template <typename S, typename D>
__global__ void ConvertKernel(const S* x, D* y, int64_t n) {
  const int64_t first = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) * kConvertPerThread;
#pragma unroll
  for (int k = 0; k < kConvertPerThread; ++k)
    if (first + k < n) Store(y, first + k, Load(x, first + k));
}

template <typename S>
cudaError_t ConvertFrom(const S* x, void* y, Elem to, int64_t n, cudaStream_t stream) {
  const int64_t per_block = int64_t{kVecThreads} * kConvertPerThread;
  const int64_t b = (n + per_block - 1) / per_block;
  const unsigned blocks = static_cast<unsigned>(b < 1 ? 1 : b);
  DISPATCH(to, { ConvertKernel<<<blocks, kVecThreads, 0, stream>>>(x, static_cast<T*>(y), n); });
}

__global__ void EmptyKernel() {}

// Spins one thread until `ns` nanoseconds of the GPU's global timer have passed.
__global__ void HoldKernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

int ElemSize(Elem t) { return t == Elem::kF32 ? 4 : 2; }

cudaError_t Fill(void* p, int64_t n, Elem t, uint32_t seed, float scale, cudaStream_t stream) {
  DISPATCH(t, {
    FillKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<T*>(p), n, seed, scale);
  });
}

cudaError_t FillIndices(int32_t* p, int64_t n, int32_t bound, uint32_t seed, cudaStream_t stream) {
  FillIndicesKernel<<<Blocks(n), kThreads, 0, stream>>>(p, n, bound, seed);
  return cudaGetLastError();
}

cudaError_t Eltwise(Act act, bool backward, const void* x, const void* dy, void* y, int64_t n,
                    Elem t, cudaStream_t stream) {
  DISPATCH(t, {
    if (backward)
      VecMapKernel<T, DerivativeFn><<<VecBlocks<T>(n), kVecThreads, 0, stream>>>(
          {act}, static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(y), n);
    else
      VecMapKernel<T, ActivateFn><<<VecBlocks<T>(n), kVecThreads, 0, stream>>>(
          {act}, static_cast<const T*>(x), nullptr, static_cast<T*>(y), n);
  });
}

cudaError_t Convert(const void* x, Elem from, void* y, Elem to, int64_t n, cudaStream_t stream) {
  DISPATCH(from, { return ConvertFrom(static_cast<const T*>(x), y, to, n, stream); });
}

cudaError_t Binary(BinaryOp op, const void* a, const void* b, void* c, int64_t n, Elem t,
                   cudaStream_t stream) {
  DISPATCH(t, {
    VecMapKernel<T, BinaryFn><<<VecBlocks<T>(n), kVecThreads, 0, stream>>>(
        {op}, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), n);
  });
}

cudaError_t Reduce(bool mean, const void* x, float* y, int64_t n, int64_t out, Elem t,
                   cudaStream_t stream) {
  const int64_t len = n / out;
  const cudaError_t e = cudaMemsetAsync(y, 0, sizeof(float) * out, stream);
  if (e != cudaSuccess) return e;
  const dim3 grid(static_cast<unsigned>(out),
                  static_cast<unsigned>((len + kReduceChunk - 1) / kReduceChunk));
  const float scale = mean ? 1.f / static_cast<float>(len) : 1.f;
  DISPATCH(t, {
    ReduceKernel<<<grid, kThreads, 0, stream>>>(scale, static_cast<const T*>(x), y, len);
  });
}

cudaError_t ColumnSum(const void* dy, float* db, int64_t rows, int64_t cols, Elem t,
                      cudaStream_t stream) {
  const cudaError_t e = cudaMemsetAsync(db, 0, sizeof(float) * cols, stream);
  if (e != cudaSuccess) return e;
  DISPATCH(t, {
    ColumnSumKernel<<<ColumnTiles(rows, cols), dim3(32, 8), 0, stream>>>(
        static_cast<const T*>(dy), db, rows, cols);
  });
}

cudaError_t SoftmaxFwd(const void* x, void* y, int64_t rows, int64_t c, Elem t,
                       cudaStream_t stream) {
  const int threads = c >= 1024 ? 512 : c >= 256 ? 256 : c >= 64 ? 64 : 32;
  DISPATCH(t, {
    SoftmaxFwdKernel<<<static_cast<unsigned>(rows), threads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), c);
  });
}

cudaError_t SoftmaxBwd(const void* y, const void* dy, void* dx, int64_t rows, int64_t c, Elem t,
                       cudaStream_t stream) {
  const int threads = c >= 1024 ? 512 : c >= 256 ? 256 : c >= 64 ? 64 : 32;
  DISPATCH(t, {
    SoftmaxBwdKernel<<<static_cast<unsigned>(rows), threads, 0, stream>>>(
        static_cast<const T*>(y), static_cast<const T*>(dy), static_cast<T*>(dx), c);
  });
}

cudaError_t Dropout(bool backward, const void* x, void* y, uint8_t* mask, int64_t n, Elem t,
                    cudaStream_t stream) {
  DISPATCH(t, {
    if (backward)
      DropoutBwdKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<const T*>(x), mask,
                                                           static_cast<T*>(y), n);
    else
      DropoutFwdKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<const T*>(x),
                                                           static_cast<T*>(y), mask, n, 1234U);
  });
}

cudaError_t LayerNormFwd(const void* x, const void* gamma, const void* beta, void* y, float* mean,
                         float* rstd, int64_t rows, int64_t c, Elem t, cudaStream_t stream) {
  DISPATCH(t, {
    LayerNormFwdKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta),
        static_cast<T*>(y), mean, rstd, c);
  });
}

cudaError_t LayerNormBwd(const void* x, const void* dy, const void* gamma, const float* mean,
                         const float* rstd, void* dx, float* dgamma, float* dbeta, int64_t rows,
                         int64_t c, Elem t, cudaStream_t stream) {
  DISPATCH(t, {
    LayerNormBwdDataKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<const T*>(gamma), mean,
        rstd, static_cast<T*>(dx), c);
    cudaMemsetAsync(dgamma, 0, sizeof(float) * c, stream);
    cudaMemsetAsync(dbeta, 0, sizeof(float) * c, stream);
    LayerNormBwdParamsKernel<<<ColumnTiles(rows, c), dim3(32, 8), 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), mean, rstd, dgamma, dbeta, rows, c);
  });
}

cudaError_t EmbeddingFwd(const int32_t* ids, const void* table, void* out, int64_t rows,
                         int64_t dim, Elem t, cudaStream_t stream) {
  DISPATCH(t, {
    EmbeddingFwdKernel<<<Blocks(rows * dim), kThreads, 0, stream>>>(
        ids, static_cast<const T*>(table), static_cast<T*>(out), rows, dim);
  });
}

cudaError_t EmbeddingBwd(const int32_t* ids, const void* dout, float* dtable, int64_t rows,
                         int64_t dim, int64_t vocab, Elem t, cudaStream_t stream) {
  const cudaError_t e = cudaMemsetAsync(dtable, 0, sizeof(float) * vocab * dim, stream);
  if (e != cudaSuccess) return e;
  DISPATCH(t, {
    EmbeddingBwdKernel<<<Blocks(rows * dim), kThreads, 0, stream>>>(
        ids, static_cast<const T*>(dout), dtable, rows, dim);
  });
}

cudaError_t Loss(LossKind kind, const void* x, const int32_t* labels, const void* target,
                 void* grad, float* loss, int64_t rows, int64_t c, Elem t, cudaStream_t stream) {
  DISPATCH(t, {
    if (kind == LossKind::kSoftmaxCrossEntropy)
      SoftmaxXentKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
          static_cast<const T*>(x), labels, static_cast<T*>(grad), loss, c);
    else
      PointwiseLossKernel<<<Blocks(rows * c), kThreads, 0, stream>>>(
          kind == LossKind::kBinaryCrossEntropy, static_cast<const T*>(x),
          static_cast<const T*>(target), static_cast<T*>(grad), loss, rows * c);
  });
}

cudaError_t OptimizerStep(OptimizerKind kind, void* w, const void* g, void* s1, void* s2,
                          int64_t n, Elem t, cudaStream_t stream) {
  DISPATCH(t, {
    OptimizerKernel<<<Blocks(n), kThreads, 0, stream>>>(kind, static_cast<T*>(w),
                                                        static_cast<const T*>(g),
                                                        static_cast<T*>(s1), static_cast<T*>(s2), n);
  });
}

cudaError_t Empty(cudaStream_t stream) {
  EmptyKernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t Hold(double seconds, cudaStream_t stream) {
  HoldKernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(seconds * 1e9));
  return cudaGetLastError();
}

}  // namespace epochcost::profiler::gpu
