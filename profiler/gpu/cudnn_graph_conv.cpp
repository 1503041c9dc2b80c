#include "profiler/gpu/cudnn_graph_conv.h"

namespace epochcost::profiler::cuda {
namespace {

// A cuDNN graph-API descriptor, destroyed with the last copy of its handle.
using GraphDesc = std::shared_ptr<void>;
GraphDesc NewDesc(cudnnBackendDescriptorType_t type) {
  cudnnBackendDescriptor_t d = nullptr;
  CK(cudnnBackendCreateDescriptor(type, &d));
  return GraphDesc(
      d, [](void* q) { cudnnBackendDestroyDescriptor(static_cast<cudnnBackendDescriptor_t>(q)); });
}
cudnnBackendDescriptor_t Raw(const GraphDesc& d) {
  return static_cast<cudnnBackendDescriptor_t>(d.get());
}
void Set(const GraphDesc& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
         int64_t count, const void* values) {
  CK(cudnnBackendSetAttribute(Raw(d), name, type, count, values));
}

}  // namespace

bool GraphConv(const OpSignature& s, const ConvGeometry& c, cudnnHandle_t h, cudaStream_t stream,
               void* x, void* w, void* y, void* ws, size_t limit, Prepared* out) {
  const cudnnDataType_t type = CudnnType(s.dtype);
  auto tensor = [&](const int64_t dims[4], int64_t id) {
    GraphDesc d = NewDesc(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const int64_t chw = dims[1] * dims[2] * dims[3];
    const int64_t nchw[4] = {chw, dims[2] * dims[3], dims[3], 1};
    const int64_t nhwc[4] = {chw, 1, dims[3] * dims[1], dims[1]};
    const int64_t* strides = c.nhwc ? nhwc : nchw;
    const int64_t alignment = 16;
    Set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    Set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    Set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    Set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
    Set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    CK(cudnnBackendFinalize(Raw(d)));
    return d;
  };
  const GraphDesc xd = tensor(c.x, 'x'), wd = tensor(c.w, 'w'), yd = tensor(c.y, 'y');
  const GraphDesc conv = NewDesc(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const int64_t spatial = 2;
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  Set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  Set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  Set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  Set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, c.pre);
  Set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, c.post);
  Set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, c.dilation);
  Set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, c.stride);
  CK(cudnnBackendFinalize(Raw(conv)));

  const float alpha = 1.f, beta = 0.f;
  cudnnBackendDescriptor_t convs[1] = {Raw(conv)};
  cudnnBackendDescriptor_t xs[1] = {Raw(xd)}, wsd[1] = {Raw(wd)}, ys[1] = {Raw(yd)};
  GraphDesc op;
  if (s.kind == OpKind::kConvFwd) {
    op = NewDesc(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, xs);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, wsd);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, ys);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        convs);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  } else if (s.kind == OpKind::kConvBwdData) {
    op = NewDesc(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, xs);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, wsd);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, ys);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        convs);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  } else {
    op = NewDesc(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, xs);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, wsd);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, ys);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        convs);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  }
  CK(cudnnBackendFinalize(Raw(op)));
  const GraphDesc graph = NewDesc(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnBackendDescriptor_t ops[1] = {Raw(op)};
  Set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, ops);
  Set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  CK(cudnnBackendFinalize(Raw(graph)));

  // The candidate configurations, heuristics first.
  std::vector<GraphDesc> configs;
  cudnnBackendDescriptor_t graphs[1] = {Raw(graph)};
  for (cudnnBackendHeurMode_t heur_mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    const GraphDesc heur = NewDesc(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    Set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, graphs);
    Set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode);
    if (cudnnBackendFinalize(Raw(heur)) != CUDNN_STATUS_SUCCESS) continue;
    int64_t count = 0;
    if (cudnnBackendGetAttribute(Raw(heur), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                 nullptr) != CUDNN_STATUS_SUCCESS)
      continue;
    count = std::min<int64_t>(count, 32);
    std::vector<GraphDesc> found;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
      found.push_back(NewDesc(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
      raw.push_back(Raw(found.back()));
    }
    int64_t got = 0;
    if (cudnnBackendGetAttribute(Raw(heur), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                 raw.data()) != CUDNN_STATUS_SUCCESS)
      continue;
    for (int64_t i = 0; i < got && i < count; ++i) configs.push_back(found[i]);
  }

  EventTimer timer(stream);
  // Each plan's three runs queue behind a hold of the stream, so that they are timed on the GPU,
  // not at the rate the host issues them (TimeOnDevice).
  constexpr double kPlanHold = 1e-3;
  double best = 1e30;
  GraphDesc best_plan, best_pack;
  int64_t best_ws = 0;
  int tried = 0;
  for (const GraphDesc& cfg : configs) {
    // The engine's numerical notes decide whether PyTorch would consider it.
    GraphDesc engine = NewDesc(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t engines[1] = {Raw(engine)};
    int64_t n = 0;
    if (cudnnBackendGetAttribute(Raw(cfg), CUDNN_ATTR_ENGINECFG_ENGINE,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                 engines) != CUDNN_STATUS_SUCCESS)
      continue;
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t note_count = 0;
    cudnnBackendGetAttribute(Raw(engine), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                             CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT,
                             &note_count, notes);
    bool skip = false;
    for (int64_t i = 0; i < note_count; ++i)
      skip = skip || notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
             (s.dtype == DType::kFloat32 && notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
    if (skip) continue;
    GraphDesc plan = NewDesc(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    cudnnBackendDescriptor_t cfgs[1] = {Raw(cfg)};
    Set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, cfgs);
    Set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    if (cudnnBackendFinalize(Raw(plan)) != CUDNN_STATUS_SUCCESS) continue;
    int64_t ws_bytes = 0;
    if (cudnnBackendGetAttribute(Raw(plan), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                 CUDNN_TYPE_INT64, 1, &n, &ws_bytes) != CUDNN_STATUS_SUCCESS ||
        ws_bytes > static_cast<int64_t>(limit))
      continue;
    GraphDesc pack = NewDesc(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    void* pointers[3] = {x, w, y};
    const int64_t ids[3] = {'x', 'w', 'y'};
    Set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
    Set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, ids);
    Set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
    if (cudnnBackendFinalize(Raw(pack)) != CUDNN_STATUS_SUCCESS) continue;
    if (cudnnBackendExecute(h, Raw(plan), Raw(pack)) != CUDNN_STATUS_SUCCESS) {
      cudaGetLastError();
      continue;
    }
    ++tried;
    const double t =
        timer.SecondsPerRun([&] { cudnnBackendExecute(h, Raw(plan), Raw(pack)); }, 3, kPlanHold);
    if (t < best) {
      best = t;
      best_plan = plan;
      best_pack = pack;
      best_ws = ws_bytes;
    }
  }
  if (!best_plan) return false;
  out->keep.push_back(best_plan);
  out->keep.push_back(best_pack);
  const cudnnBackendDescriptor_t plan = Raw(best_plan), pack = Raw(best_pack);
  out->run = [=] { CK(cudnnBackendExecute(h, plan, pack)); };
  out->note = "cuDNN graph API, fastest of " + std::to_string(tried) + " engine configurations" +
              ", workspace " + std::to_string(best_ws >> 20) + " MiB";
  return true;
}

}  // namespace epochcost::profiler::cuda
