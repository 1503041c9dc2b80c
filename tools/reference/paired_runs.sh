#!/usr/bin/env bash
# Paired runs: for each model and thread count in turn, a fresh in-step profile of its step
# (`epochcost profile MODEL --threads T --in-step --force`, into STORE), its prediction from that
# store, and right after PyTorch's median step on this machine (tools/reference/torch_step.py,
# 50 steps, glibc keeping the memory it frees as the harness's ALLOCATOR=keeps). One line each:
# predicted and measured step and the error. The profile and the run minutes apart, so that a VM
# whose speed moves through the day (docs/accuracy.md) moves both alike.
# Usage: tools/reference/paired_runs.sh STORE.sqlite   (MODELS and THREADS override the defaults:
# the six seed models, 1 and 2 threads; OPTIMIZER trains every model with that optimizer instead
# of its own; EPOCHCOST names the binary, default build/cli/epochcost)
set -euo pipefail
store=${1:?usage: paired_runs.sh STORE.sqlite}
cd "$(dirname "$0")/../.."
epochcost=${EPOCHCOST:-build/cli/epochcost}
source tools/reference/allocator_keeps.sh
optimizer=()
if [[ -n "${OPTIMIZER:-}" ]]; then optimizer=(--optimizer "$OPTIMIZER"); fi
seed_models="mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm
  lstm_text_generation"
for m in ${MODELS:-$seed_models}; do
  for t in ${THREADS:-1 2}; do
    "$epochcost" profile "$m" --threads "$t" --in-step --force --profiles "$store" \
      "${optimizer[@]}" >/dev/null
    predicted=$("$epochcost" predict "$m" --on local-cpu --threads "$t" --profiles "$store" \
      "${optimizer[@]}" --allocator keeps --json | /usr/bin/python3 -c \
      "import json, sys; print(json.load(sys.stdin)['step_seconds'] * 1000)")
    run=$(/usr/bin/python3 tools/reference/torch_step.py "data/models/$m.json" --threads "$t" \
      "${optimizer[@]}" --steps 50 2>&1)
    measured=$(grep -o "median_ms=[0-9.]*" <<<"$run" | cut -d= -f2)
    # At more than one thread, what a parallel pass cost before and after PyTorch's steps: where
    # the VM had the vCPUs then (docs/run-logs.md, "vCPU placement").
    pass=$(grep -o "parallel_pass_us=[0-9.,]*" <<<"$run" || true)
    /usr/bin/python3 -c "p, q = $predicted, $measured
print('%-26s t=%s pred %8.3f torch %8.3f err %+6.1f%% %s' % ('$m', $t, p, q, (p - q) / q * 100,
      '$pass'))"
  done
done
