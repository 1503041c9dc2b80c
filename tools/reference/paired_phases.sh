#!/usr/bin/env bash
# Phase by phase, the replayed step against PyTorch's: for each model and thread count in turn,
# `epochcost profile step MODEL --threads T` (the lowered step replayed, its calls' means added up
# per phase) and right after it PyTorch's step timed phase by phase
# (tools/reference/torch_step.py --host-ops, glibc keeping the memory it frees as the harness's
# ALLOCATOR=keeps). One line per model, thread count and phase: the replay's milliseconds a step,
# PyTorch's, and the difference. The update is PyTorch's zero_grad and optimizer phases together,
# as the replay's update op holds both; the accumulation of each new gradient into the zeroed one
# is in the replay's update too, and in PyTorch's backward pass (AccumulateGrad), so the replay's
# update reads high and its backward pass low by that much. A check, never an input to a
# prediction.
# Usage: tools/reference/paired_phases.sh   (MODELS and THREADS override the defaults: the six
# seed models, 1 and 2 threads; EPOCHCOST names the binary, default build/cli/epochcost)
set -euo pipefail
cd "$(dirname "$0")/../.."
epochcost=${EPOCHCOST:-build/cli/epochcost}
source tools/reference/allocator_keeps.sh
seed_models="mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm
  lstm_text_generation"
phases=$(mktemp)
replay=$(mktemp)
trap 'rm -f "$phases" "$replay"' EXIT
for m in ${MODELS:-$seed_models}; do
  for t in ${THREADS:-1 2}; do
    "$epochcost" profile step "$m" --threads "$t" --json >"$replay"
    : >"$phases"  # torch_step.py appends
    /usr/bin/python3 tools/reference/torch_step.py "data/models/$m.json" --threads "$t" \
      --steps 50 --host-ops "$phases" >/dev/null 2>&1
    /usr/bin/python3 - "$m" "$t" "$phases" "$replay" <<'EOF'
import json, sys
model, threads, path, replay = sys.argv[1:]
torch = json.load(open(path))["phase_ms"]
torch = {"forward": torch["forward"], "backward": torch["backward"],
         "update": torch["zero_grad"] + torch["optimizer"]}
replayed = {p["phase"]: p["replayed_seconds"] * 1e3
            for p in json.load(open(replay))["threads"][0]["phases"]}
for phase in ("forward", "backward", "update"):
    r, q = replayed[phase], torch[phase]
    print("%-24s t=%s %-8s replay %8.3f torch %8.3f diff %+8.3f ms (%+6.1f%%)"
          % (model, threads, phase, r, q, r - q, (r - q) / q * 100))
EOF
  done
done
