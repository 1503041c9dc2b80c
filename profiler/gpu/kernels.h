// The GPU kernels of our own: what frameworks run as their own CUDA kernels rather than cuDNN or
// cuBLAS calls (element-wise functions, binary ops, reductions, softmax, dropout, layer norm,
// PyTorch's own batch norm, embedding gather and scatter, the loss and the optimizer updates),
// plus filling buffers and an empty kernel for the launch-cost microbenchmark (kernels.cu; batch
// norm in batch_norm_kernels.cu). Each launcher enqueues on `stream` and returns the launch's
// error.
#ifndef EPOCHCOST_PROFILER_GPU_KERNELS_H_
#define EPOCHCOST_PROFILER_GPU_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace epochcost::profiler::gpu {

enum class Elem { kF32, kBF16, kF16 };
int ElemSize(Elem t);

enum class Act {
  kLinear,
  kRelu,
  kRelu6,
  kTanh,
  kSigmoid,
  kGelu,
  kSwish,
  kHardSigmoid,
  kSqrt,
  kExp,
  kLog
};
enum class BinaryOp { kAdd, kSub, kMul, kDiv };
enum class LossKind { kSoftmaxCrossEntropy, kBinaryCrossEntropy, kMeanSquaredError };
enum class OptimizerKind { kSgd, kMomentum, kRmsprop, kAdam, kAdamw, kAdadelta };

// Values uniform in [-scale, scale), from a hash of the index and seed.
cudaError_t Fill(void* p, int64_t n, Elem t, uint32_t seed, float scale, cudaStream_t stream);
// Integers uniform in [0, bound).
cudaError_t FillIndices(int32_t* p, int64_t n, int32_t bound, uint32_t seed, cudaStream_t stream);

// y = f(x), or dx = f'(x) * dy when backward.
cudaError_t Eltwise(Act act, bool backward, const void* x, const void* dy, void* y, int64_t n,
                    Elem t, cudaStream_t stream);
// y (of type `to`) = x (of type `from`), n values: a cast.
cudaError_t Convert(const void* x, Elem from, void* y, Elem to, int64_t n, cudaStream_t stream);

cudaError_t Binary(BinaryOp op, const void* a, const void* b, void* c, int64_t n, Elem t,
                   cudaStream_t stream);
// y[o] = sum (or mean) of the contiguous group x[o * n / out, (o + 1) * n / out), in float.
cudaError_t Reduce(bool mean, const void* x, float* y, int64_t n, int64_t out, Elem t,
                   cudaStream_t stream);
// db[c] = sum over rows of dy[r, c] (a dense layer's bias gradient), accumulated in float.
cudaError_t ColumnSum(const void* dy, float* db, int64_t rows, int64_t cols, Elem t,
                      cudaStream_t stream);

// Softmax over the last axis of rows x c, and its gradient from the output y and dy.
cudaError_t SoftmaxFwd(const void* x, void* y, int64_t rows, int64_t c, Elem t,
                       cudaStream_t stream);
cudaError_t SoftmaxBwd(const void* y, const void* dy, void* dx, int64_t rows, int64_t c, Elem t,
                       cudaStream_t stream);

// Dropout (keep 0.8): forward y = mask ? x / 0.8 : 0 writing the mask; backward dx from dy and it.
cudaError_t Dropout(bool backward, const void* x, void* y, uint8_t* mask, int64_t n, Elem t,
                    cudaStream_t stream);

// Layer norm over the last axis of rows x c; mean and rstd (float, per row) are saved for the
// backward pass, which writes dx and the float gradients of gamma and beta.
cudaError_t LayerNormFwd(const void* x, const void* gamma, const void* beta, void* y, float* mean,
                         float* rstd, int64_t rows, int64_t c, Elem t, cudaStream_t stream);
cudaError_t LayerNormBwd(const void* x, const void* dy, const void* gamma, const float* mean,
                         const float* rstd, void* dx, float* dgamma, float* dbeta, int64_t rows,
                         int64_t c, Elem t, cudaStream_t stream);

// PyTorch's own batch norm over NCHW tensors (mb, c, sp) in training mode, as ATen runs it on a
// GPU where it does not call cuDNN's (16-bit weights: cuDNN's wants float ones). The forward
// saves the float mean and 1/std per channel, updates the running statistics and writes y; the
// backward writes dx and the gradients of gamma and beta. gamma, beta, the running statistics and
// the gradients are of the tensor's type.
cudaError_t AtenBatchNormFwd(const void* x, const void* gamma, const void* beta, void* y,
                             float* mean, float* invstd, void* run_mean, void* run_var, int64_t mb,
                             int64_t c, int64_t sp, Elem t, cudaStream_t stream);
cudaError_t AtenBatchNormBwd(const void* x, const void* dy, const void* gamma, const float* mean,
                             const float* invstd, void* dx, void* dgamma, void* dbeta, int64_t mb,
                             int64_t c, int64_t sp, Elem t, cudaStream_t stream);

// out[r] = table[ids[r]]; the backward zeroes the dense table gradient (float) and adds each
// row's gradient into it.
cudaError_t EmbeddingFwd(const int32_t* ids, const void* table, void* out, int64_t rows,
                         int64_t dim, Elem t, cudaStream_t stream);
cudaError_t EmbeddingBwd(const int32_t* ids, const void* dout, float* dtable, int64_t rows,
                         int64_t dim, int64_t vocab, Elem t, cudaStream_t stream);

// The loss over rows x c and its gradient with respect to the input (labels for softmax
// cross-entropy, targets in [0, 1] otherwise); loss receives one float per row.
cudaError_t Loss(LossKind kind, const void* x, const int32_t* labels, const void* target,
                 void* grad, float* loss, int64_t rows, int64_t c, Elem t, cudaStream_t stream);

// One update of n weights w from their gradient g; s1 and s2 are the optimizer's state arrays
// (momentum/first moment, second moment or accumulated update), as the algorithm needs them.
cudaError_t OptimizerStep(OptimizerKind kind, void* w, const void* g, void* s1, void* s2, int64_t n,
                          Elem t, cudaStream_t stream);

// A kernel that does nothing, to time a launch.
cudaError_t Empty(cudaStream_t stream);

// A kernel that keeps the stream busy for `seconds` (one thread spinning on the GPU's clock), so
// that the host can queue the calls to be timed behind it and the GPU then runs them back to back,
// without waiting for the host (NVIDIA's nvbench times with such a blocking kernel).
cudaError_t Hold(double seconds, cudaStream_t stream);

}  // namespace epochcost::profiler::gpu

#endif  // EPOCHCOST_PROFILER_GPU_KERNELS_H_
