#include "profiler/cpu/blas_probe.h"

#include <fcntl.h>
#include <omp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "engine/file_util.h"
#include "profiler/cpu/aten_kernels.h"
#include "profiler/timer.h"

extern char** environ;

namespace epochcost::profiler {
namespace {

constexpr const char* kProbeName = "epochcost-blas-probe";

bool IsProduct(OpKind k) {
  return k == OpKind::kInnerProductFwd || k == OpKind::kInnerProductBwdData ||
         k == OpKind::kInnerProductBwdWeights;
}

std::string ProbePath() {
  return CompanionPath("EPOCHCOST_BLAS_PROBE", kProbeName, EPOCHCOST_BLAS_PROBE_PATH);
}

// Runs `argv` with its standard output captured; returns that output, or why it could not run.
Result<std::string> RunCaptured(const std::vector<std::string>& argv, int* exit_status) {
  int fds[2];  // close-on-exec: the probe gets only its standard output's copy (dup2 clears it)
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Status::Internal(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return Status::Unsupported("cannot run " + argv[0] + " (" + std::strerror(spawned) +
                               "); set EPOCHCOST_BLAS_PROBE to the program built beside epochcost");
  }
  std::string out;
  char chunk[4096];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(chunk, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

template <typename T>
bool ParseNumber(const char* text, T* value) {
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, *value);
  return ec == std::errc() && ptr == end;
}

int ProbeError(const std::string& why) {
  std::printf("error: %s\n", why.c_str());
  return 1;
}

}  // namespace

Result<Measurement> MeasureInFreshProcess(const OpSignature& sig, const MeasureOptions& options) {
  const std::string probe = ProbePath();
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.9g", options.min_time.seconds());
  int exit_status = 0;
  Result<std::string> out =
      RunCaptured({probe, std::to_string(options.threads), std::to_string(options.warmup),
                   std::to_string(options.min_repeats), seconds, sig.ToString()},
                  &exit_status);
  if (!out.ok()) return out.status();
  std::string line = out->substr(0, out->find('\n'));
  if (exit_status != 0) {
    if (line.rfind("error: ", 0) == 0) line = line.substr(7);
    if (line.empty()) line = "exited with status " + std::to_string(exit_status);
    return Status::Internal(probe + ": " + line);
  }
  std::istringstream in(line);
  double median = 0, p10 = 0, p90 = 0, mean = 0;
  int count = 0;
  if (!(in >> median >> p10 >> p90 >> count >> mean) || count <= 0 || !(median > 0) || !(mean > 0))
    return Status::Internal(probe + ": unreadable result '" + line + "'");
  Measurement m;
  m.median = Seconds::FromSeconds(median);
  m.p10 = Seconds::FromSeconds(p10);
  m.p90 = Seconds::FromSeconds(p90);
  m.count = count;
  m.mean = Seconds::FromSeconds(mean);
  return m;
}

int BlasProbeMain(int argc, char** argv) {
  if (argc != 6)
    return ProbeError(
        "usage: epochcost-blas-probe THREADS WARMUP MIN_REPEATS MIN_SECONDS SIGNATURE");
  MeasureOptions options;
  double min_seconds = 0;
  if (!ParseNumber(argv[1], &options.threads) || options.threads <= 0)
    return ProbeError(std::string("THREADS must be a positive integer, got '") + argv[1] + "'");
  if (!ParseNumber(argv[2], &options.warmup) || options.warmup < 0)
    return ProbeError(std::string("WARMUP must be a non-negative integer, got '") + argv[2] + "'");
  if (!ParseNumber(argv[3], &options.min_repeats) || options.min_repeats <= 0)
    return ProbeError(std::string("MIN_REPEATS must be a positive integer, got '") + argv[3] + "'");
  char* end = nullptr;
  min_seconds = std::strtod(argv[4], &end);
  if (end == argv[4] || *end != '\0' || !(min_seconds >= 0) || min_seconds > 3600)
    return ProbeError(std::string("MIN_SECONDS must be 0 to 3600, got '") + argv[4] + "'");
  options.min_time = Seconds::FromSeconds(min_seconds);
  Result<OpSignature> sig = OpSignature::Parse(argv[5]);
  if (!sig.ok()) return ProbeError(sig.status().message());
  if (!IsProduct(sig->kind) || sig->dim("aten") == 0)
    return ProbeError(sig->ToString() + ": not an aten=1 inner product");
  omp_set_num_threads(options.threads);
  // The layer's three products once each, as the step runs them, before the timed one.
  for (OpKind kind :
       {OpKind::kInnerProductFwd, OpKind::kInnerProductBwdData, OpKind::kInnerProductBwdWeights}) {
    OpSignature sibling = *sig;
    sibling.kind = kind;
    Result<AtenCall> call = AtenKernel(sibling);
    if (!call.ok()) return ProbeError(call.status().message());
    if (call->before) call->before();
    call->run();
  }
  Result<AtenCall> call = AtenKernel(*sig);
  if (!call.ok()) return ProbeError(call.status().message());
  const Measurement m = TimeRuns(call->run, options, call->before);
  std::printf("%.9g %.9g %.9g %d %.9g\n", m.median.seconds(), m.p10.seconds(), m.p90.seconds(),
              m.count, m.mean.seconds());
  return 0;
}

}  // namespace epochcost::profiler
