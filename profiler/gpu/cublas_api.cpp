#include "profiler/gpu/cublas_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace epochcost::profiler::cuda {
namespace {

CublasApi api;
Status loaded = Status::Internal("cuBLAS not loaded");

template <typename Fn>
bool Bind(void* lib, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return *fn != nullptr;
}

Status Load() {
  void* lib = nullptr;
  std::string why;
  for (const char* path : {EPOCHCOST_CUBLAS_SONAME, EPOCHCOST_CUBLAS_PATH}) {
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* e = dlerror();
    why = e ? e : "not found";
  }
  if (!lib)
    return Status::Unsupported(std::string("cannot load cuBLAS (") + EPOCHCOST_CUBLAS_SONAME +
                               "): " + why);
  const bool ok = Bind(lib, "cublasCreate_v2", &api.cublasCreate_v2) &&
                  Bind(lib, "cublasDestroy_v2", &api.cublasDestroy_v2) &&
                  Bind(lib, "cublasSetStream_v2", &api.cublasSetStream_v2) &&
                  Bind(lib, "cublasGetVersion_v2", &api.cublasGetVersion_v2) &&
                  Bind(lib, "cublasGemmEx", &api.cublasGemmEx) &&
                  Bind(lib, "cublasGemmStridedBatchedEx", &api.cublasGemmStridedBatchedEx) &&
                  Bind(lib, "cublasGetStatusString", &api.cublasGetStatusString);
  if (!ok)
    return Status::Unsupported(std::string(EPOCHCOST_CUBLAS_SONAME) +
                               " lacks a cuBLAS call epochcost uses");
  return Status::Ok();
}

}  // namespace

Result<const CublasApi*> LoadCublas() {
  static std::once_flag once;
  std::call_once(once, [] { loaded = Load(); });
  if (!loaded.ok()) return loaded;
  return &api;
}

const CublasApi& Blas() { return api; }

}  // namespace epochcost::profiler::cuda
