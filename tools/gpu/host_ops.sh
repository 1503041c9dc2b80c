#!/usr/bin/env bash
# On a lent GPU machine (through the device tool; needs only PyTorch there): the host's side of
# each model's PyTorch training step, phase by phase and per top-level op
# (tools/reference/host_ops.py), with the step times as a run log. Everything lands in $OUT:
# log.txt (GPU, host CPU, versions), torch.txt (step lines), host-ops.jsonl, runs.csv.
# DEADLINE=S (seconds since the epoch) stops starting runs after it.
# Usage: MODELS="..." PRECISIONS="fp32 bf16" OUT=/tmp/out tools/gpu/host_ops.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/epochcost-host-ops}
mkdir -p "$out"
models=${MODELS:-"mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm lstm_text_generation resnet50 bert_base gpt2_small"}
precisions=${PRECISIONS:-"fp32 bf16"}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  lscpu | grep -E "^Model name|^CPU\(s\)|^Thread|MHz|^CPU family|^Model:"
  python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())"
} >>"$out/log.txt" 2>&1
for p in $precisions; do
  for m in $models; do
    if [ -n "${DEADLINE:-}" ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then
      echo "deadline: $m $p not run" >>"$out/log.txt"; continue
    fi
    echo "== $(date -u +%H:%M:%S) $m $p" >>"$out/log.txt"
    timeout 120 python3 tools/reference/torch_step.py "data/models/$m.json" --device cuda \
      --precision "$p" --steps 30 --warmup 10 --run-log "$out/runs.csv" \
      --host-ops "$out/host-ops.jsonl" >>"$out/torch.txt" 2>>"$out/log.txt"
  done
done
echo "== $(date -u +%H:%M:%S) done" >>"$out/log.txt"
