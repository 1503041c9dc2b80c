// A diagnostic, not part of the product: times one LSTM layer through cuDNN's RNN API in the
// ways a caller may set it up, to find why the profiler's fp32 rnn_fwd of the bi-LSTM (t = 100,
// 32 x 64, both directions) took 1.5x PyTorch's whole training step (docs/accuracy.md): PyTorch
// asks for the persistent small-hidden algorithm (profiler/gpu/rnn_algo.h).
// Build here: nvcc -O2 -o .devbin/rnn_probe tools/gpu/rnn_probe.cu -lcudnn
// Run there:  $ec/run .devbin/rnn_probe T MB IC HC DIRS   (after tools/gpu/measure.sh made $ec/run)
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                      \
  do {                                                                             \
    auto e_ = (x);                                                                 \
    if (static_cast<int>(e_) != 0) {                                               \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x,      \
                   static_cast<int>(e_));                                          \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

struct Variant {
  const char* name;
  cudnnRNNAlgo_t algo;
  cudnnRNNDataLayout_t layout;
  cudnnMathType_t math;
  bool states;  // pass hx/cx (PyTorch passes zeros it allocates)
};

static void* Alloc(size_t bytes) {
  void* p = nullptr;
  CK(cudaMalloc(&p, std::max<size_t>(bytes, 256)));
  CK(cudaMemset(p, 0, std::max<size_t>(bytes, 256)));
  return p;
}

int main(int argc, char** argv) {
  const int t = argc > 1 ? atoi(argv[1]) : 100, mb = argc > 2 ? atoi(argv[2]) : 32;
  const int ic = argc > 3 ? atoi(argv[3]) : 128, hc = argc > 4 ? atoi(argv[4]) : 64;
  const int dirs = argc > 5 ? atoi(argv[5]) : 2;
  cudnnHandle_t h;
  CK(cudnnCreate(&h));
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  CK(cudnnSetStream(h, stream));
  std::printf("cudnn %zu, t=%d mb=%d ic=%d hc=%d dirs=%d fp32\n", cudnnGetVersion(), t, mb, ic,
              hc, dirs);
  const Variant variants[] = {
      {"profiler (standard, seq-major unpacked, fma)", CUDNN_RNN_ALGO_STANDARD,
       CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, CUDNN_FMA_MATH, true},
      {"seq-major packed", CUDNN_RNN_ALGO_STANDARD, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
       CUDNN_FMA_MATH, true},
      {"persist static small-h (PyTorch's pick)", CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H,
       CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, CUDNN_FMA_MATH, true},
      {"default math", CUDNN_RNN_ALGO_STANDARD, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
       CUDNN_DEFAULT_MATH, true},
      {"no hx/cx", CUDNN_RNN_ALGO_STANDARD, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
       CUDNN_FMA_MATH, false},
      {"persist static", CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
       CUDNN_FMA_MATH, true},
  };
  for (const Variant& v : variants) {
    cudnnDropoutDescriptor_t dd;
    CK(cudnnCreateDropoutDescriptor(&dd));
    CK(cudnnSetDropoutDescriptor(dd, h, 0.f, nullptr, 0, 0));
    cudnnRNNDescriptor_t rnn;
    CK(cudnnCreateRNNDescriptor(&rnn));
    if (cudnnSetRNNDescriptor_v8(rnn, v.algo, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                 dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                                 CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, v.math,
                                 ic, hc, hc, 1, dd, CUDNN_RNN_PADDED_IO_DISABLED) != 0) {
      std::printf("%-46s unsupported\n", v.name);
      continue;
    }
    std::vector<int> lengths(mb, t);
    auto data = [&](int vec) {
      cudnnRNNDataDescriptor_t d;
      CK(cudnnCreateRNNDataDescriptor(&d));
      float pad = 0;
      CK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, v.layout, t, mb, vec, lengths.data(),
                                   &pad));
      return d;
    };
    cudnnRNNDataDescriptor_t xd = data(ic), yd = data(hc * dirs);
    cudnnTensorDescriptor_t hd;
    CK(cudnnCreateTensorDescriptor(&hd));
    const int hdims[3] = {dirs, mb, hc}, hstrides[3] = {mb * hc, hc, 1};
    CK(cudnnSetTensorNdDescriptor(hd, CUDNN_DATA_FLOAT, 3, hdims, hstrides));
    size_t wb = 0, work_b = 0, reserve_b = 0;
    CK(cudnnGetRNNWeightSpaceSize(h, rnn, &wb));
    if (cudnnGetRNNTempSpaceSizes(h, rnn, CUDNN_FWD_MODE_TRAINING, xd, &work_b, &reserve_b) !=
        0) {
      std::printf("%-46s unsupported (temp space)\n", v.name);
      continue;
    }
    int32_t* seq = static_cast<int32_t*>(Alloc(sizeof(int32_t) * mb));
    CK(cudaMemcpy(seq, lengths.data(), sizeof(int32_t) * mb, cudaMemcpyHostToDevice));
    void *w = Alloc(wb), *dw = Alloc(wb), *work = Alloc(work_b), *reserve = Alloc(reserve_b);
    const size_t st = sizeof(float) * dirs * mb * hc;
    void *x = Alloc(sizeof(float) * t * mb * ic), *y = Alloc(sizeof(float) * t * mb * hc * dirs);
    void *dx = Alloc(sizeof(float) * t * mb * ic), *dy = Alloc(sizeof(float) * t * mb * hc * dirs);
    void *hx = v.states ? Alloc(st) : nullptr, *cx = v.states ? Alloc(st) : nullptr;
    void *hy = Alloc(st), *cy = Alloc(st), *dhx = Alloc(st), *dcx = Alloc(st);
    auto fwd = [&] {
      CK(cudnnRNNForward(h, rnn, CUDNN_FWD_MODE_TRAINING, seq, xd, x, yd, y, hd, hx, hy, hd, cx,
                         cy, wb, w, work_b, work, reserve_b, reserve));
    };
    auto bwd = [&] {
      CK(cudnnRNNBackwardData_v8(h, rnn, seq, yd, y, dy, xd, dx, hd, hx, nullptr, dhx, hd, cx,
                                 nullptr, dcx, wb, w, work_b, work, reserve_b, reserve));
      CK(cudnnRNNBackwardWeights_v8(h, rnn, CUDNN_WGRAD_MODE_ADD, seq, xd, x, hd, hx, yd, y, wb,
                                    dw, work_b, work, reserve_b, reserve));
    };
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    // Per call: GPU time between events around `inner` calls, and host time to enqueue them.
    auto time = [&](auto&& f, int inner, double* host_ms) {
      std::vector<double> gpu, host;
      for (int r = 0; r < 15; ++r) {
        CK(cudaStreamSynchronize(stream));
        CK(cudaEventRecord(a, stream));
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < inner; ++i) f();
        const auto t1 = std::chrono::steady_clock::now();
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        gpu.push_back(ms / inner);
        host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / inner);
      }
      std::sort(gpu.begin(), gpu.end());
      std::sort(host.begin(), host.end());
      *host_ms = host[host.size() / 2];
      return gpu[gpu.size() / 2];
    };
    for (int i = 0; i < 5; ++i) fwd(), bwd();
    double hf1, hf20, hb1;
    const double f1 = time(fwd, 1, &hf1), f20 = time(fwd, 20, &hf20);
    const double b1 = time(bwd, 1, &hb1);
    std::printf("%-46s fwd %.3f ms (host %.3f), x20 %.3f ms/call (host %.3f); bwd %.3f ms (host "
                "%.3f); work %zu reserve %zu\n",
                v.name, f1, hf1, f20, hf20, b1, hb1, work_b, reserve_b);
  }
  return 0;
}
