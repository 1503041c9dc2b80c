// The GPU backend (gpu_backend.h): each op signature becomes the library call PyTorch makes for it
// on an NVIDIA GPU, on buffers of the signature's shapes filled with random values, timed with
// CUDA events (docs/gpu-profiler.md).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "profiler/gpu/cudnn_graph_conv.h"
#include "profiler/gpu/gpu_backend.h"
#include "profiler/gpu/kernels.h"
#include "profiler/gpu/rnn_algo.h"

namespace epochcost::profiler {
namespace {

using namespace cuda;  // NOLINT: the backend's own helpers

class Builder {
 public:
  Builder(const OpSignature& s, const Handles& h) : s_(s), h_(h), t_(ElemOf(s.dtype)) {}
  Prepared Build();

 private:
  int64_t D(const char* k, int64_t fallback = 0) const { return s_.dim(k, fallback); }
  int I(const char* k, int64_t fallback = 0) const { return static_cast<int>(D(k, fallback)); }

  // Device memory of `bytes`, filled with values in [-1, 1) of the signature's type.
  void* Bytes(size_t bytes, bool fill = true);
  void* Elements(int64_t n, bool fill = true) { return Bytes(n * gpu::ElemSize(t_), fill); }
  float* Floats(int64_t n) { return static_cast<float*>(Bytes(n * sizeof(float), false)); }
  cudnnTensorDescriptor_t Tensor(std::vector<int> dims, cudnnDataType_t type);
  cudnnTensorDescriptor_t Tensor(std::vector<int> dims) {
    return Tensor(dims, CudnnType(s_.dtype));
  }
  // n x c x h x w in the signature's layout: NCHW, or NHWC where it carries nhwc=1.
  cudnnTensorDescriptor_t Map(int n, int c, int h, int w);
  bool Nhwc() const { return D("nhwc") != 0; }

  Prepared Conv();
  Prepared Gemm();
  Prepared Pool();
  Prepared BatchNorm();
  Prepared AtenBatchNorm();
  Prepared Softmax();
  Prepared Dropout();
  Prepared Rnn();
  Prepared Own();

  const OpSignature& s_;
  const Handles& h_;
  Elem t_;
  Prepared out_;
};

void* Builder::Bytes(size_t bytes, bool fill) {
  void* p = nullptr;
  CK(cudaMalloc(&p, std::max<size_t>(bytes, 256)));
  out_.keep.push_back(std::shared_ptr<void>(p, [](void* q) { cudaFree(q); }));
  if (fill && bytes >= static_cast<size_t>(gpu::ElemSize(t_)))
    CK(gpu::Fill(p, bytes / gpu::ElemSize(t_), t_, static_cast<uint32_t>(out_.keep.size()), 1.f,
                 h_.stream));
  else
    CK(cudaMemsetAsync(p, 0, bytes, h_.stream));
  return p;
}

// A packed NCHW-style tensor of 4 or more dims (cuDNN's legacy API wants at least 4).
cudnnTensorDescriptor_t Builder::Tensor(std::vector<int> dims, cudnnDataType_t type) {
  while (dims.size() < 4) dims.push_back(1);
  std::vector<int> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  cudnnTensorDescriptor_t d;
  CK(cudnnCreateTensorDescriptor(&d));
  out_.keep.push_back(std::shared_ptr<void>(
      d, [](void* q) { cudnnDestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(q)); }));
  CK(cudnnSetTensorNdDescriptor(d, type, static_cast<int>(dims.size()), dims.data(),
                                strides.data()));
  return d;
}

cudnnTensorDescriptor_t Builder::Map(int n, int c, int h, int w) {
  if (!Nhwc()) return Tensor({n, c, h, w});
  cudnnTensorDescriptor_t d;
  CK(cudnnCreateTensorDescriptor(&d));
  out_.keep.push_back(std::shared_ptr<void>(
      d, [](void* q) { cudnnDestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(q)); }));
  CK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CudnnType(s_.dtype), n, c, h, w));
  return d;
}

Prepared Builder::Build() {
  switch (s_.kind) {
    case OpKind::kConvFwd:
    case OpKind::kConvBwdData:
    case OpKind::kConvBwdWeights:
      return Conv();
    case OpKind::kInnerProductFwd:
    case OpKind::kInnerProductBwdData:
    case OpKind::kInnerProductBwdWeights:
    case OpKind::kMatMul:
      return Gemm();
    case OpKind::kPoolFwd:
    case OpKind::kPoolBwd:
      return Pool();
    case OpKind::kBatchNormFwd:
    case OpKind::kBatchNormBwd:
      return BatchNorm();
    case OpKind::kSoftmaxFwd:
    case OpKind::kSoftmaxBwd:
      return Softmax();
    case OpKind::kDropoutFwd:
    case OpKind::kDropoutBwd:
      return Dropout();
    case OpKind::kRnnFwd:
    case OpKind::kRnnBwd:
      return Rnn();
    default:
      return Own();
  }
}

// cuDNN convolution with the algorithm cudnnFind* measures fastest within the workspace limit,
// as PyTorch picks it with torch.backends.cudnn.benchmark = True.
Prepared Builder::Conv() {
  const bool two_d = s_.dims.contains("kh");
  const int mb = I("mb"), ic = I("ic"), oc = I("oc"), g = I("g", 1);
  const int ih = two_d ? I("ih") : 1, iw = I("iw"), kh = two_d ? I("kh") : 1, kw = I("kw");
  const int sh = two_d ? I("sh", 1) : 1, sw = I("sw", 1), dh = two_d ? I("dh", 1) : 1,
            dw = I("dw", 1), ph = two_d ? I("ph") : 0, pw = I("pw");
  cudnnConvolutionDescriptor_t conv;
  CK(cudnnCreateConvolutionDescriptor(&conv));
  out_.keep.push_back(std::shared_ptr<void>(conv, [](void* q) {
    cudnnDestroyConvolutionDescriptor(static_cast<cudnnConvolutionDescriptor_t>(q));
  }));
  CK(cudnnSetConvolution2dDescriptor(conv, ph, pw, sh, sw, dh, dw, CUDNN_CROSS_CORRELATION,
                                     CUDNN_DATA_FLOAT));
  CK(cudnnSetConvolutionGroupCount(conv, g));
  CK(cudnnSetConvolutionMathType(conv, CudnnMath(s_.dtype)));
  cudnnFilterDescriptor_t wd;
  CK(cudnnCreateFilterDescriptor(&wd));
  out_.keep.push_back(std::shared_ptr<void>(
      wd, [](void* q) { cudnnDestroyFilterDescriptor(static_cast<cudnnFilterDescriptor_t>(q)); }));
  CK(cudnnSetFilter4dDescriptor(
      wd, CudnnType(s_.dtype), Nhwc() ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, oc, ic / g, kh, kw));
  cudnnTensorDescriptor_t xd = Map(mb, ic, ih, iw);
  // The output size cuDNN derives from the symmetric padding (within a row of the signature's
  // when the model pads asymmetrically, as Keras "same" with an even kernel does).
  int n, c, oh, ow;
  CK(cudnnGetConvolution2dForwardOutputDim(conv, xd, wd, &n, &c, &oh, &ow));
  cudnnTensorDescriptor_t yd = Map(mb, oc, oh, ow);
  void* x = Elements(int64_t{mb} * ic * ih * iw);
  void* w = Elements(int64_t{oc} * (ic / g) * kh * kw);
  void* y = Elements(int64_t{mb} * oc * oh * ow);
  size_t free_bytes = 0, total = 0;
  CK(cudaMemGetInfo(&free_bytes, &total));
  const size_t limit = std::min(kConvWorkspaceLimit, free_bytes / 2);
  void* ws = Bytes(limit, false);
  cudnnHandle_t h = h_.dnn;
  // The graph API first, as PyTorch; the legacy cudnnFind* API where it offers nothing.
  const int ph2 = (oh - 1) * sh + (kh - 1) * dh + 1 - ih - ph,
            pw2 = (ow - 1) * sw + (kw - 1) * dw + 1 - iw - pw;
  const ConvGeometry geometry{.x = {mb, ic, ih, iw},
                              .w = {oc, ic / g, kh, kw},
                              .y = {mb, oc, oh, ow},
                              .pre = {ph, pw},
                              .post = {std::max(ph2, 0), std::max(pw2, 0)},
                              .stride = {sh, sw},
                              .dilation = {dh, dw},
                              .nhwc = Nhwc()};
  try {
    if (GraphConv(s_, geometry, h, h_.stream, x, w, y, ws, limit, &out_)) return std::move(out_);
  } catch (const GpuError&) {
    cudaGetLastError();
  }
  int returned = 0;
  auto pick = [&](const auto* perf, int count, const char* what) {
    for (int i = 0; i < count; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= limit) {
        CK(cudnnSetConvolutionMathType(conv, perf[i].mathType));
        out_.note = std::string(what) + " algo " + std::to_string(static_cast<int>(perf[i].algo)) +
                    ", workspace " + std::to_string(perf[i].memory >> 20) + " MiB";
        return perf[i];
      }
    throw GpuError(std::string("cuDNN has no ") + what + " algorithm for it", true);
  };
  const float one = 1.f, zero = 0.f;
  if (s_.kind == OpKind::kConvFwd) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CK(cudnnFindConvolutionForwardAlgorithmEx(h, xd, x, wd, w, conv, yd, y,
                                              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, ws,
                                              limit));
    const auto algo = pick(perf, returned, "forward").algo;
    out_.run = [=] {
      CK(cudnnConvolutionForward(h, &one, xd, x, wd, w, conv, algo, ws, limit, &zero, yd, y));
    };
  } else if (s_.kind == OpKind::kConvBwdData) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CK(cudnnFindConvolutionBackwardDataAlgorithmEx(h, wd, w, yd, y, conv, xd, x,
                                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned,
                                                   perf, ws, limit));
    const auto algo = pick(perf, returned, "backward-data").algo;
    out_.run = [=] {
      CK(cudnnConvolutionBackwardData(h, &one, wd, w, yd, y, conv, algo, ws, limit, &zero, xd, x));
    };
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, xd, x, yd, y, conv, wd, w,
                                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                     &returned, perf, ws, limit));
    const auto algo = pick(perf, returned, "backward-filter").algo;
    out_.run = [=] {
      CK(cudnnConvolutionBackwardFilter(h, &one, xd, x, yd, y, conv, algo, ws, limit, &zero, wd,
                                        w));
    };
  }
  return std::move(out_);
}

// Dense layers and matrix products as PyTorch calls cuBLAS for row-major tensors (column-major
// views): forward y = x W^T (+ bias, as beta = 1 over a bias-filled output), backward data
// dx = dy W, backward weights dW = dy^T x and the bias gradient (a column sum of dy).
Prepared Builder::Gemm() {
  const cudaDataType_t type = CudaType(s_.dtype);
  const cublasComputeType_t compute = BlasCompute(s_.dtype);
  cublasHandle_t h = h_.blas;
  static const float one = 1.f, zero = 0.f;
  if (s_.kind == OpKind::kMatMul) {
    const int b = I("b", 1), m = I("m"), k = I("k"), n = I("n");
    void* a = Elements(int64_t{b} * m * k);
    void* bm = Elements(int64_t{b} * k * n);
    void* c = Elements(int64_t{b} * m * n);
    out_.run = [=] {
      CK(Blas().cublasGemmStridedBatchedEx(
          h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, bm, type, n, int64_t{k} * n, a, type, k,
          int64_t{m} * k, &zero, c, type, n, int64_t{m} * n, b, compute, CUBLAS_GEMM_DEFAULT));
    };
    return std::move(out_);
  }
  const int mb = I("mb"), ic = I("ic"), oc = I("oc");
  const bool bias = D("bias") != 0;
  void* x = Elements(int64_t{mb} * ic);
  void* w = Elements(int64_t{oc} * ic);
  void* y = Elements(int64_t{mb} * oc);
  if (s_.kind == OpKind::kInnerProductFwd) {
    const float* beta = bias ? &one : &zero;
    out_.run = [=] {
      CK(Blas().cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, oc, mb, ic, &one, w, type, ic, x, type,
                             ic, beta, y, type, oc, compute, CUBLAS_GEMM_DEFAULT));
    };
  } else if (s_.kind == OpKind::kInnerProductBwdData) {
    out_.run = [=] {
      CK(Blas().cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ic, mb, oc, &one, w, type, ic, y, type,
                             oc, &zero, x, type, ic, compute, CUBLAS_GEMM_DEFAULT));
    };
  } else {
    float* db = bias ? Floats(oc) : nullptr;
    const Elem t = t_;
    cudaStream_t stream = h_.stream;
    out_.run = [=] {
      CK(Blas().cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, ic, oc, mb, &one, x, type, ic, y, type,
                             oc, &zero, w, type, ic, compute, CUBLAS_GEMM_DEFAULT));
      if (db) CK(gpu::ColumnSum(y, db, mb, oc, t, stream));
    };
  }
  return std::move(out_);
}

Prepared Builder::Pool() {
  const int mb = I("mb"), c = I("c"), ih = I("ih"), iw = I("iw");
  cudnnPoolingDescriptor_t pd;
  CK(cudnnCreatePoolingDescriptor(&pd));
  out_.keep.push_back(std::shared_ptr<void>(pd, [](void* q) {
    cudnnDestroyPoolingDescriptor(static_cast<cudnnPoolingDescriptor_t>(q));
  }));
  const cudnnPoolingMode_t mode =
      s_.alg == "max" ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  CK(cudnnSetPooling2dDescriptor(pd, mode, CUDNN_NOT_PROPAGATE_NAN, I("kh"), I("kw"), I("ph"),
                                 I("pw"), I("sh", 1), I("sw", 1)));
  cudnnTensorDescriptor_t xd = Map(mb, c, ih, iw);
  int n, cc, oh, ow;
  CK(cudnnGetPooling2dForwardOutputDim(pd, xd, &n, &cc, &oh, &ow));
  cudnnTensorDescriptor_t yd = Map(mb, c, oh, ow);
  void* x = Elements(int64_t{mb} * c * ih * iw);
  void* y = Elements(int64_t{mb} * c * oh * ow);
  void* dx = Elements(int64_t{mb} * c * ih * iw);
  void* dy = Elements(int64_t{mb} * c * oh * ow);
  cudnnHandle_t h = h_.dnn;
  static const float one = 1.f, zero = 0.f;
  CK(cudnnPoolingForward(h, pd, &one, xd, x, &zero, yd, y));
  if (s_.kind == OpKind::kPoolFwd)
    out_.run = [=] { CK(cudnnPoolingForward(h, pd, &one, xd, x, &zero, yd, y)); };
  else
    out_.run = [=] { CK(cudnnPoolingBackward(h, pd, &one, yd, y, yd, dy, xd, x, &zero, xd, dx)); };
  return std::move(out_);
}

// cuDNN spatial batch norm over (mb, c, sp), training mode (batch statistics), as PyTorch's
// cudnn_batch_norm; with aten=1, PyTorch's own kernels (AtenBatchNorm). Over a channels-last
// map (nhwc=1) PyTorch calls the Ex API in CUDNN_BATCHNORM_SPATIAL_PERSISTENT mode with NHWC
// descriptors, a workspace and a reserve space.
Prepared Builder::BatchNorm() {
  if (D("aten") != 0) return AtenBatchNorm();
  const int mb = I("mb"), c = I("c"), sp = I("sp", 1);
  cudnnTensorDescriptor_t xd = Map(mb, c, sp, 1);
  cudnnTensorDescriptor_t pd = Tensor({1, c, 1, 1}, CUDNN_DATA_FLOAT);
  const int64_t n = int64_t{mb} * c * sp;
  void* x = Elements(n);
  void* y = Elements(n);
  void* dy = Elements(n);
  float* scale = Floats(c);
  float* bias = Floats(c);
  float* run_mean = Floats(c);
  float* run_var = Floats(c);
  float* save_mean = Floats(c);
  float* save_inv = Floats(c);
  float* dscale = Floats(c);
  float* dbias = Floats(c);
  CK(gpu::Fill(scale, c, Elem::kF32, 7, 1.f, h_.stream));
  cudnnHandle_t h = h_.dnn;
  static const float one = 1.f, zero = 0.f;
  const double eps = 1e-5;
  std::function<void()> forward, backward;
  if (!Nhwc()) {
    const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    forward = [=] {
      CK(cudnnBatchNormalizationForwardTraining(h, mode, &one, &zero, xd, x, xd, y, pd, scale, bias,
                                                0.1, run_mean, run_var, eps, save_mean, save_inv));
    };
    backward = [=] {
      CK(cudnnBatchNormalizationBackward(h, mode, &one, &zero, &one, &zero, xd, x, xd, dy, xd, y,
                                         pd, scale, dscale, dbias, eps, save_mean, save_inv));
    };
  } else {
    const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN;
    void* dx = Elements(n);
    size_t fwd_ws = 0, bwd_ws = 0, reserve_bytes = 0;
    CK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, mode, ops, xd, nullptr, xd, pd,
                                                                nullptr, &fwd_ws));
    CK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, mode, ops, xd, xd, xd, nullptr, xd, pd,
                                                         nullptr, &bwd_ws));
    CK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, ops, nullptr, xd,
                                                            &reserve_bytes));
    const size_t ws_bytes = std::max(fwd_ws, bwd_ws);
    void* ws = Bytes(ws_bytes, false);
    void* reserve = Bytes(reserve_bytes, false);
    forward = [=] {
      CK(cudnnBatchNormalizationForwardTrainingEx(
          h, mode, ops, &one, &zero, xd, x, nullptr, nullptr, xd, y, pd, scale, bias, 0.1, run_mean,
          run_var, eps, save_mean, save_inv, nullptr, ws, ws_bytes, reserve, reserve_bytes));
    };
    backward = [=] {
      CK(cudnnBatchNormalizationBackwardEx(h, mode, ops, &one, &zero, &one, &zero, xd, x, xd, y, xd,
                                           dy, nullptr, nullptr, xd, dx, pd, scale, bias, dscale,
                                           dbias, eps, save_mean, save_inv, nullptr, ws, ws_bytes,
                                           reserve, reserve_bytes));
    };
  }
  forward();
  out_.run = s_.kind == OpKind::kBatchNormFwd ? forward : backward;
  return std::move(out_);
}

// PyTorch's native_batch_norm and its backward (ATen's NCHW kernels, gpu::AtenBatchNormFwd):
// what it runs when the weights are 16-bit, since cudnn_batch_norm takes 16-bit input only with
// float weights. Seen in torch.profiler on an H100 (PyTorch 2.11, ResNet50 v1.5 in bf16, batch
// 256): batch_norm_collect_statistics_kernel, batch_norm_transform_input_kernel and
// batch_norm_backward_kernel took 53% of the step's GPU time.
Prepared Builder::AtenBatchNorm() {
  const int64_t mb = D("mb"), c = D("c"), sp = D("sp", 1);
  const int64_t n = mb * c * sp;
  void* x = Elements(n);
  void* y = Elements(n);
  void* dy = Elements(n);
  void* gamma = Elements(c);
  void* beta = Elements(c);
  void* run_mean = Elements(c);
  void* run_var = Elements(c);
  void* dgamma = Elements(c, false);
  void* dbeta = Elements(c, false);
  float* mean = Floats(c);
  float* invstd = Floats(c);
  cudaStream_t stream = h_.stream;
  const Elem t = t_;
  auto forward = [=] {
    CK(gpu::AtenBatchNormFwd(x, gamma, beta, y, mean, invstd, run_mean, run_var, mb, c, sp, t,
                             stream));
  };
  forward();
  if (s_.kind == OpKind::kBatchNormFwd)
    out_.run = forward;
  else
    out_.run = [=] {
      CK(gpu::AtenBatchNormBwd(x, dy, gamma, mean, invstd, y, dgamma, dbeta, mb, c, sp, t, stream));
    };
  return std::move(out_);
}

// PyTorch runs softmax and dropout with its own kernels, not cuDNN's (whose legacy softmax is
// also far slower for long rows: 113 ms for 98304 rows of 1024 on an H100, where one pass over
// the data takes 0.3 ms); so does this backend.
Prepared Builder::Softmax() {
  const int64_t rows = D("rows"), c = D("c");
  void* x = Elements(rows * c);
  void* y = Elements(rows * c);
  void* dy = Elements(rows * c);
  const Elem t = t_;
  cudaStream_t stream = h_.stream;
  CK(gpu::SoftmaxFwd(x, y, rows, c, t, stream));
  if (s_.kind == OpKind::kSoftmaxFwd)
    out_.run = [=] { CK(gpu::SoftmaxFwd(x, y, rows, c, t, stream)); };
  else
    out_.run = [=] { CK(gpu::SoftmaxBwd(y, dy, x, rows, c, t, stream)); };
  return std::move(out_);
}

Prepared Builder::Dropout() {
  const int64_t n = D("n");
  void* x = Elements(n);
  void* y = Elements(n);
  auto* mask = static_cast<uint8_t*>(Bytes(n, false));
  const Elem t = t_;
  cudaStream_t stream = h_.stream;
  CK(gpu::Dropout(false, x, y, mask, n, t, stream));
  const bool backward = s_.kind == OpKind::kDropoutBwd;
  out_.run = [=] {
    CK(gpu::Dropout(backward, backward ? y : x, backward ? x : y, mask, n, t, stream));
  };
  return std::move(out_);
}

// A whole recurrent layer through cuDNN's RNN API (cudnnRNNForward, cudnnRNNBackwardData_v8 and
// cudnnRNNBackwardWeights_v8), as PyTorch's nn.LSTM and nn.GRU train on a GPU: with the algorithm
// PyTorch picks for each pass (rnn_algo.h), falling back to the standard one where cuDNN declines.
Prepared Builder::Rnn() {
  const int t = I("t"), mb = I("mb"), ic = I("ic"), hc = I("hc"), dirs = I("dirs", 1);
  const bool lstm = s_.alg != "gru";
  const cudnnDataType_t type = CudnnType(s_.dtype);
  cudnnHandle_t h = h_.dnn;
  cudnnDropoutDescriptor_t dd;
  CK(cudnnCreateDropoutDescriptor(&dd));
  out_.keep.push_back(std::shared_ptr<void>(dd, [](void* q) {
    cudnnDestroyDropoutDescriptor(static_cast<cudnnDropoutDescriptor_t>(q));
  }));
  CK(cudnnSetDropoutDescriptor(dd, h, 0.f, nullptr, 0, 0));
  auto data = [&](int vector) {
    cudnnRNNDataDescriptor_t d;
    CK(cudnnCreateRNNDataDescriptor(&d));
    out_.keep.push_back(std::shared_ptr<void>(d, [](void* q) {
      cudnnDestroyRNNDataDescriptor(static_cast<cudnnRNNDataDescriptor_t>(q));
    }));
    std::vector<int> lengths(mb, t);
    CK(cudnnSetRNNDataDescriptor(d, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, t, mb, vector,
                                 lengths.data(), nullptr));
    return d;
  };
  cudnnRNNDataDescriptor_t xd = data(ic), yd = data(hc * dirs);
  // The layer with `algo`, and the sizes of its workspace and reserve; nullptr where cuDNN does
  // not run that algorithm for it.
  size_t work_bytes = 0, reserve_bytes = 0;
  auto layer = [&](RnnAlgo algo) -> cudnnRNNDescriptor_t {
    cudnnRNNDescriptor_t rnn;
    CK(cudnnCreateRNNDescriptor(&rnn));
    out_.keep.push_back(std::shared_ptr<void>(
        rnn, [](void* q) { cudnnDestroyRNNDescriptor(static_cast<cudnnRNNDescriptor_t>(q)); }));
    size_t work = 0, reserve = 0;
    if (cudnnSetRNNDescriptor_v8(
            rnn, static_cast<cudnnRNNAlgo_t>(algo), lstm ? CUDNN_LSTM : CUDNN_GRU,
            CUDNN_RNN_DOUBLE_BIAS, dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
            CUDNN_LINEAR_INPUT, type, type == CUDNN_DATA_HALF ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT,
            CudnnMath(s_.dtype), ic, hc, hc, 1, dd,
            CUDNN_RNN_PADDED_IO_DISABLED) != CUDNN_STATUS_SUCCESS ||
        cudnnGetRNNTempSpaceSizes(h, rnn, CUDNN_FWD_MODE_TRAINING, xd, &work, &reserve) !=
            CUDNN_STATUS_SUCCESS)
      return nullptr;
    work_bytes = std::max(work_bytes, work);
    reserve_bytes = std::max(reserve_bytes, reserve);
    return rnn;
  };
  GpuArch arch;
  int device = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&arch.major, cudaDevAttrComputeCapabilityMajor, device));
  CK(cudaDeviceGetAttribute(&arch.minor, cudaDevAttrComputeCapabilityMinor, device));
  CK(cudaDeviceGetAttribute(&arch.sms, cudaDevAttrMultiProcessorCount, device));
  const RnnLayer shape{.gru = !lstm,
                       .hidden = hc,
                       .input = ic,
                       .directions = dirs,
                       .batch = mb,
                       .steps = t,
                       .fp16 = type == CUDNN_DATA_HALF};
  auto pick = [&](bool forward) {
    cudnnRNNDescriptor_t d = layer(PyTorchRnnAlgo(shape, arch, forward));
    if (d == nullptr) d = layer(RnnAlgo::kStandard);
    if (d == nullptr) throw GpuError("cuDNN runs no RNN algorithm for " + s_.ToString(), true);
    return d;
  };
  cudnnRNNDescriptor_t fwd = pick(true), bwd = pick(false);
  cudnnTensorDescriptor_t hd;
  CK(cudnnCreateTensorDescriptor(&hd));
  out_.keep.push_back(std::shared_ptr<void>(
      hd, [](void* q) { cudnnDestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(q)); }));
  const int hdims[3] = {dirs, mb, hc}, hstrides[3] = {mb * hc, hc, 1};
  CK(cudnnSetTensorNdDescriptor(hd, type, 3, hdims, hstrides));
  size_t weight_bytes = 0;
  CK(cudnnGetRNNWeightSpaceSize(h, fwd, &weight_bytes));
  std::vector<int32_t> lengths(mb, t);
  auto* seq = static_cast<int32_t*>(Bytes(sizeof(int32_t) * mb, false));
  CK(cudaMemcpy(seq, lengths.data(), sizeof(int32_t) * mb, cudaMemcpyHostToDevice));
  void* weights = Elements(static_cast<int64_t>(weight_bytes / gpu::ElemSize(t_)));
  void* dweights = Bytes(weight_bytes, false);
  void* work = Bytes(work_bytes, false);
  void* reserve = Bytes(reserve_bytes, false);
  const int64_t state = int64_t{dirs} * mb * hc;
  void* x = Elements(int64_t{t} * mb * ic);
  void* y = Elements(int64_t{t} * mb * hc * dirs);
  void* dx = Elements(int64_t{t} * mb * ic);
  void* dy = Elements(int64_t{t} * mb * hc * dirs);
  void* hx = Elements(state);
  void* cx = lstm ? Elements(state) : nullptr;
  void* hy = Elements(state);
  void* cy = lstm ? Elements(state) : nullptr;
  void* dhx = Elements(state);
  void* dcx = lstm ? Elements(state) : nullptr;
  cudnnTensorDescriptor_t cd = lstm ? hd : nullptr;
  auto forward = [=] {
    CK(cudnnRNNForward(h, fwd, CUDNN_FWD_MODE_TRAINING, seq, xd, x, yd, y, hd, hx, hy, cd, cx, cy,
                       weight_bytes, weights, work_bytes, work, reserve_bytes, reserve));
  };
  forward();
  if (s_.kind == OpKind::kRnnFwd)
    out_.run = forward;
  else
    out_.run = [=] {
      CK(cudnnRNNBackwardData_v8(h, bwd, seq, yd, y, dy, xd, dx, hd, hx, nullptr, dhx, cd, cx,
                                 nullptr, dcx, weight_bytes, weights, work_bytes, work,
                                 reserve_bytes, reserve));
      CK(cudnnRNNBackwardWeights_v8(h, bwd, CUDNN_WGRAD_MODE_ADD, seq, xd, x, hd, hx, yd, y,
                                    weight_bytes, dweights, work_bytes, work, reserve_bytes,
                                    reserve));
    };
  return std::move(out_);
}

template <typename E>
E Lookup(const std::map<std::string, E>& table, const std::string& alg, const OpSignature& s) {
  auto it = table.find(alg);
  if (it == table.end())
    throw GpuError("no GPU kernel for alg=" + alg + " of " + s.ToString(), true);
  return it->second;
}

// What frameworks run as their own kernels: ours (kernels.cu), and device copies.
Prepared Builder::Own() {
  const Elem t = t_;
  cudaStream_t stream = h_.stream;
  switch (s_.kind) {
    case OpKind::kEltwiseFwd:
    case OpKind::kEltwiseBwd: {
      static const std::map<std::string, gpu::Act> kActs = {
          {"linear", gpu::Act::kLinear},   {"relu", gpu::Act::kRelu},
          {"relu6", gpu::Act::kRelu6},     {"tanh", gpu::Act::kTanh},
          {"sigmoid", gpu::Act::kSigmoid}, {"gelu", gpu::Act::kGelu},
          {"swish", gpu::Act::kSwish},     {"hard_sigmoid", gpu::Act::kHardSigmoid},
          {"Sqrt", gpu::Act::kSqrt},       {"Exp", gpu::Act::kExp},
          {"Log", gpu::Act::kLog},         {"Erf", gpu::Act::kGelu}};
      // Other element-wise ops (a scale, a mask, ONNX's Cast, ...) cost a linear pass, as on
      // the CPU.
      const auto it = kActs.find(s_.alg);
      const gpu::Act act = it == kActs.end() ? gpu::Act::kLinear : it->second;
      const int64_t n = D("n");
      const bool backward = s_.kind == OpKind::kEltwiseBwd;
      void* x = Elements(n);
      void* dy = Elements(n);
      void* y = Elements(n);
      out_.run = [=] { CK(gpu::Eltwise(act, backward, x, dy, y, n, t, stream)); };
      break;
    }
    case OpKind::kBinary: {
      static const std::map<std::string, gpu::BinaryOp> kOps = {{"add", gpu::BinaryOp::kAdd},
                                                                {"sub", gpu::BinaryOp::kSub},
                                                                {"mul", gpu::BinaryOp::kMul},
                                                                {"div", gpu::BinaryOp::kDiv}};
      const gpu::BinaryOp op = Lookup(kOps, s_.alg, s_);
      const int64_t n = D("n");
      void* a = Elements(n);
      void* b = Elements(n);
      void* c = Elements(n);
      out_.run = [=] { CK(gpu::Binary(op, a, b, c, n, t, stream)); };
      break;
    }
    case OpKind::kConcat:
    case OpKind::kReorder: {
      const int64_t n = s_.dims.contains("n") ? D("n") : D("mb") * D("c") * D("h", 1) * D("w", 1);
      void* b = Elements(n);
      if (s_.alg.starts_with("from_")) {  // a cast (autocast's): PyTorch's copy kernel
        Result<DType> source = ParseDType(std::string_view(s_.alg).substr(5));
        if (!source.ok()) throw GpuError("unknown cast source in " + s_.ToString(), true);
        const Elem from = ElemOf(*source);
        void* a = Bytes(n * gpu::ElemSize(from), false);
        CK(gpu::Fill(a, n, from, 7, 1.f, stream));
        out_.run = [=] { CK(gpu::Convert(a, from, b, t, n, stream)); };
        break;
      }
      const size_t bytes = n * gpu::ElemSize(t);
      void* a = Elements(n);
      out_.run = [=] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream)); };
      break;
    }
    case OpKind::kReduce: {
      const int64_t n = D("n"), o = std::max<int64_t>(D("out", 1), 1);
      const bool mean = s_.alg != "sum";
      void* x = Elements(n);
      float* y = Floats(o);
      out_.run = [=] { CK(gpu::Reduce(mean, x, y, n, o, t, stream)); };
      break;
    }
    case OpKind::kLayerNormFwd:
    case OpKind::kLayerNormBwd: {
      const int64_t rows = D("rows"), c = D("c");
      void* x = Elements(rows * c);
      void* y = Elements(rows * c);
      void* dy = Elements(rows * c);
      void* gamma = Elements(c);
      void* beta = Elements(c);
      float* mean = Floats(rows);
      float* rstd = Floats(rows);
      float* dgamma = Floats(c);
      float* dbeta = Floats(c);
      CK(gpu::LayerNormFwd(x, gamma, beta, y, mean, rstd, rows, c, t, stream));
      if (s_.kind == OpKind::kLayerNormFwd)
        out_.run = [=] {
          CK(gpu::LayerNormFwd(x, gamma, beta, y, mean, rstd, rows, c, t, stream));
        };
      else
        out_.run = [=] {
          CK(gpu::LayerNormBwd(x, dy, gamma, mean, rstd, y, dgamma, dbeta, rows, c, t, stream));
        };
      break;
    }
    case OpKind::kEmbeddingFwd:
    case OpKind::kEmbeddingBwd: {
      const int64_t rows = D("rows"), dim = D("dim"), vocab = std::max<int64_t>(D("vocab"), 1);
      auto* ids = static_cast<int32_t*>(Bytes(sizeof(int32_t) * rows, false));
      CK(gpu::FillIndices(ids, rows, static_cast<int32_t>(vocab), 99, stream));
      void* rows_buf = Elements(rows * dim);
      if (s_.kind == OpKind::kEmbeddingFwd) {
        void* table = Elements(vocab * dim);
        out_.run = [=] { CK(gpu::EmbeddingFwd(ids, table, rows_buf, rows, dim, t, stream)); };
      } else {
        float* dtable = Floats(vocab * dim);
        out_.run = [=] {
          CK(gpu::EmbeddingBwd(ids, rows_buf, dtable, rows, dim, vocab, t, stream));
        };
      }
      break;
    }
    case OpKind::kLoss: {
      static const std::map<std::string, gpu::LossKind> kLosses = {
          {"softmax_cross_entropy", gpu::LossKind::kSoftmaxCrossEntropy},
          {"sparse_softmax_cross_entropy", gpu::LossKind::kSoftmaxCrossEntropy},
          {"categorical_crossentropy", gpu::LossKind::kSoftmaxCrossEntropy},
          {"binary_crossentropy", gpu::LossKind::kBinaryCrossEntropy},
          {"mse", gpu::LossKind::kMeanSquaredError}};
      const gpu::LossKind kind = Lookup(kLosses, s_.alg, s_);
      const int64_t rows = D("rows"), c = std::max<int64_t>(D("c"), 1);
      auto* labels = static_cast<int32_t*>(Bytes(sizeof(int32_t) * rows, false));
      CK(gpu::FillIndices(labels, rows, static_cast<int32_t>(c), 5, stream));
      void* x = Elements(rows * c);
      void* target = Elements(rows * c);
      void* grad = Elements(rows * c);
      float* loss = Floats(rows);
      out_.run = [=] { CK(gpu::Loss(kind, x, labels, target, grad, loss, rows, c, t, stream)); };
      break;
    }
    case OpKind::kOptimizer: {
      static const std::map<std::string, gpu::OptimizerKind> kOptimizers = {
          {"sgd", gpu::OptimizerKind::kSgd},
          {"momentum", gpu::OptimizerKind::kMomentum},
          {"rmsprop", gpu::OptimizerKind::kRmsprop},
          {"adam", gpu::OptimizerKind::kAdam},
          {"adamw", gpu::OptimizerKind::kAdamw},
          {"adadelta", gpu::OptimizerKind::kAdadelta}};
      const gpu::OptimizerKind kind = Lookup(kOptimizers, s_.alg, s_);
      const int64_t n = D("n");
      void* w = Elements(n);
      void* g = Elements(n);
      void* s1 = Elements(n);
      void* s2 = Elements(n);
      CK(gpu::Fill(s2, n, t, 3, 0.5f, stream));  // second moments stay positive: |x| below
      out_.run = [=] { CK(gpu::OptimizerStep(kind, w, g, s1, s2, n, t, stream)); };
      break;
    }
    default:
      throw GpuError("the GPU backend has no kernel for " + s_.ToString(), true);
  }
  return std::move(out_);
}

class GpuBackend : public Backend {
 public:
  explicit GpuBackend(Handles h) : h_(h) {}
  ~GpuBackend() override {
    Blas().cublasDestroy(h_.blas);
    cudnnDestroy(h_.dnn);
    cudaStreamDestroy(h_.stream);
  }
  std::string kind() const override { return "gpu"; }

  Result<Measurement> Measure(const OpSignature& sig, const MeasureOptions& options) override {
    const bool batch_norm = sig.kind == OpKind::kBatchNormFwd || sig.kind == OpKind::kBatchNormBwd;
    if (sig.dim("aten") != 0 && !batch_norm)
      return Status::Unsupported(sig.ToString() +
                                 ": aten=1 stands for PyTorch's CPU kernels (on a GPU, only batch "
                                 "norm has one)");
    try {
      Prepared p = Builder(sig, h_).Build();
      CK(cudaStreamSynchronize(h_.stream));
      Measurement m = TimeOnDevice(p.run, options, h_.stream);
      m.note = p.note;
      return m;
    } catch (const GpuError& e) {
      cudaGetLastError();  // a failed launch's error must not leak into the next signature
      if (e.unsupported) return Status::Unsupported(sig.ToString() + ": " + e.what());
      return Status::Internal(sig.ToString() + ": " + e.what());
    } catch (const std::exception& e) {
      return Status::Internal(sig.ToString() + ": " + e.what());
    }
  }

 private:
  Handles h_;
};

}  // namespace

bool GpuBackendBuilt() { return true; }

Result<std::unique_ptr<Backend>> MakeGpuBackend() {
  EPOCHCOST_RETURN_IF_ERROR(NoDevice());
  if (Result<const CublasApi*> blas = LoadCublas(); !blas.ok())
    return Status::Unsupported("cannot start the GPU backend: " + blas.status().message());
  Handles h;
  try {
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking));
    CK(cudnnCreate(&h.dnn));
    CK(cudnnSetStream(h.dnn, h.stream));
    CK(Blas().cublasCreate(&h.blas));
    CK(Blas().cublasSetStream(h.blas, h.stream));
  } catch (const GpuError& e) {
    return Status::Unsupported(std::string("cannot start the GPU backend: ") + e.what());
  }
  return std::unique_ptr<Backend>(new GpuBackend(h));
}

}  // namespace epochcost::profiler
