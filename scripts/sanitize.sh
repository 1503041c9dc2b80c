#!/usr/bin/env bash
# The sanitizer build (docs/reliability.md): installs clang and its sanitizer and fuzzer runtimes
# (Debian 12, as root), builds everything in ./build-fuzz with AddressSanitizer and
# UndefinedBehaviorSanitizer (and the libFuzzer harnesses), and runs the whole test suite there.
# Any sanitizer report fails the test that triggered it. Without the ATen module
# (profiler/cpu/torch_module.h): libtorch is neither instrumented nor built for clang's OpenMP
# runtime, so those ops are timed by their stand-ins there.
#   scripts/sanitize.sh               # build and test
#   scripts/sanitize.sh --build-only  # build (scripts/fuzz.sh uses this)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-fuzz
./scripts/install-deps.sh clang libclang-rt-14-dev libomp-14-dev
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEPOCHCOST_FUZZ=ON -DEPOCHCOST_CUDA=OFF -DEPOCHCOST_NO_TORCH=ON
fi
cmake --build "$build" -j "$(nproc)"
[ "${1:-}" = "--build-only" ] && exit 0
# Leaks are errors too; a report stops the process so the failing test is the one that leaked.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
