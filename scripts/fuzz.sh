#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) in ./build-fuzz and runs each over its
# seed corpus in fuzz/corpus, for a fixed time or number of executions (docs/reliability.md).
# New inputs go to build-fuzz/corpus/NAME, crashes to build-fuzz/artifacts/. Exits non-zero if
# any fuzzer found a crash, a leak, undefined behaviour or a broken error message.
#   scripts/fuzz.sh --seconds 10 --seed 1   # every fuzzer for 10 s, mutations seeded (what CI runs)
#   scripts/fuzz.sh --runs 1000000 onnx_fuzzer
set -euo pipefail
cd "$(dirname "$0")/.."
limit=(-max_total_time=10)
seed=(-seed=0)  # 0: libFuzzer picks one
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    --seed) seed=(-seed="$2"); shift 2 ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done

./scripts/sanitize.sh --build-only
build=build-fuzz
if [ ${#names[@]} -eq 0 ]; then
  for d in fuzz/corpus/*/; do names+=("$(basename "$d")"); done
fi
mkdir -p "$build/artifacts"
failed=()
for name in "${names[@]}"; do
  [ -x "$build/fuzz/$name" ] || { echo "fuzz.sh: no fuzzer $name" >&2; exit 2; }
  mkdir -p "$build/corpus/$name"
  dict=()
  [ -f "fuzz/dict/$name.dict" ] && dict=(-dict="fuzz/dict/$name.dict")
  # Per-fuzzer flags, one line (onnx_fuzzer: -max_len=4096, as small models reach every
  # converter and run ~70x faster than the 37 KB seed).
  options=()
  [ -f "fuzz/options/$name" ] && read -r -a options <"fuzz/options/$name"
  log="$build/artifacts/$name.log"
  if "$build/fuzz/$name" "${limit[@]}" "${seed[@]}" "${dict[@]}" "${options[@]}" -rss_limit_mb=4096 -timeout=20 \
      -artifact_prefix="$build/artifacts/$name-" -print_final_stats=1 \
      "$build/corpus/$name" "fuzz/corpus/$name" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$name")
    # What libFuzzer said (the finding, its stack, the artifact's name): CI keeps only this output.
    grep -v -E '^#[0-9]+|^(INFO|MS):|^ *"' "$log" | tail -40 >&2 || true
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  printf '%-36s %-7s %12s executions  %s\n' "$name" "$status" "$runs" "$cov"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in ${failed[*]}; see $build/artifacts/" >&2
  exit 1
fi
