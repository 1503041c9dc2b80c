#!/usr/bin/env bash
# Trains each model in PyTorch on this machine at each thread count (tools/reference/torch_step.py)
# and writes the runs as one run log, for `epochcost validate` and `epochcost calibrate`.
# Usage: tools/reference/harness_runs.sh OUT.csv   (MODELS, THREADS, STEPS override the defaults)
set -euo pipefail
out=${1:?usage: harness_runs.sh OUT.csv}
cd "$(dirname "$0")/../.."
models=${MODELS:-"mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm lstm_text_generation"}
threads=${THREADS:-"1 2"}
steps=${STEPS:-50}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for m in $models; do
  for t in $threads; do
    /usr/bin/python3 tools/reference/torch_step.py "data/models/$m.json" --threads "$t" \
      --steps "$steps" --run-log "$tmp" >&2
  done
done
mv "$tmp" "$out"
trap - EXIT
