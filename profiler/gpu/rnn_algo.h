// Which of cuDNN's RNN algorithms PyTorch asks for, so that the GPU profiler times the kernels a
// PyTorch nn.LSTM or nn.GRU runs. PyTorch does not leave the choice to cuDNN: get_algo() in
// aten/src/ATen/native/cudnn/RNN.cpp picks one from the layer's shape and the GPU, separately for
// the forward and the backward pass. For the small hidden sizes of the zoo's LSTMs it picks the
// persistent small-hidden algorithm, one kernel a direction for the whole sequence, which ran the
// bi-LSTM's forward (t = 100, 32 x 64, fp32) in 0.25 ms on an H200 against 3.3 ms for the standard
// algorithm's per-step kernels (docs/gpu-profiler.md). Plain logic, no CUDA, so that it is tested
// on any machine.
#ifndef EPOCHCOST_PROFILER_GPU_RNN_ALGO_H_
#define EPOCHCOST_PROFILER_GPU_RNN_ALGO_H_

namespace epochcost::profiler {

// cuDNN's cudnnRNNAlgo_t values of the same names.
enum class RnnAlgo { kStandard = 0, kPersistStatic = 1, kPersistStaticSmallH = 3 };

// One unpacked, single-layer, unprojected recurrent layer as the profiler's signatures describe it.
struct RnnLayer {
  bool gru = false;  // else an LSTM
  int hidden = 0;
  int input = 0;
  int directions = 1;
  int batch = 0;
  int steps = 0;
  bool fp16 = false;  // cuDNN's CUDNN_DATA_HALF (bf16 is not)
};

// The GPU's compute capability and number of SMs.
struct GpuArch {
  int major = 0;
  int minor = 0;
  int sms = 0;
};

// PyTorch's choice (2.x, cuDNN >= 8.2.1) for the forward or the backward pass of `l` on `gpu`.
inline RnnAlgo PyTorchRnnAlgo(const RnnLayer& l, const GpuArch& gpu, bool forward) {
  // use_rnn_persist_small_h: LSTMs and GRUs of hidden <= 192 forward, <= 128 backward.
  if (gpu.major >= 6 && l.hidden <= (forward ? 192 : 128)) return RnnAlgo::kPersistStaticSmallH;
  if (!l.fp16) return RnnAlgo::kStandard;
  // use_persist_common_heuristics
  const bool common =
      l.hidden <= 1024 && l.directions == 1 && l.hidden % 128 == 0 && l.input % 128 == 0;
  if (!common) return RnnAlgo::kStandard;
  // use_persist_device_heuristics
  const int b = l.batch;
  bool device = false;
  if (gpu.major == 7) {
    device =
        gpu.minor != 5 && ((b % 16 == 0 && b != 80 && b != 112) || b == 8) &&
        ((l.steps >= 40 && b <= 128) || (l.steps >= 20 && b <= 96) || (l.steps >= 10 && b <= 32));
  } else if (gpu.major >= 8 && gpu.sms >= 98) {
    device = gpu.minor != 6 && !l.gru && b % 8 == 0 && b <= 128;
  }
  return device ? RnnAlgo::kPersistStatic : RnnAlgo::kStandard;
}

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_GPU_RNN_ALGO_H_
