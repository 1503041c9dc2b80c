// The CPU backend: times op signatures with the oneDNN primitives a framework calls (memory
// formats left to oneDNN, `format_tag::any`, as frameworks do), and with the project's own
// kernels for what oneDNN lacks (embedding, dropout, loss, optimizer updates).
#ifndef EPOCHCOST_PROFILER_CPU_ONEDNN_BACKEND_H_
#define EPOCHCOST_PROFILER_CPU_ONEDNN_BACKEND_H_

#include <memory>

#include "profiler/backend.h"

namespace epochcost::profiler {

std::unique_ptr<Backend> MakeCpuBackend();

// oneDNN's version, "2.6.3".
std::string OneDnnVersion();

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CPU_ONEDNN_BACKEND_H_
