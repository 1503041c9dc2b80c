#include "profiler/cpu/torch_kernels.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <span>

#include "engine/eager_optimizer.h"
#include "engine/file_util.h"
#include "profiler/cpu/torch_module.h"

namespace epochcost::profiler {
namespace {

constexpr const char* kModuleName = "libepochcost-torch.so";

struct Module {
  decltype(&epochcost_torch_make) make = nullptr;
  decltype(&epochcost_torch_prepare) prepare = nullptr;
  decltype(&epochcost_torch_run) run = nullptr;
  decltype(&epochcost_torch_free) free = nullptr;
  std::string version;
};

Result<const Module*> LoadModule() {
  static Module module;
  static Status loaded = [] {
    if (const char* off = std::getenv("EPOCHCOST_TORCH"); off && std::string(off) == "off")
      return Status::Unsupported("EPOCHCOST_TORCH=off");
    // $EPOCHCOST_TORCH_MODULE, else the module beside the running executable, else where this
    // build put it ("" where it built none).
    const std::string path =
        CompanionPath("EPOCHCOST_TORCH_MODULE", kModuleName, EPOCHCOST_TORCH_MODULE_PATH);
    if (path.empty()) return Status::Unsupported("built without libtorch-dev");
    // A module the user named and that cannot be used is an error; one this build made and that
    // is gone leaves the stand-ins to time the ops.
    const char* named = std::getenv("EPOCHCOST_TORCH_MODULE");
    auto unusable = [&](const std::string& why) {
      return named && *named ? Status::NotFound(why + "; set EPOCHCOST_TORCH_MODULE to the " +
                                                kModuleName + " built beside epochcost")
                             : Status::Unsupported(why);
    };
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      return unusable("cannot load the ATen module: " +
                      (e ? std::string(e) : path + ": not found"));
    }
    module.make = reinterpret_cast<decltype(module.make)>(dlsym(lib, "epochcost_torch_make"));
    module.prepare =
        reinterpret_cast<decltype(module.prepare)>(dlsym(lib, "epochcost_torch_prepare"));
    module.run = reinterpret_cast<decltype(module.run)>(dlsym(lib, "epochcost_torch_run"));
    module.free = reinterpret_cast<decltype(module.free)>(dlsym(lib, "epochcost_torch_free"));
    auto version =
        reinterpret_cast<decltype(&epochcost_torch_version)>(dlsym(lib, "epochcost_torch_version"));
    if (!module.make || !module.prepare || !module.run || !module.free || !version)
      return unusable(path + " lacks the epochcost_torch_* functions");
    module.version = version();
    return Status::Ok();
  }();  // thread-safe once: a static's initialiser
  if (!loaded.ok()) return loaded;
  return &module;
}

// The module's kernel for `r`, run until the last copy of its functions goes; Unsupported,
// naming `what`, where the module cannot make it.
Result<TorchCall> MakeKernel(const Module& module, const EpochcostTorchRequest& r,
                             const std::string& what) {
  char why[256] = "";
  void* kernel = module.make(&r, why, sizeof why);
  if (!kernel) return Status::Unsupported(what + ": ATen: " + why);
  const Module* m = &module;
  std::shared_ptr<void> owned(kernel, m->free);
  const bool readies =
      (r.op == kEpochcostTorchRnnFwd || r.op == kEpochcostTorchRnnBwd) && !r.inference;
  return TorchCall{
      [m, owned] { m->run(owned.get()); },
      readies ? std::function<void()>([m, owned] { m->prepare(owned.get()); }) : nullptr};
}

}  // namespace

bool TorchTimes(const OpSignature& sig) {
  if (sig.dtype != DType::kFloat32 && sig.dtype != DType::kBFloat16) return false;
  return sig.kind == OpKind::kEmbeddingFwd || sig.kind == OpKind::kEmbeddingBwd ||
         ((sig.kind == OpKind::kOptimizer || IsRecurrent(sig.kind)) && sig.dim("aten") != 0);
}

Result<TorchCall> TorchKernel(const OpSignature& sig) {
  if (!TorchTimes(sig)) return Status::Unsupported(sig.ToString() + ": not an ATen-module op");
  if (sig.dim("amp") != 0 && (!IsRecurrent(sig.kind) || sig.dtype != DType::kBFloat16))
    return Status::InvalidArgument(sig.ToString() +
                                   ": amp=1 is a recurrent layer under CPU autocast to bf16 "
                                   "(rnn_fwd or rnn_bwd, dt=bf16)");
  Result<const Module*> module = LoadModule();
  if (!module.ok()) return module.status();
  EpochcostTorchRequest r{};
  r.bf16 = sig.dtype == DType::kBFloat16;
  if (sig.kind == OpKind::kOptimizer) {
    r.op = kEpochcostTorchOptimizer;
    r.n = sig.dim("n");
    const std::span<const EagerPass> passes = EagerOptimizerPasses(sig.alg);
    if (passes.empty()) return Status::Unsupported(sig.ToString() + ": no such torch.optim update");
    r.passes = passes.data();
    r.pass_count = static_cast<int>(passes.size());
  } else if (IsRecurrent(sig.kind)) {
    if (sig.alg != "lstm" && sig.alg != "gru")
      return Status::Unsupported(sig.ToString() + ": ATen runs lstm and gru layers");
    r.op = sig.kind == OpKind::kRnnFwd ? kEpochcostTorchRnnFwd : kEpochcostTorchRnnBwd;
    r.steps = sig.dim("t");
    r.batch = sig.dim("mb");
    r.features = sig.dim("ic");
    r.hidden = sig.dim("hc");
    r.directions = sig.dim("dirs", 1);
    r.gru = sig.alg == "gru";
    r.sequence = static_cast<int>(sig.dim("seq"));
    r.input_grad = static_cast<int>(sig.dim("dx"));
    r.inference = static_cast<int>(sig.dim("infer"));
    // amp=1: CPU autocast to bf16 around fp32 tensors (CastsInsideUnderAutocast).
    r.autocast = static_cast<int>(sig.dim("amp"));
    if (r.autocast) r.bf16 = 0;
    if (r.inference && r.op == kEpochcostTorchRnnBwd)
      return Status::Unsupported(sig.ToString() + ": infer=1 is a forward pass's");
  } else {
    r.op = sig.kind == OpKind::kEmbeddingFwd ? kEpochcostTorchEmbeddingFwd
                                             : kEpochcostTorchEmbeddingBwd;
    r.rows = sig.dim("rows");
    r.vocab = sig.dim("vocab");
    r.dim = sig.dim("dim");
  }
  return MakeKernel(**module, r, sig.ToString());
}

Result<std::function<void()>> TorchAutogradChain(int64_t ops) {
  if (ops < 4) return Status::InvalidArgument("an autograd chain needs at least 4 op calls");
  Result<const Module*> module = LoadModule();
  if (!module.ok()) return module.status();
  EpochcostTorchRequest r{};
  r.op = kEpochcostTorchAutogradChain;
  r.n = ops / 2 - 1;  // n products and the sum, forward and back: 2 (n + 1) calls
  Result<TorchCall> call = MakeKernel(**module, r, "autograd chain");
  if (!call.ok()) return call.status();
  return call->run;
}

Status CheckNamedTorchModule() {
  const char* named = std::getenv("EPOCHCOST_TORCH_MODULE");
  if (!named || !*named) return Status::Ok();
  Result<const Module*> module = LoadModule();
  return !module.ok() && module.status().code() != StatusCode::kUnsupported ? module.status()
                                                                            : Status::Ok();
}

std::string TorchNote() {
  Result<const Module*> module = LoadModule();
  return module.ok() ? "ATen (libtorch " + (*module)->version + ")" : "";
}

}  // namespace epochcost::profiler
