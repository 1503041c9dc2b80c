// `epochcost profile op SIGNATURE`: measures one op signature (a repro line printed by
// `epochcost models ops`) on this machine's CPU.
#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "engine/op_signature.h"
#include "profiler/cpu/onednn_backend.h"

namespace epochcost::cli {
namespace {

struct OpOptions {
  std::string signature;
  int threads = 1;
  double min_ms = 200;
  int repeats = 10;
};

int MeasureOp(const OpOptions& o) {
  Result<OpSignature> sig = OpSignature::Parse(o.signature);
  if (!sig.ok()) return ReportError(sig.status().WithContext("signature"));
  if (o.threads <= 0 || o.repeats <= 0 || o.min_ms < 0)
    return ReportError(Status::InvalidArgument(
        "--threads and --repeats must be positive and --min-ms not negative"));
  std::unique_ptr<profiler::Backend> backend = profiler::MakeCpuBackend();
  profiler::MeasureOptions options{.threads = o.threads,
                                   .min_repeats = o.repeats,
                                   .min_time = Seconds::FromMilliseconds(o.min_ms)};
  Result<profiler::Measurement> m = backend->Measure(*sig, options);
  if (!m.ok()) return ReportError(m.status());
  char line[160];
  std::snprintf(line, sizeof line,
                "median %.4f ms  p10 %.4f ms  p90 %.4f ms  (%d runs, %d thread%s)\n",
                m->median.milliseconds(), m->p10.milliseconds(), m->p90.milliseconds(), m->count,
                o.threads, o.threads == 1 ? "" : "s");
  std::cout << sig->ToString() << "\n" << line;
  return kExitOk;
}

}  // namespace

void RegisterProfileCommand(CLI::App& app, CommandFn* run) {
  CLI::App* profile = app.add_subcommand("profile", "Measure op times on this machine");
  profile->require_subcommand(1);
  auto o = std::make_shared<OpOptions>();
  CLI::App* op = profile->add_subcommand("op", "Time one op signature (a line of `models ops`)");
  op->add_option("SIGNATURE", o->signature, "e.g. \"ip_fwd dt=f32 bias=1 ic=1024 mb=1024 oc=1024\"")
      ->required();
  op->add_option("--threads", o->threads, "Threads (default 1)");
  op->add_option("--min-ms", o->min_ms, "Keep repeating for at least this long (default 200)");
  op->add_option("--repeats", o->repeats, "And at least this many times (default 10)");
  op->footer(
      "Example:\n  epochcost profile op \"conv_fwd dt=f32 dh=1 dw=1 g=1 ic=32 ih=26 iw=26 kh=3 "
      "kw=3 mb=128 oc=64 oh=24 ow=24 ph=0 pw=0 sh=1 sw=1\" --threads 2");
  op->callback([run, o] { *run = [o] { return MeasureOp(*o); }; });
}

}  // namespace epochcost::cli
