// The GPU backend of a build without the CUDA toolkit or cuDNN: every call says so.
#include "profiler/gpu/gpu_backend.h"

namespace epochcost::profiler {
namespace {

Status NotBuilt() {
  return Status::Unsupported(
      "this epochcost was built without the GPU backend (CMake found no CUDA toolkit with cuDNN; "
      "rebuild with -DEPOCHCOST_CUDA=ON on a machine that has them)");
}

}  // namespace

bool GpuBackendBuilt() { return false; }
Result<std::unique_ptr<Backend>> MakeGpuBackend() { return NotBuilt(); }
Result<Fingerprint> LocalGpu() { return NotBuilt(); }
Result<std::vector<Microbenchmark>> RunGpuMicrobenchmarks(const std::string&) { return NotBuilt(); }

}  // namespace epochcost::profiler
