#!/usr/bin/env bash
# Whether a 2-thread PyTorch step's speed follows where the VM's two vCPUs are: N times (default
# 60), the core-to-core round trip (tools/reference/core_round_trip.c), imdb_fasttext's median
# step at 2 threads (torch_step.py, 100 steps, glibc keeping its memory), and the round trip
# again, one line each with the time (UTC). docs/accuracy.md, "Near and far vCPUs". Not used by
# the product. Usage: tools/reference/near_far_monitor.sh [N]
set -euo pipefail
n=${1:-60}
if [[ ! $n =~ ^[1-9][0-9]*$ ]]; then
  echo "near_far_monitor.sh: N must be a positive whole number, got '$n'" >&2
  exit 2
fi
cd "$(dirname "$0")/../.."
if ! command -v gcc >/dev/null; then
  echo "near_far_monitor.sh: needs gcc (apt-get install gcc)" >&2
  exit 2
fi
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
gcc -O2 -pthread tools/reference/core_round_trip.c -o "$bin"
source tools/reference/allocator_keeps.sh
for ((i = 1; i <= n; i++)); do
  before=$("$bin")
  step=$(/usr/bin/python3 tools/reference/torch_step.py data/models/imdb_fasttext.json --threads 2 \
    --steps 100 | grep -o "median_ms=[0-9.]*" | cut -d= -f2)
  after=$("$bin")
  echo "$(date -u +%T) pingpong_before_ns=$before fasttext_t2_ms=$step pingpong_after_ns=$after"
done
