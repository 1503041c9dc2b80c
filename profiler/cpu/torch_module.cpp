// libepochcost-torch.so: the ops of profiler/cpu/torch_module.h run by ATen itself, as PyTorch
// runs them on a CPU (PyTorch 1.13, as Debian ships it). Built against libtorch-dev.
#include "profiler/cpu/torch_module.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <malloc.h>
#include <omp.h>
#include <torch/version.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace {

struct Kernel {
  std::function<void()> run;
  std::function<void()> prepare;  // may be empty
};

// ATen sets the calling thread's OpenMP count to every core the first time that thread calls
// into it: let it, once, then give back the count the profiler set (omp_set_num_threads), which
// ATen's parallel loops read from then on. Not at::set_num_threads: it also resizes ATen's
// pthreadpool, which took 0.2 ms a call inside a replayed step.
void KeepProfilerThreads() {
  thread_local bool done = false;
  if (done) return;
  const int want = omp_get_max_threads();
  at::internal::lazy_init_num_threads();
  omp_set_num_threads(want);
  done = true;
}

// ATen's ops allocate their outputs and temporaries on every call. With glibc's defaults a freed
// table-sized tensor may go back to the OS and its pages fault in again on the next call, or
// not, as the heap happens to lie: ATen's dense embedding gradient over 12,800 rows took 1.75
// ms a call inside a replayed step in one process and 1.18 ms with the memory kept (Intel VM,
// 2026-11-28), Adam over 1M values 3.43 and 2.70 ms. The reference harness runs PyTorch with
// glibc keeping what it frees (ALLOCATOR=keeps) and the engine charges page faults apart
// (`--allocator`), so the module keeps it too: no trimming, and 256 MiB of headroom on each
// growth, the harness's MALLOC_TRIM_THRESHOLD_ and MALLOC_TOP_PAD_. Setting either turns off
// glibc's adaptive mmap threshold, which would leave every tensor of 128 KiB or more to its own
// mmap and munmap (Adam alone then took 3.95 ms against 2.59), so the threshold is set too, to
// the most mallopt takes (32 MiB). For the whole process, once.
void KeepFreedMemory() {
  static const bool kept = [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 256 << 20);
    return true;
  }();
  (void)kept;
}

at::TensorOptions Options(const EpochcostTorchRequest& r) {
  return at::TensorOptions().dtype(r.bf16 ? at::kBFloat16 : at::kFloat);
}

std::function<void()> Embedding(const EpochcostTorchRequest& r, bool backward) {
  at::Tensor ids = at::randint(0, r.vocab, {r.rows}, at::TensorOptions().dtype(at::kLong));
  if (!backward) {
    at::Tensor table = at::full({r.vocab, r.dim}, 0.01, Options(r));
    return [ids, table] { at::Tensor rows = at::embedding(table, ids); };
  }
  at::Tensor grad = at::full({r.rows, r.dim}, 0.01, Options(r));
  return [ids, grad, vocab = r.vocab] {
    at::Tensor g = at::embedding_dense_backward(grad, ids, vocab, -1, false);
  };
}

// y = x * c, n times over, then y.sum() and its backward pass, as a training step records ops and
// runs them back: every forward call goes through ATen's dispatcher and autograd's recording, and
// every backward call through the engine and the dispatcher again. x (four values) requires the
// gradient and c does not, so each product's backward is one product: 2 (n + 1) kernel calls,
// each over four values, so the time is the framework's, not the kernels'. x's gradient is
// dropped after each run, as zero_grad(set_to_none=True) drops it.
std::function<void()> AutogradChain(int64_t n) {
  at::Tensor x = at::full({4}, 0.5).set_requires_grad(true);
  at::Tensor c = at::full({4}, 0.999);
  return [x, c, n]() mutable {
    at::Tensor y = x;
    for (int64_t i = 0; i < n; ++i) y = y.mul(c);
    y.sum().backward();
    x.mutable_grad().reset();
  };
}

// What torch.autocast("cpu", torch.bfloat16) sets while it is entered: its dtype, autocast on,
// the nesting count, and on leaving the cache of cast weights cleared. Inside, at::lstm's own
// calls (the gate products, aten::linear) pass the dispatcher, which casts their operands to bf16
// each call; its element-wise work stays in the types those calls return.
class CpuAutocast {
 public:
  CpuAutocast()
      : was_enabled_(at::autocast::is_cpu_enabled()),
        was_dtype_(at::autocast::get_autocast_cpu_dtype()) {
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(true);
    at::autocast::increment_nesting();
  }
  ~CpuAutocast() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(was_enabled_);
    at::autocast::set_autocast_cpu_dtype(was_dtype_);
  }
  CpuAutocast(const CpuAutocast&) = delete;
  CpuAutocast& operator=(const CpuAutocast&) = delete;

 private:
  const bool was_enabled_;
  const at::ScalarType was_dtype_;
};

// A recurrent layer as nn.LSTM and nn.GRU (batch_first, one layer, both bias sets) run it in
// training: zero initial states, at::lstm or at::gru, and the output the model reads (the whole
// sequence, or each direction's last hidden state concatenated, as tools/reference/torch_step.py
// builds the zoo's layers).
struct RnnLayer {
  at::Tensor x;
  std::vector<at::Tensor> params;  // per direction: w_ih, w_hh, b_ih, b_hh
  int64_t directions, batch, hidden;
  bool gru, sequence;
  bool autocast = false;  // the forward pass under CPU autocast to bf16

  at::Tensor Forward() const {
    if (!autocast) return Run();
    CpuAutocast scope;
    return Run();
  }

  at::Tensor Run() const {
    const at::TensorOptions o = x.options().requires_grad(false);
    at::Tensor h0 = at::zeros({directions, batch, hidden}, o);
    at::Tensor y, h;
    if (gru) {
      std::tie(y, h) = at::gru(x, h0, params, true, 1, 0.0, true, directions == 2, true);
    } else {
      at::Tensor c0 = at::zeros({directions, batch, hidden}, o);
      at::Tensor c;
      std::tie(y, h, c) = at::lstm(x, {h0, c0}, params, true, 1, 0.0, true, directions == 2, true);
    }
    if (sequence) return y;
    std::vector<at::Tensor> last;
    for (int64_t d = 0; d < directions; ++d) last.push_back(h[d]);
    return at::cat(last, 1);
  }
};

// The outputs (and so the autograd graphs) of a layer's forward calls that its backward call has
// not yet run back, one queue per layer shape and type: inside a replayed step the forward kernel
// leaves its output here and the backward kernel, a kernel of its own, takes it. The kernels own
// the queue, so that it and the graphs in it go with the last of them, while libtorch is there.
using Graphs = std::deque<at::Tensor>;
std::shared_ptr<Graphs> GraphsOf(const EpochcostTorchRequest& r) {
  static std::mutex mutex;
  static std::map<std::array<int64_t, 10>, std::weak_ptr<Graphs>> queues;
  const std::array<int64_t, 10> key{r.steps, r.batch,    r.features,   r.hidden, r.directions,
                                    r.gru,   r.sequence, r.input_grad, r.bf16,   r.autocast};
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Graphs> q = queues[key].lock();
  if (!q) {
    q = std::make_shared<Graphs>();
    queues[key] = q;
  }
  return q;
}

// A forward kernel keeps at most this many graphs for the backward kernel; a forward call timed
// alone, whose graphs no backward call takes, drops them in its untimed prepare.
constexpr size_t kMaxGraphs = 16;

Kernel Rnn(const EpochcostTorchRequest& r, bool backward) {
  auto layer = std::make_shared<RnnLayer>();
  const at::TensorOptions o = Options(r);
  const int64_t gates = r.gru ? 3 : 4;
  const double bound = 1.0 / std::sqrt(static_cast<double>(r.hidden));  // nn.LSTM's init
  layer->x = at::rand({r.batch, r.steps, r.features}, o).sub_(0.5);
  if (r.input_grad) layer->x.set_requires_grad(true);
  for (int64_t d = 0; d < r.directions; ++d)
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{gates * r.hidden, r.features},
                                              {gates * r.hidden, r.hidden},
                                              {gates * r.hidden},
                                              {gates * r.hidden}})
      layer->params.push_back(
          at::rand(shape, o).mul_(2 * bound).sub_(bound).set_requires_grad(true));
  layer->directions = r.directions;
  layer->batch = r.batch;
  layer->hidden = r.hidden;
  layer->gru = r.gru != 0;
  layer->sequence = r.sequence != 0;
  layer->autocast = r.autocast != 0;
  if (r.inference) {
    for (at::Tensor& p : layer->params) p.set_requires_grad(false);
    layer->x.set_requires_grad(false);
    layer->Forward();
    return {[layer] {
              at::NoGradGuard no_grad;
              layer->Forward();
            },
            nullptr};
  }
  std::shared_ptr<Graphs> graphs = GraphsOf(r);
  if (!backward) {
    layer->Forward();  // throws here, where make reports it, if ATen cannot run the layer
    return {[layer, graphs] {
              graphs->push_back(layer->Forward());
              if (graphs->size() > kMaxGraphs) graphs->pop_front();
            },
            [graphs] { graphs->clear(); }};
  }
  auto grad = std::make_shared<at::Tensor>(at::full_like(layer->Forward(), 0.01));
  return {[layer, graphs, grad] {
            if (graphs->empty()) graphs->push_back(layer->Forward());
            at::Tensor out = std::move(graphs->back());
            graphs->pop_back();
            // zero_grad(set_to_none) leaves no gradient to add to: AccumulateGrad's sums are the
            // update's passes (engine/eager_optimizer.h).
            for (at::Tensor& p : layer->params) p.mutable_grad().reset();
            if (layer->x.requires_grad()) layer->x.mutable_grad().reset();
            out.backward(*grad);
          },
          [layer, graphs] {
            if (graphs->empty()) graphs->push_back(layer->Forward());
          }};
}

using epochcost::EagerOp;
using epochcost::EagerPass;
using epochcost::EagerTensor;
using epochcost::kEagerTensors;

// One update: each pass as torch.optim 1.13's _single_tensor_* writes it, in place where the
// destination is its first operand, else into a new tensor. The temporaries are freed after it,
// as Python frees them.
void RunPasses(const std::vector<EagerPass>& passes, std::array<at::Tensor, kEagerTensors>& t) {
  constexpr double c = 0.9;
  for (const EagerPass& p : passes) {
    at::Tensor& d = t[static_cast<int>(p.dst)];
    const at::Tensor& a = t[static_cast<int>(p.a)];
    const at::Tensor& b = t[static_cast<int>(p.b)];
    const bool in_place = p.dst == p.a;
    switch (p.op) {
      case EagerOp::kZero:
        d.zero_();
        break;
      case EagerOp::kAdd:
        if (in_place)
          d.add_(b);
        else
          d = a.add(b);
        break;
      case EagerOp::kScale:
        if (in_place)
          d.mul_(c);
        else
          d = a.mul(c);
        break;
      case EagerOp::kAddScalar:
        if (in_place)
          d.add_(1e-7);
        else
          d = a.add(1e-7);
        break;
      case EagerOp::kAxpy:
        d.add_(a, c);
        break;
      case EagerOp::kAddcmul:
        d.addcmul_(a, b, c);
        break;
      case EagerOp::kAddcdiv:
        d.addcdiv_(a, b, c);
        break;
      case EagerOp::kSqrt:
        if (in_place)
          d.sqrt_();
        else
          d = a.sqrt();
        break;
      case EagerOp::kMul:
        if (in_place)
          d.mul_(b);
        else
          d = a.mul(b);
        break;
      case EagerOp::kDiv:
        if (in_place)
          d.div_(b);
        else
          d = a.div(b);
        break;
    }
  }
  for (int k = static_cast<int>(EagerTensor::kTemp1); k < kEagerTensors; ++k) t[k] = at::Tensor();
}

}  // namespace

extern "C" void* epochcost_torch_make(const EpochcostTorchRequest* request, char* why,
                                      size_t why_size) {
  const EpochcostTorchRequest& r = *request;
  try {
    KeepFreedMemory();
    KeepProfilerThreads();
    std::function<void()> run, prepare;
    switch (r.op) {
      case kEpochcostTorchEmbeddingFwd:
      case kEpochcostTorchEmbeddingBwd:
        if (r.rows <= 0 || r.vocab <= 0 || r.dim <= 0) {
          std::snprintf(why, why_size, "an embedding needs positive rows, vocab and dim");
          return nullptr;
        }
        run = Embedding(r, r.op == kEpochcostTorchEmbeddingBwd);
        break;
      case kEpochcostTorchOptimizer: {
        if (r.n <= 0 || r.pass_count <= 0) {
          std::snprintf(why, why_size, "an update needs a positive n and passes");
          return nullptr;
        }
        std::vector<EagerPass> passes(r.passes, r.passes + r.pass_count);
        auto t = std::make_shared<std::array<at::Tensor, kEagerTensors>>();
        for (int k = 0; k < static_cast<int>(EagerTensor::kTemp1); ++k)
          (*t)[k] = at::full({r.n}, 0.5, Options(r));
        run = [passes, t] { RunPasses(passes, *t); };
        break;
      }
      case kEpochcostTorchAutogradChain:
        if (r.n <= 0) {
          std::snprintf(why, why_size, "a chain needs a positive n");
          return nullptr;
        }
        run = AutogradChain(r.n);
        break;
      case kEpochcostTorchRnnFwd:
      case kEpochcostTorchRnnBwd: {
        if (r.steps <= 0 || r.batch <= 0 || r.features <= 0 || r.hidden <= 0 ||
            (r.directions != 1 && r.directions != 2)) {
          std::snprintf(why, why_size,
                        "a recurrent layer needs positive steps, batch, features and hidden "
                        "sizes, and 1 or 2 directions");
          return nullptr;
        }
        Kernel k = Rnn(r, r.op == kEpochcostTorchRnnBwd);
        run = std::move(k.run);
        prepare = std::move(k.prepare);
        break;
      }
      default:
        std::snprintf(why, why_size, "unknown op %d", r.op);
        return nullptr;
    }
    return new Kernel{[run] {
                        KeepProfilerThreads();
                        run();
                      },
                      prepare ? std::function<void()>([prepare] {
                        KeepProfilerThreads();
                        prepare();
                      })
                              : nullptr};
  } catch (const std::exception& e) {
    std::snprintf(why, why_size, "%s", e.what());
    return nullptr;
  }
}

extern "C" void epochcost_torch_prepare(void* kernel) {
  const Kernel* k = static_cast<Kernel*>(kernel);
  if (k->prepare) k->prepare();
}

extern "C" void epochcost_torch_run(void* kernel) { static_cast<Kernel*>(kernel)->run(); }

extern "C" void epochcost_torch_free(void* kernel) { delete static_cast<Kernel*>(kernel); }

extern "C" const char* epochcost_torch_version() { return TORCH_VERSION; }
