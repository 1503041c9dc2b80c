// What `epochcost profile` and its subcommands share (cli/profile_command.cpp, and `profile step`
// in cli/profile_step_command.cpp): the options, the thread list, the profile store, a model
// lowered for profiling, and a replay of its step on this CPU.
#ifndef EPOCHCOST_CLI_PROFILE_COMMON_H_
#define EPOCHCOST_CLI_PROFILE_COMMON_H_

#include <memory>
#include <string>
#include <vector>

#include "cli/lowering_flags.h"
#include "engine/lowering.h"
#include "engine/model.h"
#include "profiler/cpu/onednn_backend.h"
#include "profiler/profile_store.h"

namespace epochcost::cli {

struct ProfileOptions {
  std::vector<std::string> models;
  std::string threads = "1";
  int64_t batch = 0;  // 0: each model's own
  std::string profiles, file, device = "cpu";
  LoweringFlags lowering;
  bool force = false;
  bool in_step = false;                  // time each op inside its model's replayed step (CPU)
  std::vector<std::string> force_kinds;  // measure these op kinds again, the rest only if missing
  bool again = false;           // measure every op stored for this device again (no models)
  std::string measured_before;  // with again: only the ops measured before this day
  // op
  std::string signature;
  double min_ms = 200;
  int repeats = 10;
  // step
  int steps = 50;
  int warmup = 5;
  int top_ops = 10;
  bool warm_operands = false;  // read each oneDNN call's buffers just before it (step, --in-step)
  bool json = false;           // step: one JSON object instead of the tables
};

// The logical processors of this machine, as its fingerprint records them (profiler::LocalCpu;
// at least 1): the most threads a CPU measurement may use.
int HardwareThreads();
// "this machine has N hardware threads", for errors.
std::string HardwareThreadsText();

// "1,2" -> {1, 2}; an error names the list unless every item is a positive integer, and names
// a count above HardwareThreads() (oversubscribed cores time the scheduler, not the kernels;
// 100,000 threads crashed the OpenMP runtime).
Result<std::vector<int>> ParseThreads(const std::string& list);

// The profile store at `path`, or at the default path when it is empty.
Result<std::unique_ptr<profiler::ProfileStore>> OpenProfiles(const std::string& path);

// A model and how `o` lowers it.
struct LoweredModel {
  Model model;
  LoweringOptions lowering;
};

// The model `spec` names, lowered as `o` asks (its own batch unless --batch) for the device kind
// `target`; `optimizer` receives the optimizer's name when given.
Result<LoweredModel> LoadForProfile(const std::string& spec, const ProfileOptions& o,
                                    LoweringTarget target, std::string* optimizer = nullptr);

// Replays `step` on this CPU at `threads` for the steps and warm-up `o` asks (profile step's
// defaults: 50 after 5, as the reference harness), timing each call too.
Result<profiler::StepReplay> Replay(const StepOps& step, int threads, const ProfileOptions& o);

// `profile step MODEL` (cli/profile_step_command.cpp).
int ReplayStep(const ProfileOptions& o);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_PROFILE_COMMON_H_
