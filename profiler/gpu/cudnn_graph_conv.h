// The convolution through cuDNN's graph API (the backend API PyTorch calls), in benchmark mode.
#ifndef EPOCHCOST_PROFILER_GPU_CUDNN_GRAPH_CONV_H_
#define EPOCHCOST_PROFILER_GPU_CUDNN_GRAPH_CONV_H_

#include "engine/op_signature.h"
#include "profiler/gpu/cuda_common.h"

namespace epochcost::profiler::cuda {

// A convolution's operands for the graph API: NCHW dimensions of x, w and y, and per spatial
// axis the padding before and after, stride and dilation.
struct ConvGeometry {
  int64_t x[4], w[4], y[4];
  int64_t pre[2], post[2], stride[2], dilation[2];
  bool nhwc = false;  // x, w and y laid out channels-last (the dimensions stay NCHW)
};

// The convolution through cuDNN's graph API, as PyTorch has called it since 1.12 (its "v8 API"),
// in benchmark mode: every engine configuration that cuDNN's heuristics (mode A) and fallback
// list offer is built and timed, and the fastest within the workspace limit is kept. As PyTorch
// does, fp32 leaves out engines that use tensor cores (TF32), and every precision leaves out
// those that down-convert their inputs. Returns false when no configuration runs (the caller
// then uses the legacy API).
bool GraphConv(const OpSignature& s, const ConvGeometry& c, cudnnHandle_t h, cudaStream_t stream,
               void* x, void* w, void* y, void* ws, size_t limit, Prepared* out);

}  // namespace epochcost::profiler::cuda

#endif  // EPOCHCOST_PROFILER_GPU_CUDNN_GRAPH_CONV_H_
