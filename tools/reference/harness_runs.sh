#!/usr/bin/env bash
# Trains each model in PyTorch on this machine at each thread count (tools/reference/torch_step.py)
# and writes the runs as one run log, for `epochcost validate` and `epochcost calibrate`.
# Usage: tools/reference/harness_runs.sh OUT.csv   (MODELS, THREADS, STEPS, PRECISION override the
# defaults: the six seed models, 1 and 2 threads, 50 steps, fp32; AMP=1 trains under autocast to
# PRECISION, fp32 weights: the run log's precision is then amp or amp-bf16)
#
# EPOCH_FROM=mean writes each run at its mean step times the steps of an epoch (what an epoch
# takes) instead of its median step (the default, issue 3's reference; at 2 threads on a 2-vCPU VM
# the two differ by up to 2x, docs/accuracy.md "The whole step replayed").
#
# ALLOCATOR=keeps runs every step with glibc's malloc told to keep the memory it frees
# (MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_ and MALLOC_TOP_PAD_ raised, as
# data/validation/dev-cpu-pytorch-zen5-keep.csv was measured); the run log's allocator column
# then reads keeps. Default: the environment's allocator as it is.
#
# ROUNDS=N (default 1) measures every run N times, round after round over all of them, and writes
# each at the median of its rounds (tools/reference/median_of_rounds.py; its source lists every
# round's time): on a shared VM one run can be 10-30% off the next (docs/accuracy.md).
set -euo pipefail
out=${1:?usage: harness_runs.sh OUT.csv}
cd "$(dirname "$0")/../.."
models=${MODELS:-"mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm lstm_text_generation"}
threads=${THREADS:-"1 2"}
steps=${STEPS:-50}
precision=${PRECISION:-fp32}
amp=()
[ "${AMP:-0}" = 1 ] && amp=(--amp)
rounds=${ROUNDS:-1}
case ${ALLOCATOR:-} in
  keeps) source tools/reference/allocator_keeps.sh ;;
  "") ;;
  *) echo "ALLOCATOR=$ALLOCATOR: only keeps (or unset) is known" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 1; r <= rounds; r++)); do
  for m in $models; do
    for t in $threads; do
      /usr/bin/python3 tools/reference/torch_step.py "data/models/$m.json" --threads "$t" \
        --steps "$steps" --precision "$precision" "${amp[@]}" --epoch-from "${EPOCH_FROM:-median}" \
        --run-log "$tmp/round$r.csv" >&2
    done
  done
done
if ((rounds == 1)); then
  mv "$tmp/round1.csv" "$out"
else
  /usr/bin/python3 tools/reference/median_of_rounds.py "$tmp"/round*.csv >"$tmp/merged.csv"
  mv "$tmp/merged.csv" "$out"
fi
