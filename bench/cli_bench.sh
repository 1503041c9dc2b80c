#!/usr/bin/env bash
# End-to-end speed of the command-line jobs users run most: each command N times (default 10) on
# a fresh profile store and catalog (created by the first, untimed run), printing the median and
# slowest wall time and the peak resident memory. Never run by the test suite.
# Usage: bench/cli_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/cli/epochcost
runs=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export EPOCHCOST_PROFILES=$work/profiles.sqlite EPOCHCOST_CATALOG=$work/catalog.sqlite
jobs=(
  "recommend resnet50 --epochs 90 --top 15"
  "recommend mnist_mlp --epochs 10"
  "predict resnet50 --on gcp:n1-standard-8+V100"
  "predict mnist_cnn --on local-cpu"
  "serve mobilenet_v2 --qps 200 --p95-ms 100"
  "validate @published-runs"
)
printf '%-48s %10s %10s %10s\n' "command" "median s" "max s" "max RSS MB"
for job in "${jobs[@]}"; do
  read -r -a args <<<"$job"
  "$bin" "${args[@]}" >/dev/null 2>&1 || { echo "failed: epochcost $job" >&2; exit 1; }
  times=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$work/time" -f '%e %M' "$bin" "${args[@]}" >/dev/null 2>&1
    out=$(tail -1 "$work/time")
    times+=("${out% *}")
    kb=${out#* }
    (( kb > rss )) && rss=$kb
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  median=$(sed -n "$(( (runs + 1) / 2 ))p" <<<"$sorted")
  slowest=$(tail -1 <<<"$sorted")
  printf '%-48s %10s %10s %10.0f\n' "$job" "$median" "$slowest" "$(( rss / 1024 ))"
done
