// What every fuzz harness checks besides "no crash, no sanitizer report": a reader that refuses
// an input says why in one line that names the input (DEVELOPERS.md: "a one-line error naming the
// file"). A violation aborts, so libFuzzer keeps the input as a crash.
#ifndef EPOCHCOST_FUZZ_FUZZ_CHECK_H_
#define EPOCHCOST_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "engine/analysis.h"
#include "engine/lowering.h"
#include "engine/model.h"
#include "engine/status.h"

namespace epochcost::fuzz {

inline void CheckError(const Status& s, std::string_view origin) {
  if (s.ok()) return;
  const std::string& m = s.message();
  if (m.empty() || m.find('\n') != std::string::npos || m.find(origin) == std::string::npos) {
    std::fprintf(stderr, "error message breaks the one-line contract: [%s]\n", m.c_str());
    std::abort();
  }
}

template <class T>
void CheckResult(const Result<T>& r, std::string_view origin) {
  if (!r.ok()) CheckError(r.status(), origin);
}

// What the model importers' harnesses do with a result: check the error contract, then analyse
// and lower what imported, as `models show` and `predict` would.
inline void CheckModel(const Result<Model>& model, std::string_view origin) {
  CheckResult(model, origin);
  if (!model.ok()) return;
  (void)Analyze(*model, {.batch = 2});
  (void)Lower(*model, {.batch = 2});
}

}  // namespace epochcost::fuzz

#endif  // EPOCHCOST_FUZZ_FUZZ_CHECK_H_
